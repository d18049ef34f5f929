/* Perf maps: parsing, layout detection from machine code, and bad lines. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jitunwind/dwarf.h"

#include "builder.h"
#include "internal.h"
#include "suite.h"
#include "trampoline_code.h"


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

/* Load the map at `path` into reg: it must succeed, with these counts. */
static void load_expecting(jitunwind_registry *reg, int arch, const struct jitunwind_memory *mem,
                           size_t want_added, size_t want_skipped)
{
    size_t added, skipped;
    ck_assert_int_eq(jitunwind_registry_load_perf_map(reg, path, arch, mem, &added, &skipped), 0);
    ck_assert_uint_eq(added, want_added);
    ck_assert_uint_eq(skipped, want_skipped);
}

START_TEST(loads_lines_and_detects_layouts)
{
    struct ju_builder *b = ju_builder_new();
    struct jitunwind_memory mem = ju_builder_memory(b);
    jitunwind_registry *reg;
    size_t added, skipped;
    char longline[6000];
    FILE *f;
    ju_builder_write(b, 0x7f0000, JU_X86_SUB8, sizeof JU_X86_SUB8);
    ju_builder_write(b, 0x7f0010, JU_X86_FRAMED, sizeof JU_X86_FRAMED);
    ju_builder_write(b, 0x7f0020, "\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90", 12);
    write_map("7f0000 b py::leaf:/tmp/demo.py\n"
              "7f0010 8 py::outer:/tmp/demo.py\n"
              "7f0020 c py::nop:/tmp/demo.py\n"       /* not a trampoline */
              "7f0030 b py::unmapped:/tmp/demo.py\n"  /* unreadable code */
              "zzzz 8 py::bad\n"                      /* not hex */
              "7f0000 0 py::empty\n"                  /* zero size */
              "7f0004 b py::overlap:/tmp/demo.py\n"); /* mid-template: not a trampoline */
    f = fopen(path, "a");
    memset(longline, 'x', sizeof longline - 2);
    longline[sizeof longline - 2] = '\n';
    longline[sizeof longline - 1] = '\0';
    fputs(longline, f);
    fputs("7f0010 8 py::dup:/tmp/demo.py", f); /* no final newline; replaces outer */
    fclose(f);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    load_expecting(reg, JITUNWIND_ARCH_X86_64, &mem, 3, 6);
    ck_assert_uint_eq(jitunwind_registry_count(reg), 2);
    ck_assert_str_eq(jitunwind_registry_lookup(reg, 0x7f0016)->name, "py::dup:/tmp/demo.py");
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

/* CPython appends to /tmp/perf-PID.map: a process that got a dead one's PID
 * finds that process's lines first, at the same addresses when ASLR is off
 * (under a debugger). The later line names the code that is there now. */
START_TEST(a_later_line_replaces_earlier_perf_map_ranges)
{
    struct ju_builder *b = ju_builder_new();
    struct jitunwind_memory mem = ju_builder_memory(b);
    struct jitunwind_range user = {.start = 0x7f0040, .end = 0x7f0050,
                                   .kind = JITUNWIND_KIND_JIT, .rule = JITUNWIND_RULE_FP_PRESERVING,
                                   .origin = JITUNWIND_ORIGIN_USER, .name = "jit"};
    jitunwind_registry *reg;
    ju_builder_write(b, 0x7f0000, JU_X86_SUB8, sizeof JU_X86_SUB8);
    ju_builder_write(b, 0x7f0010, JU_X86_SUB8, sizeof JU_X86_SUB8);
    ju_builder_write(b, 0x7f0020, JU_X86_SUB8, sizeof JU_X86_SUB8);
    ju_builder_write(b, 0x7f0040, JU_X86_SUB8, sizeof JU_X86_SUB8);
    write_map("7f0000 b py::<module>:/tmp/old.py\n"   /* the dead process's lines */
              "7f0010 b py::gone:/tmp/old.py\n"
              "7f0000 b py::<module>:/tmp/new.py\n"   /* this process's */
              "7f000b 10 py::wide:/tmp/new.py\n"      /* unknown code at 7f000b: skipped */
              "7f0010 b py::main:/tmp/new.py\n"
              "7f0040 b py::over-jit:/tmp/new.py\n"); /* over a registered JIT range */
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_registry_add(reg, &user), 0);
    load_expecting(reg, JITUNWIND_ARCH_X86_64, &mem, 4, 2);
    ck_assert_uint_eq(jitunwind_registry_count(reg), 3);
    ck_assert_str_eq(jitunwind_registry_lookup(reg, 0x7f0004)->name, "py::<module>:/tmp/new.py");
    ck_assert_str_eq(jitunwind_registry_lookup(reg, 0x7f0014)->name, "py::main:/tmp/new.py");
    ck_assert_str_eq(jitunwind_registry_lookup(reg, 0x7f0044)->name, "jit");
    /* One line spanning two earlier perf-map ranges replaces both. */
    write_map("7f0000 1b py::both:/tmp/new.py\n");
    load_expecting(reg, JITUNWIND_ARCH_X86_64, &mem, 1, 0);
    ck_assert_uint_eq(jitunwind_registry_count(reg), 2);
    ck_assert_str_eq(jitunwind_registry_lookup(reg, 0x7f0014)->name, "py::both:/tmp/new.py");
    unlink(path);
    jitunwind_registry_free(reg);
    ju_builder_free(b);
}
END_TEST

