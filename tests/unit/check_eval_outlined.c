/* The eval loop's `.cold` part of a stripped interpreter without its debug
 * file, found from the function's jumps and .eh_frame
 * (src/python/eval_outlined.c), on a small library GCC split that way
 * (shapes/eval_cold.c): the part found is the one the unstripped file's
 * symbol names; nothing is added where a symbol already names it, nor when
 * the code is read as another architecture's. The same on AArch64, on
 * cross-built fixtures (EVAL_COLD_A64: hand-made, one per branch form and
 * side of the function, and GCC's own split), each beside its stripped copy
 * FILE.stripped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "elf/elf.h"
#include "python/pyreader.h"
#include "suite.h"

static char dir[] = "/tmp/ju-eval-outlined-XXXXXX";
static char stripped[128];

static void sh(const char *fmt, const char *arg)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd '%s' && ", dir);
    snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), fmt, arg);
    ck_assert_int_eq(system(cmd), 0);
}

/* The reader's eval parts of `path` at `bias`, on `arch`. */
static size_t parts(const char *path, int arch, uint64_t bias,
                    struct jitunwind_py_code_range *out)
{
    jitunwind_pyreader *r = calloc(1, sizeof *r);
    struct ju_py_file_symbols s;
    size_t n = 0;
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(ju_py_file_symbols(path, arch, NULL, &s), 0);
    ju_py_set_eval_parts(r, s.eval, s.n_eval, bias);
    ck_assert_int_eq(jitunwind_pyreader_eval_ranges(r, out, JITUNWIND_PY_MAX_EVAL_RANGES, &n), 0);
    free(r);
    return n;
}

/* The file's `_PyEval_EvalFrameDefault.cold` and `_PyEval_EvalFrameDefault`
 * symbols: values and sizes, both required. */
static void eval_symbols(const char *path, uint64_t values[2], uint64_t sizes[2])
{
    static const char *const names[] = {"_PyEval_EvalFrameDefault.cold",
                                        "_PyEval_EvalFrameDefault"};
    uint8_t found[2];
    ck_assert_int_eq(ju_elf_symbols(path, names, 2, values, sizes, found), 0);
    ck_assert_msg(found[0] && found[1], "%s: the compiler made no .cold part", path);
}

/* `got` (n ranges, found in `path`) is the function and the part the
 * symbols name, in address order. */
static void ck_parts(const char *path, const struct jitunwind_py_code_range *got, size_t n,
                     const uint64_t values[2], const uint64_t sizes[2], uint64_t bias)
{
    size_t i;
    ck_assert_msg(n == 2, "%s: %zu eval parts, not 2", path, n);
    for (i = 0; i < n; i++)
        if (!got[i].main) {
            ck_assert_uint_eq(got[i].start, values[0] + bias);
            ck_assert_uint_eq(got[i].end, values[0] + sizes[0] + bias);
        } else {
            ck_assert_uint_eq(got[i].start, values[1] + bias);
        }
    ck_assert_uint_lt(got[0].start, got[1].start);
}

START_TEST(the_cold_part_is_found_from_the_code)
{
    struct jitunwind_py_code_range got[JITUNWIND_PY_MAX_EVAL_RANGES];
    uint64_t values[2], sizes[2], bias = 0x7f0000000000ull;
    size_t n;
    ck_assert_ptr_nonnull(mkdtemp(dir));
    jitunwind_set_debug_file_directories("");
    sh("objcopy --strip-all '%s' stripped.so", EVAL_COLD_LIB);
    snprintf(stripped, sizeof stripped, "%s/stripped.so", dir);
    eval_symbols(EVAL_COLD_LIB, values, sizes);
    /* As built: the symbol names both parts, nothing is added. */
    n = parts(EVAL_COLD_LIB, JITUNWIND_ARCH_X86_64, bias, got);
    ck_assert_uint_eq(n, 2);
    /* Stripped: only the function is named; the part is found. */
    n = parts(stripped, JITUNWIND_ARCH_X86_64, bias, got);
    ck_parts(stripped, got, n, values, sizes, bias);
    /* Not when x86-64 code is read as AArch64's. */
    ck_assert_uint_eq(parts(stripped, JITUNWIND_ARCH_AARCH64, bias, got), 1);
    sh("cd / && rm -rf '%s'", dir);
    jitunwind_set_debug_file_directories(NULL);
}
END_TEST

START_TEST(an_aarch64_cold_part_is_found_from_each_branch_form)
{
    struct jitunwind_py_code_range got[JITUNWIND_PY_MAX_EVAL_RANGES];
    uint64_t values[2], sizes[2], bias = 0x5500000000ull;
    char list[] = EVAL_COLD_A64, path[1024], *save = NULL, *file;
    unsigned checked = 0;
    if (!*list) {
        ju_skip("no aarch64-linux-gnu-gcc/objcopy: the AArch64 fixtures were not built");
        return;
    }
    jitunwind_set_debug_file_directories("");
    for (file = strtok_r(list, ":", &save); file; file = strtok_r(NULL, ":", &save)) {
        eval_symbols(file, values, sizes);
        /* As built: named, nothing added. */
        ck_assert_uint_eq(parts(file, JITUNWIND_ARCH_AARCH64, bias, got), 2);
        snprintf(path, sizeof path, "%s.stripped", file);
        ck_parts(path, got, parts(path, JITUNWIND_ARCH_AARCH64, bias, got), values, sizes, bias);
        /* Not when AArch64 code is read as x86-64's. */
        ck_assert_uint_eq(parts(path, JITUNWIND_ARCH_X86_64, bias, got), 1);
        checked++;
    }
    ck_assert_uint_eq(checked, 13); /* six branch forms on both sides, GCC's split */
    jitunwind_set_debug_file_directories(NULL);
}
END_TEST

int main(void)
{
    return ju_run_tests("eval_outlined", JU_TESTS(the_cold_part_is_found_from_the_code,
                                                       an_aarch64_cold_part_is_found_from_each_branch_form));
}
