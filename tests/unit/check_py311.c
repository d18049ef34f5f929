/* The CPython 3.11 decoder over synthetic targets built with the layout
 * table: threads, frames, names, lines, entry flags, and adversarial data. */
#include <stdlib.h>

#include "py_image.h"
#include "python/pyreader.h"
#include "suite.h"

#define V311 0x030b02f0u

static struct py_image P;
static jitunwind_pyreader *R;
static struct jitunwind_py_frame F[64];
static size_t N;

static void open_reader(void)
{
    struct jitunwind_memory mem = ju_builder_memory(P.b);
    ck_assert_int_eq(jitunwind_pyreader_open(&R, &mem, P.runtime, V311, NULL), 0);
}

static void teardown(void)
{
    jitunwind_pyreader_free(R);
    R = NULL;
    pyi_free(&P);
}

/* A main interpreter with one thread running a -> b (entry) -> c (entry). */
static uint64_t simple_target(uint64_t *ts_out)
{
    uint64_t interp, c, b, a, ts;
    pyi_init(&P, V311);
    c = pyi_frame(&P, pyi_code(&P, "outer", "/src/m.py", 100, 20), 0, 5, 0, 1);
    b = pyi_frame(&P, pyi_code(&P, "Klass.method", "/src/m.py", 50, 20), c, 3, 0, 1);
    a = pyi_frame(&P, pyi_code(&P, "inner", "/src/n.py", 10, 20), b, 0, 0, 0);
    interp = pyi_interp(&P, 0, 0);
    ts = pyi_thread(&P, interp, a, 4242);
    pyi_set_interpreters(&P, interp);
    pyi_set_gil_holder(&P, ts);
    if (ts_out)
        *ts_out = ts;
    open_reader();
    return a;
}

