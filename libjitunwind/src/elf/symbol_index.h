/* One ELF symbol table's functions sorted by address, for naming many
 * addresses (a sampler names the innermost frame of every sample, at a
 * new address each time): a lookup is a binary search, not a pass over
 * the table. Not installed. */
#ifndef JITUNWIND_ELF_SYMBOL_INDEX_H
#define JITUNWIND_ELF_SYMBOL_INDEX_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

struct ju_symbol_entry;
struct ju_symbol_index {
    Elf *elf;                       /* the file the names are read from */
    size_t strtab;                  /* the section index of the names */
    struct ju_symbol_entry *entries;
    size_t count;
};

/* Index the defined, named STT_FUNC symbols of table `scn` of `elf`:
 * 0, or ENOMEM. A table libelf cannot read indexes as empty. Free with
 * ju_symbol_index_free (a zeroed index is empty and may be freed). */
JU_HIDDEN int ju_symbol_index_build(Elf *elf, Elf_Scn *scn, struct ju_symbol_index *out);
JU_HIDDEN void ju_symbol_index_free(struct ju_symbol_index *ix);
/* The function containing `vaddr` (a size of 0 counting as 1): of those,
 * the one with the highest value, and of those the first in the table.
 * Its name into buf[len] and vaddr's offset in it into *offset: 1, or 0
 * when none contains vaddr. */
JU_HIDDEN int ju_symbol_index_find(const struct ju_symbol_index *ix, uint64_t vaddr, char *buf,
                                   size_t len, uint64_t *offset);

#endif
