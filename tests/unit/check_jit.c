/* In-process registration and reading the descriptor back as a debugger
 * would: through a memory reader, into a registry. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "builder.h"
#include "internal.h"
#include "suite.h"

/* Read this process's memory through process_vm_readv, like a debugger. */
static int self_read(void *arg, uint64_t addr, void *dst, size_t len)
{
    struct iovec l = {dst, len}, r = {(void *)(uintptr_t)addr, len};
    (void)arg;
    return process_vm_readv(getpid(), &l, 1, &r, 1, 0) == (ssize_t)len ? 0 : JITUNWIND_EREAD;
}

static const struct jitunwind_memory SELF = {sizeof(struct jitunwind_memory), self_read, NULL};
static char code[64][256]; /* stand-in code regions */

static uint64_t desc_addr(void)
{
    return (uint64_t)(uintptr_t)&jitunwind_jit_descriptor;
}

START_TEST(round_trip_through_memory)
{
    jitunwind_registry *reg;
    jitunwind_jit_id ids[3];
    struct jitunwind_jit_read_info info;
    const struct jitunwind_range *r;
    uint64_t gen0 = jitunwind_jit_descriptor.generation;
    jitunwind_jit_reset();
    ck_assert_int_eq(jitunwind_jit_register(code[0], 256, JITUNWIND_KIND_JIT,
                                            JITUNWIND_RULE_FP_PRESERVING, "py::jit:a", 11, &ids[0]), 0);
    ck_assert_int_eq(jitunwind_jit_register(code[1], 128, JITUNWIND_KIND_TRAMPOLINE,
                                            JITUNWIND_RULE_TRAMPOLINE_SUB8, "t", 0, &ids[1]), 0);
    ck_assert_int_eq(jitunwind_jit_register(code[2], 64, JITUNWIND_KIND_JIT,
                                            JITUNWIND_RULE_FP_PRESERVING, NULL, 0, &ids[2]), 0);
    ck_assert_uint_eq(jitunwind_jit_descriptor.count, 3);
    ck_assert_uint_gt(jitunwind_jit_descriptor.generation, gen0);
    ck_assert_uint_eq(jitunwind_jit_descriptor.seq % 2, 0);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_jit_read_descriptor(reg, &SELF, desc_addr(), &info), 0);
    ck_assert_uint_eq(info.added, 3);
    ck_assert_uint_eq(info.skipped, 0);
    ck_assert_uint_eq(info.torn, 0);
    ck_assert_uint_eq(info.generation, jitunwind_jit_descriptor.generation);
    r = jitunwind_registry_lookup(reg, (uint64_t)(uintptr_t)code[0] + 255);
    ck_assert_ptr_nonnull(r);
    ck_assert_str_eq(r->name, "py::jit:a");
    ck_assert_uint_eq(r->cookie, 11);
    ck_assert_int_eq(r->origin, JITUNWIND_ORIGIN_DESCRIPTOR);
    ck_assert_int_eq(jitunwind_registry_lookup(reg, (uint64_t)(uintptr_t)code[1])->rule,
                     JITUNWIND_RULE_TRAMPOLINE_SUB8);
    ck_assert_ptr_null(jitunwind_registry_lookup(reg, (uint64_t)(uintptr_t)code[2])->name);
    /* Unregister one: the next read no longer has it. */
    ck_assert_int_eq(jitunwind_jit_unregister(ids[1]), 0);
    ck_assert_int_eq(jitunwind_jit_unregister(ids[1]), JITUNWIND_ENOTFOUND); /* stale */
    jitunwind_registry_clear(reg);
    ck_assert_int_eq(jitunwind_jit_read_descriptor(reg, &SELF, desc_addr(), &info), 0);
    ck_assert_uint_eq(info.added, 2);
    ck_assert_ptr_null(jitunwind_registry_lookup(reg, (uint64_t)(uintptr_t)code[1]));
    jitunwind_registry_free(reg);
    jitunwind_jit_reset();
    ck_assert_int_eq(jitunwind_jit_unregister(ids[0]), JITUNWIND_ENOTFOUND); /* gone with reset */
}
END_TEST

