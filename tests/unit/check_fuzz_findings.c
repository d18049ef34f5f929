/* Every input a fuzzer found a defect with (tests/fuzz/findings/<harness>/)
 * replayed through the same harness code, so that each finding stays a
 * regression test of the Check suites (and of their ASan/UBSan build, where
 * an over-read or an overflow aborts). The harnesses are compiled in here
 * with their entry points renamed. Also the findings' behaviour, asserted. */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "py_image.h"
#include "suite.h"

int fuzz_debug_offsets_one(const uint8_t *data, size_t size);
#define LLVMFuzzerTestOneInput fuzz_debug_offsets_one
#include "../fuzz/fuzz_debug_offsets.c"
#undef LLVMFuzzerTestOneInput
int fuzz_frames_one(const uint8_t *data, size_t size);
#define LLVMFuzzerTestOneInput fuzz_frames_one
#include "../fuzz/fuzz_frames.c"
#undef LLVMFuzzerTestOneInput
int fuzz_linetable_one(const uint8_t *data, size_t size);
#define LLVMFuzzerTestOneInput fuzz_linetable_one
#include "../fuzz/fuzz_linetable.c"
#undef LLVMFuzzerTestOneInput
int fuzz_executors_one(const uint8_t *data, size_t size);
#define LLVMFuzzerTestOneInput fuzz_executors_one
#include "../fuzz/fuzz_executors.c"
#undef LLVMFuzzerTestOneInput
int fuzz_trampolines_one(const uint8_t *data, size_t size);
#define LLVMFuzzerTestOneInput fuzz_trampolines_one
#include "../fuzz/fuzz_trampolines.c"
#undef LLVMFuzzerTestOneInput
int fuzz_descriptor_one(const uint8_t *data, size_t size);
#define LLVMFuzzerTestOneInput fuzz_descriptor_one
#include "../fuzz/fuzz_descriptor.c"
#undef LLVMFuzzerTestOneInput
int fuzz_gdb_jit_one(const uint8_t *data, size_t size);
#define LLVMFuzzerTestOneInput fuzz_gdb_jit_one
#include "../fuzz/fuzz_gdb_jit.c"
#undef LLVMFuzzerTestOneInput
int fuzz_perfmap_one(const uint8_t *data, size_t size);
#define LLVMFuzzerTestOneInput fuzz_perfmap_one
#include "../fuzz/fuzz_perfmap.c"
#undef LLVMFuzzerTestOneInput
int fuzz_registry_one(const uint8_t *data, size_t size);
#define LLVMFuzzerTestOneInput fuzz_registry_one
#include "../fuzz/fuzz_registry.c"
#undef LLVMFuzzerTestOneInput
int fuzz_dwarf_layout_one(const uint8_t *data, size_t size);
#define LLVMFuzzerTestOneInput fuzz_dwarf_layout_one
#include "../fuzz/fuzz_dwarf_layout.c"
#undef LLVMFuzzerTestOneInput
int fuzz_jit_view_one(const uint8_t *data, size_t size);
#define LLVMFuzzerTestOneInput fuzz_jit_view_one
#include "../fuzz/fuzz_jit_view.c"
#undef LLVMFuzzerTestOneInput
#include "../fuzz/fuzz_target.c"

struct harness {
    const char *name;
    int (*one)(const uint8_t *, size_t);
};

static const struct harness HARNESSES[] = {
    {"debug_offsets", fuzz_debug_offsets_one}, {"frames", fuzz_frames_one},
    {"linetable", fuzz_linetable_one},         {"executors", fuzz_executors_one},
    {"trampolines", fuzz_trampolines_one},     {"descriptor", fuzz_descriptor_one},
    {"gdb_jit", fuzz_gdb_jit_one},             {"perfmap", fuzz_perfmap_one},
    {"registry", fuzz_registry_one},           {"dwarf_layout", fuzz_dwarf_layout_one},
    {"jit_view", fuzz_jit_view_one},
};

/* tests/fuzz, from this file's own path. */
static void fuzz_dir(char *buf, size_t size, const char *sub)
{
    const char *slash = strrchr(__FILE__, '/');
    int n = slash ? (int)(slash - __FILE__) : 1;
    snprintf(buf, size, "%.*s/../fuzz/%s", n, slash ? __FILE__ : ".", sub);
}

/* A file's bytes (malloc'd; the test fails if it cannot be read). */
static uint8_t *read_input(const char *path, size_t *len)
{
    uint8_t *bytes;
    FILE *f;
    ck_assert_ptr_nonnull(f = fopen(path, "rb"));
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    bytes = malloc(*len + 1);
    ck_assert_uint_eq(fread(bytes, 1, *len, f), *len);
    fclose(f);
    return bytes;
}

