/* In-process registration: the slot table behind `jitunwind_jit_descriptor`.
 *
 * Writers are serialised by a mutex; readers (debuggers) follow the seqlock
 * protocol of jit.h and never block a writer. The published slot array is
 * unordered: a slot is appended or reused from a free list and patched in
 * place.
 *
 * Readers in this same process (jit.h allows them) may hold any pointer
 * they read from the descriptor for as long as they like, so nothing a
 * reader can reach is freed before jitunwind_jit_reset():
 *  - the slot array never moves (reserved_array.h: address space for
 *    JITUNWIND_JIT_MAX_SLOTS slots, made writable as the published capacity
 *    doubles), nor does the private state array beside it: nothing is
 *    copied or retired when they grow, and a slot costs memory only once
 *    written;
 *  - a name lives in a buffer owned by its slot for good: each slot belongs
 *    to one name-size class (no name, or 16, 32, ... 512 bytes), is only
 *    reused for names of its class, and keeps its buffer. A slot's `name` is
 *    therefore 0 or always the same buffer, and any `name_len` a torn read
 *    pairs with it fits that buffer. Memory stays bounded by the peak of
 *    live registrations per class. Buffers are cut from blocks (never freed
 *    one by one, so a heap chunk each would only add its header and a
 *    malloc call), the blocks from a reserved arena that never moves
 *    either.
 * Every store into published memory is an atomic release store, so
 * jitunwind_jit_read_self() (acquire loads) reads it without a data race.
 *
 * Overlap checks need an ordered index. A sorted array would make every
 * registration an O(n) memmove (milliseconds at 1M ranges, under the lock),
 * and a balanced tree (glibc's tsearch, before) costs a heap node and a
 * descent of scattered nodes per range, three times slower at 1M ranges
 * than at 1k. The private chunked span set (span_set.h) places code that
 * arrives in address order, either way, in O(1) and anything else with two
 * short searches over contiguous arrays, at 16 bytes per range (and a
 * 64-byte header per chunk of 128). Being
 * private to writers, it is off the published slots, which readers see
 * being zeroed and reallocated.
 *
 * An id is (slot generation << 32) | (slot index + 1): unregister finds the
 * slot in O(1), and an id whose slot was since reused (generation bumped on
 * every unregister) or predates a reset is rejected. */
#include <pthread.h>
#include <stdlib.h>

#include "internal.h"
#include "jit/jit_hook.h"
#include "jit/reserved_array.h"
#include "jit/span_set.h"
#include "ranges/registry_loaders.h"

JITUNWIND_API struct jitunwind_jit_descriptor jitunwind_jit_descriptor = {
    JITUNWIND_JIT_MAGIC, JITUNWIND_JIT_VERSION, sizeof(struct jitunwind_jit_entry), 0, 0, 0, 0, 0};

#define NAME_CLASSES 7u    /* 0: no name; k: a buffer of 8 << k bytes (16 ... 512) */
#define NO_SLOT ((1u << 25) - 1u) /* above any slot index (< JITUNWIND_JIT_MAX_SLOTS) */
#define NAME_BLOCK_MIN 1024u  /* the first name block of a class; then doubling */
#define NAME_BLOCK_MAX 65536u

/* Per slot, private to writers. */
struct slot_state {
    char *name_buf;      /* this slot's name buffer for good (class > 0) */
    uint32_t gen;        /* generation since the last reset (ids: + gen_base) */
    uint32_t next_free : 25; /* free list of its class; 16 bytes a slot in all */
    uint32_t name_class : 7;
};
_Static_assert(JITUNWIND_JIT_MAX_SLOTS <= NO_SLOT, "slot indices fit next_free");

/* Blocks that name buffers are cut from, kept until reset: from the name
 * arena (reserved_array.h: 2 MiB pages once large, where a million names'
 * 4 KiB pages made every registration at that size a TLB miss more), or
 * from the heap past it or without it. */
#define NAME_ARENA (256u * 1024u * 1024u)

