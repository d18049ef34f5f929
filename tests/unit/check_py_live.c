/* The decoder against real interpreters: locate _PyRuntime and Py_Version
 * from the ELF files of a running python3.11 (Debian's, and pyenv's 3.11.7
 * with a shared libpython when present), read its threads and frames
 * through the live-process reader, and locate it again in a gcore'd core;
 * a second process of the same interpreter is opened without its symbol
 * tables being read again. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "elf/elf.h"
#include "suite.h"

static const char CHILD[] =
    "import sys, time\n"
    "def sleeper():\n"
    "    print('ready', flush=True)\n"
    "    time.sleep(600)  # @sleep\n"
    "def outer_caller():\n"
    "    sleeper()\n"
    "outer_caller()\n";

struct child {
    pid_t pid;
    FILE *out;
};

static int spawn(const char *python, struct child *c)
{
    int fds[2];
    char line[64];
    if (access(python, X_OK) != 0)
        return -1;
    if (pipe(fds) != 0)
        return -1;
    c->pid = fork();
    if (c->pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        execl(python, python, "-c", CHILD, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    c->out = fdopen(fds[0], "r");
    if (!fgets(line, sizeof line, c->out) || strncmp(line, "ready", 5) != 0)
        return -1;
    usleep(100000); /* let it enter time.sleep */
    return 0;
}

static void reap(struct child *c)
{
    kill(c->pid, SIGKILL);
    waitpid(c->pid, NULL, 0);
    fclose(c->out);
}

/* The build's DWARF agrees with the layout table for every field both
 * describe (a real cross-check: the tables were written from headers). */
static void check_dwarf_agrees(const struct jitunwind_memory *mem,
                               const struct jitunwind_py_location *loc,
                               const char *expect_dwarf_part, uint64_t frame)
{
    jitunwind_pyreader *r;
    struct jitunwind_py_dwarf_report rep;
    struct jitunwind_py_frame f[4];
    size_t nf;
    ck_assert_int_eq(jitunwind_pyreader_open(&r, mem, loc->runtime_addr, loc->version_hex,
                                             JITUNWIND_PYREADER_OPTS(.module = loc->module)), 0);
    ck_assert_int_eq(jitunwind_pyreader_dwarf_report(r, &rep), 0);
    ck_assert_msg(strstr(rep.source, expect_dwarf_part) != NULL,
                  "DWARF of %s read from '%s', expected from '%s'", loc->module, rep.source,
                  expect_dwarf_part);
    ck_assert_msg(rep.mismatches == 0, "%s: %u mismatches, first: %s", loc->module,
                  rep.mismatches, rep.first_mismatch);
    ck_assert_uint_ge(rep.checked, 25);
    ck_assert_int_eq(jitunwind_pyreader_frames(r, frame, f, 4, &nf), 0);
    ck_assert_str_eq(f[0].qualname, "sleeper");
    jitunwind_pyreader_free(r);
}

