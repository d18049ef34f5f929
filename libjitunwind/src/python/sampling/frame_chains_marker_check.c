/* What frame markers (frame_chains_markers.c) spare the check of a running
 * thread's chain (frames_unchanged.c): the frames beyond the marked one.
 *
 * The proof. The interpreter moves the marker off a frame only when that
 * frame is popped, and then bumps the sequence; only a profiler's write
 * sets it anywhere else. So, from the moment the marker names address T
 * with sequence S, as long as it still reads (T, S) no frame at T has been
 * popped. A check that, after the marker was set, found the whole chain as
 * cached, the frame at T among it, saw that frame live; if the marker
 * reads (T, S) at any later moment, that frame is still live then, and
 * frames beyond a live frame do not change: they are still the cached
 * ones. A later check then compares only the frames from the current one
 * to the frame at T, and reads the marker and the sequence after them.
 * The marked frame must be owned by the thread (FRAME_OWNED_BY_THREAD, 0
 * in every CPython with markers): a generator's frame leaves the chain at
 * each yield without being popped, and comes back under other callers.
 *
 * The slot's proof is dropped when the marker or the sequence read before
 * a walk is not the slot's, when a marker is written, and when a walk did
 * not take the frames beyond the marker from the cache (frames.c): the
 * cached frames the proof covers are then no longer the ones checked.
 *
 * Another profiler writing markers into the same threads (CPython's own
 * does) breaks the proof: its write moves the marker off the frame at T
 * without the sequence, that frame's return then moves nothing, and a
 * later write of T names another call's frame under the same sequence.
 * Such a write shows as a marker other than the slot's under the slot's
 * sequence; once one is seen, no check stops at a marker again (the walk
 * still does, as before). A write undone between two readings of this
 * sampler is not seen: the risk the --mark-frames documentation states. */
#include "python/sampling/frame_chains.h"

#define OWNED_BY_THREAD 0

struct ju_chain_slot *ju_chain_slot_of(const struct jitunwind_py_chains *c, uint64_t thread_key)
{
    size_t i;
    for (i = 0; i < c->threads; i++)
        if (c->slots[i].used && c->slots[i].thread_key == thread_key)
            return &c->slots[i];
    return NULL;
}

/* The index of the marked frame in frames[0..n) when the cached chain's
 * frames beyond it (outermost first in the slot) are frames[k+1..n) in
 * turn, and it is the thread's own; n otherwise. A frame beyond it is the
 * cached one only at the same address, with the same code, owner and
 * instruction: a retried walk's frames may differ from those its first
 * walk cached in a caller's instruction alone (two paths through frames
 * at the same addresses), and what a check found of them proves nothing
 * of the cache. */
static size_t marked_index(const struct jitunwind_py_chains *c, const struct ju_chain_slot *s,
                           const struct jitunwind_py_frame *frames, size_t n)
{
    struct ju_chain_walk w;
    long at;
    size_t k, j;
    if (!s->marker || !s->count || n == 0)
        return n;
    w.chains = (struct jitunwind_py_chains *)c;
    w.slot = (struct ju_chain_slot *)s;
    at = ju_chain_position(&w, s->marker);
    if (at < 0 || (size_t)at >= n)
        return n;
    k = n - 1 - (size_t)at;
    if (frames[k].address != s->marker || frames[k].owner != OWNED_BY_THREAD)
        return n;
    for (j = 0; j < (size_t)at; j++)
        if (frames[n - 1 - j].address != s->entries[j].key.address ||
            frames[n - 1 - j].code != s->entries[j].frame.code ||
            frames[n - 1 - j].owner != s->entries[j].frame.owner ||
            frames[n - 1 - j].lasti != s->entries[j].frame.lasti)
            return n;
    return k;
}

size_t ju_chain_marker_vouches(const struct jitunwind_py_chains *c, const struct ju_chain_slot *s,
                               const struct jitunwind_py_frame *frames, size_t n)
{
    return s && s->marker_proven && !c->foreign_marks ? marked_index(c, s, frames, n) : n;
}

void ju_chain_marker_seen(struct jitunwind_py_chains *c, const struct ju_chain_slot *s,
                          uint64_t marker, uint64_t seq)
{
    if (s->marker && seq == s->marker_seq && marker != s->marker)
        c->foreign_marks = 1;
}

int ju_chain_marker_still(struct jitunwind_py_chains *c, jitunwind_pyreader *r,
                          const struct ju_chain_slot *s)
{
    uint64_t marker, seq;
    if (r->layout->ts_last_profiled_seq == JU_PY_NONE)
        return 0; /* without a sequence, a marker back at T proves nothing */
    if (ju_chain_read_marker(r, s->thread_key, &marker, &seq) < 0)
        return 0;
    ju_chain_marker_seen(c, s, marker, seq);
    return marker == s->marker && seq == s->marker_seq && !c->foreign_marks;
}

void ju_chain_marker_prove(struct jitunwind_py_chains *c, struct ju_chain_slot *s,
                           const struct jitunwind_py_frame *frames, size_t n)
{
    if (s && !s->marker_proven && marked_index(c, s, frames, n) < n) {
        s->marker_proven = 1;
        s->proof = ++c->proofs;
    }
}

