/* Growable arrays of the library's own (host) data (array.c). Not
 * installed. */
#ifndef JITUNWIND_BASE_ARRAY_H
#define JITUNWIND_BASE_ARRAY_H

#include <stddef.h>

#include "base/status.h"

/* Make room for one more item in a growable array (`items` holding
 * `count` of *cap items of `item_size` bytes), doubling the capacity from
 * `first_cap`: returns the array to use from now on, or NULL when out of
 * memory (the old array and *cap are then unchanged). */
JU_HIDDEN void *ju_reserve_one(void *items, size_t *cap, size_t count, size_t item_size,
                               size_t first_cap);

#endif
