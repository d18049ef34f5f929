/* Ranges from the GDB JIT interface (CPython 3.15's executors): in-memory ELF
 * objects made here with the system toolchain, placed in a synthetic target
 * behind a __jit_debug_descriptor. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builder.h"
#include "internal.h"
#include "suite.h"

#define DESC 0x10000ull
#define ENTRY1 0x11000ull
#define ENTRY2 0x12000ull
#define ENTRY3 0x13000ull
#define OBJ1 0x200000ull
#define OBJ2 0x400000ull

/* An ET_DYN object whose .text is one function at `text_addr`, with CFI
 * `cfi` (assembler directives), made by `toolchain`. Returns its bytes
 * (malloc'd) or NULL. */
static uint8_t *make_object_with(const char *toolchain, const char *tag, const char *cfi,
                                 uint64_t text_addr, size_t *len)
{
    char src[128], so[128], cmd[512];
    FILE *f;
    uint8_t *buf = NULL;
    long n;
    snprintf(src, sizeof src, "/tmp/ju-gdbjit-%d-%s.s", (int)getpid(), tag);
    snprintf(so, sizeof so, "/tmp/ju-gdbjit-%d-%s.so", (int)getpid(), tag);
    f = fopen(src, "w");
    if (!f)
        return NULL;
    fprintf(f, ".text\n.globl py_jit_%s\n.type py_jit_%s,@function\npy_jit_%s:\n.cfi_startproc\n"
               "%s\nnop\nnop\nnop\nret\n.cfi_endproc\n.size py_jit_%s, .-py_jit_%s\n"
               ".section .note.GNU-stack,\"\",@progbits\n",
            tag, tag, tag, cfi, tag, tag);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s -shared -nostdlib -Wl,-Ttext=0x%llx -o %s %s 2>/dev/null",
             toolchain, (unsigned long long)text_addr, so, src);
    if (system(cmd) == 0 && (f = fopen(so, "rb")) != NULL) {
        fseek(f, 0, SEEK_END);
        n = ftell(f);
        fseek(f, 0, SEEK_SET);
        buf = malloc((size_t)n);
        if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n)
            *len = (size_t)n;
        else {
            free(buf);
            buf = NULL;
        }
        fclose(f);
    }
    unlink(src);
    unlink(so);
    return buf;
}

static uint8_t *make_object(const char *tag, const char *cfi, uint64_t text_addr, size_t *len)
{
    return make_object_with("cc", tag, cfi, text_addr, len);
}

/* __jit_debug_descriptor at DESC: version 1, no action, the list at `first`. */
static void descriptor(struct ju_builder *b, uint64_t first)
{
    ju_builder_u32(b, DESC, 1);
    ju_builder_u32(b, DESC + 4, 0);
    ju_builder_u64(b, DESC + 8, 0);
    ju_builder_u64(b, DESC + 16, first);
}

static void entry(struct ju_builder *b, uint64_t at, uint64_t next, uint64_t symfile, uint64_t size)
{
    ju_builder_u64(b, at, next);
    ju_builder_u64(b, at + 8, 0);
    ju_builder_u64(b, at + 16, symfile);
    ju_builder_u64(b, at + 24, size);
}

