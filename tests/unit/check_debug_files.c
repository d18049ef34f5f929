/* Separate debug files (jitunwind/debug_files.h) and the eval loop's parts:
 * a small library shaped like an LTO-built interpreter (shapes/eval_parts.c)
 * is stripped with objcopy here, and its symbols, local ones too, are found
 * again through its debug file by build id under a debug root and through
 * .gnu_debuglink in each place gdb looks, while a debug file of another
 * build or with another CRC is refused with a note. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "jitunwind/jitunwind.h"
#include "python/pyreader.h"
#include "suite.h"
#include "elf/elf.h"

static char dir[] = "/tmp/ju-debug-files-XXXXXX";

#define sh(...) ju_sh_in(dir, __VA_ARGS__)

static const char *at(const char *name)
{
    static char paths[4][4096];
    static int next;
    char *p = paths[next++ % 4];
    snprintf(p, sizeof paths[0], "%s/%s", dir, name);
    return p;
}

/* The library's build id in hex. */
static void build_id(const char *path, char *hex, size_t size)
{
    int fd;
    Elf *elf;
    ck_assert_int_eq(ju_elf_open(path, &fd, &elf), 0);
    ck_assert_int_eq(ju_elf_build_id_hex(elf, hex, size), 0);
    ju_elf_close(fd, elf);
}

/* dir/lib.so (as built), lib.debug (its debug file), bin/lib.so (stripped,
 * build id kept) and link/lib.so (stripped, no build id, a debug link). */
static void make_files(void)
{
    ck_assert_ptr_nonnull(mkdtemp(dir));
    sh("cp '%s' lib.so && objcopy --only-keep-debug lib.so lib.debug && mkdir bin link && "
       "objcopy --strip-all lib.so bin/lib.so && "
       "objcopy --strip-all --remove-section=.note.gnu.build-id "
       "--add-gnu-debuglink=lib.debug lib.so link/lib.so",
       EVAL_PARTS_LIB);
}

static void clean(void)
{
    sh("cd / && rm -rf '%s'", dir);
    jitunwind_set_debug_file_directories(NULL);
}

/* ROOT/.build-id/xx/rest.debug under root `root` (a folder of dir) for the
 * build id of lib.so, holding `file`. */
static void place_by_build_id(const char *root, const char *file)
{
    char hex[JU_BUILD_ID_HEX_MAX];
    build_id(at("lib.so"), hex, sizeof hex);
    sh("mkdir -p '%s/.build-id/%.2s' && cp '%s' '%s/.build-id/%.2s/%s.debug'", root, hex, file,
       root, hex, hex + 2);
}

static void expect_found(const char *elf, const char *want)
{
    char path[4096], note[512];
    ck_assert_int_eq(jitunwind_debug_file_find(elf, path, sizeof path, note, sizeof note), 0);
    ck_assert_str_eq(path, want);
}

START_TEST(the_crc_is_the_debuglink_one)
{
    ck_assert_uint_eq(ju_crc32(0, "123456789", 9), 0xcbf43926u);
    ck_assert_uint_eq(ju_crc32(ju_crc32(0, "1234", 4), "56789", 5), 0xcbf43926u);
}
END_TEST

