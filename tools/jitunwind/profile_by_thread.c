/* The merged stack counts split by thread: what each thread's runs add up
 * to, stack by stack, and what is left of each stack's count (stacks given
 * no thread, samples past PROFILE_MAX_RUNS) under no thread. The parts of
 * a stack add up to its count. The merged formats (collapsed, flamegraph)
 * show the split as a root frame per thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

int profile_by_thread(const struct profile *p, struct profile_part **parts, size_t *n_parts)
{
    size_t cap = p->n_runs + p->n_stacks + 1, n = 0, t, r;
    struct profile_part *out = calloc(cap, sizeof *out);
    uint64_t *given = calloc(p->n_stacks + 1, sizeof *given);
    size_t *at = calloc(p->n_stacks + 1, sizeof *at); /* index + 1 in `out`, this thread's */
    if (!out || !given || !at) {
        free(out);
        free(given);
        free(at);
        return -1;
    }
    for (t = 0; t < p->n_threads; t++) {
        const struct profile_thread *th = &p->threads[t];
        size_t first = n;
        for (r = 0; r < th->n_runs; r++) {
            uint32_t s = th->runs[r].stack;
            if (!at[s]) {
                out[n] = (struct profile_part){.thread = (uint32_t)t, .stack = s};
                at[s] = ++n;
            }
            out[at[s] - 1].count += th->runs[r].count;
            given[s] += th->runs[r].count;
        }
        for (r = first; r < n; r++)
            at[out[r].stack] = 0;
    }
    for (r = 0; r < p->n_stacks; r++)
        if (p->stacks[r].count > given[r])
            out[n++] = (struct profile_part){.thread = UINT32_MAX, .stack = (uint32_t)r,
                                             .count = p->stacks[r].count - given[r]};
    free(given);
    free(at);
    *parts = out;
    *n_parts = n;
    return 0;
}

/* Interns src's frames into dst in their order, so that ids match. */
static int same_frames(const struct profile *src, struct profile *dst)
{
    size_t i;
    for (i = 0; i < src->n_frames; i++) {
        const struct profile_frame *f = &src->frames[i];
        if (profile_frame(dst, f->kind, f->name, f->file, f->line) != i)
            return -1;
    }
    return 0;
}

static uint32_t thread_root(struct profile *dst, const struct profile_thread *th)
{
    char name[sizeof th->name + 32];
    if (th->name[0])
        snprintf(name, sizeof name, "Thread %d \"%s\"", th->tid, th->name);
    else
        snprintf(name, sizeof name, "Thread %d", th->tid);
    return profile_frame(dst, PROFILE_THREAD, name, "", 0);
}

int profile_thread_rooted(const struct profile *src, struct profile *dst)
{
    struct profile_part *parts = NULL;
    size_t n = 0, i, deepest = 0;
    uint32_t *ids = NULL, *roots = NULL;
    int rc = -1;
    dst->samples = src->samples;
    dst->seconds = src->seconds;
    dst->hz = src->hz;
    for (i = 0; i < src->n_stacks; i++)
        if (src->stacks[i].depth > deepest)
            deepest = src->stacks[i].depth;
    if (same_frames(src, dst) < 0 || profile_by_thread(src, &parts, &n) < 0 ||
        !(ids = malloc((deepest + 1) * sizeof *ids)) ||
        !(roots = calloc(src->n_threads + 1, sizeof *roots)))
        goto done;
    for (i = 0; i < src->n_threads; i++)
        if ((roots[i] = thread_root(dst, &src->threads[i])) == UINT32_MAX)
            goto done;
    for (i = 0; i < n; i++) {
        const struct profile_stack *s = &src->stacks[parts[i].stack];
        uint32_t at = 0;
        if (parts[i].thread < src->n_threads)
            ids[at++] = roots[parts[i].thread];
        memcpy(ids + at, s->frames, s->depth * sizeof *ids);
        if (profile_add_counted(dst, ids, at + s->depth, parts[i].count) < 0)
            goto done;
    }
    rc = 0;
done:
    free(parts);
    free(ids);
    free(roots);
    return rc;
}