START_TEST(executors_from_in_memory_elf)
{
#if defined(__x86_64__)
    struct ju_builder *b = ju_builder_new();
    struct jitunwind_memory mem = ju_builder_memory(b);
    jitunwind_registry *reg;
    const struct jitunwind_range *r;
    size_t len1 = 0, len2 = 0, added, skipped;
    uint8_t *fp_obj = make_object("fp", ".cfi_def_cfa %rbp, 16\n.cfi_offset %rbp, -16", 0x7f0000001000ull, &len1);
    uint8_t *sp_obj = make_object("sp", ".cfi_def_cfa %rsp, 8", 0x7f0000101000ull, &len2);
    if (!fp_obj || !sp_obj) {
        ju_skip("no C toolchain to make ELF objects");
        ju_builder_free(b);
        return;
    }
    ju_builder_write(b, OBJ1, fp_obj, len1);
    ju_builder_write(b, OBJ2, sp_obj, len2);
    descriptor(b, ENTRY1);
    entry(b, ENTRY1, ENTRY2, OBJ1, len1);
    entry(b, ENTRY2, ENTRY3, OBJ2, len2);   /* CFI not from the frame pointer: skipped */
    entry(b, ENTRY3, 0, 0x900000, 4096);    /* unreadable object: skipped */
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_registry_load_gdb_jit(reg, &mem, DESC, JITUNWIND_ARCH_X86_64,
                                                     &added, &skipped), 0);
    ck_assert_uint_eq(added, 1);
    ck_assert_uint_eq(skipped, 2);
    r = jitunwind_registry_lookup(reg, 0x7f0000001002ull);
    ck_assert_ptr_nonnull(r);
    ck_assert_uint_eq(r->start, 0x7f0000001000ull);
    ck_assert_uint_eq(r->end, 0x7f0000001004ull); /* 3 nops + ret */
    ck_assert_str_eq(r->name, "py_jit_fp");
    ck_assert_int_eq(r->rule, JITUNWIND_RULE_FP_PRESERVING);
    ck_assert_int_eq(r->origin, JITUNWIND_ORIGIN_INTERPRETER);
    /* A looping entry list is reported. */
    entry(b, ENTRY3, ENTRY1, 0x900000, 4096);
    jitunwind_registry_clear(reg);
    ck_assert_int_eq(jitunwind_registry_load_gdb_jit(reg, &mem, DESC, JITUNWIND_ARCH_X86_64,
                                                     &added, &skipped), JITUNWIND_ELOOP);
    ck_assert_uint_eq(added, 1);
    /* Wrong version, unreadable descriptor. */
    ju_builder_u32(b, DESC, 2);
    ck_assert_int_eq(jitunwind_registry_load_gdb_jit(reg, &mem, DESC, JITUNWIND_ARCH_X86_64,
                                                     &added, &skipped), JITUNWIND_EVERSION);
    ck_assert_int_eq(jitunwind_registry_load_gdb_jit(reg, &mem, 0x5000000, JITUNWIND_ARCH_X86_64,
                                                     &added, &skipped), JITUNWIND_EREAD);
    jitunwind_registry_free(reg);
    free(fp_obj);
    free(sp_obj);
    ju_builder_free(b);
#else
    ju_skip("x86-64 objects are made with the host's toolchain: not on this host");
#endif
}
END_TEST

/* CPython 3.15's AArch64 executors: CFA = x29 + 96 (the shim's frame, its
 * record at the bottom), x29 at CFA-96, x30 at CFA-88. The range keeps that
 * frame size, so the caller's sp is right. Objects made by clang-19 and lld
 * for AArch64 on any host (dev.sh installs both). */
START_TEST(aarch64_executors_keep_the_shims_frame_size)
{
    static const char *const TOOLCHAIN = "clang-19 --target=aarch64-linux-gnu -fuse-ld=lld";
    struct ju_builder *b = ju_builder_new();
    struct jitunwind_memory mem = ju_builder_memory(b);
    jitunwind_registry *reg;
    const struct jitunwind_range *r;
    size_t len1 = 0, len2 = 0, added, skipped;
    uint8_t *exec_obj = make_object_with(TOOLCHAIN, "a64",
                                         ".cfi_def_cfa x29, 96\n.cfi_offset x29, -96\n"
                                         ".cfi_offset x30, -88",
                                         0x7f0000001000ull, &len1);
    uint8_t *odd_obj = make_object_with(TOOLCHAIN, "a64odd", ".cfi_def_cfa x29, 20",
                                        0x7f0000101000ull, &len2);
    ck_assert_msg(exec_obj && odd_obj, "needs clang-19 and lld to make AArch64 objects");
    ju_builder_write(b, OBJ1, exec_obj, len1);
    ju_builder_write(b, OBJ2, odd_obj, len2);
    descriptor(b, ENTRY1);
    entry(b, ENTRY1, ENTRY2, OBJ1, len1);
    entry(b, ENTRY2, 0, OBJ2, len2); /* a CFA no frame record explains: skipped */
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_registry_load_gdb_jit(reg, &mem, DESC, JITUNWIND_ARCH_AARCH64,
                                                     &added, &skipped), 0);
    ck_assert_uint_eq(added, 1);
    ck_assert_uint_eq(skipped, 1);
    r = jitunwind_registry_lookup(reg, 0x7f0000001004ull);
    ck_assert_ptr_nonnull(r);
    ck_assert_str_eq(r->name, "py_jit_a64");
    ck_assert_int_eq(r->rule, JITUNWIND_RULE_FP_PRESERVING);
    ck_assert_uint_eq(r->frame_size, 96);
    ck_assert_uint_eq(r->end - r->start, 16); /* nop, nop, nop, ret */
    /* Objects for another machine than the target's are not read. */
    jitunwind_registry_clear(reg);
    ck_assert_int_eq(jitunwind_registry_load_gdb_jit(reg, &mem, DESC, JITUNWIND_ARCH_X86_64,
                                                     &added, &skipped), 0);
    ck_assert_uint_eq(added, 0);
    jitunwind_registry_free(reg);
    free(exec_obj);
    free(odd_obj);
    ju_builder_free(b);
}
END_TEST

