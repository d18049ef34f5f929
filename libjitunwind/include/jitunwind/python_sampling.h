/* A sampler's additions to the CPython decoder (python.h): a cache of code
 * objects across samples and cached frame chains per thread, so that a
 * sample reads only what changed. Threads: each call is a use of its
 * pyreader and chain cache, one thread at a time (jitunwind.h). */
#ifndef JITUNWIND_PYTHON_SAMPLING_H
#define JITUNWIND_PYTHON_SAMPLING_H

#include <stddef.h>
#include <stdint.h>

#include "jitunwind/python.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --- A sampler's cache --- */

#define JITUNWIND_PY_MAX_CODE_CACHE 65536u
/* Keep in READER up to ENTRIES code objects decoded (qualname, filename, first
 * line and, up to 4 KiB, the line table) by address between calls of
 * jitunwind_pyreader_frames, so that a frame whose code was seen before
 * costs one read of the code object's head instead of six or more. The
 * head is read at every use (at the first use in a sample with
 * jitunwind_pyreader_cache_next_sample): an entry is used only while the
 * code object there still has the same name, file and line-table pointers
 * and first line (a code object never changes them; a new one at a freed
 * address holds new strings), so a stale entry is refilled, never shown.
 * ENTRIES 0 turns the cache off (the default); a later call replaces the
 * cache, its entries and counters. Returns 0, EINVAL (READER NULL, ENTRIES
 * above JITUNWIND_PY_MAX_CODE_CACHE), ENOMEM (the cache before is kept).
 * The cache is READER's and freed with it. */
JITUNWIND_API int jitunwind_pyreader_cache_code(jitunwind_pyreader *reader, size_t entries);

/* A sampler's unit of time: after this call, a code object whose head was
 * checked once in the sample is trusted for the rest of it (its head is not
 * read again for each frame that runs it), until the next call. Without
 * calls every use is checked. 0, or EINVAL (READER NULL, its cache off). */
JITUNWIND_API int jitunwind_pyreader_cache_next_sample(jitunwind_pyreader *reader);

struct jitunwind_py_cache_stats {
    uint64_t hits;        /* frames whose code came from the cache */
    uint64_t misses;      /* frames whose code was read (first time, or stale) */
    uint64_t invalidated; /* of the misses, entries whose code object had changed */
    uint64_t reads_saved; /* target reads the hits did not make */
};
/* READER's code-cache counters into *OUT: 0, or EINVAL (READER or OUT
 * NULL). */
JITUNWIND_API int jitunwind_pyreader_cache_stats(const jitunwind_pyreader *reader,
                                                 struct jitunwind_py_cache_stats *out);

/* --- A sampler's frame chains ---
 *
 * Between two samples of a thread, the outer part of its frame chain is
 * usually unchanged. A chain cache keeps each thread's last complete chain
 * (its outermost `frames` frames, decoded) for `threads` threads; the
 * caller owns it and names a thread by any key (its tstate address).
 * jitunwind_pyreader_frames_reusing walks like jitunwind_pyreader_frames,
 * but reads the memory the cached chain spans (up to 64 KiB) in one read,
 * and a frame whose address, code object, instruction pointer, owner and
 * previous pointer are those cached is not decoded again (no code-object,
 * name or line-table reads): its qualname, file and line come from the
 * cache. Every frame is still visited: an inner frame cannot vouch for the
 * outer ones (a helper called from two callers of the same size has the
 * same address, code, instruction and previous pointer under both).
 * CPython 3.15's last_profiled_frame marker lets a walk stop early, but
 * the profiler must write it into the target: that is opt-in
 * (jitunwind_py_chains_mark_frames below). Only chains walked to the end
 * without error are kept. All memory is allocated by jitunwind_py_chains_new
 * (and jitunwind_py_chains_mark_frames); a walk allocates nothing. */
/* Threads: one thread at a time, with the pyreader it is used with
 * (jitunwind.h). */
typedef struct jitunwind_py_chains jitunwind_py_chains;
#define JITUNWIND_PY_MAX_CHAIN_THREADS 4096u
/* A cache of the last chain of up to THREADS threads, FRAMES frames each.
 * Returns 0 with *OUT set (free it with jitunwind_py_chains_free); EINVAL
 * (OUT NULL, a size of 0 or above JITUNWIND_PY_MAX_CHAIN_THREADS or
 * JITUNWIND_PY_MAX_FRAMES) or ENOMEM, with *OUT NULL and the reason in
 * jitunwind_last_error(). */
JITUNWIND_API int jitunwind_py_chains_new(size_t threads, size_t frames,
                                          jitunwind_py_chains **out);
