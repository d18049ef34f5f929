/* Module files shared by module sets (jitunwind_module_files): a file is
 * opened once for every set sharing the pool, known by its identity (the
 * same file at another path is shared, a file replaced at its path is
 * not), the pool bounded (a set opens its own when every pooled file is
 * in use), and the pool kept while a set shares it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jitunwind/jitunwind.h"
#include "suite.h"

#define DIR_TEMPLATE "/tmp/ju-module-files-XXXXXX"
static char dir[] = DIR_TEMPLATE;

#define sh(...) ju_sh_in(dir, __VA_ARGS__)

static void make_dir(void)
{
    memcpy(dir, DIR_TEMPLATE, sizeof dir);
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* A function of this program, to name through each set. */
__attribute__((noinline, used)) static int shared_marker(int x)
{
    return x * 5 + 2;
}

static struct jitunwind_module_files_stats stats_of(const jitunwind_module_files *files)
{
    struct jitunwind_module_files_stats st;
    ck_assert_int_eq(jitunwind_module_files_stats(files, &st), 0);
    return st;
}

static void add(jitunwind_modules *mods, const char *file)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    ck_assert_int_eq(jitunwind_modules_add_mapping(mods, path, 0x10000000, 0x10001000, 0), 0);
}

static jitunwind_modules *sharing(jitunwind_module_files *files)
{
    jitunwind_modules *mods;
    ck_assert_int_eq(jitunwind_modules_new(&mods), 0);
    ck_assert_int_eq(jitunwind_modules_share_files(mods, files), 0);
    return mods;
}

/* Two sets of this process's files: the second is given every file the
 * first opened, and both name a function of this program, also once
 * the pool's owner and the first set have let go. */
START_TEST(two_sets_of_one_process_share_every_file)
{
    jitunwind_module_files *files;
    jitunwind_modules *a, *b;
    struct jitunwind_module_files_stats st;
    uint64_t addr = (uint64_t)(uintptr_t)&shared_marker;
    char name[64];
    ck_assert_int_eq(shared_marker(1), 7);
    ck_assert_int_eq(jitunwind_module_files_new(64, &files), 0);
    a = sharing(files);
    b = sharing(files);
    ck_assert_int_eq(jitunwind_modules_load_proc(a, getpid()), 0);
    st = stats_of(files);
    ck_assert_uint_ge(st.opened, 1);
    ck_assert_uint_eq(st.opened + st.reused, jitunwind_modules_count(a));
    ck_assert_int_eq(jitunwind_modules_load_proc(b, getpid()), 0);
    ck_assert_uint_eq(stats_of(files).opened, st.opened);
    ck_assert_uint_eq(stats_of(files).reused, st.reused + jitunwind_modules_count(b));
    ck_assert_int_eq(jitunwind_modules_symbolize(a, addr, name, sizeof name, NULL), 0);
    ck_assert_str_eq(name, "shared_marker");
    jitunwind_module_files_free(files);
    jitunwind_modules_free(a);
    memset(name, 0, sizeof name);
    ck_assert_int_eq(jitunwind_modules_symbolize(b, addr, name, sizeof name, NULL), 0);
    ck_assert_str_eq(name, "shared_marker");
    jitunwind_modules_free(b);
}
END_TEST

/* The same file at another path (a hard link) is shared; a file replaced
 * at its path is another file. */
START_TEST(a_file_is_known_by_its_identity)
{
    jitunwind_module_files *files;
    jitunwind_modules *a, *b, *c;
    struct jitunwind_module_file_info info;
    make_dir();
    sh("cp /proc/%d/exe f && ln f g", (int)getpid());
    ck_assert_int_eq(jitunwind_module_files_new(8, &files), 0);
    a = sharing(files);
    b = sharing(files);
    c = sharing(files);
    add(a, "f");
    add(b, "g");
    ck_assert_uint_eq(stats_of(files).opened, 1);
    ck_assert_uint_eq(stats_of(files).reused, 1);
    ck_assert_int_eq(jitunwind_module_files_info(files, 0, &info), 0);
    ck_assert_uint_eq(info.users, 2);
    ck_assert_str_eq(strrchr(info.path, '/'), "/f");
    ck_assert_int_eq(jitunwind_module_files_info(files, 1, &info), JITUNWIND_EINVAL);
    sh("cp f f.new && touch -d @946684800 f.new && mv f.new f");
    add(c, "f");
    ck_assert_uint_eq(stats_of(files).opened, 2);
    ck_assert_uint_eq(stats_of(files).reused, 1);
    jitunwind_modules_free(a);
    jitunwind_modules_free(b);
    jitunwind_modules_free(c);
    ck_assert_uint_eq(stats_of(files).held, 2); /* let go, kept for the next set */
    ck_assert_int_eq(jitunwind_module_files_info(files, 0, &info), 0);
    ck_assert_uint_eq(info.users, 0);
    jitunwind_module_files_free(files);
    sh("cd / && rm -rf '%s'", dir);
}
END_TEST

/* A pool of one file: a second file, the first in use, is the set's own;
 * once the first is let go, it gives way to a new one. */
START_TEST(a_full_pool_gives_way_or_lets_sets_open_their_own)
{
    jitunwind_module_files *files;
    jitunwind_modules *a, *b;
    struct jitunwind_module_files_stats st;
    make_dir();
    sh("cp /proc/%d/exe f && cp f g", (int)getpid());
    ck_assert_int_eq(jitunwind_module_files_new(1, &files), 0);
    a = sharing(files);
    add(a, "f");
    add(a, "g");
    st = stats_of(files);
    ck_assert_uint_eq(st.opened, 1);
    ck_assert_uint_eq(st.unpooled, 1);
    ck_assert_uint_eq(st.held, 1);
    ck_assert_uint_eq(jitunwind_modules_count(a), 2);
    jitunwind_modules_free(a);
    b = sharing(files);
    add(b, "g");
    st = stats_of(files);
    ck_assert_uint_eq(st.opened, 2);
    ck_assert_uint_eq(st.reused, 0);
    ck_assert_uint_eq(st.held, 1);
    jitunwind_modules_free(b);
    jitunwind_module_files_free(files);
    sh("cd / && rm -rf '%s'", dir);
}
END_TEST

START_TEST(arguments_are_checked)
{
    jitunwind_module_files *files = (jitunwind_module_files *)&files;
    struct jitunwind_module_files_stats st;
    ck_assert_int_eq(jitunwind_module_files_new(0, &files), JITUNWIND_EINVAL);
    ck_assert_ptr_null(files);
    ck_assert_int_eq(jitunwind_module_files_new(1, NULL), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_module_files_stats(NULL, &st), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_module_files_info(NULL, 0, NULL), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_modules_share_files(NULL, NULL), JITUNWIND_EINVAL);
    jitunwind_module_files_free(NULL);
}
END_TEST

int main(void)
{
    return ju_run_tests("module_files",
                        JU_TESTS(two_sets_of_one_process_share_every_file,
                                 a_file_is_known_by_its_identity,
                                 a_full_pool_gives_way_or_lets_sets_open_their_own,
                                 arguments_are_checked));
}