START_TEST(register_validates_and_rejects_overlap)
{
    jitunwind_jit_id id, id2;
    jitunwind_jit_reset();
    ck_assert_int_eq(jitunwind_jit_register(code[3], 100, JITUNWIND_KIND_JIT,
                                            JITUNWIND_RULE_FP_PRESERVING, "x", 0, &id), 0);
    ck_assert_int_eq(jitunwind_jit_register(code[3] + 99, 10, JITUNWIND_KIND_JIT,
                                            JITUNWIND_RULE_FP_PRESERVING, "y", 0, &id2),
                     JITUNWIND_EOVERLAP);
    ck_assert_int_eq(jitunwind_jit_register(code[3] + 100, 10, JITUNWIND_KIND_JIT,
                                            JITUNWIND_RULE_FP_PRESERVING, "z", 0, &id2), 0);
    ck_assert_int_eq(jitunwind_jit_register(code[4], 0, JITUNWIND_KIND_JIT,
                                            JITUNWIND_RULE_FP_PRESERVING, NULL, 0, NULL),
                     JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_jit_register(NULL, 10, JITUNWIND_KIND_JIT,
                                            JITUNWIND_RULE_FP_PRESERVING, NULL, 0, NULL),
                     JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_jit_register((void *)(uintptr_t)(UINT64_MAX - 4), 10,
                                            JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING,
                                            NULL, 0, NULL),
                     JITUNWIND_EINVAL); /* wraps */
    ck_assert_int_eq(jitunwind_jit_register(code[4], 10, JITUNWIND_KIND_JIT, 77, NULL, 0, NULL),
                     JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_jit_unregister(0), JITUNWIND_ENOTFOUND);
    ck_assert_int_eq(jitunwind_jit_unregister(0xffffffffffffull), JITUNWIND_ENOTFOUND);
    jitunwind_jit_reset();
}
END_TEST

START_TEST(slot_reuse_growth_and_stale_ids)
{
    /* Many registrations force the slot array to grow (published while the
     * old one is still valid); unregistering and re-registering reuses slots
     * with new generations, so old ids stay stale. */
    enum { N = 3000 };
    static jitunwind_jit_id ids[N];
    static char big[N * 16];
    jitunwind_registry *reg;
    struct jitunwind_jit_read_info info;
    jitunwind_jit_id old;
    int i;
    jitunwind_jit_reset();
    for (i = 0; i < N; i++)
        ck_assert_int_eq(jitunwind_jit_register(big + i * 16, 16, JITUNWIND_KIND_JIT,
                                                JITUNWIND_RULE_FP_PRESERVING, "r", (uint64_t)i, &ids[i]), 0);
    ck_assert_uint_ge(jitunwind_jit_descriptor.capacity, N);
    for (i = 0; i < N; i += 2)
        ck_assert_int_eq(jitunwind_jit_unregister(ids[i]), 0);
    old = ids[0];
    ck_assert_int_eq(jitunwind_jit_register(big, 16, JITUNWIND_KIND_JIT,
                                            JITUNWIND_RULE_FP_PRESERVING, "again", 0, &ids[0]), 0);
    ck_assert_uint_ne(ids[0], old);
    ck_assert_int_eq(jitunwind_jit_unregister(old), JITUNWIND_ENOTFOUND);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_jit_read_descriptor(reg, &SELF, desc_addr(), &info), 0);
    ck_assert_uint_eq(info.added, N / 2 + 1);
    ck_assert_str_eq(jitunwind_registry_lookup(reg, (uint64_t)(uintptr_t)big)->name, "again");
    ck_assert_ptr_null(jitunwind_registry_lookup(reg, (uint64_t)(uintptr_t)big + 32));
    ck_assert_ptr_nonnull(jitunwind_registry_lookup(reg, (uint64_t)(uintptr_t)big + 48));
    jitunwind_registry_free(reg);
    jitunwind_jit_reset();
}
END_TEST

