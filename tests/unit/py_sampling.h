/* What the sampler-cache suites share: every version's layout, a target
 * memory that counts its reads, and a deep thread to sample. */
#ifndef JU_TEST_PY_SAMPLING_H
#define JU_TEST_PY_SAMPLING_H

#include <check.h>

#include "counting_memory.h"
#include "jitunwind/python.h"
#include "py_image.h"

static const uint32_t VERSIONS[] = {0x030b02f0u, 0x030c01f0u, 0x030d00f0u, 0x030e07f0u};

/* The code objects of recursion_thread. */
struct recursion_codes {
    uint64_t rec, leaf, other; /* `other` runs in no frame: for replacing one */
};

/* One thread (native id 7), the only one of its interpreter: leaf -> rec x
 * (depth - 2) -> main, innermost first in frame[depth], with `gap` bytes
 * left between frames further out than the leaf (a chain wider than one
 * batch). Returns its thread state. */
static inline uint64_t recursion_thread(struct py_image *p, uint64_t *frame, size_t depth,
                                        size_t gap, struct recursion_codes *codes)
{
    uint64_t code_main, interp, ts;
    size_t i;
    code_main = pyi_code(p, "main", "/src/main.py", 1, 16);
    codes->rec = pyi_code(p, "rec", "/src/r.py", 10, 16);
    codes->leaf = pyi_code(p, "leaf", "/src/l.py", 30, 16);
    codes->other = pyi_code(p, "other", "/src/o.py", 50, 16);
    frame[depth - 1] = pyi_frame(p, code_main, 0, 2, 0, 1);
    for (i = depth - 1; i-- > 1;) {
        if (gap)
            pyi_alloc(p, gap);
        frame[i] = pyi_frame(p, codes->rec, frame[i + 1], 5, 0, 0);
    }
    frame[0] = pyi_frame(p, codes->leaf, frame[1], 1, 0, 0);
    interp = pyi_interp(p, 0, 0);
    ts = pyi_thread(p, interp, frame[0], 7);
    pyi_set_interpreters(p, interp);
    return ts;
}

/* Overwrite the frame at `at` with a new one (as the target reusing the
 * address for another call would). */
static inline void replace_frame_of(struct py_image *p, uint64_t at, uint64_t code,
                                    uint64_t previous, int lasti)
{
    uint8_t bytes[512];
    uint64_t fresh = pyi_frame(p, code, previous, lasti, 0, 0);
    struct jitunwind_memory mem = ju_builder_memory(p->b);
    ck_assert_uint_le(p->L->fr_size, sizeof bytes);
    ck_assert_int_eq(mem.read(mem.arg, fresh, bytes, p->L->fr_size), 0);
    ju_builder_write(p->b, at, bytes, p->L->fr_size);
}

/* Rewrite the text of `code`'s qualname in place, `len` bytes of `from` to
 * `to`: a new code object made into a freed one's memory with its name in
 * the freed name's, every pointer of its head the same. */
static inline void rename_in_place(struct py_image *p, uint64_t code, const char *from,
                                   const char *to, size_t len)
{
    struct jitunwind_memory mem = ju_builder_memory(p->b);
    uint64_t qualname;
    uint8_t head[160];
    size_t at;
    ck_assert_int_eq(mem.read(mem.arg, code + p->L->co_qualname, &qualname, 8), 0);
    ck_assert_int_eq(mem.read(mem.arg, qualname, head, sizeof head), 0);
    for (at = 0; at + len <= sizeof head && memcmp(head + at, from, len) != 0; at++)
        ;
    ck_assert_uint_le(at + len, sizeof head);
    ju_builder_write(p->b, qualname + at, to, len);
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