struct name_block { /* a heap block */
    struct name_block *next;
    char bytes[];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct jitunwind_jit_entry *slots; /* published as descriptor.entries */
static struct slot_state *state;
static struct ju_reserved_array slot_array, state_array; /* slots and state live in */
static uint32_t free_head[NAME_CLASSES] = {NO_SLOT, NO_SLOT, NO_SLOT, NO_SLOT,
                                           NO_SLOT, NO_SLOT, NO_SLOT};
static size_t capacity, used;             /* used: slots ever handed out */
static struct name_block *name_blocks; /* the heap's */
static struct ju_reserved_array name_arena;
static char *name_next[NAME_CLASSES];     /* the unused part of each class's block */
static size_t name_left[NAME_CLASSES], name_block_size[NAME_CLASSES];
static uint32_t gen_base;                 /* first generation of new slots; moves on reset */
static struct ju_span_set spans = JU_SPAN_SET_INIT; /* the registered bounds */
static ju_jit_change_fn change_hook;      /* jit/jit_hook.h */

#define PUBLISH(field, value) __atomic_store_n(&(field), (value), __ATOMIC_RELEASE)

/* Every store of a write section is a release store (PUBLISH), so a reader
 * whose acquire load sees one of them also sees the odd seq before it. */
static void begin_write(void)
{
    __atomic_store_n(&jitunwind_jit_descriptor.seq, jitunwind_jit_descriptor.seq + 1,
                     __ATOMIC_RELEASE);
}

static void end_write(void)
{
    PUBLISH(jitunwind_jit_descriptor.generation, jitunwind_jit_descriptor.generation + 1);
    __atomic_store_n(&jitunwind_jit_descriptor.seq, jitunwind_jit_descriptor.seq + 1,
                     __ATOMIC_RELEASE);
}

/* Reserve the address space of both arrays once per process: room for
 * JITUNWIND_JIT_MAX_SLOTS slots, or fewer where the address space is short
 * (a 32-bit process, ulimit -v). */
static int reserve(void)
{
    size_t n;
    for (n = JITUNWIND_JIT_MAX_SLOTS; n >= 256; n /= 4) {
        if (ju_reserved_array_open(&slot_array, n * sizeof *slots) < 0)
            continue;
        if (ju_reserved_array_open(&state_array, n * sizeof *state) == 0) {
            slots = slot_array.base;
            state = state_array.base;
            return 0;
        }
        ju_reserved_array_close(&slot_array);
    }
    return JITUNWIND_ENOMEM;
}

/* Double the capacity: both arrays' next pages made writable (they read as
 * zero: free slots), then the capacity published (the array's address
 * first, when there was none, so that a torn read of the two never pairs
 * no array with a capacity). Called with the lock held, outside a write
 * section. */
static int grow(void)
{
    size_t ncap = capacity ? capacity * 2 : 256;
    int rc;
    if (!slot_array.base && reserve() < 0)
        return JITUNWIND_ENOMEM;
    if (ncap > JITUNWIND_JIT_MAX_SLOTS)
        ncap = JITUNWIND_JIT_MAX_SLOTS;
    if (ncap > slot_array.reserved / sizeof *slots)
        ncap = slot_array.reserved / sizeof *slots;
    if (ncap <= capacity)
        return JITUNWIND_ELIMIT;
    if ((rc = ju_reserved_array_grow(&slot_array, ncap * sizeof *slots)) < 0 ||
        (rc = ju_reserved_array_grow(&state_array, ncap * sizeof *state)) < 0)
        return rc;
    begin_write();
    if (!capacity)
        PUBLISH(jitunwind_jit_descriptor.entries, (uint64_t)(uintptr_t)slots);
    __atomic_store_n(&jitunwind_jit_descriptor.capacity, (uint64_t)ncap, __ATOMIC_RELEASE);
    end_write();
    capacity = ncap;
    return 0;
}

static unsigned name_class(size_t len)
{
    unsigned c = 1;
    while ((8u << c) < len + 1)
        c++;
    return c;
}

/* A name buffer of class c > 0, cut from the class's block. */
static char *new_name_buffer(unsigned c)
{
    size_t size = 8u << c;
    char *buf;
    if (name_left[c] < size) {
        size_t bytes = name_block_size[c] ? name_block_size[c] * 2 : NAME_BLOCK_MIN;
        char *block;
        if (bytes > NAME_BLOCK_MAX)
            bytes = NAME_BLOCK_MAX;
        if (!(block = ju_reserved_arena_take(&name_arena, NAME_ARENA, bytes))) {
            struct name_block *b = malloc(sizeof *b + bytes);
            if (!b)
                return NULL;
            b->next = name_blocks;
            name_blocks = b;
            block = b->bytes;
        }
        name_next[c] = block;
        name_left[c] = name_block_size[c] = bytes;
    }
    buf = name_next[c];
    name_next[c] += size;
    name_left[c] -= size;
    return buf;
}

/* A slot of name class c: a free one of that class, or a new one with its
 * buffer. */
static int take_slot(unsigned c, size_t *index)
{
    char *buf = NULL;
    int rc;
    if (free_head[c] != NO_SLOT) {
        *index = free_head[c];
        free_head[c] = state[*index].next_free;
        return 0;
    }
    if (used == capacity && (rc = grow()) < 0)
        return rc;
    if (c && !(buf = new_name_buffer(c)))
        return JITUNWIND_ENOMEM;
    *index = used++;
    state[*index] = (struct slot_state){buf, 0, NO_SLOT, c};
    return 0;
}

static void put_slot(size_t index)
{
    unsigned c = state[index].name_class;
    state[index].next_free = free_head[c];
    free_head[c] = (uint32_t)index;
}

static void notify_added(size_t index, int kind, int rule, const char *name, uint64_t cookie)
{
    struct jitunwind_range r = {0};
    r.start = slots[index].start; /* written only by writers, under the lock */
    r.end = slots[index].start + slots[index].size;
    r.kind = (uint32_t)kind;
    r.rule = (uint32_t)rule;
    r.name = name;
    r.cookie = cookie;
    change_hook(JU_JIT_ADDED, &r);
}

void ju_jit_set_change_hook(ju_jit_change_fn fn)
{
    size_t i;
    pthread_mutex_lock(&lock);
    change_hook = fn;
    for (i = 0; fn && i < used; i++)
        if (slots[i].size)
            notify_added(i, (int)slots[i].kind, (int)slots[i].rule,
                         slots[i].name ? state[i].name_buf : NULL, slots[i].cookie);
    pthread_mutex_unlock(&lock);
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
    size_t index, len = name ? strnlen(name, JITUNWIND_NAME_MAX - 1) : 0;
    uint64_t at = (uint64_t)(uintptr_t)start;
    int rc;
    if (!valid_args(start, size, kind, rule))
        return JITUNWIND_EINVAL;
    pthread_mutex_lock(&lock);
    if ((rc = take_slot(name ? name_class(len) : 0, &index)) < 0)
        goto fail;
    /* The slot and its name buffer are written after the overlap check: at
     * a large table both are cache misses, which the search then overlaps. */
    __builtin_prefetch(&slots[index], 1);
    if (name)
        __builtin_prefetch(state[index].name_buf, 1);
    if ((rc = ju_span_set_insert(&spans, at, at + size)) < 0) { /* EOVERLAP or ENOMEM */
        put_slot(index);
        goto fail;
    }
    begin_write();
    e = &slots[index];
    if (name) {
        char *buf = state[index].name_buf;
        for (size_t i = 0; i < len; i++)
            PUBLISH(buf[i], name[i]);
        PUBLISH(buf[len], '\0');
    }
    PUBLISH(e->start, at);
    PUBLISH(e->kind, (uint32_t)kind);
    PUBLISH(e->rule, (uint32_t)rule);
    PUBLISH(e->stride, 0u);
    PUBLISH(e->name_len, (uint32_t)len);
    PUBLISH(e->name, name ? (uint64_t)(uintptr_t)state[index].name_buf : 0);
    PUBLISH(e->cookie, cookie);
    __atomic_store_n(&e->size, (uint64_t)size, __ATOMIC_RELEASE); /* publishes the slot */
    PUBLISH(jitunwind_jit_descriptor.count, jitunwind_jit_descriptor.count + 1);
    end_write();
    if (change_hook)
        notify_added(index, kind, rule, name ? state[index].name_buf : NULL, cookie);
    if (id)
        *id = ((uint64_t)(gen_base + state[index].gen) << 32) | (uint64_t)(index + 1);
    pthread_mutex_unlock(&lock);
    return 0;
fail:
    pthread_mutex_unlock(&lock);
    return rc;
}

JITUNWIND_API int jitunwind_jit_unregister(jitunwind_jit_id id)
{
    size_t index = (size_t)(id & 0xffffffffu);
    uint32_t gen = (uint32_t)(id >> 32);
    struct jitunwind_jit_entry *e;
    pthread_mutex_lock(&lock);
    if (index == 0 || index > used || gen_base + state[index - 1].gen != gen ||
        slots[index - 1].size == 0) {
        pthread_mutex_unlock(&lock);
        return JITUNWIND_ENOTFOUND;
    }
    index--;
    e = &slots[index];
    begin_write();
    __atomic_store_n(&e->size, (uint64_t)0, __ATOMIC_RELEASE); /* retires the slot first */
    PUBLISH(e->name, (uint64_t)0);
    PUBLISH(e->name_len, 0u);
    PUBLISH(jitunwind_jit_descriptor.count, jitunwind_jit_descriptor.count - 1);
    end_write();
    ju_span_set_remove(&spans, e->start); /* e->start: written only by writers */
    if (change_hook) {
        struct jitunwind_range gone = {0};
        gone.start = e->start;
        change_hook(JU_JIT_REMOVED, &gone);
    }
    state[index].gen++;
    put_slot(index); /* its name buffer stays with it */
    pthread_mutex_unlock(&lock);
    return 0;
}

JITUNWIND_API void jitunwind_jit_reset(void)
{
    size_t i;
    pthread_mutex_lock(&lock);
    begin_write();
    PUBLISH(jitunwind_jit_descriptor.entries, (uint64_t)0);
    PUBLISH(jitunwind_jit_descriptor.capacity, (uint64_t)0);
    PUBLISH(jitunwind_jit_descriptor.count, (uint64_t)0);
    end_write();
    while (name_blocks) {
        struct name_block *next = name_blocks->next;
        free(name_blocks);
        name_blocks = next;
    }
    memset(name_left, 0, sizeof name_left);
    memset(name_block_size, 0, sizeof name_block_size);
    ju_reserved_array_clear(&name_arena);
    ju_reserved_array_clear(&slot_array); /* every slot free (zero) again */
    ju_reserved_array_clear(&state_array);
    ju_span_set_clear(&spans);
    for (i = 0; i < NAME_CLASSES; i++)
        free_head[i] = NO_SLOT;
    capacity = used = 0;
    gen_base += 0x10000u; /* ids from before the reset stay stale */
    if (change_hook)
        change_hook(JU_JIT_CLEARED, NULL);
    pthread_mutex_unlock(&lock);
}
