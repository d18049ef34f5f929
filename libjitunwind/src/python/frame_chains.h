/* A sampler's cache of thread frame chains (frame_chains.c), used by the
 * walk in frames.c: each thread's last complete chain, outermost first, and
 * what identifies each frame in it. */
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
    uint32_t reads; /* target reads this frame cost when it was last read */
    struct jitunwind_py_frame frame;
};

struct ju_chain_slot {
    uint64_t thread_key;
    uint64_t used;   /* the cache's clock at the last walk; 0: empty */
    size_t count;    /* entries held, outermost first */
    struct ju_chain_entry *entries;
    uint32_t *index; /* by address, open addressing: entry + 1, 0 empty */
};

/* One walk's state: the slot, and the keys of the frames read so far (a
 * ring of the last `frames`, which are the outermost when the walk ends). */
struct ju_chain_walk {
    struct jitunwind_py_chains *chains;
    struct ju_chain_slot *slot;
    size_t fresh; /* frames read in this walk */
    uint32_t reads; /* the reader's reads so far (counted by the caller) */
};

struct jitunwind_py_chains {
    size_t threads, frames, index_size;
    uint64_t clock;
    struct ju_chain_slot *slots;
    struct ju_chain_key *ring;
    uint32_t *ring_reads;
    struct jitunwind_py_chain_stats stats;
};

/* Start a walk of `thread_key`'s chain. */
JU_HIDDEN void ju_chain_begin(struct ju_chain_walk *w, struct jitunwind_py_chains *c,
                              uint64_t thread_key);
/* The cached position (outermost first) of the frame with this key, or -1. */
JU_HIDDEN long ju_chain_find(const struct ju_chain_walk *w, const struct ju_chain_key *key);
/* Copy the cached frames from position `at` outward into out[n..max):
 * their number is added to *count; ELIMIT when they did not all fit. */
JU_HIDDEN int ju_chain_reuse(struct ju_chain_walk *w, long at, struct jitunwind_py_frame *out,
                             size_t n, size_t max, size_t *count);
/* Note the key of the walk's n-th frame, read at a cost of `reads`. */
JU_HIDDEN void ju_chain_note(struct ju_chain_walk *w, const struct ju_chain_key *key,
                             uint32_t reads);
/* After a complete walk: keep out[0..fresh) and, when `reused_at` >= 0, the
 * cached frames from there outward, as the thread's chain. */
JU_HIDDEN void ju_chain_store(struct ju_chain_walk *w, const struct jitunwind_py_frame *out,
                              long reused_at);
/* Forget the thread's chain (a walk that failed). */
JU_HIDDEN void ju_chain_forget(struct ju_chain_walk *w);

#endif
