/* The frame-chain cache of a sampler (jitunwind_py_chains), with a code
 * cache as `record` has: frames that did not change are read in one batch
 * (the same frames as a plain walk, fewer reads), their code objects
 * checked through the code cache (once per sample); a frame at a reused
 * address with another code object, instruction or caller is decoded again,
 * and so is one whose code object was replaced by a look-alike;
 * chains that got shorter or longer; loops, limits and threads sharing few
 * slots. */
#include <string.h>

#include "py_image.h"
#include "python/pyreader.h"
#include "py_sampling.h"
#include "suite.h"

#define DEPTH 12 /* main, rec x 10, leaf */

static struct py_image P;
static struct counting C;
static jitunwind_pyreader *R;
static jitunwind_py_chains *K;
static uint64_t CODE_REC, CODE_LEAF, CODE_OTHER;
static uint64_t FRAME[DEPTH]; /* innermost first */

/* leaf -> rec x 10 -> main (innermost first). */
static void target(uint32_t version, size_t slots)
{
    struct jitunwind_memory mem;
    struct recursion_codes codes;
    pyi_init(&P, version);
    recursion_thread(&P, FRAME, DEPTH, 0, &codes);
    CODE_REC = codes.rec, CODE_LEAF = codes.leaf, CODE_OTHER = codes.other;
    memset(&mem, 0, sizeof mem); /* no write operation */
    C.inner = ju_builder_memory(P.b);
    C.reads = 0;
    mem.size = sizeof mem;
    mem.read = counting_read;
    mem.arg = &C;
    ck_assert_int_eq(jitunwind_pyreader_open(&R, &mem, P.runtime, version, NULL), 0);
    ck_assert_int_eq(jitunwind_pyreader_cache_code(R, 64), 0);
    ck_assert_int_eq(jitunwind_py_chains_new(slots, 64, &K), 0);
}

static void teardown(void)
{
    jitunwind_py_chains_free(K);
    K = NULL;
    jitunwind_pyreader_free(R);
    R = NULL;
    pyi_free(&P);
}

static void replace_frame(uint64_t at, uint64_t code, uint64_t previous, int lasti)
{
    replace_frame_of(&P, at, code, previous, lasti);
}

static struct jitunwind_py_frame PLAIN[32], CACHED[32];

/* A plain walk and a reusing one from `top`, in a sample of their own: the
 * same frames; returns the reads of the reusing walk (the plain walk has
 * checked the code objects in this sample). */
static unsigned long compare(uint64_t top, size_t expect)
{
    size_t n_plain = 0, n_cached = 0;
    unsigned long before;
    ck_assert_int_eq(jitunwind_pyreader_cache_next_sample(R), 0);
    ck_assert_int_eq(jitunwind_pyreader_frames(R, top, PLAIN, 32, &n_plain), 0);
    before = C.reads;
    ck_assert_int_eq(jitunwind_pyreader_frames_reusing(R, K, 1, top, CACHED, 32, &n_cached), 0);
    ck_assert_uint_eq(n_plain, expect);
    ck_assert_uint_eq(n_cached, expect);
    same_frames(PLAIN, CACHED, expect);
    return C.reads - before;
}

