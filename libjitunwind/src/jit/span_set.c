/* The chunked span set of span_set.h. */
#include <stddef.h>
#include <stdlib.h>

#include "jit/span_set.h"

static struct ju_span_chunk *chunk(const struct ju_span_set *set, size_t i)
{
    return set->chunks[set->head + i];
}

/* A removed span left in place (span_set.h): its start kept, its end set
 * to its start. Live spans are never empty. */
static int vacated(const struct ju_span *s)
{
    return s->end == s->start;
}

#define GUESS_WINDOW 8u

/* The last i in [0, n) with key[i] <= x, the keys sorted and distinct and
 * key[0] <= x < key[n - 1] (so the guess below is a fraction under 1). At a million spans a binary search over the ~8,000 chunk
 * starts is thirteen levels of loads, each waiting for the one before (the
 * bottom ones cache misses once the table outgrows the cache). Code tends
 * to be spread evenly over its region, so the position is first guessed by
 * interpolating between the first and last key, and the search kept to
 * GUESS_WINDOW keys either side of the guess when those two bound x (one
 * or two cache lines); otherwise (clustered or outlying keys) it searches
 * all n, two loads later. */
static size_t guided_search(const uint64_t *key, struct ju_span_chunk *const *chunks, size_t n,
                            uint64_t x)
{
    size_t lo = 0, hi = n; /* key[lo] <= x; the answer is below hi */
    if (n > 2 * GUESS_WINDOW) {
        double frac = (double)(x - key[0]) / (double)(key[n - 1] - key[0]);
        size_t g = (size_t)(frac * (double)(n - 1)), w0, w1;
        if (g > n - 1)
            g = n - 1;
        __builtin_prefetch(chunks[g]);
        w0 = g > GUESS_WINDOW ? g - GUESS_WINDOW : 0;
        w1 = n - 1 - g > GUESS_WINDOW ? g + GUESS_WINDOW : n - 1;
        if (key[w0] <= x && key[w1] > x) {
            lo = w0;
            hi = w1;
        }
    }
    while (hi - lo > 1) { /* conditional moves: no mispredicted branches */
        size_t mid = lo + (hi - lo) / 2;
        int below = key[mid] <= x;
        lo = below ? mid : lo;
        hi = below ? hi : mid;
    }
    return lo;
}

/* The chunk that holds or would hold a span starting at `start`: the last
 * whose first start is at most `start`, or the first chunk. count > 0. */
static size_t chunk_for(const struct ju_span_set *set, uint64_t start)
{
    const uint64_t *first = set->first + set->head;
    size_t f = set->finger, n = set->count;
    if (start < first[0])
        return 0;
    if (first[n - 1] <= start)
        return n - 1;
    if (f < n && first[f] <= start && first[f + 1] > start) /* f + 1 < n: not the last */
        return f;
    return guided_search(first, set->chunks + set->head, n, start);
}

/* The position in chunk k of the first span starting above `start`. Spans
 * arriving in address order go to an end of the first or last chunk: for
 * those, the ends are tried first; elsewhere they would only add two cache
 * misses to the search. */
