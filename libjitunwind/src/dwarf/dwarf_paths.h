/* A member looked up by the first of its alternative paths: a program
 * that reads several versions of a struct (CPython renames members between
 * versions) names a member by every path versions gave it. */
#ifndef JU_DWARF_PATHS_H
#define JU_DWARF_PATHS_H

#include <stdint.h>

#include "internal.h"
#include "jitunwind/dwarf.h"

/* The first of `paths` ('|' between alternatives; each as
 * jitunwind_dwarf_member_offset takes it, at most 127 bytes) that `type`
 * has, as a byte offset (a bit offset when `bits`), or sizeof(type) when
 * paths is NULL: 0, or ENOTFOUND. */
JU_HIDDEN int ju_dwarf_first_path(jitunwind_dwarf_types *types, const char *type,
                                  const char *paths, int bits, uint64_t *value);

#endif
