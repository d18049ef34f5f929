/* Reading a target's jitunwind_jit_descriptor into a registry, consistently
 * while the target may be writing it (see the protocol in jit.h). */
#include <stdlib.h>

#include "internal.h"

#define MAX_ATTEMPTS 16               /* reads of the table before giving up on a moving target */
#define CHUNK (1024u * 1024u)         /* bytes per read of the slot array */
#define MAX_ENTRY_SIZE 4096u          /* a newer, larger entry format is accepted up to this */

struct snapshot {
    struct jitunwind_jit_entry *entries; /* live slots only */
    size_t count;
    char *names;                          /* NUL-separated, indexed by name_at */
    size_t *name_at;                      /* offset into names, or SIZE_MAX */
    size_t names_len;
};

static void snapshot_free(struct snapshot *s)
{
    free(s->entries);
    free(s->names);
    free(s->name_at);
    memset(s, 0, sizeof *s);
}

static int read_header(const struct jitunwind_memory *mem, uint64_t addr,
                       struct jitunwind_jit_descriptor *d)
{
    uint8_t buf[sizeof *d];
    int rc = ju_read(mem, addr, buf, sizeof buf);
    if (rc < 0)
        return rc;
    memcpy(d, buf, sizeof *d);
    return 0;
}

static int validate_header(jitunwind_registry *reg, const struct jitunwind_jit_descriptor *d,
                           uint64_t addr)
{
    struct jitunwind_error *err = ju_registry_error(reg);
    if (memcmp(d->magic, JITUNWIND_JIT_MAGIC, sizeof d->magic) != 0)
        return ju_fail(err, JITUNWIND_ECORRUPT, addr, "no jitunwind descriptor at %#llx (bad magic)",
                       (unsigned long long)addr);
    if (d->version != JITUNWIND_JIT_VERSION)
        return ju_fail(err, JITUNWIND_EVERSION, addr, "descriptor version %u, expected %u",
                       d->version, JITUNWIND_JIT_VERSION);
    if (d->entry_size < sizeof(struct jitunwind_jit_entry) || d->entry_size > MAX_ENTRY_SIZE)
        return ju_fail(err, JITUNWIND_ECORRUPT, addr, "descriptor entry size %u is implausible",
                       d->entry_size);
    if (d->capacity > JITUNWIND_JIT_MAX_SLOTS || d->count > d->capacity ||
        (d->capacity && !d->entries))
        return ju_fail(err, JITUNWIND_ECORRUPT, addr,
                       "descriptor capacity %llu / count %llu is implausible",
                       (unsigned long long)d->capacity, (unsigned long long)d->count);
    return 0;
}

/* Copy the live slots and their names. */
static int take_snapshot(const struct jitunwind_memory *mem, const struct jitunwind_jit_descriptor *d,
                         struct snapshot *s)
{
    uint64_t total = d->capacity * d->entry_size, off;
    uint8_t *raw;
    size_t i, cap_names = 0;
    int rc = 0;
    raw = malloc(total ? (size_t)total : 1);
    s->entries = calloc(d->capacity ? (size_t)d->capacity : 1, sizeof *s->entries);
    s->name_at = calloc(d->capacity ? (size_t)d->capacity : 1, sizeof *s->name_at);
    if (!raw || !s->entries || !s->name_at) {
        free(raw);
        return JITUNWIND_ENOMEM;
    }
    for (off = 0; off < total && rc == 0; off += CHUNK) {
        size_t n = (size_t)(total - off < CHUNK ? total - off : CHUNK);
        rc = ju_read(mem, d->entries + off, raw + off, n);
    }
    for (i = 0; i < d->capacity && rc == 0; i++) {
        struct jitunwind_jit_entry e;
        memcpy(&e, raw + i * d->entry_size, sizeof e);
        if (e.size == 0)
            continue;
        s->name_at[s->count] = SIZE_MAX;
        if (e.name && e.name_len) {
            size_t len = e.name_len < JITUNWIND_NAME_MAX - 1 ? e.name_len : JITUNWIND_NAME_MAX - 1;
            if (s->names_len + len + 1 > cap_names) {
                size_t ncap = (cap_names + len + 1) * 2;
                char *n = realloc(s->names, ncap);
                if (!n) {
                    rc = JITUNWIND_ENOMEM;
                    break;
                }
                s->names = n;
                cap_names = ncap;
            }
            if (ju_read(mem, e.name, s->names + s->names_len, len) == 0) {
                s->names[s->names_len + len] = '\0';
                s->name_at[s->count] = s->names_len;
                s->names_len += len + 1;
            }
        }
        s->entries[s->count++] = e;
    }
    free(raw);
    return rc;
}