static void unchanged_outer_part_is_reused_on(uint32_t version)
{
    struct jitunwind_py_chain_stats st;
    unsigned long first, again, leaf_moved;
    target(version, 4);
    first = compare(FRAME[0], DEPTH);
    ck_assert_str_eq(CACHED[0].qualname, "leaf");
    ck_assert_str_eq(CACHED[DEPTH - 1].qualname, "main");
    again = compare(FRAME[0], DEPTH); /* nothing moved: one batch read */
    ck_assert_uint_eq(again, 1);
    ck_assert_int_eq(jitunwind_py_chains_stats(K, &st), 0);
    ck_assert_uint_eq(st.walks, 2);
    ck_assert_uint_eq(st.reused_walks, 1);
    ck_assert_uint_eq(st.frames_reused, DEPTH);
    ck_assert_uint_eq(st.reads_saved, DEPTH - 1); /* DEPTH frame reads, one batch read */
    /* The leaf moved on: it is read again (new line), the rest is reused. */
    replace_frame(FRAME[0], CODE_LEAF, FRAME[1], 3);
    leaf_moved = compare(FRAME[0], DEPTH);
    ck_assert_int_eq(CACHED[0].line, 33);
    ck_assert_uint_lt(leaf_moved, first);
    ck_assert_int_eq(jitunwind_py_chains_stats(K, &st), 0);
    ck_assert_uint_eq(st.frames_reused, 2 * DEPTH - 1);
    teardown();
}
EVERY_VERSION(unchanged_outer_part_is_reused)

static void changed_outer_frame_is_read_on(uint32_t version)
{
    struct jitunwind_py_chain_stats st;
    target(version, 4);
    compare(FRAME[0], DEPTH);
    /* Another code object at a cached address, same caller and place. */
    replace_frame(FRAME[5], CODE_OTHER, FRAME[6], 5);
    compare(FRAME[0], DEPTH);
    ck_assert_str_eq(CACHED[5].qualname, "other");
    ck_assert_int_eq(CACHED[5].line, 55);
    ck_assert_int_eq(jitunwind_py_chains_stats(K, &st), 0);
    ck_assert_uint_eq(st.frames_reused, DEPTH - 1); /* all but FRAME[5] */
    /* The same code at another instruction. */
    replace_frame(FRAME[7], CODE_REC, FRAME[8], 9);
    compare(FRAME[0], DEPTH);
    ck_assert_int_eq(CACHED[7].line, 19);
    ck_assert_str_eq(CACHED[5].qualname, "other");
    /* The same code and instruction, another caller (a chain cut short). */
    replace_frame(FRAME[9], CODE_REC, FRAME[DEPTH - 1], 5);
    compare(FRAME[0], DEPTH - 1);
    ck_assert_str_eq(CACHED[DEPTH - 2].qualname, "main");
    teardown();
}
EVERY_VERSION(changed_outer_frame_is_read)

/* A chain hit is no code check: the leaf's code object replaced by a
 * look-alike (same address, same name pointer, other text) under an
 * unchanged frame is decoded again by a reusing walk alone. */
static void recycled_code_under_an_unchanged_frame_on(uint32_t version)
{
    size_t n = 0;
    target(version, 4);
    compare(FRAME[0], DEPTH);
    rename_in_place(&P, CODE_LEAF, "leaf", "lEaf", 4);
    ck_assert_int_eq(jitunwind_pyreader_cache_next_sample(R), 0);
    ck_assert_int_eq(jitunwind_pyreader_frames_reusing(R, K, 1, FRAME[0], CACHED, 32, &n), 0);
    ck_assert_uint_eq(n, DEPTH);
    ck_assert_str_eq(CACHED[0].qualname, "lEaf");
    teardown();
}
EVERY_VERSION(recycled_code_under_an_unchanged_frame)

static void shorter_and_longer_chains_on(uint32_t version)
{
    uint64_t deeper, deepest;
    unsigned long reads;
    target(version, 4);
    compare(FRAME[0], DEPTH);
    /* Three frames returned: the chain starts further out, all cached. */
    reads = compare(FRAME[3], DEPTH - 3);
    ck_assert_uint_eq(reads, 1);
    /* Two new calls on top of the leaf: read; the rest reused. */
    deeper = pyi_frame(&P, CODE_REC, FRAME[0], 7, 0, 0);
    deepest = pyi_frame(&P, CODE_OTHER, deeper, 0, 0, 0);
    compare(deepest, DEPTH + 2);
    ck_assert_str_eq(CACHED[0].qualname, "other");
    ck_assert_int_eq(CACHED[1].line, 17);
    ck_assert_str_eq(CACHED[2].qualname, "leaf");
    reads = compare(deepest, DEPTH + 2);
    ck_assert_uint_eq(reads, 1);
    teardown();
}
EVERY_VERSION(shorter_and_longer_chains)

