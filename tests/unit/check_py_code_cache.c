/* The Python reader's code-object cache (jitunwind_pyreader_cache_code):
 * the same frames with and without it on every version's layout, fewer
 * target reads with it, a stale entry refilled when the code object at its
 * address changes (also when only its name's text does), and the
 * per-sample trust of
 * jitunwind_pyreader_cache_next_sample. */
#include <string.h>

#include "py_image.h"
#include "python/pyreader.h"
#include "py_sampling.h"
#include "suite.h"

static struct py_image P;
static struct counting C;
static jitunwind_pyreader *R;
static uint64_t CODE_A;

/* Frames a -> b -> a -> c (innermost first): code A twice. */
static uint64_t target(uint32_t version)
{
    struct jitunwind_memory mem;
    uint64_t a, b, c, d, code_b, code_c, interp;
    pyi_init(&P, version);
    CODE_A = pyi_code(&P, "recurse", "/src/r.py", 10, 16);
    code_b = pyi_code(&P, "Klass.step", "/src/k.py", 40, 16);
    code_c = pyi_code(&P, "main", "/src/main.py", 1, 16);
    d = pyi_frame(&P, code_c, 0, 2, 0, 1);
    c = pyi_frame(&P, CODE_A, d, 4, 0, 0);
    b = pyi_frame(&P, code_b, c, 3, 0, 0);
    a = pyi_frame(&P, CODE_A, b, 1, 0, 0);
    interp = pyi_interp(&P, 0, 0);
    pyi_thread(&P, interp, a, 7);
    pyi_set_interpreters(&P, interp);
    C.inner = ju_builder_memory(P.b);
    C.reads = 0;
    mem.size = sizeof mem;
    mem.read = counting_read;
    mem.arg = &C;
    ck_assert_int_eq(jitunwind_pyreader_open(&R, &mem, P.runtime, version, NULL), 0);
    return a;
}

static void teardown(void)
{
    jitunwind_pyreader_free(R);
    R = NULL;
    pyi_free(&P);
}

static unsigned long walk(uint64_t top, struct jitunwind_py_frame *out, size_t *n)
{
    unsigned long before = C.reads;
    ck_assert_int_eq(jitunwind_pyreader_frames(R, top, out, 8, n), 0);
    ck_assert_uint_eq(*n, 4);
    return C.reads - before;
}

static void same_frames_fewer_reads_on(uint32_t version)
{
    struct jitunwind_py_frame plain[8], first[8], again[8];
    struct jitunwind_py_cache_stats st;
    size_t n;
    uint64_t top = target(version);
    unsigned long uncached = walk(top, plain, &n), filling, cached;
    ck_assert_str_eq(plain[0].qualname, "recurse");
    ck_assert_int_eq(plain[1].line, 43);
    ck_assert_int_eq(jitunwind_pyreader_cache_code(R, 64), 0);
    filling = walk(top, first, &n);
    cached = walk(top, again, &n);
    same_frames(plain, first, 4);
    same_frames(plain, again, 4);
    ck_assert_msg(cached < uncached, "%lu reads with the cache, %lu without", cached, uncached);
    ck_assert_uint_le(filling, uncached);
    ck_assert_int_eq(jitunwind_pyreader_cache_stats(R, &st), 0);
    /* First walk: A, B, C read (3 misses), A's second frame a hit; then 4 hits. */
    ck_assert_uint_eq(st.misses, 3);
    ck_assert_uint_eq(st.hits, 5);
    ck_assert_uint_eq(st.invalidated, 0);
    /* The saving reported is at least what the second walk did not read. */
    ck_assert_uint_ge(st.reads_saved, (uint64_t)(uncached - cached));
    teardown();
}
EVERY_VERSION(same_frames_fewer_reads)

static void changed_code_object_is_refilled_on(uint32_t version)
{
    struct jitunwind_py_frame f[8];
    struct jitunwind_py_cache_stats st;
    size_t n;
    uint64_t top = target(version);
    ck_assert_int_eq(jitunwind_pyreader_cache_code(R, 64), 0);
    walk(top, f, &n);
    /* Another code object at A's address: new name string, new first line. */
    ju_builder_u64(P.b, CODE_A + P.L->co_qualname, pyi_str(&P, "replaced"));
    walk(top, f, &n);
    ck_assert_str_eq(f[0].qualname, "replaced");
    ck_assert_str_eq(f[2].qualname, "replaced");
    ck_assert_int_eq(jitunwind_pyreader_cache_stats(R, &st), 0);
    ck_assert_uint_eq(st.invalidated, 1);
    teardown();
}
EVERY_VERSION(changed_code_object_is_refilled)

/* A line is memoised by its code object's entry: another code object at
 * the same address (another first line, so other lines at the same
 * instructions) gets its own lines, not the memoised ones. */
