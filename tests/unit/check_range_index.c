/* The registry's lookup index (ranges/range_index.c) against a brute-force
 * model: random adds, removals, clears and lookups over ranges of every
 * shape (adjacent, one byte, spanning many buckets, clusters far apart),
 * with enough lookups between changes that the index is built and then
 * made stale; and the index module on its own for the shapes that steer
 * its bucket size. */
#include <stdlib.h>

#include "internal.h"
#include "ranges/range_index.h"
#include "suite.h"

#define MAX_MODEL 4096

struct model {
    uint64_t start[MAX_MODEL], end[MAX_MODEL];
    size_t n;
};


static struct jitunwind_range R(uint64_t start, uint64_t end)
{
    struct jitunwind_range r = {start, end, JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING,
                                0, JITUNWIND_ORIGIN_USER, 0, NULL};
    return r;
}

static size_t model_find(const struct model *m, uint64_t pc)
{
    size_t i;
    for (i = 0; i < m->n; i++)
        if (m->start[i] <= pc && pc < m->end[i])
            return i;
    return SIZE_MAX;
}

static int model_overlaps(const struct model *m, uint64_t start, uint64_t end)
{
    size_t i;
    for (i = 0; i < m->n; i++)
        if (m->start[i] < end && start < m->end[i])
            return 1;
    return 0;
}

static void model_remove(struct model *m, size_t i)
{
    m->start[i] = m->start[m->n - 1];
    m->end[i] = m->end[m->n - 1];
    m->n--;
}

/* One probe address: near a registered range's edges or inside it, or
 * anywhere in the cluster. */
static uint64_t probe(const struct model *m, uint64_t *state, uint64_t base, uint64_t space)
{
    uint64_t r = ju_next_random(state);
    if (m->n && r % 4 != 0) {
        size_t i = (size_t)(r >> 8) % m->n;
        switch ((r >> 4) % 6) {
        case 0: return m->start[i];
        case 1: return m->start[i] - 1;
        case 2: return m->end[i];
        case 3: return m->end[i] - 1;
        case 4: return m->start[i] + (r >> 20) % (m->end[i] - m->start[i]);
        default: return m->end[i] + (r >> 20) % 64;
        }
    }
    return base + (r >> 8) % space;
}

static void check_lookup(jitunwind_registry *reg, const struct model *m, uint64_t pc)
{
    const struct jitunwind_range *got = jitunwind_registry_lookup(reg, pc);
    size_t want = model_find(m, pc);
    if (want == SIZE_MAX) {
        ck_assert_msg(got == NULL, "pc %#llx: found [%#llx, %#llx), expected nothing",
                      (unsigned long long)pc, (unsigned long long)(got ? got->start : 0),
                      (unsigned long long)(got ? got->end : 0));
    } else {
        ck_assert_msg(got && got->start == m->start[want] && got->end == m->end[want],
                      "pc %#llx: expected [%#llx, %#llx), found %s", (unsigned long long)pc,
                      (unsigned long long)m->start[want], (unsigned long long)m->end[want],
                      got ? "another range" : "nothing");
    }
}

/* A range size of one of several scales, so that the bucket size chosen
 * from the typical distance leaves some ranges spanning many buckets. */
static uint64_t random_size(uint64_t *state)
{
    uint64_t r = ju_next_random(state);
    switch (r % 8) {
    case 0: return 1;
    case 1: return 1 + (r >> 8) % 16;
    case 2: return 0x1000 + (r >> 8) % 0x40000; /* many buckets */
    default: return 16 + (r >> 8) % 0x100;
    }
}