START_TEST(the_slot_array_never_moves_and_reset_frees_every_slot)
{
    /* Grown well past what a reset keeps (reserved_array.h), the published
     * array stays where it was (a reader's old pointer stays good, nothing
     * is copied), its capacity doubling; after a reset and a refill every
     * slot past the ones written reads free, nothing of before shows. */
    enum { N = 20000 };
    static jitunwind_jit_id ids[N];
    static char ranges_code[N * 16];
    const struct jitunwind_jit_entry *e;
    uint64_t first;
    jitunwind_registry *reg;
    struct jitunwind_jit_read_info info;
    int i, round;
    jitunwind_jit_reset();
    for (round = 0; round < 2; round++) {
        for (i = 0; i < N; i++) {
            ck_assert_int_eq(jitunwind_jit_register(ranges_code + i * 16, 16, JITUNWIND_KIND_JIT,
                                                    JITUNWIND_RULE_FP_PRESERVING,
                                                    round ? "second" : "first", 0, &ids[i]), 0);
            if (i == 0 && round == 0)
                first = jitunwind_jit_descriptor.entries;
            ck_assert_uint_eq(jitunwind_jit_descriptor.entries, first);
        }
        ck_assert_uint_ge(jitunwind_jit_descriptor.capacity, N);
        ck_assert_uint_lt(jitunwind_jit_descriptor.capacity, 2 * N);
        e = (const struct jitunwind_jit_entry *)(uintptr_t)first;
        for (i = N; i < (int)jitunwind_jit_descriptor.capacity; i++)
            ck_assert_uint_eq(e[i].size, 0);
        ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
        ck_assert_int_eq(jitunwind_jit_read_descriptor(reg, &SELF, desc_addr(), &info), 0);
        ck_assert_uint_eq(info.added, N);
        ck_assert_str_eq(jitunwind_registry_lookup(reg, (uint64_t)(uintptr_t)ranges_code + 16 * (N - 1))->name,
                         round ? "second" : "first");
        jitunwind_registry_free(reg);
        /* Half unregistered before the reset: the free lists go too. */
        for (i = 0; i < N; i += 2)
            ck_assert_int_eq(jitunwind_jit_unregister(ids[i]), 0);
        jitunwind_jit_reset();
        ck_assert_uint_eq(jitunwind_jit_descriptor.entries, 0);
        ck_assert_uint_eq(jitunwind_jit_descriptor.capacity, 0);
        ck_assert_uint_eq(jitunwind_jit_descriptor.count, 0);
        ck_assert_int_eq(jitunwind_jit_unregister(ids[1]), JITUNWIND_ENOTFOUND);
    }
}
END_TEST

/* A synthetic descriptor in a builder image, for corrupt and torn cases. */
#define D 0x10000ull
#define SLOTS 0x20000ull
#define NAME 0x30000ull

static void write_descriptor(struct ju_builder *b, uint64_t seq, uint64_t capacity, uint32_t esize)
{
    ju_builder_write(b, D, JITUNWIND_JIT_MAGIC, 8);
    ju_builder_u32(b, D + 8, JITUNWIND_JIT_VERSION);
    ju_builder_u32(b, D + 12, esize);
    ju_builder_u64(b, D + 16, seq);
    ju_builder_u64(b, D + 24, SLOTS);
    ju_builder_u64(b, D + 32, capacity);
    ju_builder_u64(b, D + 40, 1);
    ju_builder_u64(b, D + 48, 5);
}

static void write_slot(struct ju_builder *b, int i, uint64_t start, uint64_t size)
{
    uint64_t s = SLOTS + (uint64_t)i * sizeof(struct jitunwind_jit_entry);
    ju_builder_u64(b, s, start);
    ju_builder_u64(b, s + 8, size);
    ju_builder_u32(b, s + 16, JITUNWIND_KIND_JIT);
    ju_builder_u32(b, s + 20, JITUNWIND_RULE_FP_PRESERVING);
    ju_builder_u32(b, s + 28, 4);
    ju_builder_u64(b, s + 32, NAME);
}

START_TEST(corrupt_and_torn_descriptors)
{
    struct ju_builder *b = ju_builder_new();
    struct jitunwind_memory mem = ju_builder_memory(b);
    jitunwind_registry *reg;
    struct jitunwind_jit_read_info info;
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_jit_read_descriptor(reg, &mem, D, &info), JITUNWIND_EREAD);
    write_descriptor(b, 2, 2, sizeof(struct jitunwind_jit_entry));
    ju_builder_write(b, NAME, "jit!", 4);
    write_slot(b, 0, 0x400000, 0x100);
    write_slot(b, 1, 0x4000f0, 0x100); /* overlaps slot 0: skipped, not fatal */
    ck_assert_int_eq(jitunwind_jit_read_descriptor(reg, &mem, D, &info), 0);
    ck_assert_uint_eq(info.added, 1);
    ck_assert_uint_eq(info.skipped, 1);
    ck_assert_str_eq(jitunwind_registry_lookup(reg, 0x400010)->name, "jit!");
    /* A writer stopped mid-update (odd seq, process not moving): used, flagged. */
    jitunwind_registry_clear(reg);
    ju_builder_u64(b, D + 16, 3);
    ck_assert_int_eq(jitunwind_jit_read_descriptor(reg, &mem, D, &info), 0);
    ck_assert_uint_eq(info.torn, 1);
    ck_assert_uint_eq(info.added, 1);
    /* Slots unreadable (array freed under us) and never consistent: EREAD. */
    ju_builder_u64(b, D + 16, 4);
    ju_builder_unmap(b, SLOTS);
    ck_assert_int_lt(jitunwind_jit_read_descriptor(reg, &mem, D, &info), 0);
    /* Huge capacity, bad entry size, bad magic, newer version. */
    write_descriptor(b, 2, (uint64_t)JITUNWIND_JIT_MAX_SLOTS + 1, sizeof(struct jitunwind_jit_entry));
    ck_assert_int_eq(jitunwind_jit_read_descriptor(reg, &mem, D, &info), JITUNWIND_ECORRUPT);
    write_descriptor(b, 2, 2, 3);
    ck_assert_int_eq(jitunwind_jit_read_descriptor(reg, &mem, D, &info), JITUNWIND_ECORRUPT);
    write_descriptor(b, 2, 2, sizeof(struct jitunwind_jit_entry));
    ju_builder_u32(b, D + 8, 99);
    ck_assert_int_eq(jitunwind_jit_read_descriptor(reg, &mem, D, &info), JITUNWIND_EVERSION);
    ju_builder_write(b, D, "garbage!", 8);
    ck_assert_int_eq(jitunwind_jit_read_descriptor(reg, &mem, D, &info), JITUNWIND_ECORRUPT);
    ck_assert_ptr_nonnull(strstr(jitunwind_registry_last_error(reg)->message, "magic"));
    jitunwind_registry_free(reg);
    ju_builder_free(b);
}
END_TEST