/* The marked frame's code object. A live frame keeps its code object
 * alive and never changes it, so while the marked frame lives the code
 * object at the address its frame names is the same object, with the same
 * (immutable) names and line table. A walk that, while a proof holds (the
 * marker and sequence it read before the walk are the slot's), reads the
 * marked frame's code head and finds its code cache entry right, and
 * after which a check stops at the marker under the same proof (the frame
 * lived from before that walk to after it), has checked the entry against
 * that very object. From then on, while the same proof holds, the walk
 * takes the marked frame's names and line table from the entry unread;
 * the check that follows each such walk still has to stop at the marker
 * for the stack to stand (running_chain.c), which proves the frame lived
 * through the walk. Without a sequence a marker proves nothing: never. */
static int proof_holds(const struct ju_chain_walk *w, const struct ju_chain_key *key)
{
    const struct ju_chain_slot *s = w->slot;
    return w->stop_at == key->address && s->marker_proven && !w->chains->foreign_marks &&
           w->chains->marking &&
           w->chains->marking->layout->ts_last_profiled_seq != JU_PY_NONE &&
           (key->aux & 0xff) == OWNED_BY_THREAD && ju_chain_marked(w, key) >= 0;
}

int ju_chain_code_vouched(const struct ju_chain_walk *w, const struct ju_chain_key *key,
                          uint64_t code)
{
    const struct ju_chain_slot *s = w->slot;
    return code && s->code_proof == s->proof && s->code_vouched == code && proof_holds(w, key);
}

void ju_chain_code_decoded(struct ju_chain_walk *w, const struct ju_chain_key *key, uint64_t code,
                           int head_read)
{
    struct ju_chain_slot *s = w->slot;
    if (head_read && code && proof_holds(w, key)) {
        s->code_pending = code;
        s->code_pending_proof = s->proof;
    }
}

size_t ju_chain_marker_left(const struct jitunwind_py_chains *c, const struct ju_chain_slot *s,
                            const struct jitunwind_py_frame *frames, size_t n)
{
    struct ju_chain_walk w;
    if (!s || n == 0 || !s->left_count || s->left_clock != s->used ||
        s->left_proof != s->proof || !s->marker_proven || c->foreign_marks ||
        frames[n - 1].address != s->marker || frames[n - 1].owner != OWNED_BY_THREAD)
        return n;
    w.chains = (struct jitunwind_py_chains *)c;
    w.slot = (struct ju_chain_slot *)s;
    return ju_chain_position(&w, s->marker) == (long)s->left_count ? n - 1 : n;
}

void ju_chain_marker_stopped(struct jitunwind_py_chains *c, struct ju_chain_slot *s,
                             const struct jitunwind_py_frame *frames, size_t marked,
                             size_t beyond)
{
    c->stats.marker_checks++;
    s->checked_proof = s->proof;
    s->checked_beyond = beyond;
    /* A head read under this proof is confirmed. */
    if (s->code_pending_proof == s->proof && s->code_pending == frames[marked].code) {
        s->code_vouched = frames[marked].code;
        s->code_proof = s->proof;
    }
}

/* Two checks that stopped under the same proof read the marker and its
 * sequence as the slot's, and no write or reset came between them (each
 * drops the proof; a new one gets a new number): the marked frame was
 * never popped in between, so the frames beyond it were the same live
 * frames at both, with the same code objects and instructions. */
JITUNWIND_API uint64_t jitunwind_py_chains_check_proof(const jitunwind_py_chains *chains,
                                                       uint64_t thread_key, size_t *beyond)
{
    const struct ju_chain_slot *s = chains ? ju_chain_slot_of(chains, thread_key) : NULL;
    if (beyond)
        *beyond = s && s->checked_proof ? s->checked_beyond : 0;
    return s ? s->checked_proof : 0;
}

/* What a span answer depends on besides the frames: no walk of the thread
 * began (its slot's clock moves at each; other threads' walks leave the
 * slot as it was) and the proof is the same. */
static int span_held(const struct jitunwind_py_chains *c, const struct ju_chain_slot *s,
                     const struct jitunwind_py_frame *frames, size_t n)
{
    return s->span_frames == frames && s->span_n == n && s->span_clock == s->used &&
           s->span_proof == (s->marker_proven && !c->foreign_marks ? s->proof : 0);
}

size_t ju_chain_marker_vouches_once(struct jitunwind_py_chains *c, struct ju_chain_slot *s,
                                    const struct jitunwind_py_frame *frames, size_t n)
{
    size_t k;
    if (!s)
        return n;
    k = span_held(c, s, frames, n) ? s->span_marked : ju_chain_marker_vouches(c, s, frames, n);
    s->span_frames = NULL;
    return k;
}

JITUNWIND_API size_t jitunwind_py_chains_check_span(const jitunwind_py_chains *chains,
                                                    uint64_t thread_key,
                                                    const struct jitunwind_py_frame *frames,
                                                    size_t n)
{
    struct ju_chain_slot *s;
    size_t k;
    if (!chains || (!frames && n))
        return n;
    if (!chains->marking)
        return n;
    /* The slot's span is a memo for the check that follows, not state a
     * caller sees: the chains are the caller's own, never const objects. */
    s = ju_chain_slot_of(chains, thread_key);
    k = ju_chain_marker_vouches(chains, s, frames, n);
    if (s) {
        s->span_frames = frames;
        s->span_n = n;
        s->span_marked = k;
        s->span_clock = s->used;
        s->span_proof = s->marker_proven && !chains->foreign_marks ? s->proof : 0;
    }
    return k < n ? k + 1 : n;
}
