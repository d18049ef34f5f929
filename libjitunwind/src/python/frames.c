/* The _PyInterpreterFrame chain of a thread, innermost first. The walk is
 * bounded by the caller's array and JITUNWIND_PY_MAX_FRAMES, and checks for
 * cycles with Brent's algorithm (constant memory). With a chain cache
 * (frame_chains.h) the frames the thread's last chain spans are read in one
 * batch, and a frame unchanged since then is not decoded again; with frame
 * markers (frame_chains_markers.c) the walk may stop at the marked frame. */
#include "python/sampling/frame_chains.h"
#include "base/cycle.h"

#include <stddef.h>

static int walk(jitunwind_pyreader *r, uint64_t frame_addr, struct jitunwind_py_frame *out,
                size_t max, size_t *count, struct ju_chain_walk *w, int one)
{
    const struct ju_py_layout *L;
    uint64_t addr = frame_addr;
    struct ju_cycle seen = {0, 1, 0};
    size_t n = 0, steps = 0;
    int unreadable_code = 0; /* a chain with such a frame is not kept: try it again */
    uint8_t raw[JU_PY_FRAME_COPY];
    L = r->layout;
    *count = 0;
    ju_clear_error(&r->err);
    while (addr != 0) {
        struct jitunwind_py_frame *f;
        struct ju_chain_key key;
        long at = -1;
        uint64_t code, instr;
        int32_t tlbc;
        uint8_t owner;
        if (ju_cycle_seen(&seen, addr))
            return ju_fail(&r->err, JITUNWIND_ELOOP, addr,
                           "the frame chain loops back to frame %#llx", (unsigned long long)addr);
        if (++steps > JITUNWIND_PY_MAX_FRAMES)
            return ju_fail(&r->err, JITUNWIND_ELIMIT, addr, "more than %u frames",
                           JITUNWIND_PY_MAX_FRAMES);
        if ((addr & 7) != 0)
            return ju_fail(&r->err, JITUNWIND_ECORRUPT, addr, "misaligned frame pointer %#llx",
                           (unsigned long long)addr);
        if (L->fr_size > sizeof raw ||
            (!(w && ju_chain_from_batch(w, addr, raw, L->fr_size)) &&
             ju_read(&r->mem, addr, raw, L->fr_size) < 0))
            return ju_fail(&r->err, JITUNWIND_EREAD, addr, "frame %#llx is unreadable",
                           (unsigned long long)addr);
        owner = (uint8_t)ju_py_get(L, JU_PYF_fr_owner, raw, L->fr_size);
        if (L->owner_sentinel_min && owner >= L->owner_sentinel_min) {
            /* An eval-loop entry sentinel: it closes the group above it. */
            if (n > 0)
                out[n - 1].flags |= JITUNWIND_PYFRAME_ENTRY;
            addr = ju_py_get(L, JU_PYF_fr_previous, raw, L->fr_size);
            continue;
        }
        code = ju_py_get(L, JU_PYF_fr_code, raw, L->fr_size);
        instr = ju_py_get(L, JU_PYF_fr_instr, raw, L->fr_size);
        tlbc = L->fr_tlbc_index != JU_PY_NONE
                   ? (int32_t)ju_py_get(L, JU_PYF_fr_tlbc_index, raw, L->fr_size)
                   : -1;
        if (n >= max) {
            *count = n;
            return ju_fail(&r->err, JITUNWIND_ELIMIT, addr, "more frames than the %zu asked for",
                           max);
        }
        f = &out[n];
        if (w) {
            key.address = addr;
            key.code = code;
            key.instr = instr;
            key.previous = ju_py_get(L, JU_PYF_fr_previous, raw, L->fr_size);
            key.aux = owner | (uint64_t)(uint32_t)tlbc << 8;
            at = ju_chain_find(w, &key);
        }
        /* The names' buffers are most of the struct: emptied, not cleared. */
        memset(f, 0, offsetof(struct jitunwind_py_frame, qualname));
        f->qualname[0] = f->filename[0] = '\0';
        f->address = addr;
        f->owner = owner;
        if (owner == L->owner_generator)
            f->flags |= JITUNWIND_PYFRAME_GENERATOR;
        if (ju_py_get(L, JU_PYF_fr_is_entry, raw, L->fr_size))
            f->flags |= JITUNWIND_PYFRAME_ENTRY;
        if (w && addr == w->stop_at) { /* the marked frame: its code may be vouched for */
            uint64_t bare = code & ~L->code_tag_mask;
            if (ju_chain_code_vouched(w, &key, bare) &&
                ju_py_decode_vouched_code(r, bare, instr, tlbc, f)) {
                w->chains->stats.marker_codes++;
            } else {
                ju_py_decode_code(r, bare, instr, tlbc, f);
                ju_chain_code_decoded(w, &key, bare, r->code_head_read);
            }
        } else {
            ju_py_decode_code(r, code & ~L->code_tag_mask, instr, tlbc, f);
        }
        unreadable_code |= (f->flags & JITUNWIND_PYFRAME_BAD_CODE) != 0;
        if (at >= 0 && !ju_chain_agrees(w, at, f))
            at = -1; /* new code where the cached frame's was */
        if (w)
            ju_chain_note(w, &key, at);
        n++;
        *count = n;
        if (one)
            break;
        if (w && addr == w->stop_at) { /* the marked frame */
            long from = ju_chain_marked(w, &key);
            if (from >= 0 && ju_chain_marker_leave(w, from, out, n))
                break; /* the frames beyond it stay in the cache */
            if (from >= 0) { /* the one cached: so are the frames beyond it */
                int rc = ju_chain_marker_splice(w, from, out, n, max, steps, count);
                if (rc < 0)
                    return ju_fail(&r->err, rc, addr, "more than %zu frames",
                                   max < JITUNWIND_PY_MAX_FRAMES ? max
                                                                 : (size_t)JITUNWIND_PY_MAX_FRAMES);
                n = *count;
                break;
            }
            w->chains->stats.marker_misses++; /* not the frame cached: walk on */
        }
        addr = ju_py_get(L, JU_PYF_fr_previous, raw, L->fr_size);
    }
    if (w && !unreadable_code)
        ju_chain_store(w, out, L->fr_size);
    else if (w)
        ju_chain_forget(w);
    ju_clear_error(&r->err);
    return 0;
}