static void loops_and_limits_stay_bounded_on(uint32_t version)
{
    struct jitunwind_py_frame few[4];
    size_t n = 0, i;
    target(version, 4);
    compare(FRAME[0], DEPTH);
    /* An outer frame now points back inward: its caller changed, so it is
     * read, and the loop is found. */
    replace_frame(FRAME[8], CODE_REC, FRAME[2], 5);
    for (i = 0; i < 3; i++) {
        ck_assert_int_eq(jitunwind_pyreader_frames_reusing(R, K, 1, FRAME[0], CACHED, 32, &n),
                         JITUNWIND_ELOOP);
        ck_assert_uint_le(n, 32);
    }
    replace_frame(FRAME[8], CODE_REC, FRAME[9], 5);
    compare(FRAME[0], DEPTH);
    /* A cached chain longer than the caller's array: cut, ELIMIT. */
    ck_assert_int_eq(jitunwind_pyreader_frames_reusing(R, K, 1, FRAME[0], few, 4, &n),
                     JITUNWIND_ELIMIT);
    ck_assert_uint_eq(n, 4);
    ck_assert_str_eq(few[3].qualname, "rec");
    /* A chain longer than the cache keeps (64 frames): its outer part. */
    teardown();
}
EVERY_VERSION(loops_and_limits_stay_bounded)

START_TEST(threads_share_few_slots)
{
    size_t n = 0, round;
    target(VERSIONS[0], 1);
    for (round = 0; round < 3; round++) {
        ck_assert_int_eq(jitunwind_pyreader_frames_reusing(R, K, 1, FRAME[0], CACHED, 32, &n),
                         0);
        ck_assert_uint_eq(n, DEPTH);
        ck_assert_str_eq(CACHED[0].qualname, "leaf");
        ck_assert_int_eq(jitunwind_pyreader_frames_reusing(R, K, 2, FRAME[4], CACHED, 32, &n),
                         0);
        ck_assert_uint_eq(n, DEPTH - 4);
        ck_assert_str_eq(CACHED[0].qualname, "rec");
    }
    teardown();
}
END_TEST

START_TEST(bad_arguments)
{
    size_t n;
    struct jitunwind_py_chain_stats st;
    jitunwind_py_chains *none = (jitunwind_py_chains *)&none;
    ck_assert_int_eq(jitunwind_py_chains_new(0, 8, &none), JITUNWIND_EINVAL);
    ck_assert_ptr_null(none);
    ck_assert_int_eq(jitunwind_py_chains_new(1, 0, &none), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_py_chains_new(1, JITUNWIND_PY_MAX_FRAMES + 1, &none),
                     JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_py_chains_new(JITUNWIND_PY_MAX_CHAIN_THREADS + 1, 1, &none),
                     JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_py_chains_new(1, 1, NULL), JITUNWIND_EINVAL);
    ck_assert_ptr_null(none);
    target(VERSIONS[0], 1);
    ck_assert_int_eq(jitunwind_pyreader_frames_reusing(R, NULL, 1, FRAME[0], CACHED, 32, &n),
                     JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_pyreader_frames_reusing(NULL, K, 1, FRAME[0], CACHED, 32, &n),
                     JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_py_chains_stats(NULL, &st), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_py_chains_stats(K, NULL), JITUNWIND_EINVAL);
    jitunwind_py_chains_free(NULL);
    teardown();
}
END_TEST

int main(void)
{
    return ju_run_tests("py_frame_chains",
                        JU_TESTS(unchanged_outer_part_is_reused, changed_outer_frame_is_read,
                                 recycled_code_under_an_unchanged_frame,
                                 shorter_and_longer_chains, loops_and_limits_stay_bounded,
                                 threads_share_few_slots, bad_arguments));
}
