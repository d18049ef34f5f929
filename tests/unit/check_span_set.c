/* The overlap index of in-process registration (jit/span_set.c) against
 * a brute-force model, with enough spans to fill, split and empty many
 * chunks: rising, falling and random arrival, removals from the ends and the
 * middle, spans vacated in place and reused, chunks from the arena and the
 * heap; and jitunwind_jit_register on top of it, read back through the
 * descriptor. */
#include <stdlib.h>

#include "internal.h"
#include "jit/span_set.h"
#include "suite.h"

#define MAX_SPANS 20000

struct model {
    uint64_t start[MAX_SPANS], end[MAX_SPANS];
    size_t n;
};


static int model_overlaps(const struct model *m, uint64_t start, uint64_t end)
{
    size_t i;
    for (i = 0; i < m->n; i++)
        if (m->start[i] < end && start < m->end[i])
            return 1;
    return 0;
}

static size_t model_find(const struct model *m, uint64_t start)
{
    size_t i;
    for (i = 0; i < m->n; i++)
        if (m->start[i] == start)
            return i;
    return SIZE_MAX;
}

static void model_drop(struct model *m, size_t i)
{
    m->start[i] = m->start[m->n - 1];
    m->end[i] = m->end[m->n - 1];
    m->n--;
}

/* The set's spans in order, and its chunk bookkeeping, against the model. */
static void check_contents(const struct ju_span_set *set, const struct model *m)
{
    size_t i, total = 0;
    uint64_t prev_end = 0;
    ck_assert_uint_eq(ju_span_set_count(set), m->n);
    for (i = 0; i < set->count; i++) {
        const struct ju_span_chunk *c = set->chunks[set->head + i];
        uint32_t k;
        ck_assert_uint_lt(c->lo, c->hi); /* no empty chunk is kept */
        ck_assert_uint_le(c->hi, JU_SPAN_CHUNK);
        ck_assert_uint_eq(set->first[set->head + i], c->s[c->lo].start);
        ck_assert_uint_eq((uintptr_t)c % 64, 0); /* the header is one cache line */
        for (k = 1; k <= JU_SPAN_KEYS; k++) /* the keys of the positions in use */
            if (k * JU_SPAN_GROUP >= c->lo && k * JU_SPAN_GROUP < c->hi)
                ck_assert_uint_eq(c->key[k - 1], c->s[k * JU_SPAN_GROUP].start);
        /* A removed span may stay vacated in place (its end set to its
         * start), never at a chunk's ends, never next to another. */
        ck_assert_uint_ne(c->s[c->lo].end, c->s[c->lo].start);
        ck_assert_uint_ne(c->s[c->hi - 1].end, c->s[c->hi - 1].start);
        for (k = c->lo; k < c->hi; k++) {
            ck_assert_uint_le(prev_end, c->s[k].start);
            if (k > c->lo)
                ck_assert_uint_lt(c->s[k - 1].start, c->s[k].start);
            if (c->s[k].end == c->s[k].start) {
                ck_assert_uint_ne(c->s[k - 1].end, c->s[k - 1].start);
                continue;
            }
            ck_assert_msg(model_find(m, c->s[k].start) != SIZE_MAX, "span %#llx not in the model",
                          (unsigned long long)c->s[k].start);
            prev_end = c->s[k].end;
            total++;
        }
    }
    ck_assert_uint_eq(total, m->n);
}

static void insert_checked(struct ju_span_set *set, struct model *m, uint64_t start, uint64_t end)
{
    int want = model_overlaps(m, start, end) ? JITUNWIND_EOVERLAP : 0;
    ck_assert_int_eq(ju_span_set_insert(set, start, end), want);
    if (want == 0) {
        m->start[m->n] = start;
        m->end[m->n++] = end;
    }
}

static void remove_checked(struct ju_span_set *set, struct model *m, uint64_t start)
{
    size_t i = model_find(m, start);
    ck_assert_int_eq(ju_span_set_remove(set, start), i == SIZE_MAX ? JITUNWIND_ENOTFOUND : 0);
    if (i != SIZE_MAX)
        model_drop(m, i);
}

