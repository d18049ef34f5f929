/* A lookup index over a sorted array of non-overlapping ranges: O(1)
 * expected per lookup (a hash of address buckets), built in O(n).
 *
 * The address space from the first start to the last end is cut into
 * buckets of 2^shift bytes, shift taken from the median distance between
 * neighbouring starts (so a bucket holds about one start; see choose_shift
 * for ranges of several scales). A hash table maps every bucket that a range
 * starts or ends in, and every bucket of a range that spans at most
 * JU_RANGE_INDEX_SPREAD buckets, to the first range ending above the
 * bucket's start; a lookup scans forward from there (about one range). A
 * bucket missing from the table lies inside a longer range, or in none:
 * those ranges, few, are kept apart and binary-searched.
 *
 * The index holds positions, not copies: it answers for the array it was
 * built from, unchanged (the caller rebuilds it after any change). */
#ifndef JU_RANGE_INDEX_H
#define JU_RANGE_INDEX_H

#include "internal.h"

#define JU_RANGE_INDEX_SPREAD 16u
#define JU_RANGE_INDEX_SCAN 8u /* ranges scanned in a bucket before a binary search */

struct ju_range_bucket {
    uint32_t key;   /* bucket number (relative to lo) + 1; 0: empty */
    uint32_t first; /* the first range ending above the bucket's start */
};

struct ju_range_span {
    uint64_t start, end;
    size_t index;
};

struct ju_range_index {
    uint64_t lo, span;              /* pc - lo < span: pc within [first start, last end) */
    unsigned shift, bits;           /* bucket size 2^shift; table of 2^bits buckets */
    struct ju_range_bucket *table;
    struct ju_range_span *long_ranges; /* those spanning more than SPREAD buckets */
    size_t n_long;
};

/* Build over ranges[0..n) (sorted, non-overlapping). 0, or ENOMEM with
 * *ix left empty (every lookup then misses: the caller must not use it). */
JU_HIDDEN int ju_range_index_build(struct ju_range_index *ix, const struct jitunwind_range *ranges,
                                   size_t n);
JU_HIDDEN void ju_range_index_free(struct ju_range_index *ix);

/* Out of line parts of ju_range_index_find: the first range of
 * ranges[lo..n) ending above pc, by binary search, and the long range
 * containing pc (both n for none). */
JU_HIDDEN size_t ju_range_index_search(const struct jitunwind_range *ranges, size_t lo, size_t n,
                                       uint64_t pc);
JU_HIDDEN size_t ju_range_index_find_long(const struct ju_range_index *ix, size_t n, uint64_t pc);

static inline uint32_t ju_range_index_slot(uint32_t key, unsigned bits)
{
    return (uint32_t)(key * 0x9E3779B1u) >> (32u - bits);
}

/* The index of the range of ranges[0..n) containing pc, or n. Inline: the
 * unwinder asks once per frame. */
static inline size_t ju_range_index_find(const struct ju_range_index *ix,
                                         const struct jitunwind_range *ranges, size_t n,
                                         uint64_t pc)
{
    uint64_t off = pc - ix->lo;
    uint32_t key, h, mask;
    if (off >= ix->span)
        return n;
    key = (uint32_t)(off >> ix->shift) + 1u;
    mask = (1u << ix->bits) - 1u;
    for (h = ju_range_index_slot(key, ix->bits);; h = (h + 1u) & mask) {
        const struct ju_range_bucket *b = &ix->table[h];
        if (b->key == key) {
            size_t i = b->first, stop = i + JU_RANGE_INDEX_SCAN;
            while (ranges[i].end <= pc) /* some range ends above pc: i stays below n */
                if (++i == stop) {
                    i = ju_range_index_search(ranges, i, n, pc);
                    break;
                }
            return ranges[i].start <= pc ? i : n;
        }
        if (b->key == 0)
            return ju_range_index_find_long(ix, n, pc);
    }
}

#endif
