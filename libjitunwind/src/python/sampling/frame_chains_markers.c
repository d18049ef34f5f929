/* CPython 3.15's frame marker (tstate->last_profiled_frame), used by a
 * chain cache only when its caller asked (jitunwind_py_chains_mark_frames),
 * because it is a write into the target.
 *
 * The contract, as CPython's own profiler uses it (read in
 * Modules/_remote_debugging/frames.c of python/cpython 0bcfbf259c29:
 * set_last_profiled_frame, clear_last_profiled_frames, process_frame_chain)
 * and as PRs #142137 and #151614 describe the interpreter's side: a
 * profiler writes the address of the frame it sampled; when that frame is
 * popped, the interpreter moves the marker to its caller and bumps
 * last_profiled_frame_seq. So, while the sequence is the one seen when the
 * marker was written, the marked frame is the same live frame and every
 * frame beyond it is unchanged. A walk from the current frame that reaches
 * it may stop there and take the rest from the cache. A new profiler clears
 * every thread's marker and leaves the sequence alone.
 *
 * What this cache adds to that: the marked frame itself is still read (its
 * line moves on) and must have the cached address, code object, owner and
 * caller, so a marker naming another frame, garbage, or a frame not on the
 * chain only costs the early stop: the walk goes on to the end (never a
 * short stack). What neither side can rule out: a thread that runs on while
 * it is sampled (--nonblocking) may return from the sampled frame and call
 * another at the same address, with the same code and caller, before the
 * marker is written; the next walk then trusts the frames beyond it, as
 * CPython's profiler would. Another profiler whose writes land late opens
 * the same hole: a marker naming a frame that already returned lets the
 * returns that follow pass without moving the sequence, and its next write
 * can name the address marked here, now another call's. Without a
 * sequence field (an assumed layout whose DWARF has none), any cached frame
 * the marker names is a stop. */
#include <stdlib.h>

#include "python/sampling/frame_chains.h"

int ju_chain_read_marker(jitunwind_pyreader *r, uint64_t tstate, uint64_t *marker, uint64_t *seq)
{
    const struct ju_py_layout *L = r->layout;
    uint64_t both[2];
    *seq = 0;
    if (L->ts_last_profiled_seq == L->ts_last_profiled_frame + 8) { /* one read for both */
        if (ju_read(&r->mem, tstate + L->ts_last_profiled_frame, both, sizeof both) < 0)
            return JITUNWIND_EREAD;
        *marker = both[0];
        *seq = both[1];
        return 0;
    }
    if (ju_py_fetch(&r->mem, L, tstate, JU_PYF_ts_last_profiled_frame, marker) < 0)
        return JITUNWIND_EREAD;
    if (L->ts_last_profiled_seq != JU_PY_NONE &&
        ju_py_fetch(&r->mem, L, tstate, JU_PYF_ts_last_profiled_seq, seq) < 0)
        return JITUNWIND_EREAD;
    return 0;
}

static int write_marker(struct jitunwind_py_chains *c, jitunwind_pyreader *r, uint64_t tstate,
                        uint64_t frame)
{
    int rc = r->mem.write(r->mem.arg, tstate + r->layout->ts_last_profiled_frame, &frame,
                          sizeof frame);
    if (rc == 0)
        c->stats.marker_writes++;
    return rc < 0 ? rc : 0;
}