static void random_sequence(uint64_t seed, uint64_t base2, int ops)
{
    static struct model m;
    jitunwind_registry *reg;
    uint64_t state = seed;
    const uint64_t base1 = 0x10000000, space = 0x400000;
    int op, k;
    m.n = 0;
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    for (op = 0; op < ops; op++) {
        uint64_t r = ju_next_random(&state);
        int burst = (int)(r % 7 == 0 ? 600 : 3); /* enough lookups to build the index */
        if (r % 50 == 0) {
            jitunwind_registry_clear(reg);
            m.n = 0;
        } else if (r % 5 == 0 && m.n) { /* remove */
            size_t i = (size_t)(r >> 8) % m.n;
            ck_assert_int_eq(jitunwind_registry_remove(reg, m.start[i]), 0);
            model_remove(&m, i);
        } else if (m.n < MAX_MODEL) { /* add: adjacent to a range, or anywhere */
            uint64_t base = (r >> 40) & 1 ? base2 : base1, start, size = random_size(&state);
            struct jitunwind_range range;
            int rc;
            if (m.n && (r >> 9) % 3 == 0) {
                size_t i = (size_t)(r >> 12) % m.n;
                start = (r >> 30) & 1 ? m.end[i] : m.start[i] - size;
            } else {
                start = base + ju_next_random(&state) % space;
            }
            range = R(start, start + size);
            rc = jitunwind_registry_add(reg, &range);
            ck_assert_int_eq(rc, model_overlaps(&m, start, start + size) ? JITUNWIND_EOVERLAP : 0);
            if (rc == 0) {
                m.start[m.n] = start;
                m.end[m.n++] = start + size;
            }
        }
        for (k = 0; k < burst; k++)
            check_lookup(reg, &m, probe(&m, &state, (k & 1) ? base2 : base1, space));
    }
    jitunwind_registry_free(reg);
}

START_TEST(random_operations_one_cluster)
{
    random_sequence(1, 0x10000000 + 0x100000, 3000); /* both bases in one space */
}
END_TEST

START_TEST(random_operations_far_clusters)
{
    random_sequence(2, 0x7f0000000000ull, 3000); /* the span forces a coarser bucket */
}
END_TEST

START_TEST(stale_index_is_not_used_after_changes)
{
    /* Build the index with many lookups, then change the registry and look
     * up at once: removed ranges are gone, added ones found, a rule changed
     * by scan_guesses is seen. */
    jitunwind_registry *reg;
    struct jitunwind_range r;
    const struct jitunwind_range *got;
    uint64_t i;
    int k;
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    for (i = 0; i < 1000; i++) {
        r = R(0x100000 + i * 0x100, 0x100000 + i * 0x100 + 0x80);
        r.origin = JITUNWIND_ORIGIN_GUESS;
        ck_assert_int_eq(jitunwind_registry_add(reg, &r), 0);
    }
    for (k = 0; k < 5000; k++)
        ck_assert_ptr_nonnull(
            jitunwind_registry_lookup(reg, 0x100000 + (uint64_t)(k % 1000) * 0x100));
    ck_assert_int_eq(jitunwind_registry_remove(reg, 0x100000 + 500 * 0x100), 0);
    ck_assert_ptr_null(jitunwind_registry_lookup(reg, 0x100000 + 500 * 0x100 + 4));
    got = jitunwind_registry_lookup(reg, 0x100000 + 501 * 0x100 + 4);
    ck_assert(got && got->start == 0x100000 + 501 * 0x100);
    r = R(0x100000 + 500 * 0x100 + 0x80, 0x100000 + 501 * 0x100); /* fills the gap exactly */
    ck_assert_int_eq(jitunwind_registry_add(reg, &r), 0);
    got = jitunwind_registry_lookup(reg, 0x100000 + 500 * 0x100 + 0x80);
    ck_assert(got && got->start == r.start && got->end == r.end);
    got = jitunwind_registry_lookup(reg, 0x100000 + 499 * 0x100 + 0x7f);
    ck_assert(got && got->start == 0x100000 + 499 * 0x100);
    for (k = 0; k < 5000; k++) /* build again, then change rules in place */
        jitunwind_registry_lookup(reg, 0x100000 + (uint64_t)(k % 1000) * 0x100);
    ck_assert_uint_eq(jitunwind_registry_scan_guesses(reg, 0x1000, 0x2000), 999);
    got = jitunwind_registry_lookup(reg, 0x100000 + 10 * 0x100);
    ck_assert(got && got->rule == JITUNWIND_RULE_SCAN);
    jitunwind_registry_clear(reg);
    ck_assert_ptr_null(jitunwind_registry_lookup(reg, 0x100000 + 10 * 0x100));
    r = R(0x100000 + 10 * 0x100 + 1, 0x100000 + 10 * 0x100 + 2);
    ck_assert_int_eq(jitunwind_registry_add(reg, &r), 0);
    ck_assert_ptr_null(jitunwind_registry_lookup(reg, 0x100000 + 10 * 0x100));
    ck_assert_ptr_nonnull(jitunwind_registry_lookup(reg, 0x100000 + 10 * 0x100 + 1));
    jitunwind_registry_free(reg);
}
END_TEST

