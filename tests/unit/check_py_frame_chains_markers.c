/* Frame markers (jitunwind_py_chains_mark_frames) on a synthetic CPython
 * 3.15 target whose memory can be written: the same stacks as a plain walk,
 * fewer reads once the chain spans more than one batch; a marker left by
 * another profiler is cleared; a marker naming garbage, a frame no longer on
 * the chain or another frame at the marked address only costs the early
 * stop; nothing is written without the opt-in or into a target that cannot
 * be written. The interpreter's side (moving the marker to the caller of a
 * popped frame and bumping the sequence) is played by the test. */
#include <string.h>

#include "jitunwind/readers.h"
#include "py_image.h"
#include "python/pyreader.h"
#include "py_sampling.h"
#include "suite.h"

#define V315 0x030f00f0u
#define DEPTH 12 /* main, rec x 10, leaf */
#define SPREAD 40000 /* bytes between outer frames: a chain wider than one batch */

struct target_memory {
    struct jitunwind_memory inner;
    unsigned long reads, bytes, writes;
    struct ju_builder *b;
};

static int tm_read(void *arg, uint64_t addr, void *dst, size_t len)
{
    struct target_memory *m = arg;
    m->reads++;
    m->bytes += len;
    return m->inner.read(m->inner.arg, addr, dst, len);
}

static int tm_write(void *arg, uint64_t addr, const void *src, size_t len)
{
    struct target_memory *m = arg;
    m->writes++;
    ju_builder_write(m->b, addr, src, len);
    return 0;
}

static struct py_image P;
static struct target_memory M;
static jitunwind_pyreader *R;
static jitunwind_py_chains *K, *K0; /* with markers, without */
static uint64_t TS, CODE_REC, CODE_LEAF, CODE_OTHER;
static uint64_t FRAME[DEPTH]; /* innermost first */
static struct jitunwind_py_frame PLAIN[32], MARKED[32], BATCHED[32];

static void target(uint32_t version, int writable, int spread)
{
    struct jitunwind_memory mem;
    struct recursion_codes codes;
    pyi_init(&P, version);
    TS = recursion_thread(&P, FRAME, DEPTH, spread ? SPREAD : 0, &codes);
    CODE_REC = codes.rec, CODE_LEAF = codes.leaf, CODE_OTHER = codes.other;
    memset(&M, 0, sizeof M);
    M.inner = ju_builder_memory(P.b);
    M.b = P.b;
    memset(&mem, 0, sizeof mem);
    mem.size = sizeof mem;
    mem.read = tm_read;
    mem.write = writable ? tm_write : NULL;
    mem.arg = &M;
    ck_assert_int_eq(jitunwind_pyreader_open(&R, &mem, P.runtime, version, NULL), 0);
    ck_assert_int_eq(jitunwind_py_chains_new(4, 64, &K), 0);
    ck_assert_int_eq(jitunwind_py_chains_new(4, 64, &K0), 0);
}

static void teardown(void)
{
    jitunwind_py_chains_free(K);
    jitunwind_py_chains_free(K0);
    K = K0 = NULL;
    jitunwind_pyreader_free(R);
    R = NULL;
    pyi_free(&P);
}

static uint64_t tstate_u64(uint32_t offset)
{
    uint64_t v = 0;
    ck_assert_int_eq(M.inner.read(M.inner.arg, TS + offset, &v, 8), 0);
    return v;
}
#define MARKER() tstate_u64(R->layout->ts_last_profiled_frame)
#define SEQ() tstate_u64(R->layout->ts_last_profiled_seq)

/* The interpreter pops the marked frame: the marker moves to its caller
 * and the sequence goes up. */
static void pop_marked(uint64_t caller)
{
    ju_builder_u64(P.b, TS + R->layout->ts_last_profiled_frame, caller);
    if (R->layout->ts_last_profiled_seq != JU_PY_NONE)
        ju_builder_u64(P.b, TS + R->layout->ts_last_profiled_seq, SEQ() + 1);
}

static void replace_frame(uint64_t at, uint64_t code, uint64_t previous, int lasti)
{
    replace_frame_of(&P, at, code, previous, lasti);
}

struct sample {
    unsigned long marked_reads, batched_reads, marked_bytes, batched_bytes;
};

/* One sample from `top` three ways (plain, batched cache, marked cache):
 * the same `expect` frames. */
static struct sample sample(uint64_t top, size_t expect)
{
    struct sample s;
    size_t n_plain = 0, n_marked = 0, n_batched = 0;
    unsigned long r0, b0;
    ck_assert_int_eq(jitunwind_pyreader_frames(R, top, PLAIN, 32, &n_plain), 0);
    r0 = M.reads, b0 = M.bytes;
    ck_assert_int_eq(jitunwind_pyreader_frames_reusing(R, K0, TS, top, BATCHED, 32, &n_batched),
                     0);
    s.batched_reads = M.reads - r0, s.batched_bytes = M.bytes - b0;
    r0 = M.reads, b0 = M.bytes;
    ck_assert_int_eq(jitunwind_pyreader_frames_reusing(R, K, TS, top, MARKED, 32, &n_marked), 0);
    s.marked_reads = M.reads - r0, s.marked_bytes = M.bytes - b0;
    ck_assert_uint_eq(n_plain, expect);
    ck_assert_uint_eq(n_batched, expect);
    ck_assert_uint_eq(n_marked, expect);
    same_frames(PLAIN, BATCHED, expect);
    same_frames(PLAIN, MARKED, expect);
    return s;
}

