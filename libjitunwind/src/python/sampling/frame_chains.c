/* See frame_chains.h. A thread's slot keeps its chain outermost first: the
 * outermost frames are the ones kept when a chain does not fit. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "python/sampling/frame_chains.h"

void ju_chain_copy_frame(struct jitunwind_py_frame *dst, const struct jitunwind_py_frame *src)
{
    memcpy(dst, src, offsetof(struct jitunwind_py_frame, qualname));
    ju_strlcpy(dst->qualname, src->qualname, sizeof dst->qualname);
    ju_strlcpy(dst->filename, src->filename, sizeof dst->filename);
}

void ju_chain_entry_frame(struct jitunwind_py_frame *dst, const struct ju_chain_entry *e)
{
    memcpy(dst, &e->frame, offsetof(struct jitunwind_py_frame, qualname));
    memcpy(dst->qualname, e->frame.qualname, (size_t)e->qualname_len + 1);
    memcpy(dst->filename, e->frame.filename, (size_t)e->filename_len + 1);
}

static size_t hash_of(const struct jitunwind_py_chains *c, uint64_t address)
{
    return (size_t)((address >> 3) * 0x9e3779b97f4a7c15ull) & (c->index_size - 1);
}

/* The cache with all its memory, or NULL when out of memory. */
static struct jitunwind_py_chains *make_chains(size_t threads, size_t frames)
{
    struct jitunwind_py_chains *c;
    size_t i;
    if (!(c = calloc(1, sizeof *c)))
        return NULL;
    c->threads = threads;
    c->frames = frames;
    for (c->index_size = 1; c->index_size < 2 * frames; c->index_size *= 2)
        ;
    c->slots = calloc(threads, sizeof *c->slots);
    c->ring = calloc(frames, sizeof *c->ring);
    c->ring_from = calloc(frames, sizeof *c->ring_from);
    c->batch = malloc(JU_CHAIN_BATCH_MAX);
    if (!c->slots || !c->ring || !c->ring_from || !c->batch) {
        jitunwind_py_chains_free(c);
        return NULL;
    }
    for (i = 0; i < threads; i++) {
        c->slots[i].entries = calloc(frames, sizeof *c->slots[i].entries);
        c->slots[i].index = calloc(c->index_size, sizeof *c->slots[i].index);
        if (!c->slots[i].entries || !c->slots[i].index) {
            jitunwind_py_chains_free(c);
            return NULL;
        }
    }
    return c;
}

JITUNWIND_API int jitunwind_py_chains_new(size_t threads, size_t frames,
                                          jitunwind_py_chains **out)
{
    struct jitunwind_py_chains *c;
    if (!out)
        return JITUNWIND_EINVAL;
    if (threads == 0 || threads > JITUNWIND_PY_MAX_CHAIN_THREADS || frames == 0 ||
        frames > JITUNWIND_PY_MAX_FRAMES)
        return ju_constructed((void **)out, NULL, JITUNWIND_EINVAL, NULL);
    c = make_chains(threads, frames);
    return ju_constructed((void **)out, c, c ? 0 : JITUNWIND_ENOMEM, NULL);
}

JITUNWIND_API void jitunwind_py_chains_free(jitunwind_py_chains *c)
{
    size_t i;
    if (!c)
        return;
    free(c->marked);
    for (i = 0; c->slots && i < c->threads; i++) {
        free(c->slots[i].entries);
        free(c->slots[i].index);
    }
    free(c->slots);
    free(c->ring);
    free(c->ring_from);
    free(c->batch);
    free(c);
}

JITUNWIND_API int jitunwind_py_chains_stats(const jitunwind_py_chains *c,
                                            struct jitunwind_py_chain_stats *out)
{
    if (!c || !out)
        return JITUNWIND_EINVAL;
    *out = c->stats;
    return 0;
}

/* The thread's slot, else the least recently used one, emptied. */
static struct ju_chain_slot *slot_for(struct jitunwind_py_chains *c, uint64_t thread_key)
{
    struct ju_chain_slot *oldest = &c->slots[0];
    size_t i;
    c->clock++;
    for (i = 0; i < c->threads; i++) {
        struct ju_chain_slot *s = &c->slots[i];
        if (s->used && s->thread_key == thread_key) {
            s->used = c->clock;
            return s;
        }
        if (s->used < oldest->used)
            oldest = s;
    }
    oldest->thread_key = thread_key;
    oldest->used = c->clock;
    oldest->count = 0;
    oldest->marker = oldest->marker_seq = 0;
    oldest->marker_proven = 0;
    memset(oldest->index, 0, c->index_size * sizeof *oldest->index);
    return oldest;
}

void ju_chain_begin(struct ju_chain_walk *w, struct jitunwind_py_chains *c, uint64_t thread_key)
{
    memset(w, 0, sizeof *w);
    w->chains = c;
    w->slot = slot_for(c, thread_key);
    c->stats.walks++;
}

