/* Growable arrays of the library's own (host) data. */
#include <stdlib.h>

#include "internal.h"
#include "base/array.h"

void *ju_reserve_one(void *items, size_t *cap, size_t count, size_t item_size, size_t first_cap)
{
    size_t ncap;
    void *grown;
    if (count < *cap)
        return items;
    ncap = *cap ? *cap * 2 : first_cap;
    if (ncap < *cap || ncap > SIZE_MAX / item_size)
        return NULL;
    grown = realloc(items, ncap * item_size);
    if (grown)
        *cap = ncap;
    return grown;
}