/* A reader that runs a hook after every read of the descriptor header, to
 * play a writer racing with the debugger. */
struct racing {
    struct ju_builder *b;
    uint64_t header_reads;
    uint64_t reads;
    void (*hook)(struct racing *r);
};

static int racing_read(void *arg, uint64_t addr, void *dst, size_t len)
{
    struct racing *r = arg;
    struct jitunwind_memory inner = ju_builder_memory(r->b);
    int rc = inner.read(inner.arg, addr, dst, len);
    r->reads++;
    if (addr == D && len == sizeof(struct jitunwind_jit_descriptor)) {
        r->header_reads++;
        if (r->hook)
            r->hook(r);
    }
    return rc;
}

static void bump_seq_by_one(struct racing *r) /* a writer entering or leaving a mutation */
{
    uint64_t seq;
    struct jitunwind_memory m = ju_builder_memory(r->b);
    ck_assert_int_eq(ju_read_u64(&m, D + 16, &seq), 0);
    ju_builder_u64(r->b, D + 16, seq + 1);
}

static void new_odd_seq_per_attempt(struct racing *r) /* stays odd, but moves between attempts */
{
    uint64_t seq;
    struct jitunwind_memory m = ju_builder_memory(r->b);
    if (r->header_reads % 2 == 0) {
        ck_assert_int_eq(ju_read_u64(&m, D + 16, &seq), 0);
        ju_builder_u64(r->b, D + 16, seq + 2);
    }
}

START_TEST(moving_and_stopped_writers)
{
    struct racing race = {ju_builder_new(), 0, 0, NULL};
    struct jitunwind_memory mem = {sizeof(struct jitunwind_memory), racing_read, &race};
    jitunwind_registry *reg;
    struct jitunwind_jit_read_info info;
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    write_descriptor(race.b, 2, 2, sizeof(struct jitunwind_jit_entry));
    ju_builder_write(race.b, NAME, "jit!", 4);
    write_slot(race.b, 0, 0x400000, 0x100);
    /* A writer that never stops: EBUSY after bounded attempts. */
    race.hook = bump_seq_by_one;
    ck_assert_int_eq(jitunwind_jit_read_descriptor(reg, &mem, D, &info), JITUNWIND_EBUSY);
    ck_assert_uint_ge(info.retries, 2);
    ck_assert_uint_le(race.header_reads, 3 * (uint64_t)info.retries + 3);
    ck_assert_uint_eq(jitunwind_registry_count(reg), 0);
    ck_assert_ptr_nonnull(strstr(jitunwind_registry_last_error(reg)->message, "changing"));
    /* Odd on every attempt but a different odd value each time: a live
     * writer, not a stopped one; never taken as torn. */
    ju_builder_u64(race.b, D + 16, 5);
    race.hook = new_odd_seq_per_attempt;
    ck_assert_int_eq(jitunwind_jit_read_descriptor(reg, &mem, D, &info), JITUNWIND_EBUSY);
    ck_assert_uint_eq(info.torn, 0);
    /* The same odd value every time: stopped mid-update; used and flagged,
     * after more than one look. */
    race.hook = NULL;
    race.header_reads = 0;
    ck_assert_int_eq(jitunwind_jit_read_descriptor(reg, &mem, D, &info), 0);
    ck_assert_uint_eq(info.torn, 1);
    ck_assert_uint_ge(info.retries, 1);
    ck_assert_uint_eq(race.header_reads, 3 * ((uint64_t)info.retries + 1)); /* before, again, after */
    ck_assert_uint_eq(info.added, 1);
    /* Even and stable, but the slot array is gone: fails at once, no retries. */
    jitunwind_registry_clear(reg);
    ju_builder_u64(race.b, D + 16, 8);
    ju_builder_unmap(race.b, SLOTS);
    race.reads = 0;
    ck_assert_int_eq(jitunwind_jit_read_descriptor(reg, &mem, D, &info), JITUNWIND_EREAD);
    ck_assert_uint_eq(info.retries, 0);
    ck_assert_uint_le(race.reads, 4); /* the header twice, the slots, the header */
    ck_assert_ptr_nonnull(strstr(jitunwind_registry_last_error(reg)->message, "slot array"));
    jitunwind_registry_free(reg);
    ju_builder_free(race.b);
}
END_TEST

