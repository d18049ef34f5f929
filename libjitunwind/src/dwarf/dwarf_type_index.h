/* Where each struct, union or typedef name is first defined in a DWARF file:
 * one pass over the units' top-level DIEs (and over the partial units they
 * import, dwz), so that the many type lookups a layout needs cost one scan,
 * not one scan each (a separate debug file of a distribution's interpreter
 * has hundreds of units, and its core types sit half-way in). The pass
 * goes only as far as the names asked for: a name not indexed yet is
 * looked for in the units after the last one indexed, unless the file
 * provably lacks it (dwarf_name_absence.h), when none is walked (on
 * Debian's python3.11, the layout's names are all in its first 110 of 253
 * units).
 *
 * An entry is the first DIE in unit order with that name, the tag of a
 * struct, union or typedef, and no DW_AT_declaration: the cheap part of
 * what dwarf_types.c asks of a type. The index stops, and says it is
 * incomplete, at its limits; the caller then searches the units itself. */
#ifndef JU_DWARF_TYPE_INDEX_H
#define JU_DWARF_TYPE_INDEX_H

#include <elfutils/libdw.h>

#define JU_TYPE_INDEX_MAX_UNITS (1u << 20)
#define JU_TYPE_INDEX_MAX_ENTRIES (1u << 22)

struct ju_type_index;

/* An index of `dwarf`, no unit indexed yet: 0, or ENOMEM. */
JU_HIDDEN int ju_type_index_new(Dwarf *dwarf, struct ju_type_index **out);
/* 1 with the entry's file and DIE offset when `name` has one, 0 when no
 * unit defines it, or ENOMEM / ELIMIT when the units it had to index went
 * past a limit (the index is then of no more use). */
JU_HIDDEN int ju_type_index_find(struct ju_type_index *index, const char *name, Dwarf **owner,
                                 Dwarf_Off *die);
JU_HIDDEN void ju_type_index_free(struct ju_type_index *index);

#endif
