/* A running thread's Python frames (record --nonblocking, stack --python):
 * the thread goes on while its chain is read, so a walk can mix frames of
 * different moments (a frame read before the thread returned past it,
 * then frames written in its place by later calls): an impossible stack.
 * After a walk, the thread state's current frame and each frame's link,
 * owner, code object and (for a caller) instruction are read again and
 * compared with what the walk saw, without decoding anything
 * (jitunwind_pyreader_frames_unchanged); the innermost frame's line is
 * then taken from that reading (leaf_from_check). The check is made over
 * two readings, which must both agree: with a chain cache, the pages it
 * reads, copied twice over in one call past the block cache
 * (check_reads.c); without one, the blocks the walk read (without the
 * block cache: its pages, read_log.c), read again in one call, twice (a
 * frame of the middle or the outer end can change as well as the
 * innermost: a thread that returned to the outer frames and called down
 * again to the same depth shows the same innermost frames). A chain that
 * changed, or whose walk failed or met an unreadable code object, is read
 * again, up to TRIES times, and is otherwise said to be torn (unless the
 * thread stood still at every try: the chain is then what it is). What is
 * compared is each frame's address and code object and each caller's
 * instruction: a thread that went away and came back to the same frames
 * with the same code, called from the same places, is not seen, and its
 * stack is a possible one. A chain that changed and changed back between
 * the pages of each reading is not seen either: the rate docs/cli.md
 * states. With frame markers, a check may stop at the marked frame
 * (jitunwind_py_chains_check_span says where): the marker and its
 * sequence, read in each reading after the frames above it are compared,
 * vouch for the rest; the second reading's marker is read after the first
 * reading's frames. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define TRIES 3

/* The first try may reuse what the frame-chain cache holds; a try again
 * reads every frame. */
static int walk(struct cli_target *t, const struct jitunwind_py_thread *th,
                struct jitunwind_py_frame *out, size_t max, size_t *got, int again, int leave,
                size_t *left)
{
    *left = 0;
    if (t->chains && !again && leave)
        return jitunwind_pyreader_frames_reusing_top(t->py, t->chains, th->tstate,
                                                     th->current_frame, out, max, got, left);
    if (t->chains && !again)
        return jitunwind_pyreader_frames_reusing(t->py, t->chains, th->tstate, th->current_frame,
                                                 out, max, got);
    return jitunwind_pyreader_frames(t->py, th->current_frame, out, max, got);
}

/* The innermost frame's line as the check's copy gives it. The check
 * compares the callers' instructions but not the innermost frame's, which
 * moves on as the thread runs: the walk read it before its callers, so
 * a thread that left it and came back to the same frame down another path
 * (another caller's instruction, the same addresses and code) would keep
 * the line of the path left. Decoded again from the copy, it is read in
 * the same call as the callers the check found unchanged. */
static void leaf_from_check(struct cli_target *t, struct jitunwind_py_frame *out, size_t n)
{
    struct jitunwind_py_frame leaf;
    if (n == 0 || jitunwind_pyreader_frame(t->py, out[0].address, &leaf) < 0 ||
        leaf.address != out[0].address || leaf.code != out[0].code)
        return;
    out[0].line = leaf.line;
    out[0].lasti = leaf.lasti;
    out[0].flags = (out[0].flags & ~(uint32_t)JITUNWIND_PYFRAME_NO_LINE) |
                   (leaf.flags & JITUNWIND_PYFRAME_NO_LINE);
}

/* Is the chain still the one `out` holds (n frames; `ended`: the walk
 * reached the chain's end after them), in the check's `reading` (0, then
 * 1)? Read afresh: with a chain cache, the pages the check reads, in one
 * call past the sample's blocks for both readings (check_reads.c);
 * without one, every block held is read again in one call. When it is,
 * the innermost frame's line is taken from that reading. */
static int unchanged(struct cli_target *t, const struct jitunwind_py_thread *th,
                     struct jitunwind_py_frame *out, size_t n, int ended, int reading)
{
    int same;
    if (t->chains) {
        t->fresh_reads = 1;
        /* With frame markers, the frames beyond a marker that vouches for
         * them are not read again (the check reads the marker instead). */
        cli_check_reads_begin(t, th->tstate, out,
                              jitunwind_py_chains_check_span(t->chains, th->tstate, out, n),
                              reading);
    } else
        cli_target_reread(t);
    same = jitunwind_pyreader_frames_unchanged(t->py, t->chains, th, out, n, ended) == 1;
    if (same)
        leaf_from_check(t, out, n);
    t->fresh_reads = 0;
    cli_check_reads_end(t);
    return same;
}

/* A walk that failed, or met a code object it could not read, may have met
 * a frame being written: worth reading again. */
static int doubtful(int rc, const struct jitunwind_py_frame *out, size_t n, size_t max)
{
    size_t i;
    if (rc < 0 && !(rc == JITUNWIND_ELIMIT && n == max))
        return 1;
    for (i = 0; i < n; i++)
        if ((out[i].flags & JITUNWIND_PYFRAME_BAD_CODE) || !out[i].qualname[0])
            return 1;
    return 0;
}