START_TEST(invalid_slots_are_skipped_and_names_bounded)
{
    struct ju_builder *b = ju_builder_new();
    struct jitunwind_memory mem = ju_builder_memory(b);
    jitunwind_registry *reg;
    struct jitunwind_jit_read_info info;
    char long_name[2048];
    const uint32_t esize = 64; /* a newer, larger entry format */
    memset(long_name, 'n', sizeof long_name);
    ju_builder_write(b, NAME, long_name, sizeof long_name);
    write_descriptor(b, 2, 6, esize);
    /* write_slot assumes the current size; place the slots by hand. */
#define SLOT(i, start, size, kind, rule, name_len)                                \
    do {                                                                       \
        uint64_t s_ = SLOTS + (uint64_t)(i) * esize;                           \
        ju_builder_u64(b, s_, start);                                          \
        ju_builder_u64(b, s_ + 8, size);                                       \
        ju_builder_u32(b, s_ + 16, kind);                                      \
        ju_builder_u32(b, s_ + 20, rule);                                      \
        ju_builder_u32(b, s_ + 28, name_len);                                  \
        ju_builder_u64(b, s_ + 32, NAME);                                      \
        ju_builder_u64(b, s_ + 48, 0xffffffffffffffffull); /* unknown tail */ \
    } while (0)
    SLOT(0, 0x400000, 0x100, JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING, 0xffffffffu);
    SLOT(1, UINT64_MAX - 0x10, 0x100, JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING, 4); /* wraps */
    SLOT(2, 0x500000, 0x100, JITUNWIND_KIND_JIT, 9, 4);                                     /* bad rule */
    SLOT(3, 0x600000, 0x100, 0, JITUNWIND_RULE_FP_PRESERVING, 4);                           /* bad kind */
    SLOT(4, 0x700000, 0, JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING, 4);              /* empty */
    SLOT(5, 0x380000, 0x10, JITUNWIND_KIND_TRAMPOLINE, JITUNWIND_RULE_TRAMPOLINE_SUB8, 3);
#undef SLOT
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_jit_read_descriptor(reg, &mem, D, &info), 0);
    ck_assert_uint_eq(info.added, 2);
    ck_assert_uint_eq(info.skipped, 3); /* the empty slot is not a slot at all */
    ck_assert_uint_eq(strlen(jitunwind_registry_lookup(reg, 0x400000)->name), JITUNWIND_NAME_MAX - 1);
    ck_assert_str_eq(jitunwind_registry_lookup(reg, 0x380000)->name, "nnn");
    ck_assert_uint_eq(jitunwind_registry_at(reg, 0)->start, 0x380000); /* sorted */
    /* A name that cannot be read leaves the range without a name. */
    jitunwind_registry_clear(reg);
    ju_builder_unmap(b, NAME);
    ck_assert_int_eq(jitunwind_jit_read_descriptor(reg, &mem, D, &info), 0);
    ck_assert_uint_eq(info.added, 2);
    ck_assert_ptr_null(jitunwind_registry_lookup(reg, 0x380000)->name);
    jitunwind_registry_free(reg);
    ju_builder_free(b);
}
END_TEST


/* A slot whose size was corrupted to 2^63 claimed every
 * native frame above it (libc's) for its rule. Sizes read from a target
 * are bounded (JITUNWIND_MAX_TARGET_RANGE); a range over a mapped module is
 * dropped by jitunwind_registry_drop_over_modules. */
