/* A sampler's check of its walk of a running thread
 * (jitunwind_pyreader_frames_unchanged): an unchanged chain passes, also
 * when the innermost frame's instruction moved on; another code object at
 * a frame's address, a caller at another instruction, another caller, a chain longer or shorter than the
 * walk's, or a thread state now at another frame fails; a walk that
 * stopped early is compared as far as it went; with a chain cache the
 * frames are read in one read, or a few when spread wider than a batch. */
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
static struct recursion_codes CODES;
static uint64_t FRAME[DEPTH]; /* innermost first */
static struct jitunwind_py_thread TH;
static struct jitunwind_py_frame WALKED[32];

/* Frames `gap` bytes apart beyond the leaf (0: side by side). */
static void target(uint32_t version, size_t gap)
{
    struct jitunwind_memory mem;
    size_t n = 0;
    pyi_init(&P, version);
    memset(&TH, 0, sizeof TH);
    TH.tstate = recursion_thread(&P, FRAME, DEPTH, gap, &CODES);
    C.inner = ju_builder_memory(P.b);
    C.reads = 0;
    mem = counting_memory(&C);
    ck_assert_int_eq(jitunwind_pyreader_open(&R, &mem, P.runtime, version, NULL), 0);
    ck_assert_int_eq(jitunwind_py_chains_new(4, 64, &K), 0);
    ck_assert_int_eq(jitunwind_pyreader_thread(R, &TH), 0);
    ck_assert_uint_eq(TH.current_frame, FRAME[0]);
    ck_assert_int_eq(jitunwind_pyreader_frames(R, TH.current_frame, WALKED, 32, &n), 0);
    ck_assert_uint_eq(n, DEPTH);
}

static void teardown(void)
{
    jitunwind_py_chains_free(K);
    K = NULL;
    jitunwind_pyreader_free(R);
    R = NULL;
    pyi_free(&P);
}

/* The same answer with and without the chain cache's batch. */
static int check(size_t n, int ended)
{
    int plain = jitunwind_pyreader_frames_unchanged(R, NULL, &TH, WALKED, n, ended);
    int batched = jitunwind_pyreader_frames_unchanged(R, K, &TH, WALKED, n, ended);
    ck_assert_int_eq(plain, batched);
    return batched;
}

static void unchanged_chain_passes_on(uint32_t version)
{
    unsigned long before;
    target(version, 0);
    ck_assert_int_eq(check(DEPTH, 1), 1);
    /* A walk cut short is compared as far as it went. */
    ck_assert_int_eq(check(DEPTH - 3, 0), 1);
    ck_assert_int_eq(check(0, 0), 1);
    /* The running leaf moved on within its code: the same chain. */
    replace_frame_of(&P, FRAME[0], CODES.leaf, FRAME[1], 3);
    ck_assert_int_eq(check(DEPTH, 1), 1);
    /* One read for the frames with a batch, one a frame without. */
    before = C.reads;
    ck_assert_int_eq(jitunwind_pyreader_frames_unchanged(R, K, &TH, WALKED, DEPTH, 1), 1);
    ck_assert_uint_le(C.reads - before, 3);
    before = C.reads;
    ck_assert_int_eq(jitunwind_pyreader_frames_unchanged(R, NULL, &TH, WALKED, DEPTH, 1), 1);
    ck_assert_uint_ge(C.reads - before, DEPTH);
    teardown();
}
EVERY_VERSION(unchanged_chain_passes)