static struct jitunwind_py_chain_stats stats(void)
{
    struct jitunwind_py_chain_stats st;
    ck_assert_int_eq(jitunwind_py_chains_stats(K, &st), 0);
    return st;
}

/* Markers on, the thread sampled once: its top frame is marked. */
static void marked_target(void)
{
    target(V315, 1, 0);
    ck_assert_int_eq(jitunwind_py_chains_mark_frames(K, R), 1);
    sample(FRAME[0], DEPTH);
    ck_assert_uint_eq(MARKER(), FRAME[0]);
}

START_TEST(same_stacks_fewer_reads)
{
    struct sample s;
    uint64_t deeper, deepest, seq;
    target(V315, 1, 1);
    ck_assert_int_eq(jitunwind_py_chains_mark_frames(K, R), 1); /* one thread cleared */
    ck_assert_uint_eq(M.writes, 1);
    sample(FRAME[0], DEPTH);
    ck_assert_uint_eq(MARKER(), FRAME[0]); /* the sampled frame is marked */
    ck_assert_uint_eq(M.writes, 2);
    /* The leaf moved on: read again (new line), the rest taken unread. */
    replace_frame(FRAME[0], CODE_LEAF, FRAME[1], 3);
    s = sample(FRAME[0], DEPTH);
    ck_assert_int_eq(MARKED[0].line, 33);
    ck_assert_uint_lt(s.marked_reads, s.batched_reads);
    ck_assert_uint_lt(s.marked_bytes, s.batched_bytes);
    ck_assert_uint_eq(stats().marker_stops, 1);
    ck_assert_uint_eq(stats().marker_frames, DEPTH - 1);
    ck_assert_uint_eq(M.writes, 2); /* an unchanged marker is not written again */
    /* Two calls on top: read down to the marker, then the cache. */
    deeper = pyi_frame(&P, CODE_REC, FRAME[0], 7, 0, 0);
    deepest = pyi_frame(&P, CODE_OTHER, deeper, 0, 0, 0);
    s = sample(deepest, DEPTH + 2);
    ck_assert_str_eq(MARKED[0].qualname, "other");
    ck_assert_uint_lt(s.marked_reads, s.batched_reads);
    ck_assert_uint_eq(stats().marker_stops, 2);
    ck_assert_uint_eq(MARKER(), deepest);
    ck_assert_uint_eq(M.writes, 3);
    /* Both return: the interpreter moved the marker twice. The sequence is
     * not the one marked: a full walk, not a short stack. */
    seq = SEQ();
    pop_marked(deeper);
    pop_marked(FRAME[0]);
    ck_assert_uint_eq(SEQ(), seq + 2);
    sample(FRAME[0], DEPTH);
    ck_assert_uint_eq(stats().marker_stops, 2);
    /* Marked again under the new sequence (no write: the marker is there). */
    ck_assert_uint_eq(M.writes, 3);
    sample(FRAME[0], DEPTH);
    ck_assert_uint_eq(stats().marker_stops, 3);
    ck_assert_uint_gt(stats().reads_saved, 3 * (DEPTH - 1) - 1);
    teardown();
}
END_TEST

START_TEST(stale_marker_of_another_profiler_is_cleared)
{
    target(V315, 1, 0);
    ju_builder_u64(P.b, TS + R->layout->ts_last_profiled_frame, FRAME[3]);
    ju_builder_u64(P.b, TS + R->layout->ts_last_profiled_seq, 5);
    ck_assert_int_eq(jitunwind_py_chains_mark_frames(K, R), 1);
    ck_assert_uint_eq(MARKER(), 0);
    ck_assert_uint_eq(SEQ(), 5); /* the sequence is the target's: kept */
    ck_assert_uint_eq(M.writes, 1);
    sample(FRAME[0], DEPTH);
    ck_assert_uint_eq(stats().marker_stops, 0);
    ck_assert_uint_eq(MARKER(), FRAME[0]);
    sample(FRAME[0], DEPTH);
    ck_assert_uint_eq(stats().marker_stops, 1);
    teardown();
}
END_TEST

START_TEST(bad_markers_walk_on)
{
    marked_target();
    /* Garbage in the marker: no stop. */
    ju_builder_u64(P.b, TS + R->layout->ts_last_profiled_frame, 0xdead0000ull);
    sample(FRAME[0], DEPTH);
    ck_assert_uint_eq(stats().marker_stops, 0);
    ck_assert_uint_eq(MARKER(), FRAME[0]); /* marked anew */
    /* Frames returned without the interpreter moving the marker (a missed
     * update): the walk never reaches it and goes to the end. */
    sample(FRAME[3], DEPTH - 3);
    ck_assert_uint_eq(stats().marker_stops, 0);
    ck_assert_uint_eq(MARKER(), FRAME[3]);
    /* Another frame at the marked address, same sequence (another caller,
     * then another code object): the walk goes on past it. */
    replace_frame(FRAME[3], CODE_REC, FRAME[5], 5);
    sample(FRAME[3], DEPTH - 4);
    ck_assert_uint_eq(stats().marker_stops, 0);
    ck_assert_uint_eq(stats().marker_misses, 1);
    replace_frame(FRAME[3], CODE_OTHER, FRAME[5], 5);
    sample(FRAME[3], DEPTH - 4);
    ck_assert_str_eq(MARKED[0].qualname, "other");
    ck_assert_uint_eq(stats().marker_misses, 2);
    ck_assert_uint_eq(stats().marker_stops, 0);
    sample(FRAME[3], DEPTH - 4);
    ck_assert_uint_eq(stats().marker_stops, 1);
    teardown();
}
END_TEST

