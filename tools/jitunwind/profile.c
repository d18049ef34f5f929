/* See profile.h: two open-addressing hash tables over growable arrays. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "profile.h"

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return mix(h, 0xff);
}

void profile_init(struct profile *p, double hz)
{
    memset(p, 0, sizeof *p);
    p->hz = hz;
}

void profile_free(struct profile *p)
{
    size_t i;
    for (i = 0; i < p->n_frames; i++) {
        free(p->frames[i].name);
        free(p->frames[i].file);
    }
    for (i = 0; i < p->n_stacks; i++)
        free(p->stacks[i].frames);
    for (i = 0; i < p->n_threads; i++)
        free(p->threads[i].runs);
    free(p->threads);
    free(p->thread_slots);
    free(p->frames);
    free(p->frame_slots);
    free(p->stacks);
    free(p->stack_slots);
    memset(p, 0, sizeof *p);
}

static uint64_t frame_hash(uint32_t kind, const char *name, const char *file, int32_t line)
{
    return hash_str(hash_str(mix(kind, (uint64_t)(uint32_t)line), name), file);
}

/* Room for one more item in a growable array of `n` items of `size`
 * bytes: doubled (from `first`) when full. 0, or -1 when out of memory
 * (the array left as it was). */
static int room_for_one(void **items, size_t *cap, size_t n, size_t size, size_t first)
{
    size_t fresh_cap;
    void *fresh;
    if (n < *cap)
        return 0;
    fresh_cap = *cap ? *cap * 2 : first;
    if (!(fresh = realloc(*items, fresh_cap * size)))
        return -1;
    *items = fresh;
    *cap = fresh_cap;
    return 0;
}

/* Double a hash table when it is half full, re-inserting with `rehash`. */
static int grow_slots(uint32_t **slots, size_t *count, size_t used,
                      uint64_t (*key)(const struct profile *, uint32_t), const struct profile *p)
{
    size_t n = *count ? *count * 2 : 1024, i;
    uint32_t *fresh;
    if (used * 2 < *count)
        return 0;
    if (!(fresh = calloc(n, sizeof *fresh)))
        return -1;
    for (i = 0; i < *count; i++) {
        if ((*slots)[i]) {
            size_t at = key(p, (*slots)[i] - 1) & (n - 1);
            while (fresh[at])
                at = (at + 1) & (n - 1);
            fresh[at] = (*slots)[i];
        }
    }
    free(*slots);
    *slots = fresh;
    *count = n;
    return 0;
}

static uint64_t frame_key(const struct profile *p, uint32_t id)
{
    const struct profile_frame *f = &p->frames[id];
    return frame_hash(f->kind, f->name, f->file, f->line);
}

static uint64_t stack_hash(const uint32_t *ids, uint32_t depth)
{
    uint64_t h = depth;
    uint32_t i;
    for (i = 0; i < depth; i++)
        h = mix(h, ids[i]);
    return h;
}

static uint64_t stack_key(const struct profile *p, uint32_t id)
{
    return stack_hash(p->stacks[id].frames, p->stacks[id].depth);
}

uint32_t profile_frame(struct profile *p, uint32_t kind, const char *name, const char *file,
                       int32_t line)
{
    size_t at;
    struct profile_frame *f;
    if (grow_slots(&p->frame_slots, &p->frame_slot_count, p->n_frames, frame_key, p) < 0)
        return UINT32_MAX;
    at = frame_hash(kind, name, file, line) & (p->frame_slot_count - 1);
    while (p->frame_slots[at]) {
        f = &p->frames[p->frame_slots[at] - 1];
        if (f->kind == kind && f->line == line && strcmp(f->name, name) == 0 &&
            strcmp(f->file, file) == 0)
            return p->frame_slots[at] - 1;
        at = (at + 1) & (p->frame_slot_count - 1);
    }
    if (room_for_one((void **)&p->frames, &p->cap_frames, p->n_frames, sizeof *p->frames, 256))
        return UINT32_MAX;
    f = &p->frames[p->n_frames];
    f->kind = kind;
    f->line = line;
    f->name = strdup(name);
    f->file = strdup(file);
    if (!f->name || !f->file) {
        free(f->name);
        free(f->file);
        return UINT32_MAX;
    }
    p->frame_slots[at] = (uint32_t)++p->n_frames;
    return (uint32_t)(p->n_frames - 1);
}