/* Replays every file of tests/fuzz/<kind>/<harness>/; returns how many. */
static size_t replay(const char *kind)
{
    size_t total = 0, i;
    for (i = 0; i < sizeof HARNESSES / sizeof HARNESSES[0]; i++) {
        char dir[2048], sub[256], path[4096];
        struct dirent *de;
        DIR *d;
        snprintf(sub, sizeof sub, "%s/%s", kind, HARNESSES[i].name);
        fuzz_dir(dir, sizeof dir, sub);
        if (!(d = opendir(dir)))
            continue;
        while ((de = readdir(d)) != NULL) {
            size_t len;
            uint8_t *bytes;
            if (de->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            bytes = read_input(path, &len);
            ck_assert_int_eq(HARNESSES[i].one(bytes, len), 0);
            free(bytes);
            total++;
        }
        closedir(d);
    }
    return total;
}

START_TEST(every_finding_replays_cleanly)
{
    size_t n = replay("findings");
    printf("replayed %zu findings\n", n);
    ck_assert_uint_gt(n, 0);
}
END_TEST

/* The seeds too: each harness runs its committed corpus. */
START_TEST(every_seed_replays_cleanly)
{
    ck_assert_uint_ge(replay("corpus"), 10);
}
END_TEST

/* fuzz_linetable: a line delta near 2^63 overflowed the running line
 * (UBSan: signed integer overflow in linetable.c). */
START_TEST(a_huge_line_delta_is_no_line)
{
    /* code 13 (no columns), the svarint -(2^63 - 1): eleven 6-bit groups
     * of ones. -2304 plus that overflowed int64 (UBSan aborts the ASan
     * build of this suite without the fix). */
    static const uint8_t table[] = {0xe8, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f,
                                    0x7f, 0x7f, 0x7f, 0x7f, 0x3f};
    ck_assert_int_eq(jitunwind_py_linetable_line(table, sizeof table, -2304, 0), -1);
    ck_assert_int_eq(jitunwind_py_linetable_line(table, sizeof table, 10, 0), -1);
}
END_TEST

/* fuzz_debug_offsets / fuzz_frames: a target's debug offsets describing a
 * str header, code object or frame the decoders' copies cannot hold
 * (stack over-read) is refused when the reader opens, naming the field. */
START_TEST(layouts_past_the_decoders_copies_are_refused)
{
    static const struct {
        size_t field;
        uint32_t value;
        const char *says;
    } BAD[] = {
        {offsetof(struct ju_py_layout, str_ascii_size), 176, "str_ascii_size"},
        {offsetof(struct ju_py_layout, str_length), 120, "length"},
        {offsetof(struct ju_py_layout, co_qualname), 11920, "co_qualname"},
        {offsetof(struct ju_py_layout, co_size), 4096, "co_size"},
        {offsetof(struct ju_py_layout, fr_previous), 250, "previous"},
    };
    size_t i;
    for (i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        struct ju_py_layout L = *ju_py_layout_for(0x030d00f0, jitunwind_host_arch());
        char why[JITUNWIND_ERROR_MESSAGE_MAX] = "";
        memcpy((char *)&L + BAD[i].field, &BAD[i].value, 4);
        ck_assert_int_lt(ju_py_layout_check(&L, why, sizeof why), 0);
        ck_assert_msg(strstr(why, BAD[i].says) != NULL, "%s", why);
    }
    {
        char why[JITUNWIND_ERROR_MESSAGE_MAX] = "";
        ck_assert_int_eq(ju_py_layout_check(ju_py_layout_for(0x030d00f0, jitunwind_host_arch()),
                                            why, sizeof why), 0);
    }
}
END_TEST

/* fuzz_jit_view: the hole this harness was written for, which it finds in
 * seconds with the JIT layout check turned off (ASan: stack-buffer-overflow
 * in decode_uop): a 3.14 seed whose JIT layout puts _PyUOpInstruction's
 * oparg at 2048, as a DWARF could (any offset below 2^32 was adopted), just
 * past the decoder's 2 KiB stack copy of the trace. Refused, named; the
 * executors are still listed, nothing is read with that layout. */
START_TEST(a_uop_field_past_its_entry_is_refused)
{
    static struct jitunwind_py_executor_detail d[4];
    struct fuzz_target t;
    jitunwind_pyreader *r;
    char path[2048];
    uint8_t *bytes;
    size_t len, n = 0;
    fuzz_dir(path, sizeof path, "findings/jit_view/uop_oparg_past_its_entry");
    bytes = read_input(path, &len);
    fuzz_target_parse(&t, bytes, len);
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &t.mem, t.runtime, t.version_hex, NULL), 0);
    set_up(r, &t);
    ck_assert_uint_eq(r->layout->jit.uop_oparg, 2048);
    ck_assert_int_eq(jitunwind_pyreader_executor_details(r, d, 4, &n), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(d[0].missing, "CPython 3.14: _PyUOpInstruction.uop_oparg (offset 2048, 2 "
                                   "bytes) ends past the 24 bytes of _PyUOpInstruction that "
                                   "uop_size gives");
    ck_assert_uint_eq(d[0].uop_count, 0);
    jitunwind_pyreader_free(r);
    fuzz_target_free(&t);
    free(bytes);
}
END_TEST

int main(void)
{
    return ju_run_tests("fuzz_findings",
                        JU_TESTS(every_finding_replays_cleanly, every_seed_replays_cleanly,
                                 a_huge_line_delta_is_no_line,
                                 layouts_past_the_decoders_copies_are_refused,
                                 a_uop_field_past_its_entry_is_refused));
}