long ju_chain_position(const struct ju_chain_walk *w, uint64_t address)
{
    const struct jitunwind_py_chains *c = w->chains;
    size_t h = hash_of(c, address), probes;
    for (probes = 0; probes < c->index_size; probes++, h = (h + 1) & (c->index_size - 1)) {
        uint32_t e = w->slot->index[h];
        if (e == 0 || e > w->slot->count)
            return -1;
        if (w->slot->entries[e - 1].key.address == address)
            return (long)(e - 1);
    }
    return -1;
}

long ju_chain_find(const struct ju_chain_walk *w, const struct ju_chain_key *key)
{
    long at = ju_chain_position(w, key->address);
    return at >= 0 && memcmp(&w->slot->entries[at].key, key, sizeof *key) == 0 ? at : -1;
}

void ju_chain_read_batch(struct ju_chain_walk *w, const struct jitunwind_memory *mem)
{
    struct ju_chain_slot *s = w->slot;
    size_t len;
    if (s->count == 0 || s->span_hi <= s->span_lo)
        return;
    len = (size_t)(s->span_hi - s->span_lo);
    if (ju_read(mem, s->span_lo, w->chains->batch, len) < 0)
        return;
    w->batch_lo = s->span_lo;
    w->batch_len = len;
}

int ju_chain_from_batch(struct ju_chain_walk *w, uint64_t addr, void *dst, size_t len)
{
    if (w->batch_len == 0 || addr < w->batch_lo || len > w->batch_len ||
        addr - w->batch_lo > w->batch_len - len)
        return 0;
    memcpy(dst, w->chains->batch + (addr - w->batch_lo), len);
    w->served++;
    return 1;
}

int ju_chain_agrees(struct ju_chain_walk *w, long at, const struct jitunwind_py_frame *f)
{
    const struct jitunwind_py_frame *c = &w->slot->entries[at].frame;
    if (c->code != f->code || c->line != f->line || c->first_line != f->first_line ||
        strcmp(c->qualname, f->qualname) != 0 || strcmp(c->filename, f->filename) != 0)
        return 0;
    w->chains->stats.frames_reused++;
    return 1;
}

void ju_chain_note(struct ju_chain_walk *w, const struct ju_chain_key *key, long from)
{
    struct jitunwind_py_chains *c = w->chains;
    c->ring[w->fresh % c->frames] = *key;
    c->ring_from[w->fresh % c->frames] = from;
    w->fresh++;
}

void ju_chain_forget(struct ju_chain_walk *w)
{
    w->slot->count = 0;
    w->slot->marker = 0;
    w->slot->marker_proven = 0;
    memset(w->slot->index, 0, w->chains->index_size * sizeof *w->slot->index);
}

void ju_chain_store(struct ju_chain_walk *w, const struct jitunwind_py_frame *out,
                    size_t frame_size)
{
    struct jitunwind_py_chains *c = w->chains;
    struct ju_chain_slot *s = w->slot;
    size_t kept = w->tail, before = s->count, i, j;
    int moved = 0; /* an entry now holds another address: the index changes */
    /* Outermost first, while there is room: the ring holds the last
     * c->frames keys noted, which are the outermost. */
    for (j = w->fresh; j-- > 0 && kept < c->frames; kept++) {
        struct ju_chain_entry *e = &s->entries[kept];
        if (c->ring_from[j % c->frames] == (long)kept)
            continue; /* the unchanged outer part stays where it is */
        moved |= kept >= before || e->key.address != c->ring[j % c->frames].address;
        e->key = c->ring[j % c->frames];
        ju_chain_copy_frame(&e->frame, &out[j]);
        e->qualname_len = (uint16_t)strlen(e->frame.qualname);
        e->filename_len = (uint16_t)strlen(e->frame.filename);
    }
    s->count = kept;
    if (!moved && kept == before)
        return; /* the same addresses in the same places: the index and span hold */
    s->span_lo = s->span_hi = 0;
    memset(s->index, 0, c->index_size * sizeof *s->index);
    for (i = 0; i < kept; i++) {
        uint64_t a = s->entries[i].key.address, lo, hi;
        size_t h = hash_of(c, a);
        while (s->index[h] != 0)
            h = (h + 1) & (c->index_size - 1);
        s->index[h] = (uint32_t)(i + 1);
        /* The batch: the outermost frames whose memory lies close together. */
        lo = s->span_hi ? (a < s->span_lo ? a : s->span_lo) : a;
        hi = s->span_hi ? (a + frame_size > s->span_hi ? a + frame_size : s->span_hi)
                        : a + frame_size;
        if (hi - lo <= JU_CHAIN_BATCH_MAX) {
            s->span_lo = lo;
            s->span_hi = hi;
        }
    }
}
