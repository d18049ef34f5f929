/* FNV-1a, 64 bits: the library's one byte-string hash (the layout cache's
 * checksum, the DWARF type-name index). */
#include "internal.h"
#include "base/hash.h"

uint64_t ju_fnv1a(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i;
    for (i = 0; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}