static int by_start(const void *a, const void *b)
{
    const struct jitunwind_jit_entry *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

JITUNWIND_API int jitunwind_jit_read_descriptor(jitunwind_registry *reg,
                                                const struct jitunwind_memory *mem,
                                                uint64_t addr,
                                                struct jitunwind_jit_read_info *info)
{
    struct jitunwind_jit_descriptor d, again;
    struct jitunwind_jit_read_info local = {0};
    struct snapshot s = {0};
    int attempt, rc = 0, consistent = 0;
    size_t i;
    if (!reg || !mem || !mem->read)
        return JITUNWIND_EINVAL;
    if (!info)
        info = &local;
    memset(info, 0, sizeof *info);
    for (attempt = 0; attempt < MAX_ATTEMPTS && !consistent; attempt++) {
        snapshot_free(&s);
        if ((rc = read_header(mem, addr, &d)) < 0)
            return ju_fail(ju_registry_error(reg), rc, addr,
                           "cannot read the jitunwind descriptor at %#llx", (unsigned long long)addr);
        if ((rc = validate_header(reg, &d, addr)) < 0)
            return rc;
        rc = take_snapshot(mem, &d, &s);
        if (rc == JITUNWIND_ENOMEM) {
            snapshot_free(&s);
            return ju_fail(ju_registry_error(reg), rc, addr, "out of memory reading the descriptor");
        }
        if (read_header(mem, addr, &again) < 0)
            continue;
        if (rc == 0 && again.seq == d.seq && (d.seq & 1) == 0) {
            consistent = 1;
        } else if (rc == 0 && again.seq == d.seq && attempt == MAX_ATTEMPTS - 1) {
            /* A writer stopped mid-update (the process is stopped): every
             * non-empty slot is still complete by the publication order. */
            consistent = 1;
            info->torn = 1;
        } else {
            info->retries++;
        }
    }
    if (!consistent) {
        snapshot_free(&s);
        return ju_fail(ju_registry_error(reg), rc < 0 ? rc : JITUNWIND_EBUSY, addr,
                       "the jitunwind descriptor kept changing or was unreadable (%u attempts)",
                       MAX_ATTEMPTS);
    }
    info->generation = d.generation;
    /* Sort by address so that the registry appends; names move with entries. */
    for (i = 0; i < s.count; i++)
        s.entries[i].name_len = (uint32_t)i; /* remember the original index */
    qsort(s.entries, s.count, sizeof *s.entries, by_start);
    for (i = 0; i < s.count; i++) {
        const struct jitunwind_jit_entry *e = &s.entries[i];
        size_t at = s.name_at[e->name_len];
        struct jitunwind_range r = {0};
        r.start = e->start;
        r.end = e->start + e->size;
        r.kind = e->kind;
        r.rule = e->rule;
        r.stride = e->stride;
        r.origin = JITUNWIND_ORIGIN_DESCRIPTOR;
        r.cookie = e->cookie;
        r.name = at == SIZE_MAX ? NULL : s.names + at;
        if (r.end < r.start || jitunwind_registry_add(reg, &r) < 0)
            info->skipped++;
        else
            info->added++;
    }
    snapshot_free(&s);
    ju_clear_error(ju_registry_error(reg));
    return 0;
}
