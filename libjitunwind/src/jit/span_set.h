/* An ordered set of disjoint spans [start, end) with insert-unless-it-
 * overlaps and remove-by-start: the overlap check of in-process
 * registration (jit_inprocess.c).
 *
 * Spans live in chunks of up to JU_SPAN_CHUNK, each a sorted run with free
 * room at both ends; the chunks sit in address order in an array with free
 * room at both ends too, beside an array of each chunk's first start. A
 * change moves at most half a chunk, or half the chunk array when a chunk is
 * added, emptied or merged into a neighbour (a chunk under a quarter full,
 * when the two fit in half a chunk: memory stays proportional to the spans
 * whatever the order of removals). A finger
 * remembers the last chunk used: spans arriving in address order, rising
 * or falling (as mmap hands out code), are placed in O(1) without a search;
 * others take two searches: over the chunk starts (a guess interpolated
 * between the first and last start, checked, then a binary search within
 * a few entries of it, or over all of them when the guess misses) and one
 * in a chunk, over the group of 16 spans its header line points to.
 *
 * A removal inside a chunk does not move anything: the span stays in place,
 * vacated (its end set to its start, which live spans never have), unless a
 * neighbour is vacated already or it is the chunk's first or last, in which
 * case it is taken out with its vacated neighbours. So a chunk never holds
 * two vacated positions in a row, nor at its ends (its first start stays a
 * live one), and at least half its positions are live. An insert next to a
 * vacated position takes it, moving nothing: code freed and replaced in
 * the same gap, as a JIT reusing its memory does, costs two searches and
 * no shift. Not thread-safe. */
#ifndef JU_SPAN_SET_H
#define JU_SPAN_SET_H

#include "internal.h"
#include "jit/reserved_array.h"

#define JU_SPAN_CHUNK 128u

struct ju_span {
    uint64_t start, end;
};

/* A chunk's first cache line (chunks are allocated 64-byte aligned) holds
 * its bounds and the start of every JU_SPAN_GROUP-th position: a search
 * reads that line, then one group of spans (256 bytes, its lines fetched
 * together) instead of descending through seven dependent lines of the
 * whole chunk, each a cache miss once the set outgrows the cache. */
#define JU_SPAN_GROUP 16u
#define JU_SPAN_KEYS (JU_SPAN_CHUNK / JU_SPAN_GROUP - 1)

struct ju_span_chunk {
    uint32_t lo, hi;               /* the spans are s[lo..hi), sorted */
    uint64_t key[JU_SPAN_KEYS];    /* key[g - 1] == s[g * JU_SPAN_GROUP].start where that
                                    * position is in [lo, hi); stale elsewhere */
    struct ju_span s[JU_SPAN_CHUNK];
};

/* Chunks are cut from an arena of this much address space per set
 * (reserved_array.h: no memory until used, 2 MiB pages once it is large:
 * at a million spans, 4 KiB pages made each chunk touched a TLB miss),
 * then from the heap. Chunks given back stay in the arena as spares. */
#define JU_SPAN_ARENA (512u * 1024u * 1024u)

struct ju_span_set {
    struct ju_span_chunk **chunks; /* chunks[head..head+count), in address order */
    uint64_t *first;               /* first[i]: the first start of chunks[i] */
    size_t head, count, cap;
    size_t finger; /* a chunk position (from head) likely to be used next */
    struct ju_reserved_array arena; /* chunks are cut from it (`written`: those cut) */
    struct ju_span_chunk *spare;    /* arena chunks no longer used */
};

#define JU_SPAN_SET_INIT {NULL, NULL, 0, 0, 0, 0, {NULL, 0, 0, 0, 0}, NULL}

/* 0, EOVERLAP (a span of the set overlaps [start, end)), ENOMEM. The span
 * must not be empty. */
JU_HIDDEN int ju_span_set_insert(struct ju_span_set *set, uint64_t start, uint64_t end);
/* 0, or ENOTFOUND when no span starts at `start`. */
JU_HIDDEN int ju_span_set_remove(struct ju_span_set *set, uint64_t start);
/* The live spans: O(spans), for checks. */
JU_HIDDEN size_t ju_span_set_count(const struct ju_span_set *set);
/* Empty the set, keeping the start of its arena as a heap keeps its top
 * (reserved_array.h), for a set filled again (jitunwind_jit_reset). */
JU_HIDDEN void ju_span_set_clear(struct ju_span_set *set);
/* Empty the set and give all its memory back. */
JU_HIDDEN void ju_span_set_free(struct ju_span_set *set);

#endif
