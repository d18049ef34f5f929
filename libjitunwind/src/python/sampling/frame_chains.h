/* A sampler's cache of thread frame chains (frame_chains.c), used by the
 * walk in frames.c: each thread's last complete chain, outermost first, and
 * what identifies each frame in it. The walk still visits every frame (an
 * outer frame cannot be trusted from an inner one alone: the same helper
 * called from two callers of the same size has the same address, code,
 * instruction and previous pointer under both), but reads the memory the
 * cached chain spans in one batch. Each frame's code object is decoded
 * (the code cache makes that cheap), never taken on the key's word. With
 * frame markers (frame_chains_markers.c, opt-in)
 * a walk stops at the frame CPython 3.15 keeps marked for the profiler and
 * takes the frames beyond it from the cache unread, and a check of a
 * running chain may stop there too (frame_chains_marker_check.c). */
#ifndef JITUNWIND_PY_FRAME_CHAINS_H
#define JITUNWIND_PY_FRAME_CHAINS_H

#include "python/pyreader.h"

/* What a frame's own memory says; a frame whose key is unchanged runs the
 * same code at the same place with the same caller. */
struct ju_chain_key {
    uint64_t address, code, instr, previous;
    uint64_t aux; /* owner | tlbc_index << 8 */
};

struct ju_chain_entry {
    struct ju_chain_key key;
    struct jitunwind_py_frame frame;
    uint16_t qualname_len, filename_len; /* the frame's names' lengths */
};

struct ju_chain_slot {
    uint64_t thread_key;
    uint64_t used;   /* the cache's clock at the last walk; 0: empty */
    size_t count;    /* entries held, outermost first */
    uint64_t span_lo, span_hi; /* the memory of the entries batched together */
    struct ju_chain_entry *entries;
    uint32_t *index; /* by address, open addressing: entry + 1, 0 empty */
    uint64_t marker;     /* the frame marker this cache last wrote for the thread, or 0 */
    uint64_t marker_seq; /* the target's marker sequence when it was written */
    int marker_proven;   /* a check made after `marker` was set found the whole
                          * chain as cached (frame_chains_marker_check.c) */
    uint64_t proof;      /* while marker_proven: its number, new at each proof */
    uint64_t checked_proof;  /* the last check stopped at the marker under this
                              * proof (0: it did not) */
    size_t checked_beyond;   /* and found this many frames beyond the marked one */
    /* The marked frame's code object, vouched for while the proof numbered
     * `code_proof` holds (frame_chains_marker_check.c), and the one whose
     * head a walk under proof `code_pending_proof` read, until a check
     * stops at the marker under that proof. */
    uint64_t code_vouched, code_proof;
    uint64_t code_pending, code_pending_proof;
    /* The last jitunwind_py_chains_check_span's answer, for the check that
     * follows it on the same frames (frame_chains_marker_check.c). */
    const struct jitunwind_py_frame *span_frames; /* NULL: none held */
    size_t span_n, span_marked;
    uint64_t span_clock, span_proof;
    /* The frames beyond the marked one a walk left in the cache
     * (jitunwind_pyreader_frames_reusing_top): entries [0, left_count)
     * after the walk at the cache's clock `left_clock` (the slot's `used`
     * until the thread is walked again), under proof
     * `left_proof`; left_count 0: none. */
    size_t left_count;
    uint64_t left_clock, left_proof;
};

/* One walk's state: the slot, and the keys of the frames read so far (a
 * ring of the last `frames`, which are the outermost when the walk ends). */
struct ju_chain_walk {
    struct jitunwind_py_chains *chains;
    struct ju_chain_slot *slot;
    size_t fresh;     /* frames noted in this walk */
    size_t tail;      /* after a stop at the marker: the cached entries [0, tail),
                       * the frames beyond it, kept as they are (not noted) */
    uint64_t batch_lo; /* the batch holds [batch_lo, batch_lo + batch_len) */
    size_t batch_len;
    size_t served;    /* frames the batch served */
    uint64_t stop_at; /* the marker to stop at, or 0 */
    uint64_t seen_marker, seen_seq; /* the thread's marker as this walk found it */
    int marking;      /* markers are on for this walk (the key is a thread state) */
    int spliced;      /* the walk took the frames beyond the marker from the cache */
    int leave;        /* frames beyond a proven marker are left in the cache, not copied */
    size_t left;      /* how many it left */
};

#define JU_CHAIN_BATCH_MAX 65536u /* bytes of frames read in one batch */