/* Every address of interest of ranges[0..n) against a linear search. */
static void check_index(const struct jitunwind_range *ranges, size_t n)
{
    struct ju_range_index ix;
    size_t i, j, k;
    ck_assert_int_eq(ju_range_index_build(&ix, ranges, n), 0);
    for (i = 0; i < n; i++) {
        uint64_t size = ranges[i].end - ranges[i].start;
        uint64_t pcs[] = {ranges[i].start - 1, ranges[i].start, ranges[i].start + size / 3,
                          ranges[i].start + size / 2, ranges[i].end - 1, ranges[i].end,
                          ranges[i].end + 1};
        for (k = 0; k < sizeof pcs / sizeof pcs[0]; k++) {
            size_t want = n;
            for (j = 0; j < n; j++)
                if (ranges[j].start <= pcs[k] && pcs[k] < ranges[j].end)
                    want = j;
            ck_assert_msg(ju_range_index_find(&ix, ranges, n, pcs[k]) == want,
                          "pc %#llx of range %zu", (unsigned long long)pcs[k], i);
        }
    }
    ck_assert_uint_eq(ju_range_index_find(&ix, ranges, n, 0), n);
    ck_assert_uint_eq(ju_range_index_find(&ix, ranges, n, UINT64_MAX), n);
    ju_range_index_free(&ix);
}

START_TEST(index_shapes)
{
    static struct jitunwind_range r[600];
    size_t i, n;
    struct ju_range_index ix;
    ck_assert_int_eq(ju_range_index_build(&ix, r, 0), 0); /* empty: everything misses */
    ck_assert_uint_eq(ju_range_index_find(&ix, r, 0, 1234), 0);
    ju_range_index_free(&ix);
    r[0] = R(0x1000, 0x1001); /* one byte */
    check_index(r, 1);
    r[0] = R(1, UINT64_MAX); /* the whole space: the bucket size grows to fit the keys */
    check_index(r, 1);
    /* Trampoline-like copies 16 bytes apart, then executors of a few pages
     * each: the typical distance is 16, so the executors span many buckets. */
    for (i = 0, n = 0; i < 400; i++, n++)
        r[n] = R(0x400000 + i * 16, 0x400000 + i * 16 + 8);
    for (i = 0; i < 100; i++, n++)
        r[n] = R(0x800000 + i * 0x5000, 0x800000 + i * 0x5000 + 0x3000 + i * 7);
    check_index(r, n);
    /* A few outliers far longer than the rest: kept apart as long ranges,
     * their inner buckets absent from the table. */
    for (i = 0, n = 0; i < 500; i++, n++)
        r[n] = R(0x400000 + i * 0x100, 0x400000 + i * 0x100 + 0x80);
    for (i = 0; i < 4; i++, n++)
        r[n] = R(0x1000000 + i * 0x200000, 0x1000000 + i * 0x200000 + 0x100000 + i);
    check_index(r, n);
    ck_assert_int_eq(ju_range_index_build(&ix, r, n), 0);
    ck_assert_uint_eq(ix.n_long, 4);
    ju_range_index_free(&ix);
    /* Back to back, varying sizes, and two clusters 2^46 apart. */
    for (i = 0, n = 0; i < 300; i++, n++)
        r[n] = R(n ? r[n - 1].end : 0x10000, (n ? r[n - 1].end : 0x10000) + 1 + (i * 37) % 200);
    for (i = 0; i < 300; i++, n++)
        r[n] = R(0x400000000000ull + i * 0x300, 0x400000000000ull + i * 0x300 + 0x2ff - i % 5);
    check_index(r, n);
}
END_TEST

int main(void)
{
    return ju_run_tests("range_index",
                        JU_TESTS(random_operations_one_cluster, random_operations_far_clusters,
                                 stale_index_is_not_used_after_changes, index_shapes));
}