static int key_order(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Whether `key` is a thread state listed when markers were turned on: a
 * caller keying its chains by anything else never gets a write there. The
 * list is sorted when made: one search per walk, whatever the threads. */
static int listed(const struct jitunwind_py_chains *c, uint64_t key)
{
    return c->marked_count &&
           bsearch(&key, c->marked, c->marked_count, sizeof *c->marked, key_order) != NULL;
}

void ju_chain_marker_plan(struct ju_chain_walk *w, jitunwind_pyreader *r)
{
    const struct ju_chain_slot *s = w->slot;
    if (!listed(w->chains, s->thread_key))
        return;
    w->marking = 1;
    if (ju_chain_read_marker(r, w->slot->thread_key, &w->seen_marker, &w->seen_seq) < 0) {
        w->marking = 0; /* no marker this time: nor a write */
        return;
    }
    ju_chain_marker_seen(w->chains, s, w->seen_marker, w->seen_seq);
    if (w->seen_marker != s->marker || w->seen_seq != s->marker_seq)
        w->slot->marker_proven = 0; /* the marked frame was popped, or another wrote */
    if (w->seen_marker == 0 || s->count == 0 || s->marker == 0)
        return;
    if (r->layout->ts_last_profiled_seq != JU_PY_NONE) {
        /* The very frame marked last time, never popped since. */
        if (w->seen_marker == s->marker && w->seen_seq == s->marker_seq)
            w->stop_at = w->seen_marker;
    } else if (ju_chain_position(w, w->seen_marker) >= 0) {
        w->stop_at = w->seen_marker;
    }
}

long ju_chain_marked(const struct ju_chain_walk *w, const struct ju_chain_key *key)
{
    long at = ju_chain_position(w, key->address);
    const struct ju_chain_key *k;
    if (at < 0)
        return -1;
    k = &w->slot->entries[at].key;
    return k->code == key->code && k->previous == key->previous && k->aux == key->aux ? at : -1;
}

int ju_chain_marker_splice(struct ju_chain_walk *w, long at, struct jitunwind_py_frame *out,
                           size_t n, size_t max, size_t steps, size_t *count)
{
    struct jitunwind_py_chains *c = w->chains;
    const struct ju_chain_slot *s = w->slot;
    long p;
    size_t added = 0;
    /* The marked frame closes an activation as it did: the sentinels
     * beyond it did not change. */
    out[n - 1].flags |= s->entries[at].frame.flags & JITUNWIND_PYFRAME_ENTRY;
    for (p = at - 1; p >= 0; p--) {
        if (n + added >= max || steps + added >= JITUNWIND_PY_MAX_FRAMES) {
            *count = n + added;
            return JITUNWIND_ELIMIT;
        }
        ju_chain_entry_frame(&out[n + added], &s->entries[p]);
        added++;
    }
    w->spliced = 1;
    w->tail = (size_t)at;
    c->stats.marker_stops++;
    c->stats.marker_frames += added;
    c->stats.frames_reused += added;
    c->stats.reads_saved += added; /* one frame read each, and no batch read */
    *count = n + added;
    return (int)added;
}

/* Left only when the marked frame is the walk's first (the thread is
 * still in it): a walk from a frame above it writes a new marker, which
 * drops the proof the frames left would need. */
int ju_chain_marker_leave(struct ju_chain_walk *w, long at, struct jitunwind_py_frame *out,
                          size_t n)
{
    struct jitunwind_py_chains *c = w->chains;
    struct ju_chain_slot *s = w->slot;
    if (!w->leave || n != 1 || at <= 0 || !s->marker_proven || c->foreign_marks ||
        !c->marking || c->marking->layout->ts_last_profiled_seq == JU_PY_NONE ||
        s->entries[at].frame.owner != 0 /* the thread's own frame (marked_index) */)
        return 0;
    out[n - 1].flags |= s->entries[at].frame.flags & JITUNWIND_PYFRAME_ENTRY;
    w->spliced = 1;
    w->tail = (size_t)at;
    w->left = (size_t)at;
    s->left_count = (size_t)at;
    s->left_clock = c->clock;
    s->left_proof = s->proof;
    c->stats.marker_stops++;
    c->stats.marker_frames += (size_t)at;
    c->stats.frames_reused += (size_t)at;
    c->stats.reads_saved += (size_t)at;
    return 1;
}

JITUNWIND_API int jitunwind_py_chains_tail(const jitunwind_py_chains *chains, uint64_t thread_key,
                                           struct jitunwind_py_frame *out, size_t max,
                                           size_t *count)
{
    const struct ju_chain_slot *s;
    size_t j;
    if (!chains || !count || (!out && max))
        return JITUNWIND_EINVAL;
    *count = 0;
    s = ju_chain_slot_of(chains, thread_key);
    if (!s || !s->left_count || s->left_clock != s->used || s->left_count > s->count)
        return JITUNWIND_ENOTFOUND;
    if (s->left_count > max)
        return JITUNWIND_ELIMIT;
    for (j = 0; j < s->left_count; j++)
        ju_chain_entry_frame(&out[j], &s->entries[s->left_count - 1 - j]);
    *count = s->left_count;
    return 0;
}

void ju_chain_marker_write(struct ju_chain_walk *w, jitunwind_pyreader *r, uint64_t top)
{
    struct ju_chain_slot *s = w->slot;
    if (!w->marking || top == 0)
        return;
    if (top != w->seen_marker || top != s->marker) {
        s->marker_proven = 0; /* proven only by a check made after the write */
        if (top != w->seen_marker && write_marker(w->chains, r, s->thread_key, top) < 0) {
            s->marker = 0; /* the target keeps whatever it had: never stop at it */
            return;
        }
    }
    s->marker = top;
    s->marker_seq = w->seen_seq;
}

/* The marker is written where the target's debug offsets say: it must be
 * a whole aligned pointer of the thread state that no field the reader
 * relies on shares (a corrupt table must not make it overwrite one). */
static int marker_fields_check(jitunwind_pyreader *r)
{
    static const enum ju_py_field_id others[] = {JU_PYF_ts_next, JU_PYF_ts_interp,
                                                 JU_PYF_ts_current_frame, JU_PYF_ts_thread_id,
                                                 JU_PYF_ts_native_thread_id};
    const struct ju_py_layout *L = r->layout;
    uint32_t at = L->ts_last_profiled_frame, seq = L->ts_last_profiled_seq, o;
    size_t i;
    int clash = at % 8 != 0 ||
                (seq != JU_PY_NONE && (seq % 8 != 0 || (seq + 8 > at && at + 8 > seq)));
    for (i = 0; !clash && i < sizeof others / sizeof others[0]; i++)
        clash = (o = ju_py_offset(L, others[i])) != JU_PY_NONE && o + 8 > at && at + 8 > o;
    if (clash)
        return ju_fail(&r->err, JITUNWIND_ECORRUPT, 0,
                       "%s: tstate->last_profiled_frame at %u (sequence %d) is not a pointer of "
                       "its own: no frame markers are written", L->name, at,
                       seq == JU_PY_NONE ? -1 : (int)seq);
    return 0;
}

JITUNWIND_API int jitunwind_py_chains_mark_frames(jitunwind_py_chains *c,
                                                  jitunwind_pyreader *r)
{
    struct jitunwind_py_thread *threads;
    size_t n = 0, i;
    int rc;
    if (!c || !r)
        return JITUNWIND_EINVAL;
    if (r->layout->ts_last_profiled_frame == JU_PY_NONE)
        return ju_fail(&r->err, JITUNWIND_EVERSION, 0,
                       "%s has no frame marker (tstate->last_profiled_frame: 3.15+)",
                       r->layout->name);
    if (!r->mem.write)
        return ju_fail(&r->err, JITUNWIND_EUNSUPPORTED, 0,
                       "frame markers need a target that can be written (a live process)");
    if ((rc = marker_fields_check(r)) < 0)
        return rc;
    if (!(threads = calloc(JITUNWIND_PY_MAX_THREADS, sizeof *threads)))
        return JITUNWIND_ENOMEM;
    rc = jitunwind_pyreader_threads(r, threads, JITUNWIND_PY_MAX_THREADS, &n);
    free(c->marked);
    c->marked = NULL;
    c->marked_count = 0;
    if (rc == 0 && n && !(c->marked = calloc(n, sizeof *c->marked)))
        rc = JITUNWIND_ENOMEM;
    /* Clear what another profiler left (its frames are not in this cache),
     * keeping the sequence, as CPython's own profiler does. */
    for (i = 0; rc == 0 && i < n; i++) {
        rc = write_marker(c, r, threads[i].tstate, 0);
        c->marked[c->marked_count++] = threads[i].tstate;
    }
    free(threads);
    if (c->marked_count) /* sorted for listed() */
        qsort(c->marked, c->marked_count, sizeof *c->marked, key_order);
    if (rc < 0)
        return rc;
    for (i = 0; i < c->threads; i++) {
        c->slots[i].marker = c->slots[i].marker_seq = 0;
        c->slots[i].marker_proven = 0;
    }
    c->marking = r;
    c->foreign_marks = 0;
    return (int)(n > (size_t)INT32_MAX ? INT32_MAX : n);
}