uint32_t profile_frame_hinted(struct profile *p, uint64_t hint, uint32_t kind, const char *name,
                              const char *file, int32_t line)
{
    struct profile_hint *h = &p->hints[mix(hint, (uint64_t)(uint32_t)line) % PROFILE_HINTS];
    uint32_t id;
    if (h->id_plus_1 && h->hint == hint && h->line == line) {
        const struct profile_frame *f = &p->frames[h->id_plus_1 - 1];
        if (f->kind == kind && f->line == line && strcmp(f->name, name) == 0 &&
            strcmp(f->file, file) == 0)
            return h->id_plus_1 - 1;
    }
    if ((id = profile_frame(p, kind, name, file, line)) != UINT32_MAX) {
        h->hint = hint;
        h->line = line;
        h->id_plus_1 = id + 1;
    }
    return id;
}

/* The stack's index, counted once more; -1 when out of memory. */
static int64_t count_stack(struct profile *p, const uint32_t *ids, uint32_t depth, uint64_t n)
{
    size_t at;
    struct profile_stack *s;
    if (grow_slots(&p->stack_slots, &p->stack_slot_count, p->n_stacks, stack_key, p) < 0)
        return -1;
    at = stack_hash(ids, depth) & (p->stack_slot_count - 1);
    p->stacks_seen += n;
    while (p->stack_slots[at]) {
        s = &p->stacks[p->stack_slots[at] - 1];
        if (s->depth == depth && memcmp(s->frames, ids, depth * sizeof *ids) == 0) {
            s->count += n;
            return (int64_t)(p->stack_slots[at] - 1);
        }
        at = (at + 1) & (p->stack_slot_count - 1);
    }
    if (room_for_one((void **)&p->stacks, &p->cap_stacks, p->n_stacks, sizeof *p->stacks, 256))
        return -1;
    s = &p->stacks[p->n_stacks];
    if (!(s->frames = malloc((depth ? depth : 1) * sizeof *ids)))
        return -1;
    memcpy(s->frames, ids, depth * sizeof *ids);
    s->depth = depth;
    s->count = n;
    p->stack_slots[at] = (uint32_t)++p->n_stacks;
    return (int64_t)(p->n_stacks - 1);
}

static uint64_t thread_key(const struct profile *p, uint32_t id)
{
    return mix(0x7468, (uint64_t)(uint32_t)p->threads[id].tid);
}

uint32_t profile_thread(struct profile *p, int tid, const char *name)
{
    size_t at;
    struct profile_thread *th;
    if (grow_slots(&p->thread_slots, &p->thread_slot_count, p->n_threads, thread_key, p) < 0)
        return UINT32_MAX;
    at = mix(0x7468, (uint64_t)(uint32_t)tid) & (p->thread_slot_count - 1);
    while (p->thread_slots[at]) {
        if (p->threads[p->thread_slots[at] - 1].tid == tid)
            return p->thread_slots[at] - 1;
        at = (at + 1) & (p->thread_slot_count - 1);
    }
    if (room_for_one((void **)&p->threads, &p->cap_threads, p->n_threads, sizeof *p->threads, 16))
        return UINT32_MAX;
    th = &p->threads[p->n_threads];
    memset(th, 0, sizeof *th);
    th->tid = tid;
    snprintf(th->name, sizeof th->name, "%s", name ? name : "");
    p->thread_slots[at] = (uint32_t)++p->n_threads;
    return (uint32_t)(p->n_threads - 1);
}

/* The thread's last stack, counted once more, when `ids` are its frames
 * again (a sampled thread's stack most often is: compared first, the
 * stack's hash is not computed); else -1. */
static int64_t same_as_last(struct profile *p, const struct profile_thread *th,
                            const uint32_t *ids, uint32_t depth)
{
    struct profile_stack *s;
    if (!th->n_runs)
        return -1;
    s = &p->stacks[th->runs[th->n_runs - 1].stack];
    if (s->depth != depth || memcmp(s->frames, ids, depth * sizeof *ids) != 0)
        return -1;
    s->count++;
    p->stacks_seen++;
    return (int64_t)th->runs[th->n_runs - 1].stack;
}

