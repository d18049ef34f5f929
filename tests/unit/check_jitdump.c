/* jitdump files (CPython's -X perf_jit): JIT_CODE_LOAD records become
 * trampoline ranges named as the records say, other records are stepped
 * over, and a damaged file is bounded: a name without its NUL, a record
 * cut short, an absurd size, another format. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builder.h"
#include "internal.h"
#include "suite.h"
#include "trampoline_code.h"

static char path[64];
static FILE *out;

static void put32(uint32_t v) { fwrite(&v, 4, 1, out); }
static void put64(uint64_t v) { fwrite(&v, 8, 1, out); }

static void open_dump(uint32_t magic, uint32_t version)
{
    snprintf(path, sizeof path, "/tmp/ju-jitdump-test-%d.dump", (int)getpid());
    ck_assert_ptr_nonnull(out = fopen(path, "wb"));
    put32(magic), put32(version), put32(40), put32(62), put32(0), put32(1), put64(0), put64(0);
}

/* A JIT_CODE_LOAD record; `nul` 0 leaves the name unterminated. */
static void load_record(uint64_t addr, uint64_t size, const char *name, int nul)
{
    size_t n = strlen(name) + (nul ? 1 : 0);
    put32(0), put32((uint32_t)(56 + n + size)), put64(0);
    put32(1), put32(1), put64(addr), put64(addr), put64(size), put64(7);
    fwrite(name, 1, n, out);
    for (uint64_t i = 0; i < size; i++)
        fputc(0, out);
}

/* Another kind of record (JIT_CODE_UNWINDING_INFO: 4) of `size` bytes. */
static void other_record(uint32_t size)
{
    put32(4), put32(size), put64(0);
    for (uint32_t i = 16; i < size; i++)
        fputc(0xee, out);
}

static struct ju_builder *code(void)
{
    struct ju_builder *b = ju_builder_new();
    ju_builder_write(b, 0x7f0000, JU_X86_FRAMED, sizeof JU_X86_FRAMED);
    ju_builder_write(b, 0x7f0060, JU_X86_FRAMED, sizeof JU_X86_FRAMED);
    ju_builder_write(b, 0x7f00c0, "\x90\x90\x90\x90\x90\x90\x90\x90", 8);
    return b;
}

START_TEST(code_loads_become_named_trampolines)
{
    struct ju_builder *b = code();
    struct jitunwind_memory mem = ju_builder_memory(b);
    jitunwind_registry *reg;
    size_t added = 9, skipped = 9;
    open_dump(0x4a695444u, 1);
    other_record(120);
    load_record(0x7f0000, 8, "py::hot:/tmp/app.py", 1);
    other_record(120);
    load_record(0x7f0060, 8, "py::caller:/tmp/app.py", 1);
    load_record(0x7f00c0, 8, "py::nop:/tmp/app.py", 1);   /* not a trampoline */
    load_record(0x7f0120, 8, "py::gone:/tmp/app.py", 1);  /* unreadable code */
    load_record(0x7f0060, 8, "py::again:/tmp/app.py", 0); /* its name has no NUL */
    fclose(out);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_registry_load_jitdump(reg, path, JITUNWIND_ARCH_X86_64, &mem,
                                                     &added, &skipped), 0);
    ck_assert_uint_eq(added, 2);
    ck_assert_uint_eq(skipped, 3);
    ck_assert_str_eq(jitunwind_registry_lookup(reg, 0x7f0005)->name, "py::hot:/tmp/app.py");
    ck_assert_str_eq(jitunwind_registry_lookup(reg, 0x7f0065)->name, "py::caller:/tmp/app.py");
    ck_assert_int_eq(jitunwind_registry_lookup(reg, 0x7f0065)->rule,
                     JITUNWIND_RULE_TRAMPOLINE_FRAMED);
    ck_assert_int_eq(jitunwind_registry_lookup(reg, 0x7f0065)->kind, JITUNWIND_KIND_TRAMPOLINE);
    ck_assert_ptr_null(jitunwind_registry_lookup(reg, 0x7f00c0));
    jitunwind_registry_free(reg);
    ju_builder_free(b);
    unlink(path);
}
END_TEST

/* The interpreter still writing: the last record is cut short (ends the
 * file); a record whose size is absurd ends it too (counted). */
START_TEST(a_cut_or_absurd_record_ends_the_file)
{
    struct ju_builder *b = code();
    struct jitunwind_memory mem = ju_builder_memory(b);
    jitunwind_registry *reg;
    size_t added, skipped;
    open_dump(0x4a695444u, 1);
    load_record(0x7f0000, 8, "py::hot:/tmp/app.py", 1);
    put32(0), put32(200), put64(0), put32(1); /* cut after 20 of its 200 bytes */
    fclose(out);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_registry_load_jitdump(reg, path, JITUNWIND_ARCH_X86_64, &mem,
                                                     &added, &skipped), 0);
    ck_assert_uint_eq(added, 1);
    ck_assert_uint_eq(skipped, 0);
    open_dump(0x4a695444u, 1);
    put32(0), put32(0x7fffffffu), put64(0); /* 2 GiB */
    load_record(0x7f0060, 8, "py::after:/tmp/app.py", 1);
    fclose(out);
    ck_assert_int_eq(jitunwind_registry_load_jitdump(reg, path, JITUNWIND_ARCH_X86_64, &mem,
                                                     &added, &skipped), 0);
    ck_assert_uint_eq(added, 0);
    ck_assert_uint_eq(skipped, 1);
    ck_assert_ptr_null(jitunwind_registry_lookup(reg, 0x7f0065));
    jitunwind_registry_free(reg);
    ju_builder_free(b);
    unlink(path);
}
END_TEST

START_TEST(other_formats_are_refused)
{
    struct ju_builder *b = code();
    struct jitunwind_memory mem = ju_builder_memory(b);
    jitunwind_registry *reg;
    size_t added, skipped;
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    open_dump(0x4454694au, 1); /* the other byte order */
    load_record(0x7f0000, 8, "py::hot:/tmp/app.py", 1);
    fclose(out);
    ck_assert_int_eq(jitunwind_registry_load_jitdump(reg, path, JITUNWIND_ARCH_X86_64, &mem,
                                                     &added, &skipped), JITUNWIND_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(jitunwind_registry_last_error(reg)->message, "jitdump"));
    open_dump(0x4a695444u, 2);
    fclose(out);
    ck_assert_int_eq(jitunwind_registry_load_jitdump(reg, path, JITUNWIND_ARCH_X86_64, &mem,
                                                     &added, &skipped), JITUNWIND_EUNSUPPORTED);
    ck_assert_uint_eq(jitunwind_registry_count(reg), 0);
    unlink(path);
    ck_assert_int_eq(jitunwind_registry_load_jitdump(reg, path, JITUNWIND_ARCH_X86_64, &mem,
                                                     &added, &skipped), JITUNWIND_ENOTFOUND);
    jitunwind_registry_free(reg);
    ju_builder_free(b);
}
END_TEST

int main(void)
{
    return ju_run_tests("jitdump", JU_TESTS(code_loads_become_named_trampolines,
                                            a_cut_or_absurd_record_ends_the_file,
                                            other_formats_are_refused));
}
