/* The range registry: validation, overlap, lookup at the edges, removal,
 * generation, names, and order independence. */
#include <stdlib.h>

#include "internal.h"
#include "suite.h"

static struct jitunwind_range R(uint64_t start, uint64_t end, const char *name)
{
    struct jitunwind_range r = {start, end, JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING,
                                0, JITUNWIND_ORIGIN_USER, 0, name};
    return r;
}

START_TEST(add_lookup_edges)
{
    jitunwind_registry *reg;
    struct jitunwind_range r = R(0x1000, 0x2000, "a");
    const struct jitunwind_range *got;
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_ptr_null(jitunwind_registry_lookup(reg, 0x1000)); /* empty */
    ck_assert_int_eq(jitunwind_registry_add(reg, &r), 0);
    ck_assert_ptr_null(jitunwind_registry_lookup(reg, 0xfff));
    got = jitunwind_registry_lookup(reg, 0x1000);
    ck_assert_ptr_nonnull(got);
    ck_assert_str_eq(got->name, "a");
    ck_assert_ptr_ne(got->name, r.name); /* copied */
    ck_assert_ptr_nonnull(jitunwind_registry_lookup(reg, 0x1fff));
    ck_assert_ptr_null(jitunwind_registry_lookup(reg, 0x2000)); /* end is exclusive */
    jitunwind_registry_free(reg);
}
END_TEST

START_TEST(rejects_invalid_and_overlapping)
{
    jitunwind_registry *reg;
    struct jitunwind_range r = R(0x1000, 0x2000, NULL);
    uint64_t gen;
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_registry_add(reg, &r), 0);
    gen = jitunwind_registry_generation(reg);
    r = R(0x1fff, 0x3000, NULL);
    ck_assert_int_eq(jitunwind_registry_add(reg, &r), JITUNWIND_EOVERLAP);
    ck_assert_int_eq(jitunwind_registry_last_error(reg)->code, JITUNWIND_EOVERLAP);
    ck_assert_ptr_nonnull(strstr(jitunwind_registry_last_error(reg)->message, "overlaps"));
    r = R(0x800, 0x1001, NULL);
    ck_assert_int_eq(jitunwind_registry_add(reg, &r), JITUNWIND_EOVERLAP);
    r = R(0x0, 0x10000, NULL); /* covers it entirely */
    ck_assert_int_eq(jitunwind_registry_add(reg, &r), JITUNWIND_EOVERLAP);
    r = R(0x5000, 0x5000, NULL); /* empty */
    ck_assert_int_eq(jitunwind_registry_add(reg, &r), JITUNWIND_EINVAL);
    r = R(0x6000, 0x5000, NULL); /* wraps */
    ck_assert_int_eq(jitunwind_registry_add(reg, &r), JITUNWIND_EINVAL);
    r = R(0x5000, 0x6000, NULL);
    r.rule = 99;
    ck_assert_int_eq(jitunwind_registry_add(reg, &r), JITUNWIND_EINVAL);
    r.rule = JITUNWIND_RULE_TRAMPOLINE_SUB8;
    r.kind = 0;
    ck_assert_int_eq(jitunwind_registry_add(reg, &r), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_registry_add(NULL, &r), JITUNWIND_EINVAL);
    ck_assert_uint_eq(jitunwind_registry_generation(reg), gen); /* failures change nothing */
    ck_assert_uint_eq(jitunwind_registry_count(reg), 1);
    /* Adjacent ranges are fine. */
    r = R(0x2000, 0x3000, NULL);
    ck_assert_int_eq(jitunwind_registry_add(reg, &r), 0);
    r = R(0xf00, 0x1000, NULL);
    ck_assert_int_eq(jitunwind_registry_add(reg, &r), 0);
    ck_assert_uint_eq(jitunwind_registry_count(reg), 3);
    jitunwind_registry_free(reg);
}
END_TEST