START_TEST(absurd_slot_sizes_and_ranges_over_modules_are_refused)
{
    struct ju_builder *b = ju_builder_new();
    struct jitunwind_memory mem = ju_builder_memory(b);
    jitunwind_registry *reg;
    jitunwind_modules *mods;
    struct jitunwind_jit_read_info info;
    struct jitunwind_range user = {0};
    uint64_t text = (uint64_t)(uintptr_t)&absurd_slot_sizes_and_ranges_over_modules_are_refused;
    ju_builder_write(b, NAME, "name", 4);
    write_descriptor(b, 2, 4, sizeof(struct jitunwind_jit_entry));
    write_slot(b, 0, 0x400000, 1ull << 63);
    write_slot(b, 1, 0x800000, JITUNWIND_MAX_TARGET_RANGE + 1);
    write_slot(b, 2, 0x7f0000, 0x100);
    write_slot(b, 3, text & ~0xfffull, 0x100); /* inside this program's own code */
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_jit_read_descriptor(reg, &mem, D, &info), 0);
    ck_assert_uint_eq(info.added, 2);
    ck_assert_uint_eq(info.skipped, 2);
    ck_assert_ptr_null(jitunwind_registry_lookup(reg, 0x400000));
    ck_assert_ptr_null(jitunwind_registry_lookup(reg, 0x800000));
    /* The caller's own ranges are not bounded. */
    user.start = 1ull << 40;
    user.end = user.start + (JITUNWIND_MAX_TARGET_RANGE << 2);
    user.kind = JITUNWIND_KIND_JIT;
    user.rule = JITUNWIND_RULE_FP_PRESERVING;
    ck_assert_int_eq(jitunwind_registry_add(reg, &user), 0);
    /* The slot over this program's code goes once its modules are known. */
    ck_assert_int_eq(jitunwind_modules_new(&mods), 0);
    ck_assert_int_eq(jitunwind_modules_load_proc(mods, getpid()), 0);
    ck_assert_uint_eq(jitunwind_registry_drop_over_modules(reg, mods), 1);
    ck_assert_ptr_null(jitunwind_registry_lookup(reg, text & ~0xfffull));
    ck_assert_ptr_nonnull(jitunwind_registry_lookup(reg, 0x7f0000));
    ck_assert_ptr_nonnull(jitunwind_registry_lookup(reg, user.start));
    ck_assert_uint_eq(jitunwind_registry_drop_over_modules(reg, mods), 0);
    ck_assert_uint_eq(jitunwind_registry_drop_over_modules(NULL, mods), 0);
    jitunwind_modules_free(mods);
    jitunwind_registry_free(reg);
    ju_builder_free(b);
}
END_TEST

START_TEST(overlap_checks_match_a_model)
{
    /* Random registrations and unregistrations over a small address space,
     * checked against a brute-force model of which bytes are taken. */
    enum { SPACE = 4096, OPS = 4000, MAXR = 256 };
    static unsigned char taken[SPACE];
    static char arena[SPACE];
    jitunwind_jit_id ids[MAXR];
    size_t starts[MAXR], sizes[MAXR], live = 0, i;
    uint64_t state = 12345;
    int op;
    jitunwind_jit_reset();
    memset(taken, 0, sizeof taken);
    for (op = 0; op < OPS; op++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        if (live > 0 && (live == MAXR || (state >> 60) < 6)) {
            size_t k = (size_t)(state >> 33) % live;
            ck_assert_int_eq(jitunwind_jit_unregister(ids[k]), 0);
            memset(taken + starts[k], 0, sizes[k]);
            ids[k] = ids[live - 1];
            starts[k] = starts[live - 1];
            sizes[k] = sizes[live - 1];
            live--;
        } else {
            size_t start = (size_t)(state >> 33) % SPACE;
            size_t size = 1 + (size_t)(state >> 20) % 64;
            int expect_overlap = 0, rc;
            if (start + size > SPACE)
                size = SPACE - start;
            for (i = start; i < start + size; i++)
                expect_overlap |= taken[i];
            rc = jitunwind_jit_register(arena + start, size, JITUNWIND_KIND_JIT,
                                        JITUNWIND_RULE_FP_PRESERVING, NULL, 0, &ids[live]);
            ck_assert_int_eq(rc, expect_overlap ? JITUNWIND_EOVERLAP : 0);
            if (rc == 0) {
                memset(taken + start, 1, size);
                starts[live] = start;
                sizes[live++] = size;
            }
        }
        ck_assert_uint_eq(jitunwind_jit_descriptor.count, live);
    }
    jitunwind_jit_reset();
}
END_TEST

