/* The merged stack counts split by thread: what each thread's runs add up
 * to, stack by stack, and what is left of each stack's count (stacks given
 * no thread, samples past PROFILE_MAX_RUNS) under no thread. The parts of
 * a stack add up to its count. */
#include <stdlib.h>

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