/* Free CHAINS (NULL is ignored). */
JITUNWIND_API void jitunwind_py_chains_free(jitunwind_py_chains *chains);
/* As jitunwind_pyreader_frames (READER, FRAME_ADDR, OUT, MAX and COUNT as
 * there, the same returns and limits; EINVAL also for CHAINS NULL), reusing
 * THREAD_KEY's cached chain in CHAINS (the least recently used thread's slot
 * is taken for a new key). Threads: READER and CHAINS are in use. */
JITUNWIND_API int jitunwind_pyreader_frames_reusing(jitunwind_pyreader *reader,
                                                    jitunwind_py_chains *chains,
                                                    uint64_t thread_key, uint64_t frame_addr,
                                                    struct jitunwind_py_frame *out, size_t max,
                                                    size_t *count);
/* As jitunwind_pyreader_frames_reusing (READER, CHAINS, THREAD_KEY,
 * FRAME_ADDR, OUT, MAX and COUNT as there, the same returns; EINVAL also
 * for LEFT NULL), but a walk that stops at a frame marker that vouches for
 * the frames beyond it (see jitunwind_py_chains_mark_frames and
 * jitunwind_pyreader_frames_unchanged) leaves those frames in CHAINS
 * instead of copying them into OUT: *COUNT frames up to the marked one (the
 * last), and *LEFT how many lie beyond it, left; 0 when the whole chain is
 * in OUT. Such frames are checked with ENDED = JITUNWIND_PY_CHECK_LEFT; a
 * caller that needs the frames left copies them with
 * jitunwind_py_chains_tail. Threads: READER and CHAINS are in use. */
JITUNWIND_API int jitunwind_pyreader_frames_reusing_top(jitunwind_pyreader *reader,
                                                        jitunwind_py_chains *chains,
                                                        uint64_t thread_key, uint64_t frame_addr,
                                                        struct jitunwind_py_frame *out, size_t max,
                                                        size_t *count, size_t *left);
/* The frames the last walk of THREAD_KEY (jitunwind_pyreader_frames_reusing_top)
 * left in CHAINS, innermost first, into OUT (at most MAX): 0 with *COUNT
 * frames, ENOTFOUND when it left none or THREAD_KEY's chain was walked
 * again since (walks of other threads may come between), ELIMIT when
 * MAX is too small (nothing copied), EINVAL for NULL arguments. */
JITUNWIND_API int jitunwind_py_chains_tail(const jitunwind_py_chains *chains, uint64_t thread_key,
                                           struct jitunwind_py_frame *out, size_t max,
                                           size_t *count);
/* ENDED for frames whose walk left the frames beyond the marked one (the
 * last of them) in the chains: the check stops at the marked frame, with
 * the marker and its sequence still the ones that vouched for them, or
 * says changed. */
#define JITUNWIND_PY_CHECK_LEFT 2
/* Whether THREAD (as jitunwind_pyreader_thread gave it) is still at its
 * current frame in READER's target and its chain still holds the N frames
 * at FRAMES a walk of it gave (innermost first): the same frame addresses
 * in that order (sentinel frames between them skipped, as a walk does),
 * each with the same owner and code object, each caller (every frame but
 * the innermost) at the same instruction offset (the innermost one's may
 * have moved on; not compared for 3.14t's per-thread bytecode copies) and,
 * when ENDED, no frame after them. Nothing is decoded: a sampler checks its
 * walk of a running thread at a fraction of a walk's cost. With CHAINS (may
 * be NULL), the frames' memory is read in reads of up to 64 KiB (one, for
 * frames within 64 KiB of each other) instead of one a frame. With frame
 * markers on (jitunwind_py_chains_mark_frames) and a marker that vouches
 * for the frames beyond the marked one (a check since the marker was set
 * found the whole chain, and the marker and its sequence still read the
 * same after the frames above it), only the frames up to the marked one
 * are read; jitunwind_py_chains_check_span says how many. Returns 1
 * (unchanged), 0 (changed, unreadable, or no current frame), or EINVAL
 * (READER or THREAD NULL, FRAMES NULL with N > 0). */
JITUNWIND_API int jitunwind_pyreader_frames_unchanged(jitunwind_pyreader *reader,
                                                      jitunwind_py_chains *chains,
                                                      const struct jitunwind_py_thread *thread,
                                                      const struct jitunwind_py_frame *frames,
                                                      size_t n, int ended);
