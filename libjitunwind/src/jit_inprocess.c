/* In-process registration: the slot table behind `jitunwind_jit_descriptor`.
 *
 * Writers are serialised by a mutex; readers (debuggers) follow the seqlock
 * protocol of jit.h. The published slot array is unordered: a slot is
 * appended or reused from a free stack and patched in place, and the array
 * is copied only when it doubles (amortised O(1)).
 *
 * Overlap checks need an ordered index. A sorted array would make every
 * registration an O(n) memmove (milliseconds at 1M ranges, under the lock);
 * instead a balanced tree (glibc's tsearch, red-black) over a private copy
 * of the bounds gives O(log n) insert-with-overlap-check and delete, at about
 * one small heap node per range. The private copy keeps the comparator off
 * the published slots, which readers see being zeroed and reallocated.
 *
 * An id is (slot generation << 32) | (slot index + 1): unregister finds the
 * slot in O(1), and an id whose slot was since reused (generation bumped on
 * every unregister) or predates a reset is rejected. */
#include <pthread.h>
#include <search.h>
#include <stdlib.h>

#include "internal.h"

JITUNWIND_API struct jitunwind_jit_descriptor jitunwind_jit_descriptor = {
    JITUNWIND_JIT_MAGIC, JITUNWIND_JIT_VERSION, sizeof(struct jitunwind_jit_entry), 0, 0, 0, 0, 0};

