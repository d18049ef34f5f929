/* The eval loop's `.cold` part of a stripped interpreter without its debug
 * file, found from the function's jumps and .eh_frame
 * (src/python/eval_outlined.c), on a small library GCC split that way
 * (shapes/eval_cold.c): the part found is the one the unstripped file's
 * symbol names; nothing is added where a symbol already names it, nor on
 * another architecture. */
#include <stdio.h>
#include <stdlib.h>
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
    size_t n = 0;
    ck_assert_ptr_nonnull(r);
    r->arch = arch;
    ju_py_find_eval_parts(r, path, bias);
    ju_py_find_eval_outlined(r, path, bias);
    ck_assert_int_eq(jitunwind_pyreader_eval_ranges(r, out, JITUNWIND_PY_MAX_EVAL_RANGES, &n), 0);
    free(r);
    return n;
}

START_TEST(the_cold_part_is_found_from_the_code)
{
    static const char *const names[] = {"_PyEval_EvalFrameDefault.cold",
                                        "_PyEval_EvalFrameDefault"};
    struct jitunwind_py_code_range got[JITUNWIND_PY_MAX_EVAL_RANGES];
    uint64_t values[2], sizes[2], bias = 0x7f0000000000ull;
    uint8_t found[2];
    size_t n, i;
    ck_assert_ptr_nonnull(mkdtemp(dir));
    jitunwind_set_debug_file_directories("");
    sh("objcopy --strip-all '%s' stripped.so", EVAL_COLD_LIB);
    snprintf(stripped, sizeof stripped, "%s/stripped.so", dir);
    ck_assert_int_eq(ju_elf_symbols(EVAL_COLD_LIB, names, 2, values, sizes, found), 0);
    ck_assert_msg(found[0] && found[1], "the compiler made no .cold part of the fixture");
    /* As built: the symbol names both parts, nothing is added. */
    n = parts(EVAL_COLD_LIB, JITUNWIND_ARCH_X86_64, bias, got);
    ck_assert_uint_eq(n, 2);
    /* Stripped: only the function is named; the part is found. */
    n = parts(stripped, JITUNWIND_ARCH_X86_64, bias, got);
    ck_assert_uint_eq(n, 2);
    for (i = 0; i < n; i++)
        if (!got[i].main) {
            ck_assert_uint_eq(got[i].start, values[0] + bias);
            ck_assert_uint_eq(got[i].end, values[0] + sizes[0] + bias);
        } else {
            ck_assert_uint_eq(got[i].start, values[1] + bias);
        }
    ck_assert_uint_lt(got[0].start, got[1].start);
    /* Not on another architecture (the jumps are x86-64's). */
    ck_assert_uint_eq(parts(stripped, JITUNWIND_ARCH_AARCH64, bias, got), 1);
    sh("cd / && rm -rf '%s'", dir);
    jitunwind_set_debug_file_directories(NULL);
}
END_TEST

int main(void)
{
    return ju_run_tests("eval_outlined", JU_TESTS(the_cold_part_is_found_from_the_code));
}