START_TEST(remove_clear_generation)
{
    jitunwind_registry *reg;
    struct jitunwind_range r;
    uint64_t g0, i;
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    g0 = jitunwind_registry_generation(reg);
    for (i = 0; i < 10; i++) {
        r = R(0x10000 + i * 0x100, 0x10000 + i * 0x100 + 0x80, "x");
        ck_assert_int_eq(jitunwind_registry_add(reg, &r), 0);
    }
    ck_assert_uint_eq(jitunwind_registry_generation(reg), g0 + 10);
    ck_assert_int_eq(jitunwind_registry_remove(reg, 0x10500), 0);
    ck_assert_ptr_null(jitunwind_registry_lookup(reg, 0x10540));
    ck_assert_int_eq(jitunwind_registry_remove(reg, 0x10500), JITUNWIND_ENOTFOUND);
    ck_assert_int_eq(jitunwind_registry_remove(reg, 0x10601), JITUNWIND_ENOTFOUND); /* not a start */
    ck_assert_ptr_nonnull(jitunwind_registry_lookup(reg, 0x10640));
    ck_assert_uint_eq(jitunwind_registry_count(reg), 9);
    ck_assert_uint_eq(jitunwind_registry_generation(reg), g0 + 11);
    jitunwind_registry_clear(reg);
    ck_assert_uint_eq(jitunwind_registry_count(reg), 0);
    ck_assert_ptr_null(jitunwind_registry_lookup(reg, 0x10040));
    ck_assert_uint_eq(jitunwind_registry_generation(reg), g0 + 12);
    jitunwind_registry_free(reg);
}
END_TEST

START_TEST(any_insertion_order_gives_sorted_ranges)
{
    jitunwind_registry *reg;
    uint64_t i, order[64];
    srand(7);
    for (i = 0; i < 64; i++)
        order[i] = i;
    for (i = 63; i > 0; i--) { /* shuffle */
        uint64_t j = (uint64_t)rand() % (i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    for (i = 0; i < 64; i++) {
        struct jitunwind_range r = R(order[i] * 0x1000, order[i] * 0x1000 + 0x800, NULL);
        ck_assert_int_eq(jitunwind_registry_add(reg, &r), 0);
    }
    for (i = 0; i < 64; i++) {
        const struct jitunwind_range *r = jitunwind_registry_at(reg, i);
        ck_assert_uint_eq(r->start, i * 0x1000);
        ck_assert_ptr_eq(jitunwind_registry_lookup(reg, i * 0x1000 + 0x7ff), r);
        ck_assert_ptr_null(jitunwind_registry_lookup(reg, i * 0x1000 + 0x800));
    }
    ck_assert_ptr_null(jitunwind_registry_at(reg, 64));
    jitunwind_registry_free(reg);
}
END_TEST

START_TEST(long_names_are_truncated)
{
    jitunwind_registry *reg;
    char name[2000];
    struct jitunwind_range r;
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    r = R(0x1000, 0x2000, name);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_registry_add(reg, &r), 0);
    ck_assert_uint_eq(strlen(jitunwind_registry_lookup(reg, 0x1000)->name), JITUNWIND_NAME_MAX - 1);
    jitunwind_registry_free(reg);
}
END_TEST

START_TEST(extremes_origin_and_name_ownership)
{
    jitunwind_registry *reg;
    struct jitunwind_range r = R(UINT64_MAX - 0x10, UINT64_MAX, NULL);
    char name[8] = "first";
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_registry_add(reg, &r), 0); /* ends at the top of the space */
    ck_assert_ptr_nonnull(jitunwind_registry_lookup(reg, UINT64_MAX - 1));
    ck_assert_ptr_null(jitunwind_registry_lookup(reg, UINT64_MAX));
    r = R(0, 1, name);
    ck_assert_int_eq(jitunwind_registry_add(reg, &r), 0);
    strcpy(name, "second"); /* the registry has its own copy */
    ck_assert_str_eq(jitunwind_registry_lookup(reg, 0)->name, "first");
    ck_assert_ptr_null(jitunwind_registry_lookup(reg, 1));
    r = R(0x1000, 0x2000, NULL);
    r.origin = JITUNWIND_ORIGIN_GUESS + 1;
    ck_assert_int_eq(jitunwind_registry_add(reg, &r), JITUNWIND_EINVAL);
    ck_assert_ptr_nonnull(strstr(jitunwind_registry_last_error(reg)->message, "invalid range"));
    ck_assert_uint_eq(jitunwind_registry_last_error(reg)->address, 0x1000);
    r.origin = JITUNWIND_ORIGIN_PERF_MAP;
    r.cookie = 0xc0ffee;
    r.stride = 32;
    ck_assert_int_eq(jitunwind_registry_add(reg, &r), 0);
    ck_assert_uint_eq(jitunwind_registry_lookup(reg, 0x1800)->cookie, 0xc0ffee);
    ck_assert_uint_eq(jitunwind_registry_lookup(reg, 0x1800)->stride, 32);
    ck_assert_uint_eq(jitunwind_registry_lookup(reg, 0x1800)->origin, JITUNWIND_ORIGIN_PERF_MAP);
    ck_assert_int_eq(jitunwind_registry_remove(reg, 0), 0); /* first */
    ck_assert_int_eq(jitunwind_registry_remove(reg, UINT64_MAX - 0x10), 0); /* last */
    ck_assert_uint_eq(jitunwind_registry_count(reg), 1);
    ck_assert_ptr_null(jitunwind_registry_lookup(NULL, 0x1800));
    ck_assert_uint_eq(jitunwind_registry_count(NULL), 0);
    ck_assert_int_eq(jitunwind_registry_remove(NULL, 0), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_registry_new(NULL), JITUNWIND_EINVAL);
    jitunwind_registry_free(reg);
    jitunwind_registry_free(NULL);
}
END_TEST