struct jitunwind_py_chain_stats {
    uint64_t walks;         /* calls of jitunwind_pyreader_frames_reusing */
    uint64_t reused_walks;  /* of those, walks that took a frame from the cache */
    uint64_t frames_reused; /* frames found unchanged in the cache (their code
                             * is still checked, through the code cache) */
    uint64_t reads_saved;   /* frame reads the one batch read of each walk, or a
                             * stop at the marker, replaced */
    /* With frame markers (jitunwind_py_chains_mark_frames): */
    uint64_t marker_stops;   /* walks that stopped at the marker */
    uint64_t marker_frames;  /* frames beyond it taken from the cache unread */
    uint64_t marker_misses;  /* walks that reached the marker but walked on
                              * (the frame there was not the one cached) */
    uint64_t marker_writes;  /* pointers written into the target (clears included) */
    uint64_t marker_checks;  /* checks (jitunwind_pyreader_frames_unchanged) that
                              * stopped at the marked frame */
    uint64_t marker_codes;   /* walks that decoded the marked frame from the code
                              * cache without reading its code object's head: the
                              * marker's proof vouched for the code object */
};
/* Returns how many of the N frames at FRAMES a walk of THREAD_KEY's chain
 * gave (innermost first) jitunwind_pyreader_frames_unchanged will read to
 * check them: N, or fewer when the thread's frame marker in CHAINS vouches
 * for the frames beyond the marked one (a caller that reads the memory
 * beforehand reads only those frames, and the thread state with the
 * marker). N when CHAINS is NULL or FRAMES is NULL. The next
 * jitunwind_pyreader_frames_unchanged of THREAD_KEY given the same FRAMES
 * and N, with no walk of THREAD_KEY's chain between (walks of other
 * threads may come between), takes the marker's answer from
 * this call instead of comparing the frames with the cache again: FRAMES
 * must not change in between. */
JITUNWIND_API size_t jitunwind_py_chains_check_span(const jitunwind_py_chains *chains,
                                                    uint64_t thread_key,
                                                    const struct jitunwind_py_frame *frames,
                                                    size_t n);
/* After jitunwind_pyreader_frames_unchanged checked THREAD_KEY's chain:
 * when that check stopped at the marked frame (the marker vouched for the
 * frames beyond it), the number of the proof it stopped under, and in
 * *BEYOND (when not NULL) how many frames of the N it was given lie beyond
 * the marked one (the outermost); otherwise 0, and *BEYOND 0. Two checks
 * that return the same number saw the same frames beyond the marked one:
 * the marked frame was not popped between them, so those frames were the
 * same live frames, running the same code objects at the same
 * instructions, and what a caller derived from them at the first (names,
 * lines, a profile's ids) holds at the second. 0 when CHAINS is NULL or
 * holds no chain of THREAD_KEY. */
JITUNWIND_API uint64_t jitunwind_py_chains_check_proof(const jitunwind_py_chains *chains,
                                                       uint64_t thread_key, size_t *beyond);
/* CHAINS' counters into *OUT: 0, or EINVAL (CHAINS or OUT NULL). */
JITUNWIND_API int jitunwind_py_chains_stats(const jitunwind_py_chains *chains,
                                            struct jitunwind_py_chain_stats *out);

/* Opt-in: use CPython 3.15's frame marker, as CPython's own sampling
 * profiler does. This WRITES INTO THE TARGET: one pointer per thread per
 * sample (tstate->last_profiled_frame), through the write operation of the
 * reader's memory, which must have one (a live process's writable memory;
 * never a core). The interpreter keeps the marker on a live frame (it moves
 * it to the caller when that frame returns, and bumps
 * last_profiled_frame_seq). From then on, jitunwind_pyreader_frames_reusing
 * with `reader` must be given the thread state's address as `thread_key`;
 * it reads the marker, walks from the current frame until it reaches the
 * marker, and, when the frame there is the cached one (same key as today,
 * and the same marker sequence), takes the frames beyond it from the cache
 * without reading them; otherwise it walks on (never a short stack). After a
 * complete walk it writes the walked top frame as the new marker (not when
 * unchanged). Turning it on first clears every thread's marker (a marker
 * left by another profiler would name a frame this cache never saw).
 * Returns the number of threads cleared, or EVERSION (the layout has no
 * last_profiled_frame), EUNSUPPORTED (the memory has no write operation),
 * ECORRUPT (the target's offsets put the marker over another field),
 * EINVAL (CHAINS or READER NULL), EREAD/ELOOP/ELIMIT (the thread list),
 * ENOMEM, or the write's status; READER's last error names the reason of
 * the first five. */
JITUNWIND_API int jitunwind_py_chains_mark_frames(jitunwind_py_chains *chains,
                                                  jitunwind_pyreader *reader);

#ifdef __cplusplus
}
#endif

#endif
