/* The bucket-hash lookup index of range_index.h. */
#include <stdlib.h>

#include "ranges/range_index.h"

#define GAP_SAMPLES 1023u /* neighbour distances sampled for the bucket size */
#define MAX_ENTRIES(n) (8u * (uint64_t)(n)) /* table entries allowed for n ranges */
#define MAX_LONG(n) ((n) / 64u)             /* long ranges allowed: outliers only */

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static unsigned floor_log2(uint64_t x)
{
    return x ? 63u - (unsigned)__builtin_clzll(x) : 0u;
}

/* Table entries for ranges[0..n) with buckets of 2^shift bytes: every
 * bucket of a range spanning at most SPREAD of them, the two end buckets of
 * a longer one; *n_long gets the number of longer ones. */
static uint64_t count_entries(const struct jitunwind_range *r, size_t n, uint64_t lo,
                              unsigned shift, size_t *n_long)
{
    uint64_t entries = 0;
    size_t i;
    *n_long = 0;
    for (i = 0; i < n; i++) {
        uint64_t buckets = ((r[i].end - 1 - lo) >> shift) - ((r[i].start - lo) >> shift) + 1;
        if (buckets <= JU_RANGE_INDEX_SPREAD) {
            entries += buckets;
        } else {
            entries += 2;
            ++*n_long;
        }
    }
    return entries;
}

/* log2 of the bucket size: the finest that keeps the table within
 * MAX_ENTRIES, long ranges outliers (MAX_LONG) and every bucket number
 * within the table's 32-bit keys. The search starts at the distance between
 * neighbouring starts that 1/16 of the pairs undercut (the size of the only
 * range when there is one), rounded down: below it most buckets would hold
 * no start. With ranges of several scales (trampolines 64 bytes apart next
 * to executors of a few pages) the buckets grow until the larger ranges fit
 * the budget, and a bucket of the dense ones holds a few starts. */
static unsigned choose_shift(const struct jitunwind_range *r, size_t n, uint64_t span)
{
    uint64_t gaps[GAP_SAMPLES];
    size_t k, m = n - 1 < GAP_SAMPLES ? n - 1 : GAP_SAMPLES;
    unsigned s;
    if (m == 0) {
        s = floor_log2(r[0].end - r[0].start);
    } else {
        for (k = 0; k < m; k++) { /* evenly spread pairs (i, i + 1) */
            size_t i = (size_t)((unsigned __int128)k * (n - 1) / m);
            gaps[k] = r[i + 1].start - r[i].start;
        }
        qsort(gaps, m, sizeof *gaps, by_value);
        s = floor_log2(gaps[m / 16]);
    }
    for (;;) {
        size_t n_long;
        if (((span - 1) >> s) <= UINT32_MAX - 2u &&
            count_entries(r, n, r[0].start, s, &n_long) <= MAX_ENTRIES(n) &&
            n_long <= MAX_LONG(n))
            return s;
        s++;
    }
}

/* Insert unless present: buckets arrive in address order, so a bucket seen
 * again keeps the earlier (first) range. */
static void put(struct ju_range_index *ix, uint32_t key, uint32_t first)
{
    uint32_t mask = (1u << ix->bits) - 1u, h = ju_range_index_slot(key, ix->bits);
    while (ix->table[h].key) {
        if (ix->table[h].key == key)
            return;
        h = (h + 1u) & mask;
    }
    ix->table[h].key = key;
    ix->table[h].first = first;
}

void ju_range_index_free(struct ju_range_index *ix)
{
    free(ix->table);
    free(ix->long_ranges);
    memset(ix, 0, sizeof *ix);
}

int ju_range_index_build(struct ju_range_index *ix, const struct jitunwind_range *ranges, size_t n)
{
    size_t i, n_long;
    uint64_t entries;
    unsigned bits = 4;
    memset(ix, 0, sizeof *ix);
    if (n == 0)
        return 0;
    if (n > UINT32_MAX)
        return JITUNWIND_ENOMEM;
    ix->lo = ranges[0].start;
    ix->span = ranges[n - 1].end - ix->lo;
    ix->shift = choose_shift(ranges, n, ix->span);
    entries = count_entries(ranges, n, ix->lo, ix->shift, &n_long);
    while (bits < 31 && (1ull << bits) < 2 * (uint64_t)entries) /* load at most 1/2 */
        bits++;
    if ((1ull << bits) < 2 * (uint64_t)entries)
        return JITUNWIND_ENOMEM;
    ix->bits = bits;
    ix->table = calloc((size_t)1 << bits, sizeof *ix->table);
    ix->long_ranges = n_long ? malloc(n_long * sizeof *ix->long_ranges) : NULL;
    if (!ix->table || (n_long && !ix->long_ranges)) {
        ju_range_index_free(ix);
        return JITUNWIND_ENOMEM;
    }
    for (i = 0; i < n; i++) {
        uint64_t first = (ranges[i].start - ix->lo) >> ix->shift;
        uint64_t last = (ranges[i].end - 1 - ix->lo) >> ix->shift, b;
        if (last - first + 1 <= JU_RANGE_INDEX_SPREAD) {
            for (b = first; b <= last; b++)
                put(ix, (uint32_t)b + 1u, (uint32_t)i);
        } else { /* its inner buckets stay out of the table: lookups there miss */
            put(ix, (uint32_t)first + 1u, (uint32_t)i);
            put(ix, (uint32_t)last + 1u, (uint32_t)i);
            ix->long_ranges[ix->n_long++] =
                (struct ju_range_span){ranges[i].start, ranges[i].end, i};
        }
    }
    return 0;
}

size_t ju_range_index_search(const struct jitunwind_range *ranges, size_t lo, size_t n,
                             uint64_t pc)
{
    size_t hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ranges[mid].end <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t ju_range_index_find_long(const struct ju_range_index *ix, size_t n, uint64_t pc)
{
    size_t lo = 0, hi = ix->n_long;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix->long_ranges[mid].end <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ix->n_long && ix->long_ranges[lo].start <= pc ? ix->long_ranges[lo].index : n;
}
