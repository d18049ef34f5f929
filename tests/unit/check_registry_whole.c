/* Whole-registry operations: the digest changes with every field and name
 * and not with the order ranges were added in; the count by rule; the bulk
 * copy keeps every range and skips overlaps. */
#include <stdio.h>

#include "internal.h"
#include "suite.h"

static struct jitunwind_range R(uint64_t start, uint64_t end, const char *name)
{
    struct jitunwind_range r = {start, end, JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING,
                                0, JITUNWIND_ORIGIN_USER, 0, name};
    return r;
}

static uint64_t digest_of(const struct jitunwind_range *r, size_t n)
{
    jitunwind_registry *reg;
    uint64_t d;
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(jitunwind_registry_add(reg, &r[i]), 0);
    d = jitunwind_registry_digest(reg);
    jitunwind_registry_free(reg);
    return d;
}

START_TEST(digest_follows_content_not_history)
{
    struct jitunwind_range base[3] = {R(0x1000, 0x1010, "a"), R(0x2000, 0x2010, "b"),
                                      R(0x3000, 0x3010, NULL)};
    struct jitunwind_range reversed[3] = {base[2], base[1], base[0]};
    struct jitunwind_range v[3];
    uint64_t d = digest_of(base, 3);
    ck_assert_uint_eq(jitunwind_registry_digest(NULL), 0);
    ck_assert_uint_ne(d, digest_of(base, 2));
    ck_assert_uint_ne(digest_of(base, 0), digest_of(base, 1));
    ck_assert_uint_eq(d, digest_of(reversed, 3)); /* order of adds does not count */
    for (int field = 0; field < 12; field++) {
        memcpy(v, base, sizeof v);
        switch (field) {
        case 0: v[1].start = 0x2001; break;
        case 1: v[1].end = 0x2011; break;
        case 2: v[1].kind = JITUNWIND_KIND_OTHER; break;
        case 3: v[1].rule = JITUNWIND_RULE_TRAMPOLINE_SUB8; break;
        case 4: v[1].rule = JITUNWIND_RULE_TRAMPOLINE_SUB8; v[1].stride = 16; break;
        case 5: v[1].origin = JITUNWIND_ORIGIN_DESCRIPTOR; break;
        case 6: v[1].cookie = 1; break;
        case 7: v[1].frame_size = 16; break;
        case 8: v[1].name = "c"; break;
        case 9: v[1].name = "bb"; break;
        case 10: v[1].name = NULL; break;
        default: v[2].name = ""; break;
        }
        ck_assert_msg(digest_of(v, 3) != d, "field %d does not change the digest", field);
    }
}
END_TEST

START_TEST(digest_changes_after_remove_and_add_back_differently)
{
    jitunwind_registry *reg;
    struct jitunwind_range a = R(0x1000, 0x1010, "a"), b = R(0x2000, 0x2010, "b");
    uint64_t before;
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_registry_add(reg, &a), 0);
    ck_assert_int_eq(jitunwind_registry_add(reg, &b), 0);
    before = jitunwind_registry_digest(reg);
    ck_assert_uint_eq(jitunwind_registry_digest(reg), before); /* no side effect */
    ck_assert_int_eq(jitunwind_registry_remove(reg, 0x2000), 0);
    ck_assert_uint_ne(jitunwind_registry_digest(reg), before);
    ck_assert_int_eq(jitunwind_registry_add(reg, &b), 0);
    ck_assert_uint_eq(jitunwind_registry_digest(reg), before); /* same content again */
    jitunwind_registry_free(reg);
}
END_TEST

START_TEST(count_rule)
{
    jitunwind_registry *reg;
    struct jitunwind_range a = R(0x1000, 0x1010, NULL), b = R(0x2000, 0x2010, NULL);
    b.rule = JITUNWIND_RULE_TRAMPOLINE_SUB8;
    ck_assert_uint_eq(jitunwind_registry_count_rule(NULL, JITUNWIND_RULE_FP_PRESERVING), 0);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_uint_eq(jitunwind_registry_count_rule(reg, JITUNWIND_RULE_FP_PRESERVING), 0);
    ck_assert_int_eq(jitunwind_registry_add(reg, &a), 0);
    ck_assert_int_eq(jitunwind_registry_add(reg, &b), 0);
    ck_assert_uint_eq(jitunwind_registry_count_rule(reg, JITUNWIND_RULE_FP_PRESERVING), 1);
    ck_assert_uint_eq(jitunwind_registry_count_rule(reg, JITUNWIND_RULE_TRAMPOLINE_SUB8), 1);
    ck_assert_uint_eq(jitunwind_registry_count_rule(reg, JITUNWIND_RULE_SCAN), 0);
    jitunwind_registry_free(reg);
}
END_TEST

START_TEST(add_all_copies_and_skips_overlaps)
{
    jitunwind_registry *from, *to;
    char name[16];
    size_t skipped = 99;
    struct jitunwind_range taken = R(0x1000 + 16 * 7, 0x1000 + 16 * 7 + 4, "taken");
    ck_assert_int_eq(jitunwind_registry_new(&from), 0);
    ck_assert_int_eq(jitunwind_registry_new(&to), 0);
    for (int i = 0; i < 1000; i++) {
        struct jitunwind_range r = R(0x1000 + 16 * (uint64_t)i, 0x1000 + 16 * (uint64_t)i + 16, name);
        snprintf(name, sizeof name, "r%d", i);
        ck_assert_int_eq(jitunwind_registry_add(from, &r), 0);
    }
    ck_assert_int_eq(jitunwind_registry_add_all(NULL, from, NULL), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_registry_add_all(to, NULL, NULL), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_registry_add_all(from, from, NULL), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_registry_add_all(to, from, &skipped), 1000);
    ck_assert_uint_eq(skipped, 0);
    ck_assert_uint_eq(jitunwind_registry_digest(to), jitunwind_registry_digest(from));
    ck_assert_ptr_ne(jitunwind_registry_at(to, 3)->name, jitunwind_registry_at(from, 3)->name);
    jitunwind_registry_clear(to);
    ck_assert_int_eq(jitunwind_registry_add(to, &taken), 0);
    ck_assert_int_eq(jitunwind_registry_add_all(to, from, &skipped), 999);
    ck_assert_uint_eq(skipped, 1);
    ck_assert_str_eq(jitunwind_registry_lookup(to, 0x1000 + 16 * 7)->name, "taken");
    ck_assert_str_eq(jitunwind_registry_lookup(to, 0x1000 + 16 * 8)->name, "r8");
    jitunwind_registry_free(from);
    jitunwind_registry_free(to);
}
END_TEST

int main(void)
{
    return ju_run_tests("registry_whole",
                        JU_TESTS(digest_follows_content_not_history,
                                 digest_changes_after_remove_and_add_back_differently, count_rule,
                                 add_all_copies_and_skips_overlaps));
}