START_TEST(threads_frames_names_lines)
{
    struct jitunwind_py_thread t[4];
    uint64_t ts, top = simple_target(&ts);
    size_t n;
    ck_assert_int_eq(jitunwind_pyreader_threads(R, t, 4, &n), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(t[0].tstate, ts);
    ck_assert_uint_eq(t[0].native_thread_id, 4242);
    ck_assert_uint_eq(t[0].current_frame, top);
    ck_assert_int_eq(t[0].holds_gil, 1);
    ck_assert_int_eq(jitunwind_pyreader_frames(R, top, F, 64, &N), 0);
    ck_assert_uint_eq(N, 3);
    ck_assert_str_eq(F[0].qualname, "inner");
    ck_assert_str_eq(F[0].filename, "/src/n.py");
    ck_assert_int_eq(F[0].line, 10);
    ck_assert_int_eq(F[0].lasti, 0);
    ck_assert_uint_eq(F[0].flags & JITUNWIND_PYFRAME_ENTRY, 0);
    ck_assert_str_eq(F[1].qualname, "Klass.method");
    ck_assert_int_eq(F[1].line, 53);
    ck_assert_uint_ne(F[1].flags & JITUNWIND_PYFRAME_ENTRY, 0);
    ck_assert_int_eq(F[2].line, 105);
    ck_assert_int_eq(F[2].first_line, 100);
    teardown();
}
END_TEST

/* One thread state read again, as listed: the frame it runs now and the
 * GIL, without the list. */
START_TEST(one_thread_read_again)
{
    struct jitunwind_py_thread t[4], again;
    uint64_t ts, top = simple_target(&ts), other, cframe;
    size_t n;
    ck_assert_int_eq(jitunwind_pyreader_threads(R, t, 4, &n), 0);
    ck_assert_int_eq(t[0].holds_gil, 1);
    other = pyi_frame(&P, pyi_code(&P, "later", "/src/l.py", 7, 20), top, 0, 0, 0);
    cframe = pyi_alloc(&P, 64); /* 3.11 keeps the current frame in a cframe */
    ju_builder_u64(P.b, ts + P.L->ts_cframe, cframe);
    ju_builder_u64(P.b, cframe + P.L->cframe_current_frame, other);
    pyi_set_gil_holder(&P, 0);
    again = t[0];
    again.current_frame = 0;
    ck_assert_int_eq(jitunwind_pyreader_thread(R, &again), 0);
    ck_assert_uint_eq(again.tstate, ts);
    ck_assert_uint_eq(again.interp, t[0].interp);
    ck_assert_uint_eq(again.native_thread_id, 4242);
    ck_assert_uint_eq(again.current_frame, other);
    ck_assert_int_eq(again.holds_gil, 0);
    again.tstate = 0x7770000;
    ck_assert_int_eq(jitunwind_pyreader_thread(R, &again), JITUNWIND_EREAD);
    ck_assert_int_eq(jitunwind_pyreader_thread(R, NULL), JITUNWIND_EINVAL);
    teardown();
}
END_TEST

START_TEST(not_started_frame_and_generator)
{
    uint64_t code, f, interp;
    pyi_init(&P, V311);
    code = pyi_code(&P, "gen", "/g.py", 7, 4);
    f = pyi_frame(&P, code, 0, -1, 1, 1); /* prev_instr one unit before the code */
    interp = pyi_interp(&P, 0, 0);
    pyi_thread(&P, interp, f, 1);
    pyi_set_interpreters(&P, interp);
    open_reader();
    ck_assert_int_eq(jitunwind_pyreader_frames(R, f, F, 64, &N), 0);
    ck_assert_int_eq(F[0].line, 7);
    ck_assert_int_eq(F[0].lasti, -1);
    ck_assert_uint_ne(F[0].flags & JITUNWIND_PYFRAME_GENERATOR, 0);
    teardown();
}
END_TEST

START_TEST(several_interpreters_and_non_ascii_names)
{
    struct jitunwind_py_thread t[8];
    uint32_t name2[] = {'c', 0xe9, 0x20ac}; /* "cé€" as UCS-2 */
    uint32_t name4[] = {'f', 0x1f600};      /* "f😀" as UCS-4 */
    uint64_t i1, i2, code, f;
    size_t n;
    pyi_init(&P, V311);
    i2 = pyi_interp(&P, 0, 1);
    i1 = pyi_interp(&P, i2, 0);
    code = pyi_code(&P, "x", "/x.py", 1, 2);
    ju_builder_u64(P.b, code + P.L->co_qualname, pyi_str_kind(&P, name2, 3, 2));
    ju_builder_u64(P.b, code + P.L->co_filename, pyi_str_kind(&P, name4, 2, 4));
    f = pyi_frame(&P, code, 0, 1, 0, 1);
    pyi_thread(&P, i1, f, 10);
    pyi_thread(&P, i1, 0, 11);
    pyi_thread(&P, i2, 0, 20);
    pyi_set_interpreters(&P, i1);
    open_reader();
    ck_assert_int_eq(jitunwind_pyreader_threads(R, t, 8, &n), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert_int_eq(t[2].interp_id, 1);
    ck_assert_uint_eq(t[2].native_thread_id, 20);
    ck_assert_int_eq(t[0].holds_gil, 0);
    ck_assert_int_eq(jitunwind_pyreader_frames(R, f, F, 64, &N), 0);
    ck_assert_str_eq(F[0].qualname, "c\xc3\xa9\xe2\x82\xac");
    ck_assert_str_eq(F[0].filename, "f\xf0\x9f\x98\x80");
    ck_assert_int_eq(jitunwind_pyreader_threads(R, t, 2, &n), JITUNWIND_ELIMIT);
    ck_assert_uint_eq(n, 2); /* honest prefix */
    teardown();
}
END_TEST

START_TEST(frame_cycles_terminate_with_eloop)
{
    uint64_t code, f[100];
    struct ju_builder *b;
    uint64_t reads;
    int i;
    pyi_init(&P, V311);
    code = pyi_code(&P, "loop", "/l.py", 1, 2);
    for (i = 0; i < 100; i++)
        f[i] = pyi_frame(&P, code, 0, 0, 0, 0);
    for (i = 0; i < 99; i++)
        ju_builder_u64(P.b, f[i] + P.L->fr_previous, f[i + 1]);
    ju_builder_u64(P.b, f[99] + P.L->fr_previous, f[50]); /* long cycle */
    pyi_set_interpreters(&P, pyi_interp(&P, 0, 0));
    open_reader();
    b = P.b;
    reads = ju_builder_reads(b);
    ck_assert_int_eq(jitunwind_pyreader_frames(R, f[0], F, 64, &N), JITUNWIND_ELIMIT);
    ck_assert_uint_eq(N, 64); /* the array filled before the cycle was proven */
    {
        static struct jitunwind_py_frame many[1000];
        ck_assert_int_eq(jitunwind_pyreader_frames(R, f[0], many, 1000, &N), JITUNWIND_ELOOP);
        ck_assert_uint_ge(N, 100);
        ck_assert_uint_lt(N, 300); /* Brent: within a small multiple of tail + cycle */
    }
    ck_assert_uint_lt(ju_builder_reads(b) - reads, 20000);
    ck_assert_ptr_nonnull(strstr(jitunwind_pyreader_last_error(R)->message, "loops"));
    /* Self-loop. */
    ju_builder_u64(P.b, f[0] + P.L->fr_previous, f[0]);
    ck_assert_int_eq(jitunwind_pyreader_frames(R, f[0], F, 64, &N), JITUNWIND_ELOOP);
    ck_assert_uint_le(N, 2);
    teardown();
}
END_TEST

START_TEST(bad_objects_give_flags_not_crashes)
{
    uint64_t good, badtype, f3, f2, f1, f0, obj, garbage_str;
    pyi_init(&P, V311);
    good = pyi_code(&P, "good", "/g.py", 1, 4);
    badtype = pyi_code(&P, "bad", "/b.py", 1, 4);
    ju_builder_u64(P.b, badtype + P.L->ob_type, pyi_alloc(&P, 256)); /* type not named "code" */
    /* A str with a huge length and one with an invalid kind. */
    garbage_str = pyi_str(&P, "zz");
    ju_builder_u64(P.b, garbage_str + P.L->str_length, 1ull << 40);
    obj = pyi_code(&P, "x", "/x.py", 1, 4);
    ju_builder_u64(P.b, obj + P.L->co_qualname, garbage_str);
    ju_builder_u64(P.b, obj + P.L->co_filename, pyi_str(&P, "ok"));
    f3 = pyi_frame(&P, obj, 0x7000000000ull /* unmapped */, 0, 0, 1);
    f2 = pyi_frame(&P, 0x6000000000ull /* unreadable code */, f3, 0, 0, 0);
    f1 = pyi_frame(&P, badtype, f2, 0, 0, 0);
    f0 = pyi_frame(&P, good, f1, 1, 0, 0);
    pyi_set_interpreters(&P, pyi_interp(&P, 0, 0));
    open_reader();
    ck_assert_int_eq(jitunwind_pyreader_frames(R, f0, F, 64, &N), JITUNWIND_EREAD);
    ck_assert_uint_eq(N, 4);
    ck_assert_str_eq(F[0].qualname, "good");
    ck_assert_int_eq(F[0].line, 2);
    ck_assert_uint_ne(F[1].flags & JITUNWIND_PYFRAME_BAD_CODE, 0);
    ck_assert_uint_ne(F[2].flags & JITUNWIND_PYFRAME_BAD_CODE, 0);
    ck_assert_str_eq(F[2].qualname, "");
    /* 2^40 characters: cut at the decoder's cap, or unreadable past the object. */
    ck_assert(strcmp(F[3].qualname, "<unreadable name>") == 0 ||
              (F[3].flags & JITUNWIND_PYFRAME_NAME_TRUNCATED));
    ck_assert_str_eq(F[3].filename, "ok");
    ck_assert_uint_eq(jitunwind_pyreader_last_error(R)->address, 0x7000000000ull);
    /* Bad unicode kind. */
    ju_builder_u64(P.b, garbage_str + P.L->str_length, 2);
    ju_builder_u32(P.b, garbage_str + P.L->str_state, (3u << P.L->st_kind_shift) | 0xe0);
    ck_assert_int_eq(jitunwind_pyreader_frames(R, f3, F, 64, &N), JITUNWIND_EREAD);
    ck_assert_str_eq(F[0].qualname, "<unreadable name>");
    /* Misaligned frame address. */
    ck_assert_int_eq(jitunwind_pyreader_frames(R, f0 + 3, F, 64, &N), JITUNWIND_ECORRUPT);
    ck_assert_uint_eq(N, 0);
    teardown();
}
END_TEST

START_TEST(list_cycles_and_bad_runtimes)
{
    struct jitunwind_py_thread t[16];
    struct jitunwind_memory mem;
    uint64_t i1, i2, t1, t2;
    size_t n;
    pyi_init(&P, V311);
    i2 = pyi_interp(&P, 0, 1);
    i1 = pyi_interp(&P, i2, 0);
    ju_builder_u64(P.b, i2 + P.L->interp_next, i1); /* interpreter cycle */
    pyi_set_interpreters(&P, i1);
    open_reader();
    ck_assert_int_eq(jitunwind_pyreader_threads(R, t, 16, &n), JITUNWIND_ELOOP);
    ju_builder_u64(P.b, i2 + P.L->interp_next, 0);
    t1 = pyi_thread(&P, i1, 0, 1);
    t2 = pyi_thread(&P, i1, 0, 2);
    ju_builder_u64(P.b, t2 + P.L->ts_next, t1); /* thread cycle */
    ck_assert_int_eq(jitunwind_pyreader_threads(R, t, 16, &n), JITUNWIND_ELOOP);
    ck_assert_uint_ge(n, 2);
    jitunwind_pyreader_free(R);
    mem = ju_builder_memory(P.b);
    ck_assert_int_eq(jitunwind_pyreader_open(&R, &mem, P.runtime, 0x030a00f0,
                                             NULL), JITUNWIND_EVERSION);
    jitunwind_pyreader_free(R);
    ck_assert_int_eq(jitunwind_pyreader_open(&R, &mem, 0x5000000000ull, V311,
                                             NULL), JITUNWIND_EREAD);
    jitunwind_pyreader_free(R);
    pyi_set_interpreters(&P, 0);
    ck_assert_int_eq(jitunwind_pyreader_open(&R, &mem, P.runtime, V311, NULL), JITUNWIND_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(jitunwind_pyreader_last_error(R)->message, "not initialised yet"));
    jitunwind_pyreader_free(R);
    pyi_set_interpreters(&P, 0x1234); /* misaligned: corrupt, not uninitialised */
    ck_assert_int_eq(jitunwind_pyreader_open(&R, &mem, P.runtime, V311, NULL), JITUNWIND_ECORRUPT);
    ck_assert_ptr_nonnull(strstr(jitunwind_pyreader_last_error(R)->message, "no interpreter"));
    teardown();
    ck_assert_int_eq(jitunwind_py_version_supported(0x030b07f0), 1);
    ck_assert_int_eq(jitunwind_py_version_supported(0x030a00f0), 0);
}
END_TEST

int main(void)
{
    return ju_run_tests("py311", JU_TESTS(threads_frames_names_lines, one_thread_read_again,
                                          not_started_frame_and_generator,
                                          several_interpreters_and_non_ascii_names,
                                          frame_cycles_terminate_with_eloop,
                                          bad_objects_give_flags_not_crashes,
                                          list_cycles_and_bad_runtimes));
}