struct jitunwind_py_chains {
    size_t threads, frames, index_size;
    uint64_t clock;
    struct ju_chain_slot *slots;
    struct ju_chain_key *ring;
    long *ring_from;  /* the cached position a noted frame came from, or -1 */
    uint8_t *batch; /* JU_CHAIN_BATCH_MAX bytes */
    struct jitunwind_py_chain_stats stats;
    const struct jitunwind_pyreader *marking; /* whose targets get markers, or NULL */
    uint64_t *marked;    /* the thread states listed when markers were turned on, sorted */
    size_t marked_count; /* only those keys are written to */
    int foreign_marks;   /* another writer's marker was seen: checks stay whole */
    uint64_t proofs;     /* proofs made (ju_chain_slot.proof) */
};

/* Copy a decoded frame without its unused name bytes: most of the
 * struct's 1.3 KiB is empty buffer, and a sampler copies frames at every
 * sample. */
JU_HIDDEN void ju_chain_copy_frame(struct jitunwind_py_frame *dst,
                                   const struct jitunwind_py_frame *src);
/* Copy an entry's frame out, its names by their known lengths (a stop at
 * the marker copies every frame beyond it at every sample). */
JU_HIDDEN void ju_chain_entry_frame(struct jitunwind_py_frame *dst,
                                    const struct ju_chain_entry *e);
/* Start a walk of `thread_key`'s chain. */
JU_HIDDEN void ju_chain_begin(struct ju_chain_walk *w, struct jitunwind_py_chains *c,
                              uint64_t thread_key);
/* The cached position (outermost first) of the frame at `address` (a
 * chain's frames have distinct addresses), or -1. */
JU_HIDDEN long ju_chain_position(const struct ju_chain_walk *w, uint64_t address);
/* The cached position (outermost first) of the frame with this key, or -1. */
JU_HIDDEN long ju_chain_find(const struct ju_chain_walk *w, const struct ju_chain_key *key);
/* Read the span of the thread's cached chain in one read (no batch when
 * there is none or it is unreadable). */
JU_HIDDEN void ju_chain_read_batch(struct ju_chain_walk *w, const struct jitunwind_memory *mem);
/* Copy `len` bytes at `addr` from the batch: 1, or 0 when not all there. */
JU_HIDDEN int ju_chain_from_batch(struct ju_chain_walk *w, uint64_t addr, void *dst, size_t len);
/* Whether the frame decoded afresh into *f is the one at cached position
 * `at` (counted as reused then). An unchanged key is no proof of the same
 * code: a new code object can take a freed one's address, so the walk
 * decodes every frame's code (through the code cache) and asks this. */
JU_HIDDEN int ju_chain_agrees(struct ju_chain_walk *w, long at,
                              const struct jitunwind_py_frame *f);
/* Note the key of the walk's n-th frame, decoded, or taken from cached
 * position `from` (else -1). */
JU_HIDDEN void ju_chain_note(struct ju_chain_walk *w, const struct ju_chain_key *key, long from);
/* After a complete walk: keep out[0..fresh) (the outermost that fit) as
 * the thread's chain, beyond the entries [0, tail) a stop at the marker
 * kept. */
JU_HIDDEN void ju_chain_store(struct ju_chain_walk *w, const struct jitunwind_py_frame *out,
                              size_t frame_size);
/* Forget the thread's chain (a walk that failed). */
JU_HIDDEN void ju_chain_forget(struct ju_chain_walk *w);

/* Markers (frame_chains_markers.c). Before a walk: read the thread's marker
 * and set w->stop_at when it names a frame this cache holds. */
JU_HIDDEN void ju_chain_marker_plan(struct ju_chain_walk *w, jitunwind_pyreader *r);
/* The cached position of the marked frame whose key is `key`, or -1: the
 * same address, code object, owner and caller (its instruction moves on
 * while it runs: it is decoded again, not compared). */
JU_HIDDEN long ju_chain_marked(const struct ju_chain_walk *w, const struct ju_chain_key *key);
/* At the marker, the frame there has cached position `at`: append the
 * cached frames beyond it to out[n..max), their entries kept. The number
 * appended, or ELIMIT (max or JITUNWIND_PY_MAX_FRAMES reached: `n + the
 * returned count` frames are valid, see *count). */
JU_HIDDEN int ju_chain_marker_splice(struct ju_chain_walk *w, long at,
                                     struct jitunwind_py_frame *out, size_t n, size_t max,
                                     size_t steps, size_t *count);