START_TEST(rising_and_falling_arrival)
{
    static struct model m;
    struct ju_span_set set = JU_SPAN_SET_INIT;
    uint64_t i;
    m.n = 0;
    for (i = 0; i < 3000; i++) /* falling, as mmap hands out code */
        insert_checked(&set, &m, 0x900000 - i * 0x100, 0x900000 - i * 0x100 + 0x80);
    for (i = 0; i < 3000; i++) /* rising, above them */
        insert_checked(&set, &m, 0xa00000 + i * 0x100, 0xa00000 + i * 0x100 + 0x100);
    check_contents(&set, &m);
    ck_assert_uint_le(set.count, 6000 / JU_SPAN_CHUNK + 4); /* in-order arrival fills chunks */
    insert_checked(&set, &m, 0x900000 + 0x7f, 0x900000 + 0x81);    /* overlaps the last */
    insert_checked(&set, &m, 0x900000 - 0x100 + 0x80, 0x900000);   /* a gap exactly */
    /* into the last */
    insert_checked(&set, &m, 0xa00000 + 2999 * 0x100 + 0xff, 0xa00000 + 3000 * 0x100);
    insert_checked(&set, &m, 0x1, 0x900000 - 2999 * 0x100 + 1); /* overlaps the first */
    remove_checked(&set, &m, 0x900000 + 1);                     /* inside a span: not a start */
    for (i = 0; i < 3000; i++) /* empty the falling ones from their top */
        remove_checked(&set, &m, 0x900000 - i * 0x100);
    check_contents(&set, &m);
    for (i = 3000; i-- > 0;) /* and the rising ones from theirs */
        remove_checked(&set, &m, 0xa00000 + i * 0x100);
    remove_checked(&set, &m, 0x900000 - 0x100 + 0x80);
    ck_assert_uint_eq(set.count, 0);
    remove_checked(&set, &m, 0x900000);
    insert_checked(&set, &m, 5, 6); /* reusable once empty */
    check_contents(&set, &m);
    ju_span_set_free(&set);
}
END_TEST

START_TEST(random_operations_match_a_model)
{
    static struct model m;
    struct ju_span_set set = JU_SPAN_SET_INIT;
    uint64_t state = 7;
    int op;
    m.n = 0;
    for (op = 0; op < 60000; op++) {
        uint64_t r = ju_next_random(&state);
        if (m.n && r % 3 == 0) { /* remove a live span, or miss */
            if (r % 17 == 0)
                remove_checked(&set, &m, (r >> 8) % 0x1000000);
            else
                remove_checked(&set, &m, m.start[(size_t)(r >> 8) % m.n]);
        } else if (m.n < MAX_SPANS) {
            uint64_t start, size = 1 + (r >> 30) % 0x300;
            if (m.n && r % 5 == 1) /* right after or before a live one */
                start = (r >> 6) & 1 ? m.end[(size_t)(r >> 8) % m.n]
                                     : m.start[(size_t)(r >> 8) % m.n] - size;
            else
                start = 0x1000 + (r >> 8) % 0x1000000;
            if (start < 0x100 || start > 0x2000000) /* walked off the space */
                start = 0x1000 + (r >> 8) % 0x1000000;
            insert_checked(&set, &m, start, start + size);
        }
        if (op % 5000 == 0) {
            check_contents(&set, &m);
            ck_assert_uint_le(set.count, m.n / 8 + 2); /* removals merge small chunks */
        }
    }
    check_contents(&set, &m);
    ju_span_set_free(&set);
}
END_TEST

START_TEST(clustered_and_outlying_spans_match_a_model)
{
    /* The search guesses a position by interpolating between the first and
     * last start: spans in clusters far apart (code regions, a trampoline
     * page near the top of the address space) make the guess miss and the
     * search fall back; evenly spread ones make it hit. Either way the
     * answers are the model's. */
    static const uint64_t bases[] = {0x1000, 0x7f0000000000ull, 0xffffffffff000000ull};
    static struct model m;
    struct ju_span_set set = JU_SPAN_SET_INIT;
    uint64_t state = 11, i;
    int op;
    m.n = 0;
    for (i = 0; i < 4000; i++) /* the middle cluster, falling and evenly spread */
        insert_checked(&set, &m, bases[1] - i * 0x100, bases[1] - i * 0x100 + 0x80);
    for (op = 0; op < 20000; op++) {
        uint64_t r = ju_next_random(&state);
        uint64_t base = bases[(r >> 4) % 3], start = base + (r >> 12) % 0x400000;
        if (base == bases[1])
            start = base - (r >> 12) % 0x400000;
        if (m.n && r % 3 == 0)
            remove_checked(&set, &m, r % 7 == 0 ? start : m.start[(size_t)(r >> 8) % m.n]);
        else if (m.n < MAX_SPANS)
            insert_checked(&set, &m, start, start + 1 + (r >> 40) % 0x200);
        if (op % 4000 == 0)
            check_contents(&set, &m);
    }
    insert_checked(&set, &m, UINT64_MAX - 0x10, UINT64_MAX); /* the very top */
    insert_checked(&set, &m, UINT64_MAX - 0x20, UINT64_MAX - 0x8);
    check_contents(&set, &m);
    ju_span_set_free(&set);
}
END_TEST

