/* Perf maps: parsing, layout detection from machine code, and bad lines. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "builder.h"
#include "internal.h"
#include "suite.h"

static const uint8_t SUB8[] = {0x48, 0x83, 0xec, 0x08, 0xff, 0xd1, 0x48, 0x83, 0xc4, 0x08, 0xc3};
static const uint8_t FRAMED[] = {0x55, 0x48, 0x89, 0xe5, 0xff, 0xd1, 0x5d, 0xc3};

static char path[64];

static void write_map(const char *text)
{
    FILE *f;
    snprintf(path, sizeof path, "/tmp/ju-perfmap-test-%d.map", (int)getpid());
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

START_TEST(loads_lines_and_detects_layouts)
{
    struct ju_builder *b = ju_builder_new();
    struct jitunwind_memory mem = ju_builder_memory(b);
    jitunwind_registry *reg;
    size_t added, skipped;
    char longline[6000];
    FILE *f;
    ju_builder_write(b, 0x7f0000, SUB8, sizeof SUB8);
    ju_builder_write(b, 0x7f0010, FRAMED, sizeof FRAMED);
    ju_builder_write(b, 0x7f0020, "\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90", 12);
    write_map("7f0000 b py::leaf:/tmp/demo.py\n"
              "7f0010 8 py::outer:/tmp/demo.py\n"
              "7f0020 c py::nop:/tmp/demo.py\n"       /* not a trampoline */
              "7f0030 b py::unmapped:/tmp/demo.py\n"  /* unreadable code */
              "zzzz 8 py::bad\n"                      /* not hex */
              "7f0000 0 py::empty\n"                  /* zero size */
              "7f0004 b py::overlap:/tmp/demo.py\n"); /* unreadable at that offset? no: overlaps */
    f = fopen(path, "a");
    memset(longline, 'x', sizeof longline - 2);
    longline[sizeof longline - 2] = '\n';
    longline[sizeof longline - 1] = '\0';
    fputs(longline, f);
    fputs("7f0010 8 py::dup:/tmp/demo.py", f); /* no final newline, overlaps */
    fclose(f);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_registry_load_perf_map(reg, path, JITUNWIND_ARCH_X86_64, &mem,
                                                      &added, &skipped), 0);
    ck_assert_uint_eq(added, 2);
    ck_assert_uint_eq(skipped, 7);
    ck_assert_int_eq(jitunwind_registry_lookup(reg, 0x7f0006)->rule, JITUNWIND_RULE_TRAMPOLINE_SUB8);
    ck_assert_int_eq(jitunwind_registry_lookup(reg, 0x7f0016)->rule, JITUNWIND_RULE_TRAMPOLINE_FRAMED);
    ck_assert_int_eq(jitunwind_registry_lookup(reg, 0x7f0016)->origin, JITUNWIND_ORIGIN_PERF_MAP);
    ck_assert_str_eq(jitunwind_registry_lookup(reg, 0x7f0000)->name, "py::leaf:/tmp/demo.py");
    ck_assert_ptr_null(jitunwind_registry_lookup(reg, 0x7f0020));
    unlink(path);
    ck_assert_int_eq(jitunwind_registry_load_perf_map(reg, path, JITUNWIND_ARCH_X86_64, &mem,
                                                      &added, &skipped), JITUNWIND_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(jitunwind_registry_last_error(reg)->message, path));
    jitunwind_registry_free(reg);
    ju_builder_free(b);
}
END_TEST

int main(void)
{
    return ju_run_tests("perfmap", JU_TESTS(loads_lines_and_detects_layouts));
}
