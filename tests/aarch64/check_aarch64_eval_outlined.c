/* The eval loop's parts of Debian's stripped arm64 CPython (python3.11 and
 * libpython3.11.so.1.0 from setup.sh's sysroot, fetched under the build
 * folder) with no debug file reachable: the function and what
 * src/python/eval_outlined.c finds from its branches must be exactly the
 * parts the separate debug file's symbol table names. GCC splits no
 * `.cold` part on AArch64 unless asked, so on Debian's build this checks
 * that no part is invented; a build that has one must have it found. Skips
 * (77) with setup.sh's reason when the sysroot cannot be made here.
 *   check_aarch64_eval_outlined SETUP_SH BUILD_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "internal.h"
#include "elf/elf.h"
#include "python/pyreader.h"
#include "suite.h"

static char sysroot[4096];

/* The eval parts of `path`: from the symbols only (`outlined` 0) or with
 * the outlined part found from the code. */
static size_t parts(const char *path, int outlined, struct jitunwind_py_code_range *out)
{
    struct ju_py_file_symbols s;
    struct ju_eval_parts named = {out, 0};
    size_t i;
    if (outlined) {
        ck_assert_int_eq(ju_py_file_symbols(path, JITUNWIND_ARCH_AARCH64, NULL, &s), 0);
        for (i = 0; i < s.n_eval; i++)
            out[i] = s.eval[i];
        return s.n_eval;
    }
    ck_assert_int_ge(ju_elf_each_symbol(path, 0, ju_py_take_eval_part, &named), 0);
    ju_py_sort_eval_parts(out, named.n);
    return named.n;
}

/* `path` (in the sysroot) checked against its debug file under `debug`. */
static void check_module(const char *path, const char *debug)
{
    struct jitunwind_py_code_range named[JITUNWIND_PY_MAX_EVAL_RANGES];
    struct jitunwind_py_code_range found[JITUNWIND_PY_MAX_EVAL_RANGES];
    char debug_file[4096], note[512];
    size_t n_named, n_found, i;
    int fd;
    Elf *elf;
    ck_assert_int_eq(ju_elf_arch(path), JITUNWIND_ARCH_AARCH64);
    /* The oracle: the debug file's symbols, which a stripped file gets
     * only through its debug file. */
    jitunwind_set_debug_file_directories(debug);
    ck_assert_int_eq(ju_elf_open(path, &fd, &elf), 0);
    ck_assert_msg(ju_debug_file_find(elf, path, 0, debug_file, sizeof debug_file, note,
                                     sizeof note) == 0,
                  "%s: no debug file under %s (%s)", path, debug, note);
    ju_elf_close(fd, elf);
    n_named = parts(path, 0, named);
    ck_assert_uint_ge(n_named, 1);
    /* No debug file: only .dynsym's function, and what the code shows. */
    jitunwind_set_debug_file_directories("");
    ck_assert_uint_eq(parts(path, 0, found), 1);
    n_found = parts(path, 1, found);
    printf("%s: %zu eval part(s) named by %s, %zu found without it\n", path, n_named,
           debug_file, n_found);
    ck_assert_uint_eq(n_found, n_named);
    for (i = 0; i < n_named; i++) {
        ck_assert_uint_eq(found[i].start, named[i].start);
        ck_assert_uint_eq(found[i].end, named[i].end);
        ck_assert_int_eq(found[i].main, named[i].main);
    }
    jitunwind_set_debug_file_directories(NULL);
}

START_TEST(the_parts_found_are_the_parts_the_debug_file_names)
{
    static const char *const modules[] = {"usr/bin/python3.11",
                                          "usr/lib/aarch64-linux-gnu/libpython3.11.so.1.0"};
    char path[8192], debug[8192];
    size_t i;
    snprintf(debug, sizeof debug, "%s/usr/lib/debug", sysroot);
    for (i = 0; i < sizeof modules / sizeof *modules; i++) {
        snprintf(path, sizeof path, "%s/%s", sysroot, modules[i]);
        check_module(path, debug);
    }
}
END_TEST

/* The sysroot from setup.sh (it may download for minutes, so not inside
 * a timed test): 0, JU_SKIP_EXIT (setup.sh printed why) or EXIT_FAILURE. */
static int make_sysroot(const char *setup_sh, const char *build_dir)
{
    char cmd[8192];
    FILE *p;
    int status;
    snprintf(cmd, sizeof cmd, "bash '%s' '%s'", setup_sh, build_dir);
    if (!(p = popen(cmd, "r")))
        return EXIT_FAILURE;
    if (!fgets(sysroot, sizeof sysroot, p))
        sysroot[0] = 0;
    status = pclose(p);
    sysroot[strcspn(sysroot, "\n")] = 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == JU_SKIP_EXIT) {
        printf("SKIP: no arm64 sysroot (setup.sh's reason is above)\n");
        return JU_SKIP_EXIT;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !sysroot[0]) {
        fprintf(stderr, "setup.sh failed (status %d)\n", status);
        return EXIT_FAILURE;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int rc;
    if (argc != 3) {
        fprintf(stderr, "usage: %s SETUP_SH BUILD_DIR\n", argv[0]);
        return EXIT_FAILURE;
    }
    if ((rc = make_sysroot(argv[1], argv[2])) != 0)
        return rc;
    return ju_run_tests("aarch64_eval_outlined",
                        JU_TESTS(the_parts_found_are_the_parts_the_debug_file_names));
}