START_TEST(removed_spans_stay_vacated_and_are_reused)
{
    /* A removal inside a chunk leaves the span vacated in place; an insert
     * into that gap takes the position back whatever its bounds, and the
     * overlap check looks past the vacated position to the live spans on
     * either side. 300 rising spans: chunks [0, 128) full, so positions are
     * known (span i at position i of the first chunk). */
    static struct model m;
    struct ju_span_set set = JU_SPAN_SET_INIT;
    uint64_t i;
#define AT(i) (0x10000 + (i) * 0x100) /* span i is [AT(i), AT(i) + 0x80) */
    m.n = 0;
    for (i = 0; i < 300; i++)
        insert_checked(&set, &m, AT(i), AT(i) + 0x80);
    ck_assert_uint_eq(set.chunks[set.head]->lo, 0);
    remove_checked(&set, &m, AT(50));
    ck_assert_uint_eq(set.chunks[set.head]->hi, JU_SPAN_CHUNK); /* nothing moved */
    ck_assert_uint_eq(set.chunks[set.head]->s[50].end, AT(50)); /* vacated */
    remove_checked(&set, &m, AT(50));                             /* already gone */
    insert_checked(&set, &m, AT(49) + 0x40, AT(51));              /* overlaps 49 */
    insert_checked(&set, &m, AT(49) + 0x80, AT(51) + 1);          /* overlaps 51 */
    insert_checked(&set, &m, AT(50) + 0x10, AT(50) + 0x20);       /* inside the gap */
    ck_assert_uint_eq(set.chunks[set.head]->s[50].start, AT(50) + 0x10);
    check_contents(&set, &m);
    remove_checked(&set, &m, AT(50) + 0x10);
    insert_checked(&set, &m, AT(49) + 0x80, AT(51)); /* the whole gap, from below */
    check_contents(&set, &m);
    /* Next to a vacated span a removal takes both out: never two in a row. */
    remove_checked(&set, &m, AT(20));
    remove_checked(&set, &m, AT(21));
    remove_checked(&set, &m, AT(19));
    check_contents(&set, &m);
    /* A chunk's ends are taken out, not vacated (first starts stay live). */
    remove_checked(&set, &m, AT(0));
    remove_checked(&set, &m, AT(299));
    check_contents(&set, &m);
    /* A full chunk split at a vacated position: the halves' ends stay live. */
    ju_span_set_free(&set);
    m.n = 0;
    for (i = 0; i < 300; i++)
        insert_checked(&set, &m, AT(i), AT(i) + 0x80);
    remove_checked(&set, &m, AT(63)); /* the last of the lower half */
    remove_checked(&set, &m, AT(192)); /* the first of the second chunk's upper half */
    insert_checked(&set, &m, AT(10) + 0x80, AT(10) + 0x90); /* chunk full: split */
    insert_checked(&set, &m, AT(140) + 0x80, AT(140) + 0x90);
    check_contents(&set, &m);
    for (i = 0; i < 300; i++) /* and everything out again */
        remove_checked(&set, &m, AT(i));
    remove_checked(&set, &m, AT(10) + 0x80);
    remove_checked(&set, &m, AT(140) + 0x80);
    ck_assert_uint_eq(set.count, 0);
    ju_span_set_free(&set);
#undef AT
}
END_TEST