static void check_interpreter(const char *python, const char *expect_module_part,
                              uint32_t major_minor, const char *expect_dwarf_part)
{
    struct child c;
    struct jitunwind_py_location loc;
    jitunwind_process_reader *pr;
    struct jitunwind_memory mem;
    jitunwind_pyreader *r;
    struct jitunwind_py_thread t[8];
    struct jitunwind_py_frame f[16];
    size_t nt, nf;
    if (spawn(python, &c) != 0) {
        ju_skip("%s is not available", python);
        return;
    }
    ck_assert_int_eq(jitunwind_py_locate_live(c.pid, &loc), 0);
    ck_assert_uint_eq(loc.version_hex >> 16, major_minor);
    ck_assert_ptr_nonnull(strstr(loc.module, expect_module_part));
    ck_assert_int_eq(jitunwind_process_reader_new(&pr, c.pid), 0);
    mem = jitunwind_process_reader_memory(pr);
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, loc.runtime_addr, loc.version_hex, NULL), 0);
    ck_assert_int_eq(jitunwind_pyreader_threads(r, t, 8, &nt), 0);
    ck_assert_uint_eq(nt, 1);
    ck_assert_uint_eq(t[0].native_thread_id, (uint64_t)c.pid);
    ck_assert_int_eq(jitunwind_pyreader_frames(r, t[0].current_frame, f, 16, &nf), 0);
    ck_assert_uint_eq(nf, 3);
    ck_assert_str_eq(f[0].qualname, "sleeper");
    ck_assert_int_eq(f[0].line, 4);
    ck_assert_str_eq(f[0].filename, "<string>");
    ck_assert_str_eq(f[1].qualname, "outer_caller");
    ck_assert_int_eq(f[1].line, 6);
    ck_assert_str_eq(f[2].qualname, "<module>");
    ck_assert_int_eq(f[2].line, 7);
    ck_assert_uint_ne(f[2].flags & JITUNWIND_PYFRAME_ENTRY, 0); /* inlined calls: one group */
    ck_assert_uint_eq(f[0].flags & JITUNWIND_PYFRAME_ENTRY, 0);
    jitunwind_pyreader_free(r);
    check_dwarf_agrees(&mem, &loc, expect_dwarf_part, t[0].current_frame);

    /* The same runtime found again from a core of the process. */
    if (access("/usr/bin/gcore", X_OK) == 0) {
        char cmd[256], core[64];
        struct jitunwind_py_location from_core;
        snprintf(core, sizeof core, "/tmp/ju-live-%d", (int)c.pid);
        snprintf(cmd, sizeof cmd, "gcore -o %s %d >/dev/null 2>&1", core, (int)c.pid);
        if (system(cmd) != 0) {
            ju_skip("gcore could not dump %s: its core part is not checked", python);
        } else {
            snprintf(core + strlen(core), sizeof core - strlen(core), ".%d", (int)c.pid);
            ck_assert_int_eq(jitunwind_py_locate_core(core, &from_core), 0);
            ck_assert_uint_eq(from_core.runtime_addr, loc.runtime_addr);
            ck_assert_uint_eq(from_core.version_hex, loc.version_hex);
            unlink(core);
        }
    } else {
        ju_skip("no /usr/bin/gcore: the core part of %s is not checked", python);
    }
    jitunwind_process_reader_free(pr);
    reap(&c);
}

START_TEST(debian_python311)
{
    /* python3.11-dbg: the DWARF is a separate file found by build-id. */
    check_interpreter("/usr/bin/python3.11", "python3.11", 0x030b, "/usr/lib/debug/.build-id/");
}
END_TEST

static void check_pyenv(const char *version, const char *minor, uint32_t major_minor)
{
    const char *root = getenv("PYENV_ROOT");
    char python[512], lib[64];
    snprintf(python, sizeof python, "%s/versions/%s/bin/python%s", root ? root : "/root/.pyenv",
             version, minor);
    snprintf(lib, sizeof lib, "libpython%s.so", minor);
    check_interpreter(python, lib, major_minor, lib); /* DWARF inside libpython */
}

START_TEST(pyenv_python3117_shared_libpython)
{
    check_pyenv("3.11.7", "3.11", 0x030b);
}
END_TEST

START_TEST(pyenv_python3121)
{
    check_pyenv("3.12.1", "3.12", 0x030c);
}
END_TEST

START_TEST(pyenv_python3130)
{
    check_pyenv("3.13.0", "3.13", 0x030d);
}
END_TEST

/* A reader of a process of `python`, opened as `record --perf --all` opens
 * one (the interpreter's symbols, not its DWARF): the passes over symbol
 * tables the opening made into *passes, its eval loop's parts into out. */