START_TEST(register_unregister_cycles_reuse_slots)
{
    static char region[64];
    jitunwind_jit_id prev = 0, id;
    uint64_t capacity;
    int i;
    jitunwind_jit_reset();
    ck_assert_int_eq(jitunwind_jit_register(region, 64, JITUNWIND_KIND_JIT,
                                            JITUNWIND_RULE_FP_PRESERVING, "a", 0, &id), 0);
    capacity = jitunwind_jit_descriptor.capacity;
    ck_assert_int_eq(jitunwind_jit_unregister(id), 0);
    for (i = 0; i < 100000; i++) {
        ck_assert_int_eq(jitunwind_jit_register(region, 64, JITUNWIND_KIND_JIT,
                                                JITUNWIND_RULE_FP_PRESERVING, "a", 0, &id), 0);
        ck_assert_uint_ne(id, prev);
        ck_assert_int_eq(jitunwind_jit_unregister(id), 0);
        ck_assert_int_eq(jitunwind_jit_unregister(id), JITUNWIND_ENOTFOUND);
        prev = id;
    }
    ck_assert_uint_eq(jitunwind_jit_descriptor.capacity, capacity); /* one slot, reused */
    ck_assert_uint_eq(jitunwind_jit_descriptor.count, 0);
    ck_assert_uint_eq(jitunwind_jit_descriptor.seq % 2, 0);
    jitunwind_jit_reset();
}
END_TEST

/* Writers mutate the table while this thread reads it through
 * process_vm_readv, as a debugger would: every read that succeeds must be a
 * table the writers could have produced. */
enum { POOL = 64, WRITERS = 2 };
static char pool[WRITERS][POOL][128];
static atomic_int stop_writers; /* read by the writer threads, set by the test */

static size_t pool_size(int w, int i)
{
    return 32 + (size_t)((w * POOL + i) % 4) * 32;
}

static void *writer(void *arg)
{
    int w = (int)(intptr_t)arg, i = 0;
    jitunwind_jit_id ids[POOL] = {0};
    char name[32];
    struct timespec pause = {0, 50000};
    while (!stop_writers) {
        if (ids[i]) {
            ck_assert_int_eq(jitunwind_jit_unregister(ids[i]), 0);
            ids[i] = 0;
        } else {
            snprintf(name, sizeof name, "w%d:%d", w, i);
            ck_assert_int_eq(jitunwind_jit_register(pool[w][i], pool_size(w, i), JITUNWIND_KIND_JIT,
                                                    JITUNWIND_RULE_FP_PRESERVING, name, (uint64_t)i,
                                                    &ids[i]), 0);
        }
        i = (i * 7 + 3) % POOL;
        nanosleep(&pause, NULL);
    }
    for (i = 0; i < POOL; i++)
        if (ids[i])
            ck_assert_int_eq(jitunwind_jit_unregister(ids[i]), 0);
    return NULL;
}

START_TEST(concurrent_writers_and_a_reader)
{
    pthread_t t[WRITERS];
    int w, round, ok = 0, busy = 0;
    jitunwind_jit_reset();
    stop_writers = 0;
    for (w = 0; w < WRITERS; w++)
        ck_assert_int_eq(pthread_create(&t[w], NULL, writer, (void *)(intptr_t)w), 0);
    for (round = 0; round < 300; round++) {
        jitunwind_registry *reg;
        struct jitunwind_jit_read_info info;
        size_t k;
        int rc;
        ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
        rc = jitunwind_jit_read_descriptor(reg, &SELF, desc_addr(), &info);
        ck_assert_msg(rc == 0 || rc == JITUNWIND_EBUSY, "rc %d: %s", rc,
                      jitunwind_registry_last_error(reg)->message);
        if (rc == 0) {
            ok++;
            ck_assert_uint_eq(info.skipped, 0);
            for (k = 0; k < jitunwind_registry_count(reg); k++) {
                const struct jitunwind_range *r = jitunwind_registry_at(reg, k);
                uint64_t off = r->start - (uint64_t)(uintptr_t)pool;
                int ww = (int)(off / sizeof pool[0]), i = (int)(off % sizeof pool[0] / sizeof pool[0][0]);
                char name[32];
                ck_assert_uint_lt(off, sizeof pool);
                ck_assert_uint_eq(r->start, (uint64_t)(uintptr_t)pool[ww][i]);
                ck_assert_uint_eq(r->end - r->start, pool_size(ww, i));
                ck_assert_uint_eq(r->cookie, (uint64_t)i);
                snprintf(name, sizeof name, "w%d:%d", ww, i);
                ck_assert_ptr_nonnull(r->name);
                ck_assert_str_eq(r->name, name);
            }
        } else {
            busy++;
        }
        jitunwind_registry_free(reg);
    }
    stop_writers = 1;
    for (w = 0; w < WRITERS; w++)
        pthread_join(t[w], NULL);
    ck_assert_int_gt(ok, 0);
    ck_assert_uint_eq(jitunwind_jit_descriptor.count, 0);
    ck_assert_uint_eq(jitunwind_jit_descriptor.seq % 2, 0);
    printf("concurrent reads: %d consistent, %d busy\n", ok, busy);
    jitunwind_jit_reset();
}
END_TEST