START_TEST(strict_fields_layouts_and_boundaries)
{
    static const uint8_t endbr_framed[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89,
                                           0xe5, 0xff, 0xd1, 0x5d, 0xc3};
    struct ju_builder *b = ju_builder_new();
    struct jitunwind_memory mem = ju_builder_memory(b);
    jitunwind_registry *reg;
    size_t added, skipped;
    const struct jitunwind_range *r;
    ju_builder_write(b, 0x7f0000, JU_X86_SUB8, sizeof JU_X86_SUB8);
    ju_builder_write(b, 0x7f0040, endbr_framed, sizeof endbr_framed);
    ju_builder_write(b, 0x7f0080, JU_X86_SUB8, sizeof JU_X86_SUB8);
    /* The last 11 bytes of a page whose successor is unmapped: only the
     * entry's own bytes are read. */
    ju_builder_write(b, 0x7f1000 - sizeof JU_X86_SUB8, JU_X86_SUB8, sizeof JU_X86_SUB8);
    write_map("-7f0000 b py::negative\n"
              " 7f0000 b py::blank\n"
              "+7f0000 b py::plus\n"
              "7f0000  b py::two-spaces\n"
              "7f0000 b\n"                              /* no separator before a name */
              "ffffffffffffff00 200 py::wraps\n"
              "7f0080 b py::has spaces:/tmp/my dir/x.py\r\n" /* CRLF, spaces in the name */
              "0x7f0040 c py::hex:/tmp/x.py\n"
              "7f0ff5 b py::page-end\n"
              "7f0000 b \n");                           /* empty name: fine */
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    load_expecting(reg, JITUNWIND_ARCH_X86_64, &mem, 4, 6);
    r = jitunwind_registry_lookup(reg, 0x7f0080);
    ck_assert_ptr_nonnull(r);
    ck_assert_str_eq(r->name, "py::has spaces:/tmp/my dir/x.py");
    r = jitunwind_registry_lookup(reg, 0x7f0040);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(r->rule, JITUNWIND_RULE_TRAMPOLINE_FRAMED);
    ck_assert_uint_eq(r->end, 0x7f004c);
    ck_assert_uint_eq(r->stride, 0);
    ck_assert_int_eq(r->kind, JITUNWIND_KIND_TRAMPOLINE);
    ck_assert_ptr_nonnull(jitunwind_registry_lookup(reg, 0x7f0ffa));
    ck_assert_str_eq(jitunwind_registry_lookup(reg, 0x7f0000)->name, "");
    /* Counters are optional; an empty file adds nothing. */
    jitunwind_registry_clear(reg);
    write_map("");
    ck_assert_int_eq(jitunwind_registry_load_perf_map(reg, path, JITUNWIND_ARCH_X86_64, &mem, NULL, NULL), 0);
    ck_assert_uint_eq(jitunwind_registry_count(reg), 0);
    unlink(path);
    ck_assert_int_eq(jitunwind_registry_load_perf_map(reg, "/tmp", JITUNWIND_ARCH_X86_64, &mem,
                                                      &added, &skipped), JITUNWIND_EIO);
    ck_assert_ptr_nonnull(strstr(jitunwind_registry_last_error(reg)->message, "/tmp"));
    ck_assert_int_eq(jitunwind_registry_load_perf_map(reg, "/tmp", 9, &mem, &added, &skipped),
                     JITUNWIND_EINVAL);
    ck_assert_ptr_nonnull(strstr(jitunwind_registry_last_error(reg)->message, "architecture"));
    jitunwind_registry_free(reg);
    ju_builder_free(b);
}
END_TEST

