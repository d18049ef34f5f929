/* See profile.h: stacks held back until their process is vouched for. */
#include <stdlib.h>
#include <string.h>

#include "profile.h"

int profile_pending_add(struct profile_pending *q, uint32_t thread, const uint32_t *ids,
                        uint32_t depth)
{
    size_t need = q->n_words + 2 + depth;
    if (need > q->cap_words) {
        size_t cap = q->cap_words ? q->cap_words : 4096;
        uint32_t *words;
        while (cap < need)
            cap *= 2;
        if (!(words = realloc(q->words, cap * sizeof *words)))
            return -1;
        q->words = words;
        q->cap_words = cap;
    }
    q->words[q->n_words++] = thread;
    q->words[q->n_words++] = depth;
    memcpy(q->words + q->n_words, ids, depth * sizeof *ids);
    q->n_words += depth;
    q->stacks++;
    return 0;
}

static void start_again(struct profile_pending *q, const struct profile *p)
{
    q->n_words = 0;
    q->stacks = 0;
    q->passes = 0;
    profile_mark(p, &q->mark);
}

void profile_pending_commit(struct profile_pending *q, struct profile *p)
{
    size_t at = 0;
    while (at + 2 <= q->n_words) {
        uint32_t thread = q->words[at], depth = q->words[at + 1];
        profile_add_for(p, thread, q->words + at + 2, depth);
        at += 2 + (size_t)depth;
    }
    start_again(q, p);
}

void profile_pending_drop(struct profile_pending *q, struct profile *p)
{
    p->samples -= q->passes < p->samples ? q->passes : p->samples;
    profile_rollback(p, &q->mark);
    start_again(q, p);
}

void profile_pending_free(struct profile_pending *q)
{
    free(q->words);
    memset(q, 0, sizeof *q);
}
