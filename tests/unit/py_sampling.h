/* What the sampler-cache suites share: every version's layout, and a
 * target memory that counts its reads. */
#ifndef JU_TEST_PY_SAMPLING_H
#define JU_TEST_PY_SAMPLING_H

#include <check.h>

#include "jitunwind/python.h"

static const uint32_t VERSIONS[] = {0x030b02f0u, 0x030c01f0u, 0x030d00f0u, 0x030e07f0u};

struct counting {
    struct jitunwind_memory inner;
    unsigned long reads;
};

static int counting_read(void *arg, uint64_t addr, void *dst, size_t len)
{
    struct counting *c = arg;
    c->reads++;
    return c->inner.read(c->inner.arg, addr, dst, len);
}

/* Two walks' frames are the same, field by field. */
static void same_frames(const struct jitunwind_py_frame *x, const struct jitunwind_py_frame *y,
                        size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        ck_assert_uint_eq(x[i].address, y[i].address);
        ck_assert_uint_eq(x[i].code, y[i].code);
        ck_assert_str_eq(x[i].qualname, y[i].qualname);
        ck_assert_str_eq(x[i].filename, y[i].filename);
        ck_assert_int_eq(x[i].line, y[i].line);
        ck_assert_int_eq(x[i].first_line, y[i].first_line);
        ck_assert_int_eq(x[i].lasti, y[i].lasti);
        ck_assert_uint_eq(x[i].flags, y[i].flags);
    }
}

/* A test that runs `name##_on` on each version's layout. */
#define EVERY_VERSION(name)                                                                  \
    START_TEST(name)                                                                         \
    {                                                                                        \
        size_t v;                                                                            \
        for (v = 0; v < sizeof VERSIONS / sizeof VERSIONS[0]; v++)                           \
            name##_on(VERSIONS[v]);                                                          \
    }                                                                                        \
    END_TEST

#endif