/* ABA: the marked frame and its caller return, a new caller and a new
 * frame take their addresses (the same code at the top, the same caller
 * address), and the marker names that address again (another profiler
 * wrote it). Only the sequence tells the frames apart. */
START_TEST(a_reused_address_is_told_by_the_sequence)
{
    marked_target();
    pop_marked(FRAME[1]);
    pop_marked(FRAME[2]);
    replace_frame(FRAME[1], CODE_OTHER, FRAME[2], 5);
    replace_frame(FRAME[0], CODE_LEAF, FRAME[1], 1);
    ju_builder_u64(P.b, TS + R->layout->ts_last_profiled_frame, FRAME[0]);
    sample(FRAME[0], DEPTH);
    ck_assert_str_eq(MARKED[1].qualname, "other");
    ck_assert_uint_eq(stats().marker_stops, 0);
    teardown();
}
END_TEST

/* A layout without the sequence (an assumed layout whose DWARF lacks it):
 * the marker may have moved to any cached frame, which is where the walk
 * stops, the marked frame still checked. */
START_TEST(without_a_sequence_any_cached_frame_is_a_stop)
{
    target(V315, 1, 0);
    ck_assert_ptr_eq(R->layout, &R->from_target);
    R->from_target.ts_last_profiled_seq = JU_PY_NONE;
    ck_assert_int_eq(jitunwind_py_chains_mark_frames(K, R), 1);
    sample(FRAME[0], DEPTH);
    pop_marked(FRAME[1]);
    sample(FRAME[1], DEPTH - 1);
    ck_assert_uint_eq(stats().marker_stops, 1);
    ck_assert_uint_eq(stats().marker_frames, DEPTH - 2);
    /* The caller there changed: walked on. */
    pop_marked(FRAME[2]);
    replace_frame(FRAME[2], CODE_REC, FRAME[4], 5);
    sample(FRAME[2], DEPTH - 3);
    ck_assert_uint_eq(stats().marker_stops, 1);
    ck_assert_uint_eq(stats().marker_misses, 1);
    teardown();
}
END_TEST

START_TEST(a_stop_keeps_the_limits)
{
    size_t n = 0;
    struct jitunwind_py_frame few[4];
    marked_target();
    ck_assert_int_eq(jitunwind_pyreader_frames_reusing(R, K, TS, FRAME[0], few, 4, &n),
                     JITUNWIND_ELIMIT);
    ck_assert_uint_eq(n, 4);
    ck_assert_str_eq(few[3].qualname, "rec");
    ck_assert_uint_eq(stats().marker_stops, 0); /* a cut stack marks nothing */
    teardown();
}
END_TEST

START_TEST(no_writes_without_the_opt_in)
{
    size_t i, n = 0;
    target(V315, 1, 0);
    for (i = 0; i < 3; i++)
        ck_assert_int_eq(jitunwind_pyreader_frames_reusing(R, K, TS, FRAME[0], MARKED, 32, &n),
                         0);
    ck_assert_uint_eq(M.writes, 0);
    ck_assert_uint_eq(MARKER(), 0);
    ck_assert_uint_eq(stats().marker_writes, 0);
    /* Markers on for another reader: not for this one. */
    ck_assert_int_eq(jitunwind_py_chains_mark_frames(NULL, R), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_py_chains_mark_frames(K, NULL), JITUNWIND_EINVAL);
    ck_assert_uint_eq(M.writes, 0);
    teardown();
}
END_TEST

START_TEST(no_writes_into_a_read_only_target)
{
    size_t n = 0;
    target(V315, 0, 0); /* a core's memory: no write operation */
    ck_assert_int_eq(jitunwind_py_chains_mark_frames(K, R), JITUNWIND_EUNSUPPORTED);
    ck_assert_int_eq(jitunwind_pyreader_frames_reusing(R, K, TS, FRAME[0], MARKED, 32, &n), 0);
    ck_assert_uint_eq(M.writes, 0);
    teardown();
    /* The ready-made readers: only a live process's writable memory writes. */
    ck_assert_ptr_null(jitunwind_core_reader_memory(NULL).write);
    ck_assert_ptr_null(jitunwind_process_reader_memory(NULL).write);
    ck_assert_ptr_nonnull(jitunwind_process_reader_writable_memory(NULL).write);
    ck_assert_int_eq(jitunwind_process_reader_writable_memory(NULL).write(NULL, 0, &n, 1),
                     JITUNWIND_EINVAL);
    /* A version without the marker. */
    target(VERSIONS[3], 1, 0);
    ck_assert_int_eq(jitunwind_py_chains_mark_frames(K, R), JITUNWIND_EVERSION);
    ck_assert_uint_eq(M.writes, 0);
    teardown();
}
END_TEST

/* Writes go only to the thread states listed when markers were turned on,
 * and only to a marker field of its own: a chain keyed by anything else,
 * or a table placing the marker on another field, writes nothing. */