struct shadow {
    uint64_t start, end;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct jitunwind_jit_entry *slots; /* published as descriptor.entries */
static struct shadow *shadows;            /* private copy for the tree comparator */
static uint32_t *slot_gen;
static uint32_t *free_stack;
static size_t free_count, capacity, used; /* used: slots ever handed out */
static uint32_t gen_base;                 /* first generation of new slots; moves on reset */
static void *tree;                        /* keys: slot index + 1 */

static void *key_of(size_t index)
{
    return (void *)(uintptr_t)(index + 1);
}

/* Overlapping ranges compare equal, so inserting a range that overlaps a
 * registered one finds that one instead (one descent does both). */
static int compare(const void *a, const void *b)
{
    const struct shadow *x = &shadows[(uintptr_t)a - 1], *y = &shadows[(uintptr_t)b - 1];
    if (x->end <= y->start)
        return -1;
    if (x->start >= y->end)
        return 1;
    return 0;
}

static void begin_write(void)
{
    __atomic_store_n(&jitunwind_jit_descriptor.seq, jitunwind_jit_descriptor.seq + 1,
                     __ATOMIC_RELEASE);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void end_write(void)
{
    jitunwind_jit_descriptor.generation++;
    __atomic_store_n(&jitunwind_jit_descriptor.seq, jitunwind_jit_descriptor.seq + 1,
                     __ATOMIC_RELEASE);
}

/* Double the arrays; the new slot array is published before the old one is
 * freed, so a stopped or concurrent reader never sees freed slots through a
 * current pointer. Called with the lock held, outside a write section. */
static int grow(void)
{
    size_t ncap = capacity ? capacity * 2 : 256;
    struct jitunwind_jit_entry *nslots, *old = slots;
    struct shadow *nshadows;
    uint32_t *ngen, *nfree;
    if (ncap > JITUNWIND_JIT_MAX_SLOTS)
        return JITUNWIND_ELIMIT;
    nslots = calloc(ncap, sizeof *nslots);
    nshadows = realloc(shadows, ncap * sizeof *nshadows);
    if (nshadows)
        shadows = nshadows;
    ngen = nshadows ? realloc(slot_gen, ncap * sizeof *ngen) : NULL;
    if (ngen)
        slot_gen = ngen;
    nfree = ngen ? realloc(free_stack, ncap * sizeof *nfree) : NULL;
    if (nfree)
        free_stack = nfree;
    if (!nslots || !nfree) {
        free(nslots);
        return JITUNWIND_ENOMEM;
    }
    for (size_t i = capacity; i < ncap; i++)
        slot_gen[i] = gen_base;
    if (capacity)
        memcpy(nslots, old, capacity * sizeof *nslots);
    begin_write();
    slots = nslots;
    jitunwind_jit_descriptor.entries = (uint64_t)(uintptr_t)nslots;
    jitunwind_jit_descriptor.capacity = ncap;
    end_write();
    capacity = ncap;
    free(old);
    return 0;
}

static int take_slot(size_t *index)
{
    int rc;
    if (free_count) {
        *index = free_stack[--free_count];
        return 0;
    }
    if (used == capacity && (rc = grow()) < 0)
        return rc;
    *index = used++;
    return 0;
}

static int valid_args(const void *start, size_t size, int kind, int rule)
{
    struct jitunwind_range r = {0};
    r.start = (uint64_t)(uintptr_t)start;
    r.end = r.start + size;
    r.kind = (uint32_t)kind;
    r.rule = (uint32_t)rule;
    return start && size && r.end > r.start && ju_range_validate(&r) == 0;
}

JITUNWIND_API int jitunwind_jit_register(const void *start, size_t size, int kind, int rule,
                                         const char *name, uint64_t cookie,
                                         jitunwind_jit_id *id)
{
    struct jitunwind_jit_entry *e;
    size_t index;
    char *copy = NULL;
    void **node;
    int rc;
    if (!valid_args(start, size, kind, rule))
        return JITUNWIND_EINVAL;
    if (name) {
        size_t n = strnlen(name, JITUNWIND_NAME_MAX - 1);
        copy = malloc(n + 1);
        if (!copy)
            return JITUNWIND_ENOMEM;
        memcpy(copy, name, n);
        copy[n] = '\0';
    }
    pthread_mutex_lock(&lock);
    if ((rc = take_slot(&index)) < 0)
        goto fail;
    shadows[index].start = (uint64_t)(uintptr_t)start;
    shadows[index].end = shadows[index].start + size;
    node = tsearch(key_of(index), &tree, compare);
    if (!node || *node != key_of(index)) { /* out of memory, or an overlapping range */
        free_stack[free_count++] = (uint32_t)index;
        rc = node ? JITUNWIND_EOVERLAP : JITUNWIND_ENOMEM;
        goto fail;
    }
    begin_write();
    e = &slots[index];
    e->start = shadows[index].start;
    e->kind = (uint32_t)kind;
    e->rule = (uint32_t)rule;
    e->stride = 0;
    e->name = (uint64_t)(uintptr_t)copy;
    e->name_len = copy ? (uint32_t)strlen(copy) : 0;
    e->cookie = cookie;
    __atomic_store_n(&e->size, (uint64_t)size, __ATOMIC_RELEASE); /* publishes the slot */
    jitunwind_jit_descriptor.count++;
    end_write();
    if (id)
        *id = ((uint64_t)slot_gen[index] << 32) | (uint64_t)(index + 1);
    pthread_mutex_unlock(&lock);
    return 0;
fail:
    pthread_mutex_unlock(&lock);
    free(copy);
    return rc;
}

JITUNWIND_API int jitunwind_jit_unregister(jitunwind_jit_id id)
{
    size_t index = (size_t)(id & 0xffffffffu);
    uint32_t gen = (uint32_t)(id >> 32);
    struct jitunwind_jit_entry *e;
    char *name;
    pthread_mutex_lock(&lock);
    if (index == 0 || index > used || slot_gen[index - 1] != gen || slots[index - 1].size == 0) {
        pthread_mutex_unlock(&lock);
        return JITUNWIND_ENOTFOUND;
    }
    index--;
    e = &slots[index];
    begin_write();
    __atomic_store_n(&e->size, (uint64_t)0, __ATOMIC_RELEASE); /* retires the slot first */
    name = (char *)(uintptr_t)e->name;
    e->name = 0;
    e->name_len = 0;
    jitunwind_jit_descriptor.count--;
    end_write();
    tdelete(key_of(index), &tree, compare);
    slot_gen[index]++;
    free_stack[free_count++] = (uint32_t)index;
    pthread_mutex_unlock(&lock);
    free(name);
    return 0;
}

static void no_free(void *node)
{
    (void)node;
}

JITUNWIND_API void jitunwind_jit_reset(void)
{
    struct jitunwind_jit_entry *old;
    size_t i;
    pthread_mutex_lock(&lock);
    begin_write();
    old = slots;
    jitunwind_jit_descriptor.entries = 0;
    jitunwind_jit_descriptor.capacity = 0;
    jitunwind_jit_descriptor.count = 0;
    end_write();
    for (i = 0; i < used; i++)
        free((char *)(uintptr_t)old[i].name);
    free(old);
    free(shadows);
    free(slot_gen);
    free(free_stack);
    tdestroy(tree, no_free);
    tree = NULL;
    slots = NULL;
    shadows = NULL;
    slot_gen = NULL;
    free_stack = NULL;
    free_count = capacity = used = 0;
    gen_base += 0x10000u; /* ids from before the reset stay stale */
    pthread_mutex_unlock(&lock);
}