/* A descriptor whose slots are computed, not stored: `slots` tiny unnamed
 * ranges, 16 bytes apart, in a table at MANY_SLOTS. */
#define MANY_SLOTS 0x100000000ull
#define MANY_CODE 0x200000000ull

static int many_read(void *arg, uint64_t addr, void *dst, size_t len)
{
    const uint64_t slots = *(const uint64_t *)arg, esize = sizeof(struct jitunwind_jit_entry);
    uint8_t *out = dst;
    if (addr == D && len == sizeof(struct jitunwind_jit_descriptor)) {
        struct jitunwind_jit_descriptor d = {{0}, JITUNWIND_JIT_VERSION, (uint32_t)esize, 2,
                                             MANY_SLOTS, slots, slots, 7};
        memcpy(d.magic, JITUNWIND_JIT_MAGIC, sizeof d.magic);
        memcpy(dst, &d, sizeof d);
        return 0;
    }
    if (addr < MANY_SLOTS || addr + len > MANY_SLOTS + slots * esize)
        return JITUNWIND_EREAD;
    while (len) {
        uint64_t i = (addr - MANY_SLOTS) / esize, skip = (addr - MANY_SLOTS) % esize;
        size_t n = len < esize - skip ? len : (size_t)(esize - skip);
        struct jitunwind_jit_entry e = {MANY_CODE + i * 16, 16, JITUNWIND_KIND_JIT,
                                        JITUNWIND_RULE_FP_PRESERVING, 0, 0, 0, i};
        memcpy(out, (const uint8_t *)&e + skip, n);
        out += n;
        addr += n;
        len -= n;
    }
    return 0;
}

/* Built with AddressSanitizer (gcc defines __SANITIZE_ADDRESS__, clang
 * answers __has_feature). */
#if defined(__SANITIZE_ADDRESS__)
#define JU_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define JU_TEST_ASAN 1
#endif
#endif

static long max_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* The target chooses how many slots there are (up to 16 million): the
 * debugger's memory is bounded by JITUNWIND_JIT_MAX_BYTES instead, and the
 * slots left out are counted. */
START_TEST(a_huge_descriptor_is_read_within_the_byte_cap)
{
    /* An unnamed slot costs the per-range bytes and twice an empty name's NUL. */
    uint64_t slots = 4u * 1024u * 1024u,
             fit = JITUNWIND_JIT_MAX_BYTES / (JITUNWIND_JIT_BYTES_PER_RANGE + 2);
    struct jitunwind_memory mem = {sizeof(struct jitunwind_memory), many_read, &slots};
    struct jitunwind_jit_read_info info;
    jitunwind_registry *reg;
    long before = max_rss_kib(), grown;
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_jit_read_descriptor(reg, &mem, D, &info), 0);
    grown = max_rss_kib() - before;
    ck_assert_uint_eq(info.added, fit);
    ck_assert_uint_eq(info.left_out, slots - fit);
    ck_assert_uint_eq(jitunwind_registry_count(reg), fit);
    ck_assert_uint_eq(jitunwind_registry_at(reg, 0)->start, MANY_CODE); /* the first ones kept */
#ifdef JU_TEST_ASAN
    (void)grown;
    ju_skip("the resident-size bound: AddressSanitizer's shadow memory and redzones are in it");
#else
    ck_assert_msg(grown < 2 * (long)(JITUNWIND_JIT_MAX_BYTES / 1024),
                  "the read grew the heap by %ld KiB", grown);
#endif
    jitunwind_registry_free(reg);
    /* Under the cap, nothing is left out. */
    slots = 1000;
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_jit_read_descriptor(reg, &mem, D, &info), 0);
    ck_assert_uint_eq(info.added, 1000);
    ck_assert_uint_eq(info.left_out, 0);
    jitunwind_registry_free(reg);
}
END_TEST

int main(void)
{
    return ju_run_tests("jit", JU_TESTS(round_trip_through_memory, register_validates_and_rejects_overlap,
                                        slot_reuse_growth_and_stale_ids,
                                        the_slot_array_never_moves_and_reset_frees_every_slot,
                                        corrupt_and_torn_descriptors,
                                        moving_and_stopped_writers,
                                        invalid_slots_are_skipped_and_names_bounded,
                                        overlap_checks_match_a_model,
                                        register_unregister_cycles_reuse_slots,
                                        concurrent_writers_and_a_reader,
                                        absurd_slot_sizes_and_ranges_over_modules_are_refused,
                                        a_huge_descriptor_is_read_within_the_byte_cap));
}