static uint32_t upper_bound(const struct ju_span_set *set, size_t k, uint64_t start)
{
    const struct ju_span_chunk *c = chunk(set, k);
    uint32_t lo = c->lo, hi = c->hi;
    if (k == 0 || k + 1 == set->count) {
        if (c->s[hi - 1].start <= start)
            return hi;
        if (c->s[lo].start > start)
            return lo;
    }
    for (uint32_t g = 1; g <= JU_SPAN_KEYS; g++) { /* narrow to one group */
        uint32_t at = g * JU_SPAN_GROUP;
        if (at < c->lo)
            continue;
        if (at >= c->hi)
            break;
        if (c->key[g - 1] > start) {
            hi = at;
            break;
        }
        lo = at + 1;
    }
    for (const char *line = (const char *)&c->s[lo]; line < (const char *)&c->s[hi]; line += 64)
        __builtin_prefetch(line);
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (c->s[mid].start <= start)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Bring the keys of positions [from, to) (clipped to the spans) up to date
 * after the spans there changed. */
static void rekey(struct ju_span_chunk *c, uint32_t from, uint32_t to)
{
    uint32_t g;
    if (from < c->lo)
        from = c->lo;
    if (to > c->hi)
        to = c->hi;
    for (g = (from + JU_SPAN_GROUP - 1) / JU_SPAN_GROUP; g * JU_SPAN_GROUP < to; g++)
        if (g > 0)
            c->key[g - 1] = c->s[g * JU_SPAN_GROUP].start;
}

/* Put v at position p of a chunk that is not full, moving the shorter side. */
static void chunk_put(struct ju_span_chunk *c, uint32_t p, struct ju_span v)
{
    uint32_t left = p - c->lo, right = c->hi - p;
    if (c->lo > 0 && (left <= right || c->hi == JU_SPAN_CHUNK)) {
        memmove(&c->s[c->lo - 1], &c->s[c->lo], left * sizeof v);
        c->lo--;
        c->s[p - 1] = v;
        rekey(c, c->lo, p);
    } else {
        memmove(&c->s[p + 1], &c->s[p], right * sizeof v);
        c->hi++;
        c->s[p] = v;
        rekey(c, p, c->hi);
    }
}

/* Take positions [a, b) out of a chunk, moving the shorter side. */
static void chunk_take(struct ju_span_chunk *c, uint32_t a, uint32_t b)
{
    uint32_t left = a - c->lo, right = c->hi - b, n = b - a;
    if (left < right) {
        memmove(&c->s[c->lo + n], &c->s[c->lo], left * sizeof c->s[0]);
        c->lo += n;
        rekey(c, c->lo, b);
    } else {
        memmove(&c->s[a], &c->s[b], right * sizeof c->s[0]);
        c->hi -= n;
        rekey(c, a, c->hi);
    }
}

_Static_assert(offsetof(struct ju_span_chunk, s) == 64, "the header is one cache line");
_Static_assert(sizeof(struct ju_span_chunk) % 64 == 0, "aligned_alloc takes whole lines");

static int in_arena(const struct ju_span_set *set, const struct ju_span_chunk *c)
{
    const char *base = set->arena.base;
    return base && (const char *)c >= base && (const char *)c < base + set->arena.reserved;
}

/* A chunk from the set's arena (a spare one, else the next), or from the
 * heap when the arena cannot be reserved or is used up. */
static struct ju_span_chunk *new_chunk(struct ju_span_set *set, uint32_t at)
{
    struct ju_span_chunk *c = set->spare;
    if (c) {
        set->spare = (struct ju_span_chunk *)(uintptr_t)c->key[0];
    } else {
        /* Whole chunks from a page-aligned base: each header on one line. */
        if (!(c = ju_reserved_arena_take(&set->arena, JU_SPAN_ARENA, sizeof *c)) &&
            !(c = aligned_alloc(64, sizeof *c)))
            return NULL;
    }
    c->lo = c->hi = at;
    return c;
}

/* Give a chunk back: an arena chunk becomes a spare (its key[0] the link). */
static void drop_chunk(struct ju_span_set *set, struct ju_span_chunk *c)
{
    if (!in_arena(set, c)) {
        free(c);
        return;
    }
    c->key[0] = (uint64_t)(uintptr_t)set->spare;
    set->spare = c;
}

/* Move the chunk array to the middle of its room (of a larger allocation
 * when it is more than half full), so that both ends have room. */
static int recenter(struct ju_span_set *set)
{
    size_t ncap = set->cap, nhead;
    struct ju_span_chunk **chunks = set->chunks;
    uint64_t *first = set->first;
    if (2 * (set->count + 1) > ncap) {
        ncap = ncap ? ncap * 2 : 16;
        chunks = malloc(ncap * sizeof *chunks);
        first = malloc(ncap * sizeof *first);
        if (!chunks || !first) {
            free(chunks);
            free(first);
            return JITUNWIND_ENOMEM;
        }
    }
    nhead = (ncap - set->count) / 2;
    if (set->count) {
        memmove(&chunks[nhead], &set->chunks[set->head], set->count * sizeof *chunks);
        memmove(&first[nhead], &set->first[set->head], set->count * sizeof *first);
    }
    if (chunks != set->chunks) {
        free(set->chunks);
        free(set->first);
    }
    set->chunks = chunks;
    set->first = first;
    set->cap = ncap;
    set->head = nhead;
    return 0;
}

/* Insert chunk c (not empty) at position pos of the chunk array. */
static int insert_chunk(struct ju_span_set *set, size_t pos, struct ju_span_chunk *c)
{
    int left = 2 * pos < set->count; /* move the shorter side */
    int no_room = left ? set->head == 0 : set->head + set->count == set->cap;
    size_t at;
    if ((2 * (set->count + 1) > set->cap || no_room) && recenter(set) < 0)
        return JITUNWIND_ENOMEM;
    if (left) {
        memmove(&set->chunks[set->head - 1], &set->chunks[set->head], pos * sizeof *set->chunks);
        memmove(&set->first[set->head - 1], &set->first[set->head], pos * sizeof *set->first);
        set->head--;
    } else {
        at = set->head + pos;
        memmove(&set->chunks[at + 1], &set->chunks[at], (set->count - pos) * sizeof *set->chunks);
        memmove(&set->first[at + 1], &set->first[at], (set->count - pos) * sizeof *set->first);
    }
    set->chunks[set->head + pos] = c;
    set->first[set->head + pos] = c->s[c->lo].start;
    set->count++;
    return 0;
}

static void erase_chunk(struct ju_span_set *set, size_t pos)
{
    size_t at = set->head + pos;
    drop_chunk(set, set->chunks[at]);
    if (2 * pos < set->count) {
        memmove(&set->chunks[set->head + 1], &set->chunks[set->head], pos * sizeof *set->chunks);
        memmove(&set->first[set->head + 1], &set->first[set->head], pos * sizeof *set->first);
        set->head++;
    } else {
        size_t after = set->count - pos - 1;
        memmove(&set->chunks[at], &set->chunks[at + 1], after * sizeof *set->chunks);
        memmove(&set->first[at], &set->first[at + 1], after * sizeof *set->first);
    }
    set->count--;
}

static uint32_t size_of(const struct ju_span_chunk *c)
{
    return c->hi - c->lo;
}

/* Move the spans of chunk k + 1 to the end of chunk k and drop it. */
static void merge_next(struct ju_span_set *set, size_t k)
{
    struct ju_span_chunk *a = chunk(set, k), *b = chunk(set, k + 1);
    uint32_t n = size_of(a), m = size_of(b);
    if (a->hi + m > JU_SPAN_CHUNK) {
        memmove(a->s, &a->s[a->lo], n * sizeof a->s[0]);
        a->lo = 0;
        a->hi = n;
    }
    memcpy(&a->s[a->hi], &b->s[b->lo], m * sizeof a->s[0]);
    a->hi += m;
    rekey(a, a->lo, a->hi);
    erase_chunk(set, k + 1);
}

/* After a removal from chunk k: a chunk under a quarter full is merged
 * with a neighbour when the two fit in half a chunk, so that removals in
 * any order keep chunks fairly full (memory stays proportional to the
 * spans). Returns the chunk that now holds k's spans. */
static size_t merge_small(struct ju_span_set *set, size_t k)
{
    uint32_t n = size_of(chunk(set, k));
    if (n >= JU_SPAN_CHUNK / 4)
        return k;
    if (k + 1 < set->count && n + size_of(chunk(set, k + 1)) <= JU_SPAN_CHUNK / 2) {
        merge_next(set, k);
        return k;
    }
    if (k > 0 && n + size_of(chunk(set, k - 1)) <= JU_SPAN_CHUNK / 2) {
        merge_next(set, k - 1);
        return k - 1;
    }
    return k;
}

/* Insert v at position p of full chunk k: into a new chunk before or after
 * it when v comes first or last (spans in address order fill chunks
 * completely), else split k in halves. */
static int insert_full(struct ju_span_set *set, size_t k, uint32_t p, struct ju_span v)
{
    struct ju_span_chunk *c = chunk(set, k), *n;
    uint32_t mid = c->lo + JU_SPAN_CHUNK / 2;
    if (p == c->lo || p == c->hi) {
        int before = p == c->lo;
        if (!(n = new_chunk(set, before ? JU_SPAN_CHUNK : 0)))
            return JITUNWIND_ENOMEM;
        chunk_put(n, before ? n->lo : n->hi, v);
        if (insert_chunk(set, before ? k : k + 1, n) < 0) {
            drop_chunk(set, n);
            return JITUNWIND_ENOMEM;
        }
        set->finger = before ? k : k + 1;
        return 0;
    }
    if (!(n = new_chunk(set, 0)))
        return JITUNWIND_ENOMEM;
    memcpy(n->s, &c->s[mid], (c->hi - mid) * sizeof v);
    n->hi = c->hi - mid;
    n->lo = vacated(&n->s[0]); /* the halves' ends are live spans, as every chunk's */
    rekey(n, n->lo, n->hi);
    if (insert_chunk(set, k + 1, n) < 0) {
        drop_chunk(set, n);
        return JITUNWIND_ENOMEM;
    }
    c->hi = mid - (uint32_t)vacated(&c->s[mid - 1]);
    /* v is next to no vacated position (it would have taken it), so p is
     * neither at a dropped one nor just after it. */
    if (p <= mid) {
        chunk_put(c, p, v);
        set->first[set->head + k] = c->s[c->lo].start;
        set->finger = k;
    } else {
        chunk_put(n, p - mid, v);
        set->finger = k + 1;
    }
    return 0;
}

int ju_span_set_insert(struct ju_span_set *set, uint64_t start, uint64_t end)
{
    struct ju_span v = {start, end};
    struct ju_span_chunk *c;
    size_t k;
    uint32_t p, gap_before, gap_after;
    if (set->count == 0) {
        if (!(c = new_chunk(set, JU_SPAN_CHUNK / 2)))
            return JITUNWIND_ENOMEM;
        chunk_put(c, c->lo, v);
        if (insert_chunk(set, 0, c) < 0) {
            drop_chunk(set, c);
            return JITUNWIND_ENOMEM;
        }
        set->finger = 0;
        return 0;
    }
    k = chunk_for(set, start);
    c = chunk(set, k);
    p = upper_bound(set, k, start);
    /* The live span before (only in this chunk: p is its first only for
     * the first chunk) and the one after; a vacated position between is
     * skipped (never two in a row, never at a chunk's ends). */
    gap_before = p > c->lo && vacated(&c->s[p - 1]);
    gap_after = p < c->hi && vacated(&c->s[p]);
    if (p > c->lo && c->s[p - 1 - gap_before].end > start)
        return JITUNWIND_EOVERLAP;
    if (p + gap_after < c->hi ? c->s[p + gap_after].start < end
                              : k + 1 < set->count && set->first[set->head + k + 1] < end)
        return JITUNWIND_EOVERLAP;
    if (gap_before || gap_after) { /* fill the vacated position: nothing moves */
        uint32_t at = gap_before ? p - 1 : p;
        c->s[at] = v;
        rekey(c, at, at + 1);
        set->finger = k;
        return 0;
    }
    if (c->hi - c->lo == JU_SPAN_CHUNK)
        return insert_full(set, k, p, v);
    chunk_put(c, p, v);
    set->first[set->head + k] = c->s[c->lo].start;
    set->finger = k;
    return 0;
}

int ju_span_set_remove(struct ju_span_set *set, uint64_t start)
{
    struct ju_span_chunk *c;
    size_t k;
    uint32_t p;
    if (set->count == 0)
        return JITUNWIND_ENOTFOUND;
    k = chunk_for(set, start);
    c = chunk(set, k);
    p = upper_bound(set, k, start); /* one past the span starting at `start`, if any */
    if (p == c->lo || c->s[p - 1].start != start || vacated(&c->s[p - 1]))
        return JITUNWIND_ENOTFOUND;
    p--;
    /* Inside the chunk between two live spans, the span is vacated in
     * place; otherwise it is taken out with the vacated neighbours it has. */
    if (p > c->lo && p + 1 < c->hi && !vacated(&c->s[p - 1]) && !vacated(&c->s[p + 1])) {
        c->s[p].end = start;
        set->finger = k;
        return 0;
    }
    chunk_take(c, p - (p > c->lo && vacated(&c->s[p - 1])),
               p + 1 + (p + 1 < c->hi && vacated(&c->s[p + 1])));
    if (c->lo == c->hi) {
        erase_chunk(set, k);
        set->finger = k < set->count ? k : 0;
        return 0;
    }
    k = merge_small(set, k);
    c = chunk(set, k);
    set->first[set->head + k] = c->s[c->lo].start;
    set->finger = k;
    return 0;
}

size_t ju_span_set_count(const struct ju_span_set *set)
{
    size_t i, n = 0;
    for (i = 0; i < set->count; i++) {
        const struct ju_span_chunk *c = chunk(set, i);
        for (uint32_t p = c->lo; p < c->hi; p++)
            n += !vacated(&c->s[p]);
    }
    return n;
}

void ju_span_set_clear(struct ju_span_set *set)
{
    struct ju_reserved_array arena = set->arena;
    size_t i;
    for (i = 0; i < set->count; i++)
        if (!in_arena(set, chunk(set, i)))
            free(chunk(set, i));
    free(set->chunks);
    free(set->first);
    ju_reserved_array_clear(&arena); /* every arena chunk unused again */
    memset(set, 0, sizeof *set);
    set->arena = arena;
}

void ju_span_set_free(struct ju_span_set *set)
{
    ju_span_set_clear(set);
    ju_reserved_array_close(&set->arena);
}
