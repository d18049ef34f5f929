/* The image reader and the checked-read helpers. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "builder.h"
#include "internal.h"
#include "suite.h"

START_TEST(image_reads_across_adjacent_segments)
{
    jitunwind_image *img;
    uint8_t a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, out[8];
    struct jitunwind_memory mem;
    ck_assert_int_eq(jitunwind_image_new(&img), 0);
    ck_assert_int_eq(jitunwind_image_add(img, 0x1004, b, 4), 0);
    ck_assert_int_eq(jitunwind_image_add(img, 0x1000, a, 4), 0);
    mem = jitunwind_image_memory(img);
    ck_assert_int_eq(ju_read(&mem, 0x1000, out, 8), 0);
    ck_assert_int_eq(out[0], 1);
    ck_assert_int_eq(out[7], 8);
    jitunwind_image_free(img);
}
END_TEST

START_TEST(image_rejects_holes_overlaps_and_wraps)
{
    jitunwind_image *img;
    uint8_t a[4] = {0}, out[8];
    struct jitunwind_memory mem;
    ck_assert_int_eq(jitunwind_image_new(&img), 0);
    ck_assert_int_eq(jitunwind_image_add(img, 0x1000, a, 4), 0);
    ck_assert_int_eq(jitunwind_image_add(img, 0x1008, a, 4), 0);
    ck_assert_int_eq(jitunwind_image_add(img, 0x1002, a, 4), JITUNWIND_EOVERLAP);
    ck_assert_int_eq(jitunwind_image_add(img, UINT64_MAX - 1, a, 4), JITUNWIND_EINVAL);
    mem = jitunwind_image_memory(img);
    ck_assert_int_eq(ju_read(&mem, 0x1000, out, 8), JITUNWIND_EREAD); /* hole at 0x1004 */
    ck_assert_int_eq(ju_read(&mem, UINT64_MAX - 2, out, 8), JITUNWIND_EREAD);
    ck_assert_int_eq(ju_read(&mem, 0x1000, out, JITUNWIND_READ_MAX + 1u), JITUNWIND_EINVAL);
    jitunwind_image_free(img);
}
END_TEST

START_TEST(builder_pages_and_poison)
{
    struct ju_builder *b = ju_builder_new();
    struct jitunwind_memory mem = ju_builder_memory(b);
    uint64_t v = 0;
    ju_builder_u64(b, 0x2ffc, 0x1122334455667788ull); /* spans two pages */
    ck_assert_int_eq(ju_read_u64(&mem, 0x2ffc, &v), 0);
    ck_assert_uint_eq(v, 0x1122334455667788ull);
    ju_builder_unmap(b, 0x3000);
    ck_assert_int_eq(ju_read_u64(&mem, 0x2ffc, &v), JITUNWIND_EREAD);
    ju_builder_poison(b, 0x2ff0, 4);
    ck_assert_int_eq(ju_read_u32(&mem, 0x2ff0, (uint32_t *)&v), JITUNWIND_EREAD);
    ju_builder_free(b);
}
END_TEST

START_TEST(strerror_covers_every_code)
{
    int c;
    for (c = JITUNWIND_EUNSUPPORTED; c <= 0; c++)
        ck_assert_str_ne(jitunwind_strerror(c), "unknown status");
    ck_assert_str_eq(jitunwind_strerror(12345), "unknown status");
}
END_TEST

static int log_calls;
static char log_text[256];

static void on_log(void *arg, int level, const char *message)
{
    (void)level;
    *(int *)arg += 1;
    snprintf(log_text, sizeof log_text, "%s", message);
}

START_TEST(errors_reach_the_log_callback_and_the_handle)
{
    jitunwind_registry *reg;
    struct jitunwind_range r = {0x2000, 0x1000, JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING,
                                0, 0, 0, NULL};
    log_calls = 0;
    jitunwind_set_log(on_log, &log_calls);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_registry_add(reg, &r), JITUNWIND_EINVAL);
    ck_assert_int_eq(log_calls, 1);
    ck_assert_ptr_nonnull(strstr(log_text, "invalid range"));
    ck_assert_str_eq(jitunwind_registry_last_error(reg)->message, log_text);
    ck_assert_uint_eq(jitunwind_registry_last_error(reg)->address, 0x2000);
    jitunwind_set_log(NULL, NULL);
    ck_assert_int_eq(jitunwind_registry_add(reg, &r), JITUNWIND_EINVAL);
    ck_assert_int_eq(log_calls, 1); /* off again */
    jitunwind_registry_free(reg);
}
END_TEST

START_TEST(process_reader_reads_a_live_process_all_or_nothing)
{
    jitunwind_process_reader *pr;
    struct jitunwind_memory mem;
    static const char secret[] = "jitunwind process reader";
    char buf[sizeof secret];
    ck_assert_int_eq(jitunwind_process_reader_new(&pr, 0), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_process_reader_new(&pr, 999999999), JITUNWIND_ENOTFOUND);
    ck_assert_int_eq(jitunwind_process_reader_new(&pr, getpid()), 0);
    mem = jitunwind_process_reader_memory(pr);
    ck_assert_int_eq(ju_read(&mem, (uint64_t)(uintptr_t)secret, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, secret);
    ck_assert_int_eq(ju_read(&mem, 0x1000, buf, 8), JITUNWIND_EREAD); /* unmapped */
    ck_assert_int_eq(ju_read(&mem, UINT64_MAX - 3, buf, 8), JITUNWIND_EREAD); /* wraps */
    jitunwind_process_reader_free(pr);
}
END_TEST

int main(void)
{
    return ju_run_tests("memory", JU_TESTS(image_reads_across_adjacent_segments,
                                           image_rejects_holes_overlaps_and_wraps,
                                           builder_pages_and_poison,
                                           strerror_covers_every_code,
                                           errors_reach_the_log_callback_and_the_handle,
                                           process_reader_reads_a_live_process_all_or_nothing));
}
