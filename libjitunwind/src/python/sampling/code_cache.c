/* See code_cache.h. Direct-mapped by the code object's address. */
#include <stdlib.h>

#include "python/sampling/code_cache.h"

static struct ju_code_cache_entry *slot_of(struct ju_code_cache *c, uint64_t code)
{
    return &c->entries[(code >> 4) % c->count];
}

struct ju_code_cache_entry *ju_code_cache_find(struct ju_code_cache *c, uint64_t code,
                                               uint64_t qualname, uint64_t filename,
                                               uint64_t linetable, int32_t first_line)
{
    struct ju_code_cache_entry *e = slot_of(c, code);
    if (e->code != code) {
        c->stats.misses++;
        return NULL;
    }
    if (e->qualname != qualname || e->filename != filename || e->linetable != linetable ||
        e->first_line != first_line) {
        c->stats.invalidated++;
        c->stats.misses++;
        e->code = 0;
        e->checked_sample = 0;
        return NULL;
    }
    c->stats.hits++;
    c->stats.reads_saved += e->fill_reads;
    e->checked_sample = c->sample;
    return e;
}

void ju_code_cache_reject(struct ju_code_cache *c, struct ju_code_cache_entry *e)
{
    c->stats.hits--;
    c->stats.reads_saved -= e->fill_reads;
    c->stats.invalidated++;
    c->stats.misses++;
    e->code = 0;
    e->checked_sample = 0;
}

struct ju_code_cache_entry *ju_code_cache_checked(struct ju_code_cache *c, uint64_t code)
{
    struct ju_code_cache_entry *e = slot_of(c, code);
    if (!c->sample || code == 0 || e->code != code || e->checked_sample != c->sample)
        return NULL;
    c->stats.hits++;
    c->stats.reads_saved += e->fill_reads + 1; /* and the head */
    return e;
}

struct ju_code_cache_entry *ju_code_cache_vouched(struct ju_code_cache *c, uint64_t code)
{
    struct ju_code_cache_entry *e = slot_of(c, code);
    if (code == 0 || e->code != code || !e->table_held)
        return NULL;
    c->stats.hits++;
    c->stats.reads_saved += e->fill_reads + 1; /* and the head */
    e->checked_sample = c->sample;
    return e;
}

struct ju_code_cache_entry *ju_code_cache_slot(struct ju_code_cache *c, uint64_t code,
                                               uint64_t qualname, uint64_t filename,
                                               uint64_t linetable, int32_t first_line)
{
    struct ju_code_cache_entry *e = slot_of(c, code);
    unsigned i;
    e->code = code;
    e->qualname = qualname;
    e->filename = filename;
    e->linetable = linetable;
    e->first_line = first_line;
    e->flags = 0;
    e->table_len = 0;
    e->table_held = 0;
    e->fill_reads = 0;
    e->checked_sample = c->sample;
    for (i = 0; i < JU_CODE_CACHE_LINES; i++)
        e->lines[i].lasti = -1;
    e->lines_next = 0;
    return e;
}

int ju_code_cache_line(struct ju_code_cache_entry *e, int32_t lasti)
{
    struct ju_code_line *m;
    unsigned i;
    for (i = 0; i < JU_CODE_CACHE_LINES; i++)
        if (e->lines[i].lasti == lasti)
            return e->lines[i].line;
    m = &e->lines[e->lines_next++ % JU_CODE_CACHE_LINES];
    m->line = jitunwind_py_linetable_line(e->table, e->table_len, e->first_line, lasti);
    m->lasti = lasti;
    return m->line;
}

void ju_code_cache_free(struct ju_code_cache *c)
{
    if (c) {
        free(c->entries);
        free(c);
    }
}

JITUNWIND_API int jitunwind_pyreader_cache_code(jitunwind_pyreader *r, size_t entries)
{
    struct ju_code_cache *c = NULL;
    if (!r || entries > JITUNWIND_PY_MAX_CODE_CACHE)
        return JITUNWIND_EINVAL;
    if (entries) {
        if (!(c = calloc(1, sizeof *c)) || !(c->entries = calloc(entries, sizeof *c->entries))) {
            free(c);
            return JITUNWIND_ENOMEM;
        }
        c->count = entries;
    }
    ju_code_cache_free(r->code_cache);
    r->code_cache = c;
    return 0;
}

JITUNWIND_API int jitunwind_pyreader_cache_stats(const jitunwind_pyreader *r,
                                                 struct jitunwind_py_cache_stats *out)
{
    if (!r || !out)
        return JITUNWIND_EINVAL;
    if (r->code_cache)
        *out = r->code_cache->stats;
    else
        memset(out, 0, sizeof *out);
    return 0;
}

JITUNWIND_API int jitunwind_pyreader_cache_next_sample(jitunwind_pyreader *r)
{
    if (!r || !r->code_cache)
        return JITUNWIND_EINVAL;
    r->code_cache->sample++;
    return 0;
}
