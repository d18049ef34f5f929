/* A lookup index over a sorted array of non-overlapping ranges: O(1)
 * expected per lookup (a hash of address buckets), built in O(n).
 *
 * The address space from the first start to the last end is cut into
 * buckets of 2^shift bytes, shift taken from the median distance between
 * neighbouring starts (so a bucket holds about one start). A hash table maps
 * every bucket that a range starts or ends in, and every bucket of a range
 * that spans at most JU_RANGE_INDEX_SPREAD buckets, to the first range
 * ending above the bucket's start; a lookup scans forward from there (about
 * one range). A bucket missing from the table lies inside a longer range, or
 * in none: those ranges, few, are kept apart and binary-searched.
 *
 * The index holds positions, not copies: it answers for the array it was
 * built from, unchanged (the caller rebuilds it after any change). */
#ifndef JU_RANGE_INDEX_H
#define JU_RANGE_INDEX_H

#include "internal.h"

#define JU_RANGE_INDEX_SPREAD 8u

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

/* The index of the range of ranges[0..n) containing pc, or n. */
JU_HIDDEN size_t ju_range_index_find(const struct ju_range_index *ix,
                                     const struct jitunwind_range *ranges, size_t n, uint64_t pc);

#endif