static size_t open_counting(const char *python, unsigned long *passes,
                            struct jitunwind_py_code_range *out)
{
    struct child c;
    struct jitunwind_py_location loc;
    jitunwind_process_reader *pr;
    struct jitunwind_memory mem;
    jitunwind_pyreader *r;
    unsigned long before;
    size_t n = 0;
    ck_assert_int_eq(spawn(python, &c), 0);
    ck_assert_int_eq(jitunwind_py_locate_live(c.pid, &loc), 0);
    ck_assert_int_eq(jitunwind_process_reader_new(&pr, c.pid), 0);
    mem = jitunwind_process_reader_memory(pr);
    before = ju_elf_symbol_passes();
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, loc.runtime_addr, loc.version_hex,
                                             JITUNWIND_PYREADER_OPTS(
                                                 .module = loc.module,
                                                 .flags = JITUNWIND_PYREADER_NO_DWARF)),
                     0);
    *passes = ju_elf_symbol_passes() - before;
    ck_assert_int_eq(jitunwind_pyreader_eval_ranges(r, out, JITUNWIND_PY_MAX_EVAL_RANGES, &n), 0);
    jitunwind_pyreader_free(r);
    jitunwind_process_reader_free(pr);
    reap(&c);
    return n;
}

/* The interpreter's symbol tables (Debian's python3.11: its .dynsym and
 * its debug file's .symtab) are read in one pass by the first process's
 * reader, and not at all by a second process's, which finds the same eval
 * loop. */
START_TEST(a_second_process_of_an_interpreter_reads_no_symbol_table)
{
    struct jitunwind_py_code_range first[JITUNWIND_PY_MAX_EVAL_RANGES];
    struct jitunwind_py_code_range second[JITUNWIND_PY_MAX_EVAL_RANGES];
    unsigned long passes;
    size_t n, i, mains = 0;
    if (access("/usr/bin/python3.11", X_OK) != 0) {
        ju_skip("/usr/bin/python3.11 is not installed");
        return;
    }
    n = open_counting("/usr/bin/python3.11", &passes, first);
    ck_assert_msg(passes == 1, "the first process's reader made %lu passes", passes);
    ck_assert_uint_ge(n, 2); /* the function and its .cold part, named in the debug file */
    for (i = 0; i < n; i++)
        mains += first[i].main;
    ck_assert_uint_eq(mains, 1);
    ck_assert_uint_eq(open_counting("/usr/bin/python3.11", &passes, second), n);
    ck_assert_msg(passes == 0, "the second process's reader made %lu passes", passes);
    for (i = 0; i < n; i++) {
        ck_assert_uint_eq(second[i].start, first[i].start); /* not position-independent */
        ck_assert_uint_eq(second[i].end, first[i].end);
        ck_assert_uint_eq(second[i].main, first[i].main);
    }
}
END_TEST

START_TEST(elf_symbol_matches_nm)
{
    char line[256];
    uint64_t value = 0, size = 0, nm_value = 0;
    FILE *p;
    if (access("/usr/bin/python3.11", R_OK) != 0) {
        ju_skip("/usr/bin/python3.11 is not installed");
        return;
    }
    ck_assert_int_eq(jitunwind_elf_symbol("/usr/bin/python3.11", "_PyRuntime", &value, &size), 0);
    p = popen("nm -D /usr/bin/python3.11 | grep ' _PyRuntime$'", "r");
    ck_assert_ptr_nonnull(p);
    if (fgets(line, sizeof line, p))
        nm_value = strtoull(line, NULL, 16);
    pclose(p);
    ck_assert_uint_eq(value, nm_value);
    ck_assert_uint_gt(size, 1000);
    ck_assert_int_eq(jitunwind_elf_symbol("/usr/bin/python3.11", "no_such_symbol", &value, NULL),
                     JITUNWIND_ENOTFOUND);
    ck_assert_int_eq(jitunwind_elf_symbol("/etc/hostname", "x", &value, NULL), JITUNWIND_EELF);
    ck_assert_int_eq(jitunwind_elf_symbol("/nonexistent", "x", &value, NULL), JITUNWIND_EIO);
    ck_assert_int_eq(jitunwind_py_locate_live(getpid(), &(struct jitunwind_py_location){0}),
                     JITUNWIND_ENOTFOUND); /* this test is not a Python process */
}
END_TEST

int main(void)
{
    return ju_run_tests(
        "py_live", JU_TESTS(debian_python311, pyenv_python3117_shared_libpython, pyenv_python3121,
                            pyenv_python3130,
                            a_second_process_of_an_interpreter_reads_no_symbol_table,
                            elf_symbol_matches_nm));
}
