/* Internal view of a module set, shared by modules.c and cfi.c. */
#ifndef JITUNWIND_MODULES_INTERNAL_H
#define JITUNWIND_MODULES_INTERNAL_H

#include <elfutils/libdw.h>
#include <libelf.h>

#include "internal.h"
#include "jitunwind/modules.h"
#include "elf/symbol_index.h"

struct ju_module {
    char *path;
    int fd;
    Elf *elf;
    Dwarf *dwarf;         /* for .debug_frame; opened on first use */
    Dwarf_CFI *eh_cfi;    /* .eh_frame; owned by the Elf */
    Dwarf_CFI *debug_cfi; /* .debug_frame; owned by the Dwarf */
    uint64_t start, end, bias;
    int bias_known;
    int eh_tried, debug_tried;
    /* The separate debug file (by build id), for the symbols a stripped
     * file keeps only there; opened on the first symbol it lacks. */
    int sep_fd;
    Elf *sep_elf;
    int sep_tried;
    /* The symbol tables indexed so far, in the order they are searched;
     * the separate debug file's are indexed after the module's own. */
    struct ju_symbol_index *symbols;
    size_t n_symbols, symbols_cap;
    int symbols_indexed, sep_indexed;
    Dwarf *info;          /* the .debug_info holder (own or separate); opened on first use */
    Dwarf *sep_dwarf;     /* the separate debug file's, when that holds it */
    int info_tried;
};

/* The module containing addr, or NULL. */
JU_HIDDEN struct ju_module *ju_modules_lookup(jitunwind_modules *mods, uint64_t addr);
/* The same, and its index in the set (*index), which stays its own: a
 * set's modules are only ever added. */
JU_HIDDEN struct ju_module *ju_modules_lookup_at(jitunwind_modules *mods, uint64_t addr,
                                                 size_t *index);
/* The set's cache of CFI rows (unwind/cfi_row_cache.h), made at first
 * use; NULL when out of memory or turned off. */
struct ju_cfi_row_cache;
JU_HIDDEN struct ju_cfi_row_cache *ju_modules_row_cache(jitunwind_modules *mods);
/* Turn the set's row cache off (0) or back on: tests compare the steps
 * of both. */
JU_HIDDEN void ju_modules_use_row_cache(jitunwind_modules *mods, int on);
/* The DWARF holding the module's .debug_info (its own, else its separate
 * debug file's), or NULL. */
JU_HIDDEN Dwarf *ju_module_debug_info(struct ju_module *m);
/* The module's .eh_frame (debug_frame == 0) or .debug_frame CFI, or NULL. */
JU_HIDDEN Dwarf_CFI *ju_module_cfi(struct ju_module *m, int debug_frame);

#endif
