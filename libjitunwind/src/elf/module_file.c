/* One opened module file (modules_internal.h): its ELF, and what is read
 * of it at first need: CFI handles, symbol indexes, the separate debug
 * file and the DWARF holding .debug_info. Module files are host files
 * (not target memory); a file stays open as long as a module uses it. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "elf/modules_internal.h"
#include "elf/elf.h"
#include "elf/symbol_index.h"

int ju_module_file_open(const char *path, struct ju_module_file **out)
{
    struct ju_module_file *f = calloc(1, sizeof *f);
    int rc;
    *out = NULL;
    if (!f)
        return JITUNWIND_ENOMEM;
    f->sep_fd = -1;
    if ((rc = ju_elf_open(path, &f->fd, &f->elf)) < 0) {
        free(f);
        return rc;
    }
    if (!(f->path = strdup(path))) {
        ju_elf_close(f->fd, f->elf);
        free(f);
        return JITUNWIND_ENOMEM;
    }
    f->refs = 1;
    *out = f;
    return 0;
}

void ju_module_file_close(struct ju_module_file *f)
{
    if (!f)
        return;
    if (f->eh_cfi) /* from dwarf_getcfi_elf: ours to end (the .debug_frame one is the Dwarf's) */
        dwarf_cfi_end(f->eh_cfi);
    if (f->dwarf)
        dwarf_end(f->dwarf);
    while (f->n_symbols)
        ju_symbol_index_free(&f->symbols[--f->n_symbols]);
    free(f->symbols);
    if (f->sep_dwarf)
        dwarf_end(f->sep_dwarf);
    if (f->sep_elf)
        ju_elf_close(f->sep_fd, f->sep_elf);
    ju_elf_close(f->fd, f->elf);
    free(f->path);
    free(f);
}

Dwarf_CFI *ju_module_cfi(struct ju_module *m, int debug_frame)
{
    struct ju_module_file *f = m->file;
    if (!debug_frame) {
        if (!f->eh_tried) {
            f->eh_tried = 1;
            f->eh_cfi = dwarf_getcfi_elf(f->elf);
        }
        return f->eh_cfi;
    }
    if (!f->debug_tried) {
        f->debug_tried = 1;
        f->dwarf = dwarf_begin_elf(f->elf, DWARF_C_READ, NULL);
        f->debug_cfi = f->dwarf ? dwarf_getcfi(f->dwarf) : NULL;
    }
    return f->debug_cfi;
}

/* The file's separate debug file (debug_files.c), or NULL. Tried once. */
static Elf *separate_debug_elf(struct ju_module_file *f)
{
    char path[4096];
    if (f->sep_tried)
        return f->sep_elf;
    f->sep_tried = 1;
    if (ju_debug_file_find(f->elf, f->path, 0, path, sizeof path, NULL, 0) < 0)
        return NULL;
    if (ju_elf_open(path, &f->sep_fd, &f->sep_elf) < 0) {
        f->sep_elf = NULL;
        f->sep_fd = -1;
    }
    return f->sep_elf;
}

/* Index every table of `type` in `elf` after the file's others. */
static int index_tables(struct ju_module_file *f, Elf *elf, Elf64_Word type)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        struct ju_symbol_index *grown;
        int rc;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != type)
            continue;
        grown = ju_reserve_one(f->symbols, &f->symbols_cap, f->n_symbols, sizeof *f->symbols, 4);
        if (!grown)
            return JITUNWIND_ENOMEM;
        f->symbols = grown;
        if ((rc = ju_symbol_index_build(elf, scn, &f->symbols[f->n_symbols])) < 0)
            return rc;
        f->n_symbols++;
    }
    return 0;
}

/* The file's tables in the order they are searched: .symtab, .dynsym,
 * then, for a file stripped of what an address needs (Debian's
 * python3.11 keeps its static functions' symbols in the separate debug
 * file, at the same virtual addresses), that file's .symtab. Each table
 * is indexed when first needed. */
int ju_module_file_symbol(struct ju_module_file *f, uint64_t vaddr, char *buf, size_t len,
                          uint64_t *off)
{
    size_t i;
    int rc;
    if (!f->symbols_indexed) {
        f->symbols_indexed = 1;
        if ((rc = index_tables(f, f->elf, SHT_SYMTAB)) < 0 ||
            (rc = index_tables(f, f->elf, SHT_DYNSYM)) < 0)
            return rc;
    }
    for (i = 0; i < f->n_symbols; i++)
        if (ju_symbol_index_find(&f->symbols[i], vaddr, buf, len, off))
            return 0;
    if (f->sep_indexed || !separate_debug_elf(f))
        return JITUNWIND_ENOTFOUND;
    f->sep_indexed = 1;
    if ((rc = index_tables(f, f->sep_elf, SHT_SYMTAB)) < 0)
        return rc;
    for (; i < f->n_symbols; i++)
        if (ju_symbol_index_find(&f->symbols[i], vaddr, buf, len, off))
            return 0;
    return JITUNWIND_ENOTFOUND;
}

/* Whether DW has at least one compile unit. */
static int has_units(Dwarf *dw)
{
    Dwarf_Off next;
    size_t header;
    return dw && dwarf_nextcu(dw, 0, &next, &header, NULL, NULL, NULL) == 0;
}

Dwarf *ju_module_debug_info(struct ju_module *m)
{
    struct ju_module_file *f = m->file;
    Elf *sep;
    if (f->info_tried)
        return f->info;
    f->info_tried = 1;
    (void)ju_module_cfi(m, 1); /* opens the file's own DWARF */
    if (has_units(f->dwarf))
        return f->info = f->dwarf;
    if ((sep = separate_debug_elf(f)) != NULL) {
        f->sep_dwarf = dwarf_begin_elf(sep, DWARF_C_READ, NULL);
        if (has_units(f->sep_dwarf))
            f->info = f->sep_dwarf;
    }
    return f->info;
}