START_TEST(aarch64_maps_read_aarch64_code)
{
    struct ju_builder *b = ju_builder_new();
    struct jitunwind_memory mem = ju_builder_memory(b);
    jitunwind_registry *reg;
    ju_builder_write(b, 0x7f0000, JU_A64_FRAMED, sizeof JU_A64_FRAMED);
    ju_builder_write(b, 0x7f0020, JU_X86_SUB8, sizeof JU_X86_SUB8); /* x86-64 bytes: not an AArch64 trampoline */
    write_map("7f0020 b py::x86\n7f0000 14 py::f:/tmp/a.py\n");
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    load_expecting(reg, JITUNWIND_ARCH_AARCH64, &mem, 1, 1);
    ck_assert_int_eq(jitunwind_registry_lookup(reg, 0x7f0010)->rule, JITUNWIND_RULE_TRAMPOLINE_FRAMED);
    unlink(path);
    jitunwind_registry_free(reg);
    ju_builder_free(b);
}
END_TEST


/* A NUL byte inside a line ("x\0\n" before each entry)
 * made the parser take the line as overlong and swallow the next, real
 * one. Lines are parsed by length: each junk line is one skipped line. */
START_TEST(nul_bytes_inside_lines_do_not_swallow_the_next)
{
    static const char text[] = "x\0\n7f0000 b py::a:/tmp/a.py\n"
                               "x\0\n7f0010 8 py::b:/tmp/b.py\n"
                               "7f0020 b py::c\0tail\n"; /* name ends at the NUL */
    struct ju_builder *b = ju_builder_new();
    struct jitunwind_memory mem = ju_builder_memory(b);
    jitunwind_registry *reg;
    FILE *f;
    ju_builder_write(b, 0x7f0000, JU_X86_SUB8, sizeof JU_X86_SUB8);
    ju_builder_write(b, 0x7f0010, JU_X86_FRAMED, sizeof JU_X86_FRAMED);
    ju_builder_write(b, 0x7f0020, JU_X86_SUB8, sizeof JU_X86_SUB8);
    write_map("");
    f = fopen(path, "w");
    ck_assert_uint_eq(fwrite(text, 1, sizeof text - 1, f), sizeof text - 1);
    fclose(f);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    load_expecting(reg, JITUNWIND_ARCH_X86_64, &mem, 3, 2);
    ck_assert_str_eq(jitunwind_registry_lookup(reg, 0x7f0000)->name, "py::a:/tmp/a.py");
    ck_assert_str_eq(jitunwind_registry_lookup(reg, 0x7f0010)->name, "py::b:/tmp/b.py");
    ck_assert_str_eq(jitunwind_registry_lookup(reg, 0x7f0020)->name, "py::c");
    unlink(path);
    jitunwind_registry_free(reg);
    ju_builder_free(b);
}
END_TEST

static void load_refused(const char *map, const char *why)
{
    struct ju_builder *b = ju_builder_new();
    struct jitunwind_memory mem = ju_builder_memory(b);
    jitunwind_registry *reg;
    size_t added = 99;
    const char *msg;
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    alarm(10); /* a blocking open would hang here: SIGALRM fails the test instead */
    ck_assert_int_eq(jitunwind_registry_load_perf_map(reg, map, JITUNWIND_ARCH_X86_64, &mem,
                                                      &added, NULL), JITUNWIND_EIO);
    alarm(0);
    msg = jitunwind_registry_last_error(reg)->message;
    ck_assert_msg(strstr(msg, why) && strstr(msg, map) && !strchr(msg, '\n'), "%s", msg);
    ck_assert_uint_eq(jitunwind_registry_count(reg), 0);
    jitunwind_registry_free(reg);
    ju_builder_free(b);
}