/* The check of a walk that gave out[0..got) (rc; `left` frames left in
 * the cache): whether the chain is still the one walked. The pages read
 * again come in turn while the thread runs (one call, not one instant): a
 * second reading must agree too, or a thread that left the frame just
 * read as current and came back within one reading passes. Frames left
 * in the cache: the check stops at the marked frame with the marker still
 * vouching for them, or fails. */
static int check_walk(struct cli_target *t, const struct jitunwind_py_thread *th,
                      struct jitunwind_py_frame *out, size_t max, size_t got, size_t left, int rc)
{
    int ended = left ? JITUNWIND_PY_CHECK_LEFT : rc == 0 && got < max;
    return unchanged(t, th, out, got, ended, 0) && unchanged(t, th, out, got, ended, 1);
}

/* `first`: the first try, walked and checked already (NULL: made here). */
static int read_chain(struct cli_target *t, struct jitunwind_py_thread *th,
                      struct jitunwind_py_frame *out, size_t max, size_t *got, int *torn,
                      char *why, size_t why_size, int leave, size_t *left,
                      const struct cli_chain_try *first)
{
    int rc = 0, tries = 0, same = 1, moved = 0;
    *torn = 0;
    *left = 0;
    *got = 0;
    if (first) {
        if (!th->current_frame)
            return 0;
        rc = first->rc;
        *got = first->got;
        *left = first->left;
        same = first->same;
        moved = !same;
        if (same && !doubtful(rc, out, *got, max))
            return rc;
        tries = 1;
    }
    for (; tries < TRIES; tries++) {
        if (tries) { /* where the thread is now */
            cli_target_reread(t);
            if (jitunwind_pyreader_thread(t->py, th) < 0)
                break;
        }
        *got = 0;
        if (!th->current_frame)
            return 0;
        rc = walk(t, th, out, max, got, tries > 0, leave, left);
        if (why_size) /* the check below reads too, and so sets the reader's error */
            snprintf(why, why_size, "%s", rc < 0 ? jitunwind_pyreader_last_error(t->py)->message
                                                 : "");
        same = check_walk(t, th, out, max, *got, *left, rc);
        moved |= !same;
        if (same && !doubtful(rc, out, *got, max))
            return rc;
    }
    /* Doubtful at every try while the thread stood still: the chain is
     * what it is (cut short, or a frame really unreadable), said by rc.
     * Doubtful while it moved: torn, like a chain that changed. */
    *torn = !same || moved;
    return rc;
}

/* Without the block cache, the pages the walk read are logged, so that
 * cli_target_reread gives the check their bytes copied in one call
 * (read_log.c); the thread state is read once more first, only for its
 * pages to be logged: the check reads the current frame in the same call
 * as the frames. */
int cli_read_running_chain(struct cli_target *t, struct jitunwind_py_thread *th,
                           struct jitunwind_py_frame *out, size_t max, size_t *got, int *torn,
                           char *why, size_t why_size, size_t *left)
{
    size_t none;
    int rc;
    if (cli_read_log_begin(t)) {
        struct jitunwind_py_thread pages = *th;
        (void)jitunwind_pyreader_thread(t->py, &pages);
    }
    rc = read_chain(t, th, out, max, got, torn, why, why_size, left != NULL, left ? left : &none,
                    NULL);
    cli_read_log_end(t);
    return rc;
}

int cli_running_chain_walk(struct cli_target *t, const struct jitunwind_py_thread *th,
                           struct jitunwind_py_frame *out, size_t max, struct cli_chain_try *w)
{
    w->rc = 0;
    w->got = w->left = 0;
    if (!t->chains || !t->blocks)
        return -1;
    if (th->current_frame)
        w->rc = walk(t, th, out, max, &w->got, 0, 1, &w->left);
    return 0;
}

int cli_running_chain_share(struct cli_target *t, const struct jitunwind_py_thread *th,
                            const struct jitunwind_py_frame *out, const struct cli_chain_try *w)
{
    if (!th->current_frame)
        return 0; /* no check */
    return cli_check_reads_add(t, th->tstate, out,
                               jitunwind_py_chains_check_span(t->chains, th->tstate, out, w->got));
}

void cli_running_chain_check(struct cli_target *t, const struct jitunwind_py_thread *th,
                             struct jitunwind_py_frame *out, size_t max, struct cli_chain_try *w)
{
    w->same = !th->current_frame || check_walk(t, th, out, max, w->got, w->left, w->rc);
}

int cli_running_chain_finish(struct cli_target *t, struct jitunwind_py_thread *th,
                             struct jitunwind_py_frame *out, size_t max, size_t *got, int *torn,
                             size_t *left, const struct cli_chain_try *w)
{
    return read_chain(t, th, out, max, got, torn, NULL, 0, 1, left, w);
}
