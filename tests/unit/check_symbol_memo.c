/* jitunwind_elf_symbol keeps its answers across calls (elf/file_memo.c);
 * a kept answer must never outlive the files it was read from: a file
 * replaced at its path, and a stripped file whose debug file appears,
 * changes or goes, are read again. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jitunwind/jitunwind.h"
#include "suite.h"

static char dir[] = "/tmp/ju-symbol-memo-XXXXXX";

/* A function only the full symbol table names (it is static). */
__attribute__((noinline, used)) static int memo_marker(int x)
{
    return x * 3 + 1;
}

#define sh(...) ju_sh_in(dir, __VA_ARGS__)

static int lookup(const char *file, uint64_t *value)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    return jitunwind_elf_symbol(path, "memo_marker", value, NULL);
}

/* The same path asked again after the file there was replaced by one
 * without the symbol, and then by the first again. */
START_TEST(a_replaced_file_is_read_again)
{
    uint64_t first = 0, again = 0;
    ck_assert_int_eq(memo_marker(1), 4);
    ck_assert_ptr_nonnull(mkdtemp(dir));
    sh("cp /proc/%d/exe full && objcopy --strip-all full bare && cp full f", (int)getpid());
    ck_assert_int_eq(lookup("f", &first), 0);
    ck_assert_int_eq(lookup("f", &again), 0);
    ck_assert_uint_eq(again, first);
    sh("cp bare f.new && mv f.new f");
    ck_assert_int_eq(lookup("f", &again), JITUNWIND_ENOTFOUND);
    sh("cp full f.new && mv f.new f");
    ck_assert_int_eq(lookup("f", &again), 0);
    ck_assert_uint_eq(again, first);
    sh("cd / && rm -rf '%s'", dir);
}
END_TEST

/* A stripped file with a debug link: without its debug file the static
 * function is unknown; once the debug file is beside it, it is found; once
 * the debug file is gone, it is unknown again. */
START_TEST(a_debug_file_that_appears_or_goes_is_seen)
{
    uint64_t want = 0, got = 0;
    ck_assert_ptr_nonnull(mkdtemp(dir));
    sh("cp /proc/%d/exe full && objcopy --only-keep-debug full saved.debug && "
       "objcopy --strip-all --remove-section=.note.gnu.build-id "
       "--add-gnu-debuglink=saved.debug full stripped && mv saved.debug kept.debug",
       (int)getpid());
    ck_assert_int_eq(lookup("full", &want), 0);
    ck_assert_int_eq(lookup("stripped", &got), JITUNWIND_ENOTFOUND);
    ck_assert_int_eq(lookup("stripped", &got), JITUNWIND_ENOTFOUND);
    sh("cp kept.debug saved.debug");
    ck_assert_int_eq(lookup("stripped", &got), 0);
    ck_assert_uint_eq(got, want);
    sh("rm saved.debug");
    ck_assert_int_eq(lookup("stripped", &got), JITUNWIND_ENOTFOUND);
    sh("cd / && rm -rf '%s'", dir);
}
END_TEST

int main(void)
{
    return ju_run_tests("symbol_memo", JU_TESTS(a_replaced_file_is_read_again,
                                                a_debug_file_that_appears_or_goes_is_seen));
}