START_TEST(random_operations_match_a_model)
{
    /* Adds (in and out of order, some overlapping) and removals over a small
     * space, checked byte by byte against a brute-force model: lookups,
     * overlap rejection, order, and the generation counter. */
    enum { SPACE = 2048, OPS = 5000 };
    static int owner[SPACE]; /* start + 1 of the range covering each address, or 0 */
    jitunwind_registry *reg;
    uint64_t state = 99, gen;
    int op, a;
    memset(owner, 0, sizeof owner);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    gen = jitunwind_registry_generation(reg);
    for (op = 0; op < OPS; op++) {
        uint64_t start, size;
        int rc, overlap = 0;
        size_t k;
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        start = (state >> 33) % SPACE;
        if ((state >> 62) == 0) { /* remove whatever starts here, if anything */
            rc = jitunwind_registry_remove(reg, start);
            if (owner[start] == (int)start + 1 && (start == 0 || owner[start - 1] != (int)start + 1)) {
                ck_assert_int_eq(rc, 0);
                for (a = (int)start; a < SPACE && owner[a] == (int)start + 1; a++)
                    owner[a] = 0;
                ck_assert_uint_eq(jitunwind_registry_generation(reg), ++gen);
            } else {
                ck_assert_int_eq(rc, JITUNWIND_ENOTFOUND);
            }
        } else {
            struct jitunwind_range r;
            size = 1 + (state >> 20) % 48;
            if (start + size > SPACE)
                size = SPACE - start;
            for (a = (int)start; a < (int)(start + size); a++)
                overlap |= owner[a] != 0;
            r = R(start, start + size, NULL);
            rc = jitunwind_registry_add(reg, &r);
            ck_assert_int_eq(rc, overlap ? JITUNWIND_EOVERLAP : 0);
            if (rc == 0) {
                for (a = (int)start; a < (int)(start + size); a++)
                    owner[a] = (int)start + 1;
                ck_assert_uint_eq(jitunwind_registry_generation(reg), ++gen);
            }
        }
        if (op % 100 == 0 || op == OPS - 1) {
            for (a = 0; a < SPACE; a++) {
                const struct jitunwind_range *got = jitunwind_registry_lookup(reg, (uint64_t)a);
                if (owner[a] == 0)
                    ck_assert_ptr_null(got);
                else
                    ck_assert_msg(got && got->start == (uint64_t)owner[a] - 1, "address %d", a);
            }
            for (k = 1; k < jitunwind_registry_count(reg); k++)
                ck_assert_uint_le(jitunwind_registry_at(reg, k - 1)->end, jitunwind_registry_at(reg, k)->start);
        }
    }
    jitunwind_registry_free(reg);
}
END_TEST

int main(void)
{
    return ju_run_tests("registry", JU_TESTS(add_lookup_edges, rejects_invalid_and_overlapping,
                                             remove_clear_generation,
                                             any_insertion_order_gives_sorted_ranges,
                                             long_names_are_truncated,
                                             extremes_origin_and_name_ownership,
                                             random_operations_match_a_model));
}