START_TEST(writes_only_to_listed_thread_states_and_their_own_field)
{
    struct ju_py_layout *L;
    size_t n = 0;
    target(V315, 1, 0);
    ck_assert_int_eq(jitunwind_py_chains_mark_frames(K, R), 1);
    ck_assert_uint_eq(M.writes, 1); /* the clear */
    ck_assert_int_eq(jitunwind_pyreader_frames_reusing(R, K, TS + 64, FRAME[0], MARKED, 32, &n),
                     0);
    ck_assert_uint_eq(n, DEPTH);
    ck_assert_uint_eq(M.writes, 1); /* not a thread state: no marker written */
    ck_assert_int_eq(jitunwind_pyreader_frames_reusing(R, K, TS, FRAME[0], MARKED, 32, &n), 0);
    ck_assert_uint_eq(M.writes, 2);
    ck_assert_uint_eq(MARKER(), FRAME[0]);
    teardown();
    target(V315, 1, 0);
    L = (struct ju_py_layout *)R->layout; /* a corrupt table, as a target could give */
    L->ts_last_profiled_frame = L->ts_current_frame;
    ck_assert_int_eq(jitunwind_py_chains_mark_frames(K, R), JITUNWIND_ECORRUPT);
    ck_assert_ptr_nonnull(strstr(jitunwind_pyreader_last_error(R)->message, "last_profiled_frame"));
    L->ts_last_profiled_frame = L->ts_current_frame + 4; /* half over it, unaligned */
    ck_assert_int_eq(jitunwind_py_chains_mark_frames(K, R), JITUNWIND_ECORRUPT);
    ck_assert_uint_eq(M.writes, 0);
    teardown();
}
END_TEST

/* Thread states listed against address order (the target's list is what
 * it is): every one of them still gets its marker. */
