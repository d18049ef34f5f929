/* The check a sampler makes after walking a running thread's chain: is it
 * still the chain the walk returned? Only the thread state's current frame
 * and each frame's link, owner, code pointer and (for a caller)
 * instruction are read and compared; nothing is decoded (no code object,
 * name or line table), so the check costs a fraction of a walk. The frames'
 * memory is read in batches of the chain cache's batch size (one, when
 * they lie within it); a frame outside them (an entry frame on the C
 * stack) is read alone, and so is every frame once a batch is unreadable
 * (frames in separate mappings). With frame markers, a check stops at
 * the marked frame when the marker vouches for the frames beyond it
 * (frame_chains_marker_check.c). */
#include "python/sampling/frame_chains.h"

/* Does a caller's instruction (`instr` as stored) still give the offset
 * the walk decoded? A caller's instruction stays put while its callee
 * runs, so one that moved went back to that frame and called again, maybe
 * down another path. Not compared: the innermost frame (it moves on as
 * the thread runs), a frame the walk gave no offset, and per-thread
 * bytecode copies (3.14t), whose offsets count from another address. */
static int caller_at_same_place(const struct ju_py_layout *L, const uint8_t *raw,
                                const struct jitunwind_py_frame *f, size_t i)
{
    int64_t delta;
    if (i == 0 || f->lasti < 0 || L->co_code_adaptive == JU_PY_NONE ||
        (L->fr_tlbc_index != JU_PY_NONE &&
         (int32_t)ju_py_get(L, JU_PYF_fr_tlbc_index, raw, L->fr_size) > 0))
        return 1;
    delta = (int64_t)(ju_py_get(L, JU_PYF_fr_instr, raw, L->fr_size) -
                      (f->code + L->co_code_adaptive));
    return delta >= 0 && delta / 2 == f->lasti;
}

/* The span of the longest run of frames from frames[0] whose memory fits
 * one batch: its length in bytes, from *lo (0 when n is 0). */
static size_t run_span(const struct jitunwind_py_frame *frames, size_t n, size_t size,
                       uint64_t *lo)
{
    uint64_t low = UINT64_MAX, high = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        uint64_t a = frames[i].address;
        uint64_t l = a < low ? a : low, h = a > high ? a : high;
        if (h - l > JU_CHAIN_BATCH_MAX - size)
            break;
        low = l, high = h;
    }
    if (i == 0)
        return 0;
    *lo = low;
    return (size_t)(high - low) + size;
}

JITUNWIND_API int jitunwind_pyreader_frames_unchanged(jitunwind_pyreader *r,
                                                      jitunwind_py_chains *chains,
                                                      const struct jitunwind_py_thread *thread,
                                                      const struct jitunwind_py_frame *frames,
                                                      size_t n, int ended)
{
    const struct ju_py_layout *L;
    uint8_t raw[JU_PY_FRAME_COPY];
    uint64_t addr, lo = 0;
    size_t i = 0, steps = 0, len = 0, marked, upto;
    int batches = chains != NULL; /* until a batch is unreadable (a gap between them) */
    struct ju_chain_slot *slot = NULL;
    if (!r || !thread || (!frames && n))
        return JITUNWIND_EINVAL;
    L = r->layout;
    if (chains && chains->marking == r)
        slot = ju_chain_slot_of(chains, thread->tstate);
    /* frames[marked]: the marked frame, when the marker may vouch for the
     * frames beyond it; those up to it are the ones read (upto). */
    if (ended == JITUNWIND_PY_CHECK_LEFT) {
        /* The walk left the frames beyond frames[n - 1] in the cache: the
         * check stops there with the marker still vouching, or fails. */
        if (slot)
            slot->span_frames = NULL;
        marked = chains ? ju_chain_marker_left(chains, slot, frames, n) : n;
        if (slot)
            slot->checked_proof = 0;
        if (marked == n)
            return 0;
    } else {
        marked = chains ? ju_chain_marker_vouches_once(chains, slot, frames, n) : n;
        if (slot)
            slot->checked_proof = 0;
    }
    upto = marked < n ? marked + 1 : n;
    if (L->fr_size > sizeof raw || !thread->current_frame ||
        (addr = ju_py_current_frame(r, thread->tstate)) != thread->current_frame)
        return 0;
    /* Every step reads a frame at a new address of a chain that is only
     * followed while it matches: at most n frames and the sentinels among
     * them, which JITUNWIND_PY_MAX_FRAMES bounds. */
    while (addr != 0 && ++steps <= JITUNWIND_PY_MAX_FRAMES) {
        uint8_t owner;
        if ((addr & 7) != 0)
            return 0; /* a walk stops there */
        /* The frames from the one expected here on, read in one batch. */
        if (batches && i < upto && addr == frames[i].address &&
            !(len && addr >= lo && addr - lo <= len - L->fr_size)) {
            len = run_span(frames + i, upto - i, L->fr_size, &lo);
            if (len < 2 * L->fr_size) /* one frame: read alone, never from an old batch */
                len = 0;
            else if (ju_read(&r->mem, lo, chains->batch, len) < 0)
                batches = 0;
        }
        if (!batches)
            len = 0;
        if (len && addr >= lo && addr - lo <= len - L->fr_size)
            memcpy(raw, chains->batch + (addr - lo), L->fr_size);
        else if (ju_read(&r->mem, addr, raw, L->fr_size) < 0)
            return 0;
        owner = (uint8_t)ju_py_get(L, JU_PYF_fr_owner, raw, L->fr_size);
        if (!(L->owner_sentinel_min && owner >= L->owner_sentinel_min)) {
            if (i == n)
                return !ended; /* a frame more than the walk found */
            if (addr != frames[i].address || (int32_t)owner != frames[i].owner ||
                (ju_py_get(L, JU_PYF_fr_code, raw, L->fr_size) & ~L->code_tag_mask) !=
                    frames[i].code ||
                !caller_at_same_place(L, raw, &frames[i], i))
                return 0;
            if (i == marked) {
                /* Read after the frames above it: the marked frame is
                 * still the live one the proof saw. */
                if (ju_chain_marker_still(chains, r, slot)) {
                    ju_chain_marker_stopped(chains, slot, frames, marked,
                                            ended == JITUNWIND_PY_CHECK_LEFT ? slot->left_count
                                                                             : n - 1 - marked);
                    return 1;
                }
                if (ended == JITUNWIND_PY_CHECK_LEFT)
                    return 0; /* popped: the frames left are not the chain's */
                marked = upto = n; /* popped: every frame is compared */
            }
            if (++i == n && !ended)
                return 1; /* the walk stopped here: what lies beyond is not compared */
        }
        addr = ju_py_get(L, JU_PYF_fr_previous, raw, L->fr_size);
    }
    if (addr != 0 || i != n)
        return 0;
    ju_chain_marker_prove(chains, slot, frames, n);
    return 1;
}