START_TEST(roots_are_a_colon_separated_list)
{
    char buf[JITUNWIND_DEBUG_DIRS_MAX + 8], small[4];
    static char long_list[JITUNWIND_DEBUG_DIRS_MAX + 1];
    ck_assert_int_eq(jitunwind_debug_file_directories(buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "/usr/lib/debug");
    ck_assert_int_eq(jitunwind_set_debug_file_directories("/a:/b/"), 0);
    ck_assert_int_eq(jitunwind_debug_file_directories(buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "/a:/b/");
    ck_assert_int_eq(jitunwind_debug_file_directories(small, sizeof small), JITUNWIND_ELIMIT);
    memset(long_list, 'x', sizeof long_list - 1);
    ck_assert_int_eq(jitunwind_set_debug_file_directories(long_list), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_debug_file_directories(buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "/a:/b/"); /* a refused list changes nothing */
    ck_assert_int_eq(jitunwind_set_debug_file_directories(""), 0);
    ck_assert_int_eq(jitunwind_debug_file_directories(buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "");
    ck_assert_int_eq(jitunwind_set_debug_file_directories(NULL), 0);
    ck_assert_int_eq(jitunwind_debug_file_directories(buf, sizeof buf), 0);
    ck_assert_str_eq(buf, JITUNWIND_DEBUG_ROOT_DEFAULT);
    ck_assert_int_eq(jitunwind_debug_file_directories(NULL, 4), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_debug_file_find(NULL, buf, sizeof buf, NULL, 0), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_debug_file_find("/proc/self/exe", NULL, 4, NULL, 0),
                     JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_debug_file_find("/nonexistent/x", buf, sizeof buf, NULL, 0),
                     JITUNWIND_EIO);
}
END_TEST

START_TEST(a_stripped_file_has_its_symbols_from_its_debug_file_by_build_id)
{
    uint64_t value, size, want, want_size;
    char roots[8192], path[4096];
    make_files();
    ck_assert_int_eq(jitunwind_elf_symbol(at("lib.so"), "stencil_groups", &want, &want_size), 0);
    ck_assert_uint_eq(want_size, 16);
    /* No root holds it: the dynamic symbols only. */
    snprintf(roots, sizeof roots, "%s/none", dir);
    ck_assert_int_eq(jitunwind_set_debug_file_directories(roots), 0);
    ck_assert_int_eq(jitunwind_elf_symbol(at("bin/lib.so"), "stencil_groups", &value, NULL),
                     JITUNWIND_ENOTFOUND);
    ck_assert_int_eq(jitunwind_elf_symbol(at("bin/lib.so"), "_PyRuntime", &value, NULL), 0);
    ck_assert_int_eq(jitunwind_debug_file_find(at("bin/lib.so"), path, sizeof path, NULL, 0),
                     JITUNWIND_ENOTFOUND);
    /* The second root holds it: local symbols too, at the same addresses. */
    place_by_build_id(at("root"), at("lib.debug"));
    snprintf(roots, sizeof roots, "%s/none::%s/root/", dir, dir);
    ck_assert_int_eq(jitunwind_set_debug_file_directories(roots), 0);
    ck_assert_int_eq(jitunwind_elf_symbol(at("bin/lib.so"), "stencil_groups", &value, &size), 0);
    ck_assert_uint_eq(value, want);
    ck_assert_uint_eq(size, want_size);
    ck_assert_int_eq(jitunwind_elf_symbol(at("bin/lib.so"), "_PyOpcode_uop_name", &value, NULL),
                     0);
    ck_assert_int_eq(jitunwind_debug_file_find(at("bin/lib.so"), path, sizeof path, NULL, 0), 0);
    ck_assert_ptr_nonnull(strstr(path, "/root/.build-id/"));
    clean();
}
END_TEST

START_TEST(a_debug_file_of_another_build_is_refused_with_a_note)
{
    char roots[8192], path[4096], note[1024], self[4096];
    uint64_t value;
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    ck_assert_int_gt(n, 0);
    self[n] = '\0';
    make_files();
    sh("objcopy --only-keep-debug '%s' other.debug", self);
    place_by_build_id(at("root"), at("other.debug"));
    snprintf(roots, sizeof roots, "%s/root", dir);
    ck_assert_int_eq(jitunwind_set_debug_file_directories(roots), 0);
    ck_assert_int_eq(jitunwind_debug_file_find(at("bin/lib.so"), path, sizeof path, note,
                                               sizeof note),
                     JITUNWIND_ENOTFOUND);
    ck_assert_msg(strstr(note, "/root/.build-id/") && strstr(note, "refused: its build id is"),
                  "note: %s", note);
    ck_assert_int_eq(jitunwind_elf_symbol(at("bin/lib.so"), "stencil_groups", &value, NULL),
                     JITUNWIND_ENOTFOUND);
    clean();
}
END_TEST

START_TEST(a_debug_link_is_followed_where_gdb_looks_with_its_crc_checked)
{
    char roots[8192], path[8192], note[1024], real_dir[2048], *real;
    uint64_t value;
    make_files();
    real = realpath(dir, NULL);
    ck_assert_ptr_nonnull(real);
    snprintf(real_dir, sizeof real_dir, "%s", real);
    free(real);
    snprintf(roots, sizeof roots, "%s/root", dir);
    ck_assert_int_eq(jitunwind_set_debug_file_directories(roots), 0);
    /* Not found anywhere yet. */
    ck_assert_int_eq(jitunwind_elf_symbol(at("link/lib.so"), "stencil_groups", &value, NULL),
                     JITUNWIND_ENOTFOUND);
    /* ROOT + the file's folder. */
    sh("mkdir -p 'root%s/link' && cp lib.debug 'root%s/link/'", real_dir, real_dir);
    snprintf(path, sizeof path, "%s/root%s/link/lib.debug", dir, real_dir);
    expect_found(at("link/lib.so"), path);
    ck_assert_int_eq(jitunwind_elf_symbol(at("link/lib.so"), "stencil_groups", &value, NULL), 0);
    /* The file's .debug/ comes before the roots. */
    sh("mkdir link/.debug && cp lib.debug link/.debug/");
    snprintf(path, sizeof path, "%s/link/.debug/lib.debug", real_dir);
    expect_found(at("link/lib.so"), path);
    /* Its own folder comes first. */
    sh("cp lib.debug link/");
    snprintf(path, sizeof path, "%s/link/lib.debug", real_dir);
    expect_found(at("link/lib.so"), path);
    /* One byte more and the CRC differs: refused, with a note, and the next
     * place is taken. */
    sh("printf x >> link/lib.debug");
    ck_assert_int_eq(jitunwind_debug_file_find(at("link/lib.so"), path, sizeof path, note,
                                               sizeof note),
                     0);
    ck_assert_ptr_nonnull(strstr(path, "/link/.debug/lib.debug"));
    ck_assert_msg(strstr(note, "/link/lib.debug refused: its CRC is"), "note: %s", note);
    /* Every copy damaged: nothing is trusted. */
    sh("printf x >> link/.debug/lib.debug && printf x >> 'root%s/link/lib.debug'", real_dir);
    ck_assert_int_eq(jitunwind_debug_file_find(at("link/lib.so"), path, sizeof path, note,
                                               sizeof note),
                     JITUNWIND_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(note, "/link/.debug/lib.debug refused"));
    ck_assert_int_eq(jitunwind_elf_symbol(at("link/lib.so"), "stencil_groups", &value, NULL),
                     JITUNWIND_ENOTFOUND);
    clean();
}
END_TEST

START_TEST(the_eval_loop_is_the_function_and_its_split_parts)
{
    static const char *const eval[] = {
        "_PyEval_EvalFrameDefault", "_PyEval_EvalFrameDefault.cold",
        "_PyEval_EvalFrameDefault.part.0", "_PyEval_EvalFrameDefault.constprop.12",
        "_PyEval_EvalFrameDefault.isra.0", "_PyEval_EvalFrameDefault.lto_priv.0",
        "_PyEval_EvalFrameDefault.constprop.0.isra.0.cold"};
    static const char *const other[] = {
        "_PyEval_EvalFrame.constprop.0", "_PyEval_EvalFrameDefaultX",
        "_PyEval_EvalFrameDefault.", "_PyEval_EvalFrameDefault.hot",
        "_PyEval_EvalFrameDefault.cold.", "_PyEval_EvalFrameDefault.coldx", "py_eval", ""};
    struct jitunwind_py_code_range one;
    size_t i, n;
    ck_assert_int_eq(jitunwind_pyreader_eval_ranges(NULL, &one, 1, &n), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_pyreader_in_eval_loop(NULL, 0x1000), 0);
    for (i = 0; i < sizeof eval / sizeof eval[0]; i++)
        ck_assert_msg(jitunwind_native_role_from_symbol(eval[i]) == JITUNWIND_ROLE_EVAL, "%s",
                      eval[i]);
    for (i = 0; i < sizeof other / sizeof other[0]; i++)
        ck_assert_msg(jitunwind_native_role_from_symbol(other[i]) == JITUNWIND_ROLE_OTHER, "%s",
                      other[i]);
}
END_TEST

START_TEST(the_debuginfod_client_cache_is_read_when_servers_are_named)
{
    char hex[JU_BUILD_ID_HEX_MAX], roots[8192], path[4096], note[1024];
    uint64_t value;
    make_files();
    build_id(at("lib.so"), hex, sizeof hex);
    snprintf(roots, sizeof roots, "%s/none", dir);
    ck_assert_int_eq(jitunwind_set_debug_file_directories(roots), 0);
    sh("mkdir -p 'cache/%s' && cp lib.debug 'cache/%s/debuginfo'", hex, hex);
    setenv("DEBUGINFOD_CACHE_PATH", at("cache"), 1);
    /* No server named: the cache is not the user's choice. */
    unsetenv("DEBUGINFOD_URLS");
    ck_assert_int_eq(jitunwind_elf_symbol(at("bin/lib.so"), "stencil_groups", &value, NULL),
                     JITUNWIND_ENOTFOUND);
    /* A server named (nothing listens there): what the client fetched is used. */
    setenv("DEBUGINFOD_URLS", "http://127.0.0.1:9", 1);
    ck_assert_int_eq(jitunwind_elf_symbol(at("bin/lib.so"), "stencil_groups", &value, NULL), 0);
    snprintf(path, sizeof path, "%s/cache/%s/debuginfo", dir, hex);
    expect_found(at("bin/lib.so"), path);
    /* Another build's file in the cache is refused; the server, asked for
     * the interpreter's file, does not answer. */
    sh("objcopy --only-keep-debug '%s' 'cache/%s/debuginfo'", OTHER_BUILD_LIB, hex);
    ck_assert_int_eq(jitunwind_debug_file_find(at("bin/lib.so"), path, sizeof path, note,
                                               sizeof note),
                     JITUNWIND_ENOTFOUND);
    ck_assert_msg(strstr(note, "/debuginfo refused: its build id is"), "note: %s", note);
    clean();
}
END_TEST

/* A loopback socket that listens and never answers: *URL names it for
 * DEBUGINFOD_URLS. Returns the socket. */
static int silent_server(char *url, size_t size)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(listen(fd, 8), 0);
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    snprintf(url, size, "http://127.0.0.1:%u", (unsigned)ntohs(a.sin_port));
    return fd;
}

/* Whether a client has connected to the silent server. */
static int asked(int fd)
{
    struct pollfd p = {fd, POLLIN, 0};
    return poll(&p, 1, 0) > 0;
}

/* A file that carries its own DWARF needs no separate file: the servers
 * are not asked for one (a debugger on an unstripped interpreter would
 * otherwise download a debug file nothing reads); a stripped file's is
 * asked for. */
START_TEST(a_file_with_its_own_dwarf_asks_no_server)
{
    char url[64], path[4096], roots[8192];
    int fd;
    make_files();
    snprintf(roots, sizeof roots, "%s/none", dir);
    ck_assert_int_eq(jitunwind_set_debug_file_directories(roots), 0);
    setenv("DEBUGINFOD_CACHE_PATH", at("empty-cache"), 1);
    setenv("DEBUGINFOD_TIMEOUT", "1", 1);
    fd = silent_server(url, sizeof url);
    setenv("DEBUGINFOD_URLS", url, 1);
    ck_assert_int_eq(jitunwind_debug_file_find(at("lib.so"), path, sizeof path, NULL, 0),
                     JITUNWIND_ENOTFOUND);
    ck_assert_msg(!asked(fd), "a server was asked for the debug file of a file with DWARF");
    ck_assert_int_eq(jitunwind_debug_file_find(at("bin/lib.so"), path, sizeof path, NULL, 0),
                     JITUNWIND_ENOTFOUND);
    ck_assert_msg(asked(fd), "no server was asked for the stripped file's debug file");
    close(fd);
    unsetenv("DEBUGINFOD_URLS");
    unsetenv("DEBUGINFOD_TIMEOUT");
    clean();
}
END_TEST

/* The eval parts of `path` found as the reader finds them, loaded at `bias`. */
static size_t eval_parts(const char *path, uint64_t bias, struct jitunwind_py_code_range *out)
{
    jitunwind_pyreader *r = calloc(1, sizeof *r);
    struct ju_py_file_symbols s;
    size_t n = 0;
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(ju_py_file_symbols(path, JITUNWIND_ARCH_X86_64, NULL, &s), 0);
    ju_py_set_eval_parts(r, s.eval, s.n_eval, bias);
    ck_assert_int_eq(jitunwind_pyreader_eval_ranges(r, out, JITUNWIND_PY_MAX_EVAL_RANGES, &n), 0);
    if (n)
        ck_assert_int_eq(jitunwind_pyreader_in_eval_loop(r, out[0].start), 1);
    ck_assert_int_eq(jitunwind_pyreader_in_eval_loop(r, bias + 1), 0);
    free(r);
    return n;
}

START_TEST(the_reader_finds_every_part_of_the_eval_loop_in_the_debug_file)
{
    struct jitunwind_py_code_range parts[JITUNWIND_PY_MAX_EVAL_RANGES];
    char roots[8192];
    uint64_t main_at, cold_at, part_at, size, bias = 0x7f0000000000ull;
    size_t n, i, mains = 0;
    make_files();
    ck_assert_int_eq(jitunwind_elf_symbol(at("lib.so"), "_PyEval_EvalFrameDefault", &main_at,
                                          &size), 0);
    ck_assert_int_eq(jitunwind_elf_symbol(at("lib.so"), "_PyEval_EvalFrameDefault.cold",
                                          &cold_at, NULL), 0);
    ck_assert_int_eq(jitunwind_elf_symbol(at("lib.so"), "_PyEval_EvalFrameDefault.part.0",
                                          &part_at, NULL), 0);
    /* Unstripped: three parts, by address; the lookalike is not one. */
    n = eval_parts(at("lib.so"), bias, parts);
    ck_assert_uint_eq(n, 3);
    for (i = 0; i < n; i++) {
        ck_assert(i == 0 || parts[i - 1].start < parts[i].start);
        ck_assert(parts[i].start == cold_at + bias || parts[i].start == part_at + bias ||
                  parts[i].start == main_at + bias);
        if (parts[i].main) {
            mains++;
            ck_assert_uint_eq(parts[i].start, main_at + bias);
            ck_assert_uint_eq(parts[i].end, main_at + size + bias);
        }
    }
    ck_assert_uint_eq(mains, 1);
    /* Stripped, without its debug file: the exported function only. */
    snprintf(roots, sizeof roots, "%s/root", dir);
    ck_assert_int_eq(jitunwind_set_debug_file_directories(roots), 0);
    n = eval_parts(at("bin/lib.so"), bias, parts);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(parts[0].start, main_at + bias);
    /* With it: all three again. */
    place_by_build_id(at("root"), at("lib.debug"));
    ck_assert_uint_eq(eval_parts(at("bin/lib.so"), bias, parts), 3);
    clean();
}
END_TEST

int main(void)
{
    return ju_run_tests("debug_files",
                        JU_TESTS(the_crc_is_the_debuglink_one, roots_are_a_colon_separated_list,
                                 a_stripped_file_has_its_symbols_from_its_debug_file_by_build_id,
                                 a_debug_file_of_another_build_is_refused_with_a_note,
                                 a_debug_link_is_followed_where_gdb_looks_with_its_crc_checked,
                                 the_debuginfod_client_cache_is_read_when_servers_are_named,
                                 a_file_with_its_own_dwarf_asks_no_server,
                                 the_eval_loop_is_the_function_and_its_split_parts,
                                 the_reader_finds_every_part_of_the_eval_loop_in_the_debug_file));
}