int profile_add_for(struct profile *p, uint32_t thread, const uint32_t *ids, uint32_t depth)
{
    int64_t stack = thread < p->n_threads ? same_as_last(p, &p->threads[thread], ids, depth) : -1;
    struct profile_thread *th;
    if (stack < 0 && (stack = count_stack(p, ids, depth, 1)) < 0)
        return -1;
    if (thread >= p->n_threads)
        return 0;
    th = &p->threads[thread];
    th->samples++;
    if (th->n_runs && th->runs[th->n_runs - 1].stack == (uint32_t)stack &&
        th->runs[th->n_runs - 1].count < UINT32_MAX) {
        th->runs[th->n_runs - 1].count++;
        return 0;
    }
    if (p->n_runs >= PROFILE_MAX_RUNS) {
        p->runs_dropped++;
        return 0;
    }
    if (room_for_one((void **)&th->runs, &th->cap_runs, th->n_runs, sizeof *th->runs, 64)) {
        p->runs_dropped++;
        return 0;
    }
    th->runs[th->n_runs].stack = (uint32_t)stack;
    th->runs[th->n_runs].count = 1;
    th->n_runs++;
    p->n_runs++;
    return 0;
}

int profile_add_counted(struct profile *p, const uint32_t *ids, uint32_t depth, uint64_t count)
{
    return count_stack(p, ids, depth, count) < 0 ? -1 : 0;
}

void profile_frame_label(const struct profile_frame *f, char *buf, size_t len)
{
    char name[4 * JITUNWIND_NAME_MAX], file[4 * JITUNWIND_PY_FILENAME_MAX];
    cli_shown(f->name, name, sizeof name);
    if (f->kind == PROFILE_PYTHON)
        snprintf(buf, len, "%s (%s:%d)", name, cli_shown(f->file, file, sizeof file), f->line);
    else
        snprintf(buf, len, "%s", name);
}

void profile_function_label(const struct profile_frame *f, char *buf, size_t len)
{
    char name[4 * JITUNWIND_NAME_MAX], file[4 * JITUNWIND_PY_FILENAME_MAX];
    cli_shown(f->name, name, sizeof name);
    if (f->kind == PROFILE_PYTHON)
        snprintf(buf, len, "%s (%s)", name, cli_shown(f->file, file, sizeof file));
    else
        snprintf(buf, len, "%s", name);
}

void profile_mark(const struct profile *p, struct profile_mark *m)
{
    m->n_frames = p->n_frames;
    m->n_threads = p->n_threads;
}

/* Re-insert ids [0, n) into a hash table of `count` slots. */
static void rehash(uint32_t *slots, size_t count, size_t n,
                   uint64_t (*key)(const struct profile *, uint32_t), const struct profile *p)
{
    size_t i, at;
    memset(slots, 0, count * sizeof *slots);
    for (i = 0; i < n; i++) {
        at = key(p, (uint32_t)i) & (count - 1);
        while (slots[at])
            at = (at + 1) & (count - 1);
        slots[at] = (uint32_t)(i + 1);
    }
}

void profile_rollback(struct profile *p, const struct profile_mark *m)
{
    size_t i;
    if (m->n_frames < p->n_frames) {
        for (i = m->n_frames; i < p->n_frames; i++) {
            free(p->frames[i].name);
            free(p->frames[i].file);
        }
        p->n_frames = m->n_frames;
        rehash(p->frame_slots, p->frame_slot_count, p->n_frames, frame_key, p);
        for (i = 0; i < PROFILE_HINTS; i++)
            if (p->hints[i].id_plus_1 > p->n_frames)
                p->hints[i].id_plus_1 = 0;
    }
    if (m->n_threads < p->n_threads) {
        for (i = m->n_threads; i < p->n_threads; i++) {
            p->n_runs -= p->threads[i].n_runs;
            free(p->threads[i].runs);
        }
        p->n_threads = m->n_threads;
        rehash(p->thread_slots, p->thread_slot_count, p->n_threads, thread_key, p);
    }
}
