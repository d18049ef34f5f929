/* Reading a target's jitunwind_jit_descriptor into a registry, consistently
 * while the target may be writing it (see the protocol in jit.h).
 *
 * One attempt reads the header, copies the live slots and their names, and
 * reads the header again; it is consistent when `seq` is even and unchanged.
 * A `seq` that stays odd and unchanged over several attempts means the
 * writer is stopped mid-update (a stopped process or a core): the copy is
 * used, since every non-empty slot is complete by the publication order,
 * and flagged as torn. Memory use is bounded by JITUNWIND_JIT_MAX_BYTES
 * (jit.h; slots past it are left out and counted), the slot array being
 * read in fixed-size chunks. */
#include <stdlib.h>

#include "internal.h"
#include "ranges/registry_loaders.h"

#define MAX_ATTEMPTS 16        /* reads of the table before giving up on a moving target */
#define TORN_CONFIRMATIONS 3   /* stable odd seq this many times in a row: the writer is stopped */
#define CHUNK_BYTES (256u * 1024u) /* bytes per read of the slot array */
#define MAX_ENTRY_SIZE 4096u   /* a newer, larger entry format is accepted up to this */

struct live_slot {
    struct jitunwind_jit_entry e;
    size_t name; /* offset into snapshot.names, or SIZE_MAX for none */
};

struct snapshot {
    struct live_slot *slots;
    size_t count, cap;
    char *names; /* NUL-terminated names, back to back */
    size_t names_len, names_cap;
    uint64_t bytes;    /* what the kept slots cost (jit.h: JITUNWIND_JIT_MAX_BYTES) */
    uint64_t left_out; /* live slots past the cap */
};

static void snapshot_free(struct snapshot *s)
{
    free(s->slots);
    free(s->names);
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

static int validate_header(struct jitunwind_error *err, const struct jitunwind_jit_descriptor *d,
                           uint64_t addr)
{
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
        (d->capacity && !d->entries) ||
        d->entries + d->capacity * d->entry_size < d->entries)
        return ju_fail(err, JITUNWIND_ECORRUPT, addr,
                       "descriptor capacity %llu / count %llu is implausible",
                       (unsigned long long)d->capacity, (unsigned long long)d->count);
    return 0;
}

/* Append a slot and its name (read bounded; an unreadable name is left out). */
static int keep_slot(const struct jitunwind_memory *mem, struct snapshot *s,
                     const struct jitunwind_jit_entry *e)
{
    struct live_slot *slot, *grown;
    uint64_t name_len = e->name && e->name_len ? e->name_len : 0;
    uint64_t cost = JITUNWIND_JIT_BYTES_PER_RANGE +
                    2 * ((name_len < JITUNWIND_NAME_MAX ? name_len : JITUNWIND_NAME_MAX) + 1);
    if (s->bytes + cost > JITUNWIND_JIT_MAX_BYTES) {
        s->left_out++;
        return 0;
    }
    s->bytes += cost;
    grown = ju_reserve_one(s->slots, &s->cap, s->count, sizeof *s->slots, 64);
    if (!grown)
        return JITUNWIND_ENOMEM;
    s->slots = grown;
    slot = &s->slots[s->count++];
    slot->e = *e;
    slot->name = SIZE_MAX;
    if (e->name && e->name_len) {
        size_t len = e->name_len < JITUNWIND_NAME_MAX - 1 ? e->name_len : JITUNWIND_NAME_MAX - 1;
        if (s->names_len + len + 1 > s->names_cap) {
            size_t ncap = (s->names_cap + len + 1) * 2;
            char *n = realloc(s->names, ncap);
            if (!n)
                return JITUNWIND_ENOMEM;
            s->names = n;
            s->names_cap = ncap;
        }
        if (ju_read(mem, e->name, s->names + s->names_len, len) == 0) {
            s->names[s->names_len + len] = '\0';
            slot->name = s->names_len;
            s->names_len += len + 1;
        }
    }
    return 0;
}

/* Copy the non-empty slots of the table described by *d. */
static int take_snapshot(const struct jitunwind_memory *mem, const struct jitunwind_jit_descriptor *d,
                         struct snapshot *s)
{
    size_t per_chunk = CHUNK_BYTES / d->entry_size, i, j, n;
    uint8_t *raw = malloc(per_chunk * d->entry_size);
    int rc = 0;
    if (!raw)
        return JITUNWIND_ENOMEM;
    for (i = 0; i < d->capacity && rc == 0; i += n) {
        n = d->capacity - i < per_chunk ? (size_t)(d->capacity - i) : per_chunk;
        rc = ju_read(mem, d->entries + i * d->entry_size, raw, n * d->entry_size);
        for (j = 0; j < n && rc == 0; j++) {
            struct jitunwind_jit_entry e;
            memcpy(&e, raw + j * d->entry_size, sizeof e);
            if (e.size != 0)
                rc = keep_slot(mem, s, &e);
        }
    }
    free(raw);
    return rc;
}

