/* That a DWARF file has no struct, union or typedef of a given name, said
 * without walking its units: the type index (dwarf_type_index.c) walks
 * units only until a name turns up, and a name no unit has (3.11 has no
 * _PyExecutorObject) would otherwise cost a walk of every unit.
 *
 * The proof: every abbreviation of such a tag takes its name from its own
 * DW_AT_name, in a form whose bytes lie in .debug_info (DW_FORM_string),
 * .debug_str (strp, strx) or .debug_line_str (line_strp), never through
 * DW_AT_abstract_origin or DW_AT_specification; every unit's abbreviation
 * table is one of those parsed; and "name\0" occurs in none of the three
 * sections. Anything else (another form, a table that does not parse, a
 * section libelf left compressed) and nothing is said. */
#ifndef JU_DWARF_NAME_ABSENCE_H
#define JU_DWARF_NAME_ABSENCE_H

#include <elfutils/libdw.h>

#include "internal.h"

struct ju_name_absence {
    int state; /* 0: not looked at yet, 1: names are in the sections, -1: no proof */
    const uint8_t *sections[3];
    size_t sizes[3];
    int abbrev_read; /* abbrev: .debug_abbrev, when readable (else size 0) */
    const uint8_t *abbrev;
    size_t abbrev_size;
};

/* 1 when no unit of `dwarf` (those dwarf_nextcu reaches) has a DIE of
 * those tags named `name`, 0 when that cannot be said; `memo` starts
 * zeroed and keeps what a first call learns of the file. */
JU_HIDDEN int ju_dwarf_name_absent(Dwarf *dwarf, struct ju_name_absence *memo, const char *name);
/* 0 when the abbreviation table at offset `table` of .debug_abbrev has no
 * abbreviation of a struct, union, typedef or imported-unit tag, so that
 * no DIE of a unit using it is one (an LTO build's `<artificial>` units:
 * half of Debian's python3.11 .debug_info); 1 otherwise, and when that
 * cannot be said. `memo` as above. */
JU_HIDDEN int ju_dwarf_table_may_name_types(Dwarf *dwarf, struct ju_name_absence *memo,
                                            Dwarf_Off table);

#endif