static void changed_chain_fails_on(uint32_t version)
{
    target(version, 0);
    /* The walk ended after DEPTH - 1 frames, but the chain has one more. */
    ck_assert_int_eq(check(DEPTH - 1, 1), 0);
    /* Another code object at a frame's address, same caller. */
    replace_frame_of(&P, FRAME[5], CODES.other, FRAME[6], 5);
    ck_assert_int_eq(check(DEPTH, 1), 0);
    ck_assert_int_eq(check(5, 0), 1); /* the frames before it are still the same */
    replace_frame_of(&P, FRAME[5], CODES.rec, FRAME[6], 5);
    ck_assert_int_eq(check(DEPTH, 1), 1);
    /* A caller that went on and called again from another instruction
     * (its callee can be at the same address with the same code). */
    replace_frame_of(&P, FRAME[1], CODES.rec, FRAME[2], 7);
    ck_assert_int_eq(check(DEPTH, 1), 0);
    ck_assert_int_eq(check(1, 0), 1); /* the leaf alone: its instruction is not compared */
    replace_frame_of(&P, FRAME[1], CODES.rec, FRAME[2], 5);
    ck_assert_int_eq(check(DEPTH, 1), 1);
    /* Another caller: the chain is one frame shorter. */
    replace_frame_of(&P, FRAME[9], CODES.rec, FRAME[DEPTH - 1], 5);
    ck_assert_int_eq(check(DEPTH, 1), 0);
    replace_frame_of(&P, FRAME[9], CODES.rec, FRAME[10], 5);
    ck_assert_int_eq(check(DEPTH, 1), 1);
    { /* put back as it was: a walk agrees */
        static struct jitunwind_py_frame again[32];
        size_t n = 0;
        ck_assert_int_eq(jitunwind_pyreader_frames(R, FRAME[0], again, 32, &n), 0);
        ck_assert_uint_eq(n, DEPTH);
        same_frames(WALKED, again, DEPTH);
    }
    /* The thread state is at another frame than the walk began with. */
    TH.current_frame = FRAME[1];
    ck_assert_int_eq(jitunwind_pyreader_frames_unchanged(R, K, &TH, WALKED + 1, DEPTH - 1, 1),
                     0);
    teardown();
}
EVERY_VERSION(changed_chain_fails)

/* Frames spread wider than one batch: read in a few batches, not one
 * read a frame, and still compared whole. */
static void wide_chain_in_batches_on(uint32_t version)
{
    unsigned long before;
    uint64_t page;
    target(version, 16384); /* 10 frames 16 KiB apart: 160 KiB */
    /* The gaps unmapped (frames in separate mappings): one read a frame. */
    before = C.reads;
    ck_assert_int_eq(jitunwind_pyreader_frames_unchanged(R, K, &TH, WALKED, DEPTH, 1), 1);
    ck_assert_uint_le(C.reads - before, DEPTH + 3);
    /* Mapped: a batch for each few frames. */
    for (page = FRAME[DEPTH - 1] & ~(uint64_t)4095; page < FRAME[0]; page += 4096) {
        uint8_t byte = 0;
        if (C.inner.read(C.inner.arg, page, &byte, 1) < 0) /* a page not there yet */
            ju_builder_u8(P.b, page, 0);
    }
    before = C.reads;
    ck_assert_int_eq(jitunwind_pyreader_frames_unchanged(R, K, &TH, WALKED, DEPTH, 1), 1);
    ck_assert_uint_le(C.reads - before, 8);
    replace_frame_of(&P, FRAME[9], CODES.other, FRAME[10], 5);
    ck_assert_int_eq(check(DEPTH, 1), 0);
    teardown();
}
EVERY_VERSION(wide_chain_in_batches)

START_TEST(bad_arguments)
{
    target(VERSIONS[0], 0);
    ck_assert_int_eq(jitunwind_pyreader_frames_unchanged(NULL, K, &TH, WALKED, 1, 1),
                     JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_pyreader_frames_unchanged(R, K, NULL, WALKED, 1, 1),
                     JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_pyreader_frames_unchanged(R, K, &TH, NULL, 1, 1),
                     JITUNWIND_EINVAL);
    TH.current_frame = 0;
    ck_assert_int_eq(jitunwind_pyreader_frames_unchanged(R, K, &TH, WALKED, 0, 1), 0);
    teardown();
}
END_TEST

int main(void)
{
    return ju_run_tests("py_frames_unchanged",
                        JU_TESTS(unchanged_chain_passes, changed_chain_fails, wide_chain_in_batches,
                                 bad_arguments));
}