static void lines_follow_the_code_object_on(uint32_t version)
{
    struct jitunwind_py_frame f[8];
    int32_t first = 110;
    int line0, line2;
    size_t n;
    uint64_t top = target(version);
    ck_assert_int_eq(jitunwind_pyreader_cache_code(R, 64), 0);
    walk(top, f, &n);
    line0 = f[0].line, line2 = f[2].line;
    ck_assert_int_ge(line0, 10);
    ck_assert_int_ne(line0, line2);
    ck_assert_int_eq(jitunwind_pyreader_cache_next_sample(R), 0);
    walk(top, f, &n); /* from the memo */
    ck_assert_int_eq(f[0].line, line0);
    ck_assert_int_eq(f[2].line, line2);
    ju_builder_write(P.b, CODE_A + P.L->co_firstlineno, &first, sizeof first);
    ck_assert_int_eq(jitunwind_pyreader_cache_next_sample(R), 0);
    walk(top, f, &n);
    ck_assert_int_eq(f[0].first_line, 110);
    ck_assert_int_eq(f[0].line, line0 + 100);
    ck_assert_int_eq(f[2].line, line2 + 100);
    teardown();
}
EVERY_VERSION(lines_follow_the_code_object)

/* A new code object made into a freed one's memory, its name string into
 * the freed name's: every pointer of the head is the same, only the
 * qualname's text differs. The cache must not give the old name. */
static void recycled_code_object_is_seen_on(uint32_t version)
{
    struct jitunwind_py_frame f[8];
    struct jitunwind_py_cache_stats st;
    size_t n;
    uint64_t top = target(version);
    ck_assert_int_eq(jitunwind_pyreader_cache_code(R, 64), 0);
    walk(top, f, &n);
    ck_assert_str_eq(f[0].qualname, "recurse");
    rename_in_place(&P, CODE_A, "recurse", "rekurse", 7);
    ck_assert_int_eq(jitunwind_pyreader_cache_next_sample(R), 0);
    walk(top, f, &n);
    ck_assert_str_eq(f[0].qualname, "rekurse");
    ck_assert_str_eq(f[2].qualname, "rekurse");
    ck_assert_int_eq(jitunwind_pyreader_cache_stats(R, &st), 0);
    ck_assert_uint_eq(st.invalidated, 1);
    teardown();
}
EVERY_VERSION(recycled_code_object_is_seen)

static void sample_trust_ends_at_the_next_sample_on(uint32_t version)
{
    struct jitunwind_py_frame f[8];
    size_t n;
    unsigned long checked, trusted;
    uint64_t top = target(version);
    ck_assert_int_eq(jitunwind_pyreader_cache_next_sample(R), JITUNWIND_EINVAL); /* no cache */
    ck_assert_int_eq(jitunwind_pyreader_cache_code(R, 64), 0);
    walk(top, f, &n);
    checked = walk(top, f, &n); /* every use checks the head */
    ck_assert_int_eq(jitunwind_pyreader_cache_next_sample(R), 0);
    walk(top, f, &n);           /* each code checked once in this sample */
    trusted = walk(top, f, &n); /* none read again */
    ck_assert_msg(trusted < checked, "trusted %lu, checked %lu", trusted, checked);
    /* Within the sample a change is not seen (the documented trust) ... */
    ju_builder_u64(P.b, CODE_A + P.L->co_qualname, pyi_str(&P, "replaced"));
    walk(top, f, &n);
    ck_assert_str_eq(f[0].qualname, "recurse");
    /* ... the next sample checks again. */
    ck_assert_int_eq(jitunwind_pyreader_cache_next_sample(R), 0);
    walk(top, f, &n);
    ck_assert_str_eq(f[0].qualname, "replaced");
    teardown();
}
EVERY_VERSION(sample_trust_ends_at_the_next_sample)

START_TEST(bad_arguments)
{
    struct jitunwind_py_cache_stats st;
    target(VERSIONS[0]);
    ck_assert_int_eq(jitunwind_pyreader_cache_code(NULL, 64), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_pyreader_cache_code(R, JITUNWIND_PY_MAX_CODE_CACHE + 1),
                     JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_pyreader_cache_stats(NULL, &st), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_pyreader_cache_stats(R, NULL), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_pyreader_cache_stats(R, &st), 0);
    ck_assert_uint_eq(st.hits + st.misses, 0);
    ck_assert_int_eq(jitunwind_pyreader_cache_next_sample(NULL), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_pyreader_cache_code(R, 64), 0);
    ck_assert_int_eq(jitunwind_pyreader_cache_code(R, 0), 0); /* off again */
    ck_assert_int_eq(jitunwind_pyreader_cache_next_sample(R), JITUNWIND_EINVAL);
    teardown();
}
END_TEST

int main(void)
{
    return ju_run_tests("py_code_cache",
                        JU_TESTS(same_frames_fewer_reads, changed_code_object_is_refilled,
                                 lines_follow_the_code_object, recycled_code_object_is_seen,
                                 sample_trust_ends_at_the_next_sample, bad_arguments));
}
