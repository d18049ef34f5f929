/* What a reader takes from its interpreter's symbols (src/python/
 * interp_symbols.c), on a library shaped like an LTO-built interpreter
 * (shapes/eval_parts.c): the runtime's names and the eval loop's parts
 * come from one pass over the file's tables, the next reading of the same
 * file makes none and finds the same, and a kept reading never outlives
 * what it was read from: a file replaced at its path, and a stripped
 * file's debug file appearing or going, are read again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "elf/elf.h"
#include "python/pyreader.h"
#include "suite.h"

static char dir[] = "/tmp/ju-interp-symbols-XXXXXX";

#define sh(...) ju_sh_in(dir, __VA_ARGS__)

/* The reading of dir/f, and the passes over symbol tables it made. */
static unsigned long reading(struct ju_py_file_symbols *s)
{
    char path[4096];
    unsigned long before = ju_elf_symbol_passes();
    snprintf(path, sizeof path, "%s/f", dir);
    ck_assert_int_eq(ju_py_file_symbols(path, JITUNWIND_ARCH_X86_64, NULL, s), 0);
    return ju_elf_symbol_passes() - before;
}

/* The library as built: the runtime, the JIT's tables (local), three parts. */
static void ck_whole(const struct ju_py_file_symbols *s)
{
    ck_assert(s->found[JU_PY_SYM_RUNTIME] && s->found[JU_PY_SYM_STENCILS] &&
              s->found[JU_PY_SYM_UOP_NAMES]);
    ck_assert(!s->found[JU_PY_SYM_COLD_EXITS]); /* not asked for */
    ck_assert_uint_eq(s->n_eval, 3);
}

static void ck_same(const struct ju_py_file_symbols *x, const struct ju_py_file_symbols *y)
{
    size_t i;
    for (i = 0; i < JU_PY_N_SYMS; i++) {
        ck_assert_uint_eq(x->found[i], y->found[i]);
        ck_assert_uint_eq(x->values[i], y->values[i]);
        ck_assert_uint_eq(x->sizes[i], y->sizes[i]);
    }
    ck_assert_uint_eq(x->n_eval, y->n_eval);
    for (i = 0; i < x->n_eval; i++) {
        ck_assert_uint_eq(x->eval[i].start, y->eval[i].start);
        ck_assert_uint_eq(x->eval[i].end, y->eval[i].end);
        ck_assert_uint_eq(x->eval[i].main, y->eval[i].main);
    }
}

START_TEST(one_pass_then_none_for_the_same_file)
{
    struct ju_py_file_symbols first, again;
    ck_assert_ptr_nonnull(mkdtemp(dir));
    sh("cp '%s' f", EVAL_PARTS_LIB);
    ck_assert_uint_eq(reading(&first), 1);
    ck_whole(&first);
    ck_assert_uint_eq(reading(&again), 0);
    ck_same(&again, &first);
    sh("cd / && rm -rf '%s'", dir);
}
END_TEST

/* Stripped in place (its exported names left: the runtime, the function),
 * then as built again. */
START_TEST(a_replaced_file_is_read_again)
{
    struct ju_py_file_symbols s;
    ck_assert_ptr_nonnull(mkdtemp(dir));
    jitunwind_set_debug_file_directories("");
    sh("cp '%s' full && objcopy --strip-all full bare && cp full f", EVAL_PARTS_LIB);
    ck_assert_uint_eq(reading(&s), 1);
    ck_whole(&s);
    sh("cp bare f.new && mv f.new f");
    ck_assert_uint_eq(reading(&s), 1);
    ck_assert(s.found[JU_PY_SYM_RUNTIME] && !s.found[JU_PY_SYM_STENCILS]);
    ck_assert_uint_eq(s.n_eval, 1);
    ck_assert_uint_eq(reading(&s), 0);
    sh("cp full f.new && mv f.new f");
    ck_assert_uint_eq(reading(&s), 1);
    ck_whole(&s);
    sh("cd / && rm -rf '%s'", dir);
    jitunwind_set_debug_file_directories(NULL);
}
END_TEST

/* A stripped file whose debug file, by build id under the debug root,
 * appears, then goes. */
START_TEST(a_debug_file_that_appears_or_goes_is_seen)
{
    struct ju_py_file_symbols s;
    char roots[4096];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(roots, sizeof roots, "%s/root", dir);
    ck_assert_int_eq(jitunwind_set_debug_file_directories(roots), 0);
    sh("cp '%s' full && objcopy --only-keep-debug full saved.debug && "
       "objcopy --strip-all full f && id=$(readelf -n f | awk '/Build ID/ {print $3}') && "
       "dir=root/.build-id/$(echo $id | cut -c1-2) && mkdir -p $dir && "
       "echo $dir/$(echo $id | cut -c3-).debug > place",
       EVAL_PARTS_LIB);
    ck_assert_uint_eq(reading(&s), 1);
    ck_assert_uint_eq(s.n_eval, 1);
    ck_assert_uint_eq(reading(&s), 0); /* still none */
    sh("cp saved.debug $(cat place)");
    ck_assert_uint_eq(reading(&s), 1);
    ck_whole(&s);
    ck_assert_uint_eq(reading(&s), 0);
    sh("rm $(cat place)");
    ck_assert_uint_eq(reading(&s), 1);
    ck_assert_uint_eq(s.n_eval, 1);
    sh("cd / && rm -rf '%s'", dir);
    jitunwind_set_debug_file_directories(NULL);
}
END_TEST

int main(void)
{
    return ju_run_tests("interp_symbols",
                        JU_TESTS(one_pass_then_none_for_the_same_file,
                                 a_replaced_file_is_read_again,
                                 a_debug_file_that_appears_or_goes_is_seen));
}