/* Any local user can create /tmp/perf-PID.map as a FIFO
 * before the process starts; opening it must not block (gdb hung for
 * ever), and anything but a regular file is refused in one line. */
START_TEST(a_fifo_or_device_is_refused_without_blocking)
{
    char fifo[64];
    snprintf(fifo, sizeof fifo, "/tmp/ju-perfmap-fifo-%d.map", (int)getpid());
    unlink(fifo);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    load_refused(fifo, "a FIFO");
    unlink(fifo);
    load_refused("/dev/zero", "a device");
    load_refused("/tmp", "a directory");
}
END_TEST

/* A symbolic link in /tmp can point a debugger at any file. */
START_TEST(a_symbolic_link_is_refused)
{
    char link[64];
    write_map("7f0000 b py::a\n");
    snprintf(link, sizeof link, "/tmp/ju-perfmap-link-%d.map", (int)getpid());
    unlink(link);
    ck_assert_int_eq(symlink(path, link), 0);
    load_refused(link, "symbolic link");
    unlink(link);
    unlink(path);
}
END_TEST

/* A perf map owned by a user who is neither root, the caller nor the
 * process the name points at is refused (needs root to make one). */
START_TEST(a_file_of_another_user_is_refused)
{
    if (geteuid() != 0) {
        ju_skip("a_file_of_another_user_is_refused: not root, cannot chown");
        return;
    }
    write_map("7f0000 b py::a\n");
    ck_assert_int_eq(chown(path, 4242, 4242), 0);
    load_refused(path, "owned by uid 4242");
    unlink(path);
}
END_TEST

/* The same non-blocking, regular-file-only rule for ELF files whose paths
 * come from the target (maps, a core's note, debug links). */
START_TEST(elf_paths_from_the_target_do_not_block_on_a_fifo)
{
    char fifo[64];
    uint64_t v, sz;
    jitunwind_dwarf_types *t;
    jitunwind_modules *mods;
    snprintf(fifo, sizeof fifo, "/tmp/ju-elf-fifo-%d", (int)getpid());
    unlink(fifo);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    alarm(10);
    ck_assert_int_eq(jitunwind_elf_symbol(fifo, "main", &v, &sz), JITUNWIND_EIO);
    ck_assert_int_lt(jitunwind_dwarf_types_open(&t, fifo), 0);
    ck_assert_int_lt(jitunwind_core_anonymous_exec_mappings(fifo, NULL, 0, &sz), 0);
    ck_assert_int_eq(jitunwind_modules_new(&mods), 0);
    jitunwind_modules_load_core(mods, fifo);
    jitunwind_modules_free(mods);
    alarm(0);
    unlink(fifo);
}
END_TEST

/* The perf map's share of the size check: a size no trampoline has. */
START_TEST(absurd_sizes_are_refused)
{
    struct ju_builder *b = ju_builder_new();
    struct jitunwind_memory mem = ju_builder_memory(b);
    jitunwind_registry *reg;
    ju_builder_write(b, 0x7f0000, JU_X86_SUB8, sizeof JU_X86_SUB8);
    ju_builder_write(b, 0x8f0000, JU_X86_SUB8, sizeof JU_X86_SUB8);
    write_map("7f0000 8000000000000000 py::huge\n8f0000 b py::fine\n");
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    load_expecting(reg, JITUNWIND_ARCH_X86_64, &mem, 1, 1);
    ck_assert_ptr_null(jitunwind_registry_lookup(reg, 0x7f0000));
    unlink(path);
    jitunwind_registry_free(reg);
    ju_builder_free(b);
}
END_TEST

int main(void)
{
    return ju_run_tests("perfmap", JU_TESTS(loads_lines_and_detects_layouts,
                                            a_later_line_replaces_earlier_perf_map_ranges,
                                            strict_fields_layouts_and_boundaries,
                                            aarch64_maps_read_aarch64_code,
                                            nul_bytes_inside_lines_do_not_swallow_the_next,
                                            a_fifo_or_device_is_refused_without_blocking,
                                            a_symbolic_link_is_refused,
                                            a_file_of_another_user_is_refused,
                                            elf_paths_from_the_target_do_not_block_on_a_fifo,
                                            absurd_sizes_are_refused));
}