START_TEST(chunks_from_the_arena_and_the_heap)
{
    /* Chunks come from the set's arena while it has room, then from the
     * heap; chunks given back are reused. An arena of 16 or so chunks (whole
     * pages) makes the
     * random operations mix both kinds; clearing keeps the arena. */
    static struct model m;
    struct ju_span_set set = JU_SPAN_SET_INIT;
    uint64_t state = 5;
    void *arena;
    int op, round;
    ck_assert_int_eq(ju_reserved_array_open(&set.arena, 16 * sizeof(struct ju_span_chunk)), 0);
    arena = set.arena.base;
    for (round = 0; round < 2; round++) {
        m.n = 0;
        for (op = 0; op < 30000; op++) {
            uint64_t r = ju_next_random(&state);
            if (m.n && r % 3 == 0)
                remove_checked(&set, &m, m.start[(size_t)(r >> 8) % m.n]);
            else if (m.n < MAX_SPANS) {
                uint64_t start = 0x1000 + (r >> 8) % 0x800000;
                insert_checked(&set, &m, start, start + 1 + (r >> 40) % 0x100);
            }
        }
        check_contents(&set, &m);
        ck_assert_uint_gt(set.count, 16); /* more chunks than the arena holds */
        ck_assert_uint_eq(set.arena.written / sizeof(struct ju_span_chunk),
                          set.arena.reserved / sizeof(struct ju_span_chunk)); /* all cut */
        ju_span_set_clear(&set);
        ck_assert_uint_eq(ju_span_set_count(&set), 0);
        ck_assert_ptr_eq(set.arena.base, arena); /* kept for the next fill */
    }
    ju_span_set_free(&set);
    ck_assert_ptr_null(set.arena.base);
}
END_TEST

START_TEST(many_registrations_round_trip)
{
    /* Thousands of registrations falling through memory, then random
     * unregistrations and re-registrations: overlap answers from the model,
     * and the descriptor read back holds exactly the live ranges. */
    enum { N = 5000 };
    static jitunwind_jit_id ids[N];
    static int live[N];
    static char arena[N * 16];
    jitunwind_registry *reg;
    uint64_t state = 3;
    size_t i, n_live = 0;
    jitunwind_jit_reset();
    for (i = 0; i < N; i++) {
        char *at = arena + (N - 1 - i) * 16;
        ck_assert_int_eq(jitunwind_jit_register(at, 8, JITUNWIND_KIND_JIT,
                                                JITUNWIND_RULE_FP_PRESERVING, "f", i, &ids[i]),
                         0);
        ck_assert_int_eq(jitunwind_jit_register(at + 4, 8, JITUNWIND_KIND_JIT,
                                                JITUNWIND_RULE_FP_PRESERVING, NULL, 0, NULL),
                         JITUNWIND_EOVERLAP);
        live[i] = 1;
        n_live++;
    }
    for (i = 0; i < 4 * N; i++) {
        size_t k = (size_t)(ju_next_random(&state) % N);
        char *at = arena + (N - 1 - k) * 16;
        if (live[k]) {
            ck_assert_int_eq(jitunwind_jit_unregister(ids[k]), 0);
            n_live--;
        } else {
            ck_assert_int_eq(jitunwind_jit_register(at, 8 + (k & 7), JITUNWIND_KIND_JIT,
                                                    JITUNWIND_RULE_FP_PRESERVING, NULL, k, &ids[k]),
                             0);
            n_live++;
        }
        live[k] = !live[k];
    }
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_jit_read_self(reg, NULL), 0);
    ck_assert_uint_eq(jitunwind_registry_count(reg), n_live);
    for (i = 0; i < N; i++) {
        uint64_t at = (uint64_t)(uintptr_t)(arena + (N - 1 - i) * 16);
        const struct jitunwind_range *r = jitunwind_registry_lookup(reg, at);
        if (live[i])
            ck_assert_msg(r && r->start == at && r->cookie == i, "range %zu", i);
        else
            ck_assert_ptr_null(r);
    }
    jitunwind_registry_free(reg);
    jitunwind_jit_reset();
}
END_TEST

int main(void)
{
    return ju_run_tests("span_set", JU_TESTS(rising_and_falling_arrival,
                                             random_operations_match_a_model,
                                             clustered_and_outlying_spans_match_a_model,
                                             removed_spans_stay_vacated_and_are_reused,
                                             chunks_from_the_arena_and_the_heap,
                                             many_registrations_round_trip));
}
