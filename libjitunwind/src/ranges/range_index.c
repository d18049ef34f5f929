/* The bucket-hash lookup index of range_index.h. */
#include <stdlib.h>

#include "ranges/range_index.h"

#define GAP_SAMPLES 1023u /* neighbour distances sampled for the bucket size */
#define SCAN_STEPS 8u     /* ranges scanned in a bucket before a binary search */

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static unsigned floor_log2(uint64_t x)
{
    return x ? 63u - (unsigned)__builtin_clzll(x) : 0u;
}

/* log2 of the bucket size: the median distance between neighbouring starts
 * (the size of the only range when there is one), rounded down, and large
 * enough that every bucket number fits the table's 32-bit keys. */
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
        s = floor_log2(gaps[m / 2]);
    }
    while (((span - 1) >> s) > UINT32_MAX - 2u)
        s++;
    return s;
}

static uint32_t slot_of(uint32_t key, unsigned bits)
{
    return (uint32_t)(key * 0x9E3779B1u) >> (32u - bits);
}

/* Insert unless present: buckets arrive in address order, so a bucket seen
 * again keeps the earlier (first) range. */
static void put(struct ju_range_index *ix, uint32_t key, uint32_t first)
{
    uint32_t mask = (1u << ix->bits) - 1u, h = slot_of(key, ix->bits);
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
    size_t i, entries = 0, n_long = 0;
    unsigned bits = 4;
    memset(ix, 0, sizeof *ix);
    if (n == 0)
        return 0;
    if (n > UINT32_MAX)
        return JITUNWIND_ENOMEM;
    ix->lo = ranges[0].start;
    ix->span = ranges[n - 1].end - ix->lo;
    ix->shift = choose_shift(ranges, n, ix->span);
    for (i = 0; i < n; i++) {
        uint64_t buckets = ((ranges[i].end - 1 - ix->lo) >> ix->shift) -
                           ((ranges[i].start - ix->lo) >> ix->shift) + 1;
        if (buckets <= JU_RANGE_INDEX_SPREAD) {
            entries += buckets;
        } else {
            entries += 2;
            n_long++;
        }
    }
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

/* The first range of ranges[lo..n) ending above pc (one exists). */
static size_t first_ending_above(const struct jitunwind_range *ranges, size_t lo, size_t n,
                                 uint64_t pc)
{
    size_t hi = n, steps;
    for (steps = 0; steps < SCAN_STEPS; steps++, lo++)
        if (ranges[lo].end > pc)
            return lo;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ranges[mid].end <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static size_t find_long(const struct ju_range_index *ix, size_t n, uint64_t pc)
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

size_t ju_range_index_find(const struct ju_range_index *ix, const struct jitunwind_range *ranges,
                           size_t n, uint64_t pc)
{
    uint64_t off = pc - ix->lo;
    uint32_t key, h, mask;
    if (off >= ix->span)
        return n;
    key = (uint32_t)(off >> ix->shift) + 1u;
    mask = (1u << ix->bits) - 1u;
    for (h = slot_of(key, ix->bits);; h = (h + 1u) & mask) {
        const struct ju_range_bucket *b = &ix->table[h];
        if (b->key == key) {
            size_t i = first_ending_above(ranges, b->first, n, pc);
            return ranges[i].start <= pc ? i : n;
        }
        if (b->key == 0)
            return find_long(ix, n, pc);
    }
}
