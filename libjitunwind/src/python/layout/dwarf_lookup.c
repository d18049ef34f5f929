/* The one DWARF lookup the layouts share: a member found by the first of
 * its alternative paths (CPython renames members between versions), its
 * bit offset for bit-fields, or a struct's size; and the value of a field
 * by its row. */
#include "python/layout/layout.h"

int ju_py_dwarf_lookup(jitunwind_dwarf_types *types, const char *type, const char *paths,
                       int bits, uint64_t *value)
{
    char path[128];
    const char *p = paths;
    if (!p)
        return jitunwind_dwarf_type_size(types, type, value);
    while (*p) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len < sizeof path) {
            memcpy(path, p, len);
            path[len] = 0;
            if ((bits ? jitunwind_dwarf_member_bit_offset(types, type, path, value)
                      : jitunwind_dwarf_member_offset(types, type, path, value)) == 0)
                return 0;
        }
        if (!bar)
            break;
        p = bar + 1;
    }
    return JITUNWIND_ENOTFOUND;
}

int ju_py_dwarf_field(jitunwind_dwarf_types *types, const struct ju_py_field_desc *f,
                      uint32_t base, uint64_t *value)
{
    if (f->kind == JU_PYK_COPY ||
        ju_py_dwarf_lookup(types, ju_py_holders[f->holder].type,
                           f->kind == JU_PYK_SIZE_OF ? NULL : f->paths, f->kind == JU_PYK_BITS,
                           value) < 0 ||
        *value < base || *value >= JU_PY_NONE)
        return JITUNWIND_ENOTFOUND;
    *value -= base;
    return 0;
}