/* A hostile descriptor: many entries, each naming an object of the largest
 * size read (the same bytes, not an ELF object). Reading them all would
 * read JITUNWIND_GDB_JIT_MAX_ENTRIES MiB; the reader stops once the objects
 * read reach JITUNWIND_GDB_JIT_MAX_BYTES, and says so. */
START_TEST(total_object_bytes_are_capped)
{
    enum { ENTRIES = JITUNWIND_GDB_JIT_MAX_BYTES / JITUNWIND_GDB_JIT_MAX_OBJECT + 8 };
    struct ju_builder *b = ju_builder_new();
    struct jitunwind_memory mem = ju_builder_memory(b);
    jitunwind_registry *reg;
    uint8_t *junk = calloc(1, JITUNWIND_GDB_JIT_MAX_OBJECT);
    size_t added = 1, skipped = 0, i;
    ck_assert_ptr_nonnull(junk);
    ju_builder_write(b, OBJ1, junk, JITUNWIND_GDB_JIT_MAX_OBJECT);
    descriptor(b, ENTRY1);
    for (i = 0; i < ENTRIES; i++)
        entry(b, ENTRY1 + i * 32, i + 1 < ENTRIES ? ENTRY1 + (i + 1) * 32 : 0, OBJ1,
              JITUNWIND_GDB_JIT_MAX_OBJECT);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_registry_load_gdb_jit(reg, &mem, DESC, JITUNWIND_ARCH_X86_64,
                                                     &added, &skipped), JITUNWIND_ELIMIT);
    ck_assert_uint_eq(added, 0);
    ck_assert_uint_eq(skipped, JITUNWIND_GDB_JIT_MAX_BYTES / JITUNWIND_GDB_JIT_MAX_OBJECT);
    ck_assert_ptr_nonnull(strstr(jitunwind_registry_last_error(reg)->message,
                                 "more than 64 MiB in all"));
    /* Up to the cap, the whole list is read. */
    entry(b, ENTRY1 + (JITUNWIND_GDB_JIT_MAX_BYTES / JITUNWIND_GDB_JIT_MAX_OBJECT - 1) * 32, 0,
          OBJ1, JITUNWIND_GDB_JIT_MAX_OBJECT);
    ck_assert_int_eq(jitunwind_registry_load_gdb_jit(reg, &mem, DESC, JITUNWIND_ARCH_X86_64,
                                                     &added, &skipped), 0);
    ck_assert_uint_eq(skipped, JITUNWIND_GDB_JIT_MAX_BYTES / JITUNWIND_GDB_JIT_MAX_OBJECT);
    jitunwind_registry_free(reg);
    free(junk);
    ju_builder_free(b);
}
END_TEST

int main(void)
{
    return ju_run_tests("gdb_jit", JU_TESTS(executors_from_in_memory_elf,
                                            aarch64_executors_keep_the_shims_frame_size,
                                            total_object_bytes_are_capped));
}