START_TEST(every_listed_thread_state_gets_its_marker_whatever_their_order)
{
    enum { THREADS = 5 };
    uint64_t ts[THREADS], top[THREADS], code, interp;
    const struct ju_py_layout *L;
    size_t i, n = 0;
    target(V315, 1, 0);
    L = R->layout;
    code = pyi_code(&P, "worker", "/src/w.py", 3, 16);
    interp = pyi_interp(&P, 0, 0);
    for (i = 0; i < THREADS; i++) {
        top[i] = pyi_frame(&P, code, 0, 2, 0, 1);
        ts[i] = pyi_thread(&P, interp, top[i], 100 + i);
    }
    /* Highest address first: head -> ts[4] -> ... -> ts[0]. */
    ju_builder_u64(P.b, interp + L->interp_threads_head, ts[THREADS - 1]);
    for (i = THREADS; i-- > 0;)
        ju_builder_u64(P.b, ts[i] + L->ts_next, i ? ts[i - 1] : 0);
    pyi_set_interpreters(&P, interp);
    ck_assert_int_eq(jitunwind_py_chains_mark_frames(K, R), THREADS);
    ck_assert_uint_eq(M.writes, THREADS); /* the clears */
    for (i = 0; i < THREADS; i++) {
        uint64_t marker = 0;
        ck_assert_int_eq(jitunwind_pyreader_frames_reusing(R, K, ts[i], top[i], MARKED, 32, &n), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert_int_eq(M.inner.read(M.inner.arg, ts[i] + L->ts_last_profiled_frame, &marker, 8), 0);
        ck_assert_uint_eq(marker, top[i]);
    }
    ck_assert_uint_eq(M.writes, 2 * THREADS);
    teardown();
}
END_TEST

/* Markers turned on again when the target lists no thread: the old list
 * goes (nothing is written for a thread state no longer listed), and the
 * cache frees it once. */
START_TEST(marking_again_with_no_threads_forgets_the_old_list)
{
    const struct ju_py_layout *L;
    uint64_t interp = 0;
    unsigned long writes;
    size_t n = 0;
    target(V315, 1, 0);
    L = R->layout;
    ck_assert_int_eq(jitunwind_py_chains_mark_frames(K, R), 1);
    ck_assert_int_eq(M.inner.read(M.inner.arg, TS + L->ts_interp, &interp, 8), 0);
    ju_builder_u64(P.b, interp + L->interp_threads_head, 0);
    ck_assert_int_eq(jitunwind_py_chains_mark_frames(K, R), 0);
    writes = M.writes;
    ck_assert_int_eq(jitunwind_pyreader_frames_reusing(R, K, TS, FRAME[0], MARKED, 32, &n), 0);
    ck_assert_uint_eq(n, DEPTH);
    ck_assert_uint_eq(M.writes, writes);
    ck_assert_int_eq(jitunwind_py_chains_mark_frames(K, R), 0);
    teardown(); /* frees the cache: once */
}
END_TEST

/* The check of a running chain (jitunwind_pyreader_frames_unchanged) with
 * markers: once a check made after the marker was set found the whole
 * chain, later checks stop at the marked frame while the marker and its
 * sequence read the same (the frames beyond it are not read: a change
 * there, which the interpreter's contract rules out, goes unseen); a
 * popped marked frame (the sequence moved) makes the check whole again. */
static int check(uint64_t top, size_t n)
{
    struct jitunwind_py_thread th;
    ju_builder_u64(P.b, TS + R->layout->ts_current_frame, top); /* the thread is there */
    memset(&th, 0, sizeof th);
    th.tstate = TS;
    th.current_frame = top;
    return jitunwind_pyreader_frames_unchanged(R, K, &th, MARKED, n, 1);
}

START_TEST(a_check_stops_at_a_proven_marker)
{
    unsigned long r0, whole, marked;
    marked_target();
    /* Marked, not yet proven: every frame is read. */
    ck_assert_uint_eq(jitunwind_py_chains_check_span(K, TS, MARKED, DEPTH), DEPTH);
    r0 = M.bytes;
    ck_assert_int_eq(check(FRAME[0], DEPTH), 1);
    whole = M.bytes - r0;
    ck_assert_uint_eq(stats().marker_checks, 0);
    /* Proven by that check: only the marked frame (the top) is read, and
     * the marker. */
    ck_assert_uint_eq(jitunwind_py_chains_check_span(K, TS, MARKED, DEPTH), 1);
    r0 = M.bytes;
    ck_assert_int_eq(check(FRAME[0], DEPTH), 1);
    marked = M.bytes - r0;
    ck_assert_uint_eq(stats().marker_checks, 1);
    ck_assert_uint_lt(marked, whole);
    /* A frame beyond it changed (which the interpreter never does while
     * the marked frame lives): not read, not seen. */
    replace_frame(FRAME[5], CODE_OTHER, FRAME[6], 5);
    ck_assert_int_eq(check(FRAME[0], DEPTH), 1);
    ck_assert_uint_eq(stats().marker_checks, 2);
    /* The sequence moved: every frame is compared again, the change seen. */
    ju_builder_u64(P.b, TS + R->layout->ts_last_profiled_seq, SEQ() + 1);
    ck_assert_int_eq(check(FRAME[0], DEPTH), 0);
    ck_assert_uint_eq(stats().marker_checks, 2);
    /* The top changed under the marked frame: compared, and seen. */
    replace_frame(FRAME[5], CODE_REC, FRAME[6], 5);
    ju_builder_u64(P.b, TS + R->layout->ts_last_profiled_seq, SEQ() - 1);
    ck_assert_int_eq(check(FRAME[0], DEPTH), 1);
    replace_frame(FRAME[0], CODE_OTHER, FRAME[1], 1);
    ck_assert_int_eq(check(FRAME[0], DEPTH), 0);
    teardown();
}
END_TEST

START_TEST(a_new_marker_is_proven_again)
{
    uint64_t deeper;
    marked_target();
    ck_assert_int_eq(check(FRAME[0], DEPTH), 1); /* proven */
    /* A call on top: walked to the marker, the new top marked (a write):
     * the next check is whole, and proves the new marker. */
    deeper = pyi_frame(&P, CODE_OTHER, FRAME[0], 0, 0, 0);
    sample(deeper, DEPTH + 1);
    ck_assert_uint_eq(MARKER(), deeper);
    ck_assert_uint_eq(jitunwind_py_chains_check_span(K, TS, MARKED, DEPTH + 1), DEPTH + 1);
    ck_assert_int_eq(check(deeper, DEPTH + 1), 1);
    ck_assert_uint_eq(stats().marker_checks, 0);
    ck_assert_uint_eq(jitunwind_py_chains_check_span(K, TS, MARKED, DEPTH + 1), 1);
    /* It returns (the marker moves, the sequence too): the walk does not
     * stop, the proof is gone until a whole check makes it again. */
    pop_marked(FRAME[0]);
    sample(FRAME[0], DEPTH);
    ck_assert_uint_eq(jitunwind_py_chains_check_span(K, TS, MARKED, DEPTH), DEPTH);
    ck_assert_int_eq(check(FRAME[0], DEPTH), 1);
    ck_assert_uint_eq(jitunwind_py_chains_check_span(K, TS, MARKED, DEPTH), 1);
    teardown();
}
END_TEST

/* A check that stops at the marker names the proof it stopped under
 * (jitunwind_py_chains_check_proof) and the frames beyond the marked one:
 * the same number while the marked frame lives, 0 after a check that did
 * not stop there, a new number once another marker is proven. */
START_TEST(a_check_names_its_proof)
{
    uint64_t first, deeper;
    size_t beyond = 7;
    marked_target();
    ck_assert_int_eq(check(FRAME[0], DEPTH), 1); /* whole: it proves the marker */
    ck_assert_uint_eq(jitunwind_py_chains_check_proof(K, TS, &beyond), 0);
    ck_assert_uint_eq(beyond, 0);
    ck_assert_int_eq(check(FRAME[0], DEPTH), 1);
    first = jitunwind_py_chains_check_proof(K, TS, &beyond);
    ck_assert_uint_ne(first, 0);
    ck_assert_uint_eq(beyond, DEPTH - 1);
    ck_assert_int_eq(check(FRAME[0], DEPTH), 1);
    ck_assert_uint_eq(jitunwind_py_chains_check_proof(K, TS, NULL), first);
    /* A call on top, marked, then proven by a whole check. */
    deeper = pyi_frame(&P, CODE_OTHER, FRAME[0], 0, 0, 0);
    sample(deeper, DEPTH + 1);
    ck_assert_int_eq(check(deeper, DEPTH + 1), 1);
    ck_assert_uint_eq(jitunwind_py_chains_check_proof(K, TS, NULL), 0);
    ck_assert_int_eq(check(deeper, DEPTH + 1), 1);
    ck_assert_uint_ne(jitunwind_py_chains_check_proof(K, TS, &beyond), 0);
    ck_assert_uint_ne(jitunwind_py_chains_check_proof(K, TS, NULL), first);
    ck_assert_uint_eq(beyond, DEPTH);
    /* It returns: the check is whole again, under no proof. */
    pop_marked(FRAME[0]);
    sample(FRAME[0], DEPTH);
    ck_assert_int_eq(check(FRAME[0], DEPTH), 1);
    ck_assert_uint_eq(jitunwind_py_chains_check_proof(K, TS, &beyond), 0);
    ck_assert_uint_eq(beyond, 0);
    ck_assert_uint_eq(jitunwind_py_chains_check_proof(NULL, TS, NULL), 0);
    teardown();
}
END_TEST

/* A walk made again without the cache (a retried one) found a caller at
 * another instruction than the cached chain holds, every address and code
 * object the same (two paths through the same frames): its check finds
 * its own frames, which are not the cache's, so the marker is not proven. */
START_TEST(a_check_of_other_frames_proves_nothing)
{
    size_t n = 0;
    marked_target();
    replace_frame(FRAME[DEPTH - 2], CODE_REC, FRAME[DEPTH - 1], 9);
    ck_assert_int_eq(jitunwind_pyreader_frames(R, FRAME[0], MARKED, 32, &n), 0);
    ck_assert_uint_eq(n, DEPTH);
    ck_assert_int_eq(check(FRAME[0], DEPTH), 1);
    ck_assert_uint_eq(jitunwind_py_chains_check_span(K, TS, MARKED, DEPTH), DEPTH);
    ck_assert_int_eq(check(FRAME[0], DEPTH), 1);
    ck_assert_uint_eq(stats().marker_checks, 0);
    teardown();
}
END_TEST

/* One marked walk from `top` (a new sample of the code cache): the target
 * reads it made. Its frames are the plain walk's. */
static unsigned long marked_walk(uint64_t top, size_t expect)
{
    size_t n_plain = 0, n = 0;
    unsigned long r0;
    ck_assert_int_eq(jitunwind_pyreader_frames(R, top, PLAIN, 32, &n_plain), 0);
    ck_assert_int_eq(jitunwind_pyreader_cache_next_sample(R), 0);
    r0 = M.reads;
    ck_assert_int_eq(jitunwind_pyreader_frames_reusing(R, K, TS, top, MARKED, 32, &n), 0);
    ck_assert_uint_eq(n, expect);
    ck_assert_uint_eq(n_plain, expect);
    same_frames(PLAIN, MARKED, expect);
    return M.reads - r0;
}

/* The marked frame's code object: once a walk made under a proof read its
 * head and a check stopped at the marker under the same proof, the walks
 * that follow under that proof decode the marked frame from the code cache
 * without reading the code object (its line still moves with the frame's
 * instruction); a popped marked frame ends that until a walk under the
 * next proof reads the head again and a check confirms it. */
START_TEST(a_proven_marker_vouches_for_its_code_object)
{
    unsigned long head_read, vouched;
    marked_target();
    ck_assert_int_eq(jitunwind_pyreader_cache_code(R, 64), 0);
    ck_assert_int_eq(check(FRAME[0], DEPTH), 1); /* proves the marker */
    head_read = marked_walk(FRAME[0], DEPTH);     /* reads the head under the proof */
    ck_assert_uint_eq(stats().marker_codes, 0);
    ck_assert_int_eq(marked_walk(FRAME[0], DEPTH), head_read); /* no check between: read */
    ck_assert_uint_eq(stats().marker_codes, 0);
    ck_assert_int_eq(check(FRAME[0], DEPTH), 1); /* stops at the marker: confirmed */
    vouched = marked_walk(FRAME[0], DEPTH);
    ck_assert_uint_eq(stats().marker_codes, 1);
    ck_assert_uint_lt(vouched, head_read);
    /* The frame's instruction moved on: the line follows, still unread. */
    replace_frame(FRAME[0], CODE_LEAF, FRAME[1], 3);
    ck_assert_int_eq(marked_walk(FRAME[0], DEPTH), vouched);
    ck_assert_int_eq(MARKED[0].line, 33);
    ck_assert_uint_eq(stats().marker_codes, 2);
    /* Popped (the sequence moved), the same frame called again: the head
     * is read at every walk until a new proof is confirmed. */
    ju_builder_u64(P.b, TS + R->layout->ts_last_profiled_seq, SEQ() + 1);
    ck_assert_uint_gt(marked_walk(FRAME[0], DEPTH), vouched);
    ck_assert_int_eq(check(FRAME[0], DEPTH), 1); /* whole: proves the new marker */
    ck_assert_uint_gt(marked_walk(FRAME[0], DEPTH), vouched);
    ck_assert_uint_eq(stats().marker_codes, 2);
    ck_assert_int_eq(check(FRAME[0], DEPTH), 1);
    ck_assert_int_eq(marked_walk(FRAME[0], DEPTH), vouched);
    ck_assert_uint_eq(stats().marker_codes, 3);
    teardown();
}
END_TEST

/* A check of `frames` from `top` (the thread there). */
static int check_of(const struct jitunwind_py_frame *frames, uint64_t top, size_t n)
{
    struct jitunwind_py_thread th;
    ju_builder_u64(P.b, TS + R->layout->ts_current_frame, top);
    memset(&th, 0, sizeof th);
    th.tstate = TS;
    th.current_frame = top;
    return jitunwind_pyreader_frames_unchanged(R, K, &th, frames, n, 1);
}

/* A check that follows jitunwind_py_chains_check_span on the same frames,
 * no walk of its thread between (another thread's may come), takes the marker's answer from it (the frames beyond
 * the marked one are compared with the cache once, not at both calls);
 * given other frames, or after a walk, it compares them itself. The
 * outermost frame's instruction is changed after the span's answer, which
 * a caller must not do: that shows which answer the check used. */
START_TEST(a_check_takes_the_span_answer_made_just_before_it)
{
    static struct jitunwind_py_frame copy[32];
    size_t n = 0;
    marked_target();
    ck_assert_int_eq(check(FRAME[0], DEPTH), 1); /* proves the marker */
    memcpy(copy, MARKED, sizeof copy);
    ck_assert_uint_eq(jitunwind_py_chains_check_span(K, TS, copy, DEPTH), 1);
    copy[DEPTH - 1].lasti++;
    ck_assert_int_eq(check_of(copy, FRAME[0], DEPTH), 1); /* stopped at the marker */
    ck_assert_uint_eq(stats().marker_checks, 1);
    /* Each answer serves one check: the next compares (the frames beyond
     * the marker are not the cache's: compared whole, the change seen). */
    ck_assert_int_eq(check_of(copy, FRAME[0], DEPTH), 0);
    ck_assert_uint_eq(stats().marker_checks, 1);
    /* A walk of another thread's chain between: the answer still serves. */
    memcpy(copy, MARKED, sizeof copy);
    ck_assert_uint_eq(jitunwind_py_chains_check_span(K, TS, copy, DEPTH), 1);
    ck_assert_int_eq(jitunwind_pyreader_frames_reusing(R, K, TS + 8, FRAME[0], BATCHED, 32, &n),
                     0);
    copy[DEPTH - 1].lasti++;
    ck_assert_int_eq(check_of(copy, FRAME[0], DEPTH), 1);
    ck_assert_uint_eq(stats().marker_checks, 2);
    /* Other frames than the span's. */
    ck_assert_uint_eq(jitunwind_py_chains_check_span(K, TS, MARKED, DEPTH), 1);
    ck_assert_int_eq(check_of(copy, FRAME[0], DEPTH), 0);
    /* A walk between. */
    memcpy(copy, MARKED, sizeof copy);
    ck_assert_uint_eq(jitunwind_py_chains_check_span(K, TS, copy, DEPTH), 1);
    ck_assert_int_eq(jitunwind_pyreader_frames_reusing(R, K, TS, FRAME[0], MARKED, 32, &n), 0);
    copy[DEPTH - 1].lasti++;
    ck_assert_int_eq(check_of(copy, FRAME[0], DEPTH), 0);
    ck_assert_uint_eq(stats().marker_checks, 2);
    teardown();
}
END_TEST

/* A check of MARKED[0] alone, whose walk left the frames beyond it. */
static int check_left(void)
{
    struct jitunwind_py_thread th;
    ju_builder_u64(P.b, TS + R->layout->ts_current_frame, FRAME[0]);
    memset(&th, 0, sizeof th);
    th.tstate = TS;
    th.current_frame = FRAME[0];
    return jitunwind_pyreader_frames_unchanged(R, K, &th, MARKED, 1, JITUNWIND_PY_CHECK_LEFT);
}

/* A walk that stops at a marker vouching for the frames beyond it, from
 * the marked frame itself, leaves those frames in the cache
 * (jitunwind_pyreader_frames_reusing_top): the frames up to the marked one,
 * and how many were left; jitunwind_py_chains_tail copies them, the plain
 * walk's. A check of the frames given (JITUNWIND_PY_CHECK_LEFT) stops at
 * the marker, naming its proof and the frames left; it fails once the
 * marked frame was popped, or after another walk. A walk from above the
 * marked frame (which writes a new marker) leaves nothing. */
START_TEST(a_walk_leaves_the_vouched_frames_in_the_cache)
{
    static struct jitunwind_py_frame tail[32];
    size_t n = 0, left = 9, beyond = 0, got = 0;
    uint64_t deeper;
    marked_target();
    /* Nowhere to say how many frames are left: refused. */
    ck_assert_int_eq(jitunwind_pyreader_frames_reusing_top(R, K, TS, FRAME[0], MARKED, 32, &n,
                                                           NULL), JITUNWIND_EINVAL);
    /* Not proven yet: every frame given. */
    ck_assert_int_eq(jitunwind_pyreader_frames_reusing_top(R, K, TS, FRAME[0], MARKED, 32, &n,
                                                           &left), 0);
    ck_assert_uint_eq(n, DEPTH);
    ck_assert_uint_eq(left, 0);
    ck_assert_int_eq(jitunwind_py_chains_tail(K, TS, tail, 32, &got), JITUNWIND_ENOTFOUND);
    ck_assert_int_eq(check(FRAME[0], DEPTH), 1); /* proves the marker */
    ck_assert_int_eq(jitunwind_pyreader_frames(R, FRAME[0], PLAIN, 32, &n), 0);
    ck_assert_int_eq(jitunwind_pyreader_frames_reusing_top(R, K, TS, FRAME[0], MARKED, 32, &n,
                                                           &left), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(left, DEPTH - 1);
    same_frames(PLAIN, MARKED, 1);
    ck_assert_int_eq(jitunwind_py_chains_tail(K, TS, tail, DEPTH - 2, &got), JITUNWIND_ELIMIT);
    ck_assert_int_eq(jitunwind_py_chains_tail(K, TS, tail, 32, &got), 0);
    ck_assert_uint_eq(got, DEPTH - 1);
    same_frames(PLAIN + 1, tail, DEPTH - 1);
    ck_assert_int_eq(check_of(MARKED, FRAME[0], 1) , 0); /* checked as a whole chain: it is not */
    ck_assert_int_eq(jitunwind_pyreader_frames_reusing_top(R, K, TS, FRAME[0], MARKED, 32, &n,
                                                           &left), 0);
    ck_assert_uint_eq(left, DEPTH - 1);
    ck_assert_int_eq(check_left(), 1);
    ck_assert_uint_ne(jitunwind_py_chains_check_proof(K, TS, &beyond), 0);
    ck_assert_uint_eq(beyond, DEPTH - 1);
    /* A walk of another thread's chain since (a sampler walks every thread
     * before checking them all): the tail and the check still hold. */
    ck_assert_int_eq(jitunwind_pyreader_frames_reusing_top(R, K, TS, FRAME[0], MARKED, 32, &n,
                                                           &left), 0);
    ck_assert_uint_eq(left, DEPTH - 1);
    ck_assert_int_eq(jitunwind_pyreader_frames_reusing(R, K, TS + 8, FRAME[0], BATCHED, 32, &n),
                     0);
    ck_assert_int_eq(jitunwind_py_chains_tail(K, TS, tail, 32, &got), 0);
    ck_assert_uint_eq(got, DEPTH - 1);
    ck_assert_int_eq(check_left(), 1);
    ck_assert_uint_ne(jitunwind_py_chains_check_proof(K, TS, &beyond), 0);
    ck_assert_uint_eq(beyond, DEPTH - 1);
    /* Another walk since: neither the tail nor the check. */
    ck_assert_int_eq(jitunwind_pyreader_frames_reusing(R, K, TS, FRAME[0], BATCHED, 32, &n), 0);
    ck_assert_int_eq(jitunwind_py_chains_tail(K, TS, tail, 32, &got), JITUNWIND_ENOTFOUND);
    ck_assert_int_eq(check_left(), 0);
    /* Popped between the walk and the check: the check fails. */
    ck_assert_int_eq(jitunwind_pyreader_frames_reusing_top(R, K, TS, FRAME[0], MARKED, 32, &n,
                                                           &left), 0);
    ck_assert_uint_eq(left, DEPTH - 1);
    ju_builder_u64(P.b, TS + R->layout->ts_last_profiled_seq, SEQ() + 1);
    ck_assert_int_eq(check_left(), 0);
    ck_assert_uint_eq(jitunwind_py_chains_check_proof(K, TS, NULL), 0);
    /* Proven again, then a call on top: walked from above the marker,
     * nothing is left (the new top is marked). */
    sample(FRAME[0], DEPTH);
    ck_assert_int_eq(check(FRAME[0], DEPTH), 1);
    deeper = pyi_frame(&P, CODE_OTHER, FRAME[0], 0, 0, 0);
    ck_assert_int_eq(jitunwind_pyreader_frames_reusing_top(R, K, TS, deeper, MARKED, 32, &n,
                                                           &left), 0);
    ck_assert_uint_eq(n, DEPTH + 1);
    ck_assert_uint_eq(left, 0);
    ck_assert_uint_eq(MARKER(), deeper);
    teardown();
}
END_TEST

/* Another profiler moved the marker without the sequence (its write):
 * from then on no check stops at a marker, even once the marker is back
 * where this cache wrote it. */
START_TEST(another_writer_turns_the_check_stop_off)
{
    marked_target();
    ck_assert_int_eq(check(FRAME[0], DEPTH), 1); /* proven */
    ck_assert_int_eq(check(FRAME[0], DEPTH), 1);
    ck_assert_uint_eq(stats().marker_checks, 1);
    ju_builder_u64(P.b, TS + R->layout->ts_last_profiled_frame, FRAME[2]);
    ck_assert_int_eq(check(FRAME[0], DEPTH), 1); /* compared whole */
    ck_assert_uint_eq(stats().marker_checks, 1);
    ju_builder_u64(P.b, TS + R->layout->ts_last_profiled_frame, FRAME[0]);
    ck_assert_uint_eq(jitunwind_py_chains_check_span(K, TS, MARKED, DEPTH), DEPTH);
    ck_assert_int_eq(check(FRAME[0], DEPTH), 1);
    ck_assert_uint_eq(stats().marker_checks, 1);
    /* Markers turned on again: a fresh start. */
    ck_assert_int_eq(jitunwind_py_chains_mark_frames(K, R), 1);
    sample(FRAME[0], DEPTH);
    ck_assert_int_eq(check(FRAME[0], DEPTH), 1);
    ck_assert_int_eq(check(FRAME[0], DEPTH), 1);
    ck_assert_uint_eq(stats().marker_checks, 2);
    teardown();
}
END_TEST

/* A generator's frame leaves the chain at a yield without being popped:
 * marked, it never vouches for the frames beyond it. */
START_TEST(a_marked_generator_frame_vouches_for_nothing)
{
    uint64_t gen;
    target(V315, 1, 0);
    ck_assert_int_eq(jitunwind_py_chains_mark_frames(K, R), 1);
    gen = pyi_frame(&P, CODE_OTHER, FRAME[0], 0, R->layout->owner_generator, 0);
    sample(gen, DEPTH + 1);
    ck_assert_uint_eq(MARKER(), gen);
    ck_assert_int_eq(check(gen, DEPTH + 1), 1);
    ck_assert_int_eq(check(gen, DEPTH + 1), 1);
    ck_assert_uint_eq(jitunwind_py_chains_check_span(K, TS, MARKED, DEPTH + 1), DEPTH + 1);
    ck_assert_uint_eq(stats().marker_checks, 0);
    teardown();
}
END_TEST

int main(void)
{
    (void)counting_read; /* py_sampling.h's reader: this suite counts writes too */
    return ju_run_tests("py_frame_chains_markers",
                        JU_TESTS(same_stacks_fewer_reads, stale_marker_of_another_profiler_is_cleared,
                                 bad_markers_walk_on, a_reused_address_is_told_by_the_sequence,
                                 without_a_sequence_any_cached_frame_is_a_stop,
                                 a_stop_keeps_the_limits,
                                 no_writes_without_the_opt_in, no_writes_into_a_read_only_target,
                                 writes_only_to_listed_thread_states_and_their_own_field,
                                 every_listed_thread_state_gets_its_marker_whatever_their_order,
                                 marking_again_with_no_threads_forgets_the_old_list,
                                 a_check_stops_at_a_proven_marker, a_new_marker_is_proven_again,
                                 a_check_names_its_proof,
                                 a_check_of_other_frames_proves_nothing,
                                 a_proven_marker_vouches_for_its_code_object,
                                 a_check_takes_the_span_answer_made_just_before_it,
                                 a_walk_leaves_the_vouched_frames_in_the_cache,
                                 another_writer_turns_the_check_stop_off,
                                 a_marked_generator_frame_vouches_for_nothing));
}
