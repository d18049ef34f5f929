/* See profile.h: the ids of the frames a frame-marker proof vouches for. */
#include <stdlib.h>
#include <string.h>

#include "profile.h"

const uint32_t *profile_tail_get(const struct profile_tails *t, uint64_t key, uint64_t proof,
                                 size_t beyond)
{
    size_t i;
    for (i = 0; i < PROFILE_TAILS; i++) {
        const struct profile_tail *s = &t->slot[i];
        if (s->proof && s->key == key)
            return s->proof == proof && s->beyond == beyond ? s->ids : NULL;
    }
    return NULL;
}

void profile_tail_put(struct profile_tails *t, uint64_t key, uint64_t proof, const uint32_t *ids,
                      size_t beyond)
{
    struct profile_tail *s = &t->slot[0];
    size_t i;
    for (i = 0; i < PROFILE_TAILS; i++) {
        if (t->slot[i].proof && t->slot[i].key == key) {
            s = &t->slot[i];
            break;
        }
        if (t->slot[i].used < s->used)
            s = &t->slot[i];
    }
    s->proof = 0;
    if (beyond > s->cap) {
        uint32_t *fresh = realloc(s->ids, beyond * sizeof *fresh);
        if (!fresh)
            return;
        s->ids = fresh;
        s->cap = beyond;
    }
    memcpy(s->ids, ids, beyond * sizeof *ids);
    s->key = key;
    s->proof = proof;
    s->beyond = beyond;
    s->used = ++t->clock;
}

void profile_tails_clear(struct profile_tails *t)
{
    size_t i;
    for (i = 0; i < PROFILE_TAILS; i++)
        t->slot[i].proof = 0;
}

void profile_tails_free(struct profile_tails *t)
{
    size_t i;
    for (i = 0; i < PROFILE_TAILS; i++)
        free(t->slot[i].ids);
    memset(t, 0, sizeof *t);
}
