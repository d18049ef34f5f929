/* Internal view of a module set, shared by modules.c, module_file.c,
 * module_files.c and cfi.c. */
#ifndef JITUNWIND_MODULES_INTERNAL_H
#define JITUNWIND_MODULES_INTERNAL_H

#include <elfutils/libdw.h>
#include <libelf.h>

#include "internal.h"
#include "base/host_files.h"
#include "jitunwind/modules.h"
#include "elf/symbol_index.h"

/* One opened ELF file and what has been read of it (module_file.c), used
 * by every module that maps it: by one set, or by the sets sharing a
 * jitunwind_module_files (module_files.c). */
struct ju_module_file {
    char *path;           /* where it was opened */
    int fd;
    Elf *elf;
    Dwarf *dwarf;         /* for .debug_frame; opened on first use */
    Dwarf_CFI *eh_cfi;    /* .eh_frame; owned by the Elf */
    Dwarf_CFI *debug_cfi; /* .debug_frame; owned by the Dwarf */
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
    /* Sharing (module_files.c): the pool holding it (NULL: one set's
     * own), its identity there, the modules using it, and when the last
     * one let it go (the pool's clock). */
    struct jitunwind_module_files *pool;
    struct ju_file_id id;
    unsigned refs;
    unsigned long long released;
};

/* A file as one set maps it. */
struct ju_module {
    char *path;           /* as the set was told it */
    struct ju_module_file *file;
    uint64_t start, end, bias;
    int bias_known;
};

/* module_file.c: the ELF file at `path` opened into a new file (refs 1,
 * no pool): 0 with *out, or EIO / EELF (ju_elf_open's), ENOMEM, with
 * nothing open. ju_module_file_close closes what it read and frees it. */
JU_HIDDEN int ju_module_file_open(const char *path, struct ju_module_file **out);
JU_HIDDEN void ju_module_file_close(struct ju_module_file *f);
/* The function symbol containing `vaddr` (jitunwind_modules_symbolize's
 * contract), its tables indexed at first need. */
JU_HIDDEN int ju_module_file_symbol(struct ju_module_file *f, uint64_t vaddr, char *buf,
                                    size_t len, uint64_t *off);

/* module_files.c: the file at `path` for a set sharing `pool` (NULL: its
 * own): the pool's when it holds the same file, else opened (and kept
 * there while it has room). 0 with *out, or ju_module_file_open's
 * failure. ju_module_file_put lets it go: closed once no set uses it and
 * no pool keeps it. */
JU_HIDDEN int ju_module_file_get(struct jitunwind_module_files *pool, const char *path,
                                 struct ju_module_file **out);
JU_HIDDEN void ju_module_file_put(struct ju_module_file *f);
/* A set's hold on a pool (jitunwind_modules_share_files): the pool lives
 * while its owner or a set or a file holds it. */
JU_HIDDEN void ju_module_files_hold(struct jitunwind_module_files *pool);
JU_HIDDEN void ju_module_files_drop(struct jitunwind_module_files *pool);

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