JITUNWIND_API int jitunwind_pyreader_frames(jitunwind_pyreader *r, uint64_t frame_addr,
                                            struct jitunwind_py_frame *out, size_t max,
                                            size_t *count)
{
    if (!r || (!out && max) || !count)
        return JITUNWIND_EINVAL;
    return walk(r, frame_addr, out, max, count, NULL, 0);
}

JITUNWIND_API int jitunwind_pyreader_frame(jitunwind_pyreader *r, uint64_t frame_addr,
                                           struct jitunwind_py_frame *out)
{
    size_t count = 0;
    int rc;
    if (!r || !out)
        return JITUNWIND_EINVAL;
    rc = walk(r, frame_addr, out, 1, &count, NULL, 1);
    return rc == 0 && count == 0 ? JITUNWIND_ENOTFOUND : rc;
}

static int walk_reusing(jitunwind_pyreader *r, jitunwind_py_chains *chains, uint64_t thread_key,
                        uint64_t frame_addr, struct jitunwind_py_frame *out, size_t max,
                        size_t *count, size_t *left)
{
    struct ju_chain_walk w;
    uint64_t reused_before;
    int rc;
    if (!r || !chains || (!out && max) || !count)
        return JITUNWIND_EINVAL;
    ju_chain_begin(&w, chains, thread_key);
    w.leave = left != NULL;
    reused_before = chains->stats.frames_reused;
    if (chains->marking == r)
        ju_chain_marker_plan(&w, r);
    if (!w.stop_at) /* a walk that stops at the marker reads a few frames only */
        ju_chain_read_batch(&w, &r->mem);
    rc = walk(r, frame_addr, out, max, count, &w, 0);
    if (w.served > 1)
        chains->stats.reads_saved += w.served - 1; /* frame reads the one batch read made */
    if (chains->stats.frames_reused != reused_before)
        chains->stats.reused_walks++;
    if (!w.spliced) /* frames beyond the marker read again: not those proven */
        w.slot->marker_proven = 0;
    if (rc < 0)
        ju_chain_forget(&w);
    else if (w.slot->count) /* the chain was kept */
        ju_chain_marker_write(&w, r, frame_addr);
    if (left)
        *left = rc < 0 ? 0 : w.left;
    return rc;
}

JITUNWIND_API int jitunwind_pyreader_frames_reusing(jitunwind_pyreader *r,
                                                    jitunwind_py_chains *chains,
                                                    uint64_t thread_key, uint64_t frame_addr,
                                                    struct jitunwind_py_frame *out, size_t max,
                                                    size_t *count)
{
    return walk_reusing(r, chains, thread_key, frame_addr, out, max, count, NULL);
}

JITUNWIND_API int jitunwind_pyreader_frames_reusing_top(jitunwind_pyreader *r,
                                                        jitunwind_py_chains *chains,
                                                        uint64_t thread_key, uint64_t frame_addr,
                                                        struct jitunwind_py_frame *out, size_t max,
                                                        size_t *count, size_t *left)
{
    if (!left) /* frames would be left with no one told */
        return JITUNWIND_EINVAL;
    return walk_reusing(r, chains, thread_key, frame_addr, out, max, count, left);
}