/* The same when the walk leaves the frames beyond the marked one in the
 * cache (w->leave and the slot's proof holds): nothing is appended, and
 * the slot notes what was left. 1 when it left them, else 0 (splice). */
JU_HIDDEN int ju_chain_marker_leave(struct ju_chain_walk *w, long at,
                                    struct jitunwind_py_frame *out, size_t n);
/* After a complete walk whose chain was kept: mark `top` in the target. */
JU_HIDDEN void ju_chain_marker_write(struct ju_chain_walk *w, jitunwind_pyreader *r,
                                     uint64_t top);
/* The thread's marker and sequence as the target holds them now (the
 * sequence 0 when the layout has none): 0, or EREAD. */
JU_HIDDEN int ju_chain_read_marker(jitunwind_pyreader *r, uint64_t tstate, uint64_t *marker,
                                   uint64_t *seq);

/* The check's side of markers (frame_chains_marker_check.c). The slot of
 * `thread_key`, or NULL (the cache's clock is not moved). */
JU_HIDDEN struct ju_chain_slot *ju_chain_slot_of(const struct jitunwind_py_chains *c,
                                                 uint64_t thread_key);
/* The index in frames[0..n) (innermost first) of the marked frame when
 * the slot's proof holds for them (the frames beyond it are the cached
 * ones the proof covers); n otherwise. */
JU_HIDDEN size_t ju_chain_marker_vouches(const struct jitunwind_py_chains *c,
                                         const struct ju_chain_slot *s,
                                         const struct jitunwind_py_frame *frames, size_t n);
/* The walk is at the marked frame, whose key is `key` and code object
 * `code`: whether the slot's proof vouches for that code object (the
 * walk may decode it from the code cache without reading its head). */
JU_HIDDEN int ju_chain_code_vouched(const struct ju_chain_walk *w, const struct ju_chain_key *key,
                                    uint64_t code);
/* The walk at the marked frame decoded `code`, reading its head and
 * finding or filling its code cache entry (`head_read`) or not. */
JU_HIDDEN void ju_chain_code_decoded(struct ju_chain_walk *w, const struct ju_chain_key *key,
                                     uint64_t code, int head_read);
/* ju_chain_marker_vouches for the check of frames[0..n), taken from the
 * jitunwind_py_chains_check_span made just before on the same frames when
 * nothing has changed since (no walk of the thread, no new proof): the
 * frames beyond the marked one are compared with the cache once a check,
 * not twice. The
 * span held is dropped either way: each check is preceded by its own. */
JU_HIDDEN size_t ju_chain_marker_vouches_once(struct jitunwind_py_chains *c,
                                              struct ju_chain_slot *s,
                                              const struct jitunwind_py_frame *frames, size_t n);
/* For a check of frames[0..n) whose walk left the frames beyond the
 * marked one (frames[n - 1]) in the cache: n - 1 when the slot still
 * holds them under its proof (no walk of the thread since), else n. */
JU_HIDDEN size_t ju_chain_marker_left(const struct jitunwind_py_chains *c,
                                      const struct ju_chain_slot *s,
                                      const struct jitunwind_py_frame *frames, size_t n);
/* Whether the target's marker and sequence are still the slot's. */
JU_HIDDEN int ju_chain_marker_still(struct jitunwind_py_chains *c, jitunwind_pyreader *r,
                                    const struct ju_chain_slot *s);
/* A check stopped at frames[marked], the marker still the slot's, with
 * `beyond` frames beyond it: its proof is named
 * (jitunwind_py_chains_check_proof). */
JU_HIDDEN void ju_chain_marker_stopped(struct jitunwind_py_chains *c, struct ju_chain_slot *s,
                                       const struct jitunwind_py_frame *frames, size_t marked,
                                       size_t beyond);
/* Note a marker read from the target against the slot's: another writer's
 * (moved without the sequence) turns the checks' stop off for good. */
JU_HIDDEN void ju_chain_marker_seen(struct jitunwind_py_chains *c, const struct ju_chain_slot *s,
                                    uint64_t marker, uint64_t seq);
/* A check found frames[0..n) (a whole chain) unchanged: the proof, when
 * they are the slot's cached chain and the marked frame is among them. */
JU_HIDDEN void ju_chain_marker_prove(struct jitunwind_py_chains *c, struct ju_chain_slot *s,
                                     const struct jitunwind_py_frame *frames, size_t n);

#endif