static int by_start(const void *a, const void *b)
{
    const struct live_slot *x = a, *y = b;
    return x->e.start < y->e.start ? -1 : x->e.start > y->e.start;
}

/* Add the snapshot's slots, in address order so that the registry appends. */
static void add_slots(jitunwind_registry *reg, struct snapshot *s, struct jitunwind_jit_read_info *info)
{
    size_t i;
    if (s->count) /* qsort needs a non-NULL base even for no elements */
        qsort(s->slots, s->count, sizeof *s->slots, by_start);
    for (i = 0; i < s->count; i++) {
        const struct live_slot *l = &s->slots[i];
        struct jitunwind_range r = {0};
        r.start = l->e.start;
        r.end = l->e.start + l->e.size;
        r.kind = l->e.kind;
        r.rule = l->e.rule;
        r.stride = l->e.stride;
        r.origin = JITUNWIND_ORIGIN_DESCRIPTOR;
        r.cookie = l->e.cookie;
        r.name = l->name == SIZE_MAX ? NULL : s->names + l->name;
        /* A wrapping range, an unknown kind or rule, or an overlap. */
        if (r.end < r.start || jitunwind_registry_add(reg, &r) < 0)
            info->skipped++;
        else
            info->added++;
    }
}

JITUNWIND_API int jitunwind_jit_read_descriptor(jitunwind_registry *reg,
                                                const struct jitunwind_memory *mem,
                                                uint64_t addr,
                                                struct jitunwind_jit_read_info *info)
{
    struct jitunwind_jit_descriptor d, again;
    struct jitunwind_jit_read_info local;
    struct jitunwind_error *err;
    struct snapshot s = {0};
    uint64_t odd_seq = 0;
    int attempt, rc = 0, consistent = 0, odd_streak = 0;
    if (!reg || !ju_memory_valid(mem))
        return JITUNWIND_EINVAL;
    err = ju_registry_error(reg);
    if (!info)
        info = &local;
    memset(info, 0, sizeof *info);
    for (attempt = 0; attempt < MAX_ATTEMPTS && !consistent; attempt++) {
        snapshot_free(&s);
        if ((rc = read_header(mem, addr, &d)) < 0)
            return ju_fail(err, rc, addr, "cannot read the jitunwind descriptor at %#llx",
                           (unsigned long long)addr);
        if ((rc = validate_header(err, &d, addr)) < 0)
            return rc;
        /* A header read while a writer grew the table may pair the old
         * array with the new capacity (an in-process reader would then read
         * past the old array): use it only when a second read agrees. */
        if (read_header(mem, addr, &again) < 0 || again.entries != d.entries ||
            again.capacity != d.capacity || again.entry_size != d.entry_size) {
            info->retries++;
            rc = JITUNWIND_EBUSY;
            continue;
        }
        rc = take_snapshot(mem, &d, &s);
        if (rc == JITUNWIND_ENOMEM)
            break;
        if (read_header(mem, addr, &again) < 0 || again.seq != d.seq) {
            info->retries++; /* a writer was active: try again */
            odd_streak = 0;
            rc = JITUNWIND_EBUSY;
            continue;
        }
        if (rc < 0)
            break; /* the table did not move: the slots are really unreadable */
        if ((d.seq & 1) == 0) {
            consistent = 1;
        } else {
            odd_streak = d.seq == odd_seq ? odd_streak + 1 : 1;
            odd_seq = d.seq;
            if (odd_streak >= TORN_CONFIRMATIONS) {
                consistent = 1;
                info->torn = 1;
            } else {
                info->retries++;
                rc = JITUNWIND_EBUSY;
            }
        }
    }
    if (!consistent) {
        snapshot_free(&s);
        if (rc == JITUNWIND_ENOMEM)
            return ju_fail(err, rc, addr, "out of memory reading the jitunwind descriptor");
        if (rc == JITUNWIND_EBUSY)
            return ju_fail(err, rc, addr, "the jitunwind descriptor kept changing (%d attempts)",
                           MAX_ATTEMPTS);
        return ju_fail(err, rc, d.entries, "cannot read the jitunwind slot array at %#llx",
                       (unsigned long long)d.entries);
    }
    info->generation = d.generation;
    info->left_out = s.left_out;
    add_slots(reg, &s, info);
    snapshot_free(&s);
    ju_clear_error(err);
    return 0;
}
