/* The never-moving arrays of jit/reserved_array.h: growing keeps the
 * address and what was written; clearing leaves every byte zero, keeps
 * the first JU_RESERVED_KEEP bytes writable and takes the rest back; used
 * as an arena, pieces are cut one after the other. */
#include <stdlib.h>
#include <string.h>

#include "jit/reserved_array.h"
#include "suite.h"

static int all_zero(const unsigned char *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

START_TEST(grow_clear_and_grow_again)
{
    struct ju_reserved_array a = {0};
    const size_t big = 4u * 1024u * 1024u; /* past KEEP, and two huge pages' worth */
    unsigned char *base;
    ck_assert_int_eq(ju_reserved_array_open(&a, 64u * 1024u * 1024u), 0);
    base = a.base;
    ck_assert_uint_eq(a.writable, 0);
    ck_assert_int_eq(ju_reserved_array_grow(&a, 100), 0);
    ck_assert_uint_ge(a.writable, 100);
    memset(base, 0xab, 100);
    ck_assert_int_eq(ju_reserved_array_grow(&a, big), 0);
    ck_assert_ptr_eq(a.base, base); /* never moves */
    ck_assert_uint_eq(base[99], 0xab); /* what was written stays */
    ck_assert(all_zero(base + 100, big - 100));
    memset(base, 0xcd, big);
    ju_reserved_array_clear(&a);
    ck_assert_ptr_eq(a.base, base);
    ck_assert_uint_eq(a.writable, JU_RESERVED_KEEP);
    ck_assert(all_zero(base, JU_RESERVED_KEEP)); /* kept, zeroed */
    ck_assert_int_eq(ju_reserved_array_grow(&a, big), 0);
    ck_assert(all_zero(base, big)); /* given back: zero when made writable again */
    ck_assert_int_eq(ju_reserved_array_grow(&a, a.reserved + 1), JITUNWIND_ELIMIT);
    ck_assert_int_eq(ju_reserved_array_grow(&a, a.reserved), 0);
    ju_reserved_array_close(&a);
    ck_assert_ptr_null(a.base);
    ju_reserved_array_clear(&a); /* nothing reserved: nothing to do */
}
END_TEST

START_TEST(a_small_array_is_cleared_whole)
{
    struct ju_reserved_array a = {0};
    unsigned char *base;
    ck_assert_int_eq(ju_reserved_array_open(&a, 1u << 20), 0);
    base = a.base;
    ck_assert_int_eq(ju_reserved_array_grow(&a, 5000), 0);
    memset(base, 1, 5000);
    ju_reserved_array_clear(&a);
    ck_assert_uint_le(a.writable, JU_RESERVED_KEEP);
    ck_assert_int_eq(ju_reserved_array_grow(&a, 5000), 0);
    ck_assert(all_zero(base, 5000));
    ju_reserved_array_close(&a);
}
END_TEST

START_TEST(taken_pieces_follow_each_other_until_the_end)
{
    /* As an arena: each piece right after the one before, the writable
     * part doubling (not one system call a piece), NULL once the
     * reservation is used up; cleared, it hands out from the start again. */
    struct ju_reserved_array a = {0};
    unsigned char *base, *p;
    size_t i, n = 0;
    ck_assert_ptr_null(ju_reserved_array_take(&a, 1)); /* nothing reserved */
    ck_assert_int_eq(ju_reserved_array_open(&a, 1u << 20), 0);
    base = a.base;
    while ((p = ju_reserved_array_take(&a, 1000)) != NULL) {
        ck_assert_ptr_eq(p, base + n * 1000);
        ck_assert(all_zero(p, 1000));
        memset(p, 0xee, 1000);
        n++;
        ck_assert_uint_eq(a.written, n * 1000);
        ck_assert_uint_ge(a.writable, a.written);
        ck_assert_uint_le(a.writable, 2 * a.written + 4096); /* doubled, not more */
    }
    ck_assert_uint_eq(n, a.reserved / 1000);
    ck_assert_ptr_null(ju_reserved_array_take(&a, a.reserved - a.written + 1));
    if (a.reserved > a.written) /* what is left still fits something smaller */
        ck_assert_ptr_eq(ju_reserved_array_take(&a, a.reserved - a.written), base + n * 1000);
    ju_reserved_array_clear(&a);
    ck_assert_ptr_eq(ju_reserved_array_take(&a, 10), base);
    for (i = 0; i < 10; i++)
        ck_assert_uint_eq(base[i], 0);
    ju_reserved_array_close(&a);
}
END_TEST

START_TEST(an_arena_is_reserved_on_first_use_and_a_refusal_remembered)
{
    /* ju_reserved_arena_take reserves on first use; address space that
     * cannot be had (2^62 bytes: more than a 48-bit user space, as a tight
     * ulimit -v would refuse less) gives NULL, so the caller takes from the
     * heap, and the refusal stands until a clear, which tries again. */
    struct ju_reserved_array a = {0};
    unsigned char *p;
    ck_assert_ptr_null(ju_reserved_arena_take(&a, (size_t)1 << 62, 64));
    ck_assert_ptr_null(a.base);
    ck_assert_int_eq(a.refused, 1);
    ck_assert_ptr_null(ju_reserved_arena_take(&a, 1u << 20, 64)); /* refused: not tried again */
    ck_assert_ptr_null(a.base);
    ju_reserved_array_clear(&a);
    ck_assert_int_eq(a.refused, 0);
    ck_assert_ptr_nonnull(p = ju_reserved_arena_take(&a, 1u << 20, 64));
    ck_assert_ptr_eq(p, a.base);
    ck_assert_uint_ge(a.reserved, 1u << 20);
    ck_assert_ptr_eq(ju_reserved_arena_take(&a, 1u << 20, 64), p + 64); /* reserved once */
    ju_reserved_array_close(&a);
}
END_TEST

int main(void)
{
    return ju_run_tests("reserved_array",
                        JU_TESTS(grow_clear_and_grow_again, a_small_array_is_cleared_whole,
                                 taken_pieces_follow_each_other_until_the_end,
                                 an_arena_is_reserved_on_first_use_and_a_refusal_remembered));
}
