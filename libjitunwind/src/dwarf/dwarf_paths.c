/* A member found by the first of its alternative paths (dwarf_paths.h). */
#include <string.h>

#include "dwarf/dwarf_paths.h"

int ju_dwarf_first_path(jitunwind_dwarf_types *types, const char *type, const char *paths,
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
