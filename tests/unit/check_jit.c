/* In-process registration and reading the descriptor back as a debugger
 * would: through a memory reader, into a registry. */
#include <stdlib.h>
#include <sys/uio.h>
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

static const struct jitunwind_memory SELF = {self_read, NULL};
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

int main(void)
{
    return ju_run_tests("jit", JU_TESTS(round_trip_through_memory, register_validates_and_rejects_overlap,
                                        slot_reuse_growth_and_stale_ids, corrupt_and_torn_descriptors));
}
