/* What the interpreter's DWARF decides: the opt-in for a CPython newer than
 * every table (3.17+: the newest table's semantics, every offset from
 * DWARF, strictly), and the confirmation a provisional _Py_DebugOffsets
 * field list needs (3.15 before rc1, 3.16). This program is built with -g;
 * the CPython-named types below are a build whose structs differ from every
 * table (fields inserted mid-struct, as 3.15 did), and the synthetic target
 * is laid out from them with offsetof. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "layout_from_types.h"
#include "py_image.h"
#include "python/pyreader.h"
#include "suite.h"

typedef struct {
    long ob_refcnt;
    void *ob_type;
} PyObject;
typedef struct {
    PyObject ob_base;
    long ob_size;
} PyVarObject;
typedef struct {
    PyVarObject ob_base;
    const char *tp_name;
} PyTypeObject;
typedef struct {
    PyVarObject ob_base;
    long ob_shash;
    char ob_sval[1];
} PyBytesObject;
typedef struct {
    PyObject ob_base;
    long length;
    long hash;
    struct {
        unsigned int interned : 2;
        unsigned int kind : 3;
        unsigned int compact : 1;
        unsigned int ascii : 1;
        unsigned int statically_allocated : 1;
        unsigned int : 24;
    } state;
} PyASCIIObject;
typedef struct {
    PyASCIIObject _base;
    long utf8_length;
    char *utf8;
} PyCompactUnicodeObject;
typedef struct {
    PyCompactUnicodeObject _base;
    union {
        void *any;
    } data;
} PyUnicodeObject;
typedef struct {
    PyVarObject ob_base;
    void *co_consts, *co_names, *co_exceptiontable, *extra_315; /* one more than 3.14 */
    int co_flags, co_argcount, co_posonlyargcount, co_kwonlyargcount, co_stacksize;
    int co_firstlineno;
    void *co_localsplusnames, *co_localspluskinds, *co_filename, *co_name, *co_qualname;
    void *co_linetable, *co_weakreflist, *co_executors, *co_cached;
    char co_code_adaptive[2];
} PyCodeObject;
struct _PyInterpreterFrame {
    void *f_executable;
    struct _PyInterpreterFrame *previous;
    void *f_funcobj, *f_globals, *f_builtins, *f_locals, *frame_obj, *extra_315;
    void *instr_ptr;
    void *stackpointer;
    unsigned short return_offset;
    char owner;
    char visited;
    void *localsplus[1];
};
typedef struct _ts {
    struct _ts *prev, *next;
    void *interp;
    void *base_frame, *last_profiled_frame, *last_profiled_frame_seq; /* 3.15's insertions */
    struct _PyInterpreterFrame *current_frame;
    int holds_gil;
    unsigned long thread_id, native_thread_id;
} PyThreadState;
struct _gil_runtime_state {
    long interval;
    void *last_holder;
};
typedef struct _is {
    struct _is *next;
    long id;
    long pad[20];
    struct {
        void *mutex;
        PyThreadState *head;
    } threads;
    struct {
        struct _gil_runtime_state *gil;
    } ceval;
} PyInterpreterState;
typedef struct {
    char debug_offsets[3000];
    struct {
        void *mutex;
        PyInterpreterState *head;
    } interpreters;
} _PyRuntimeState;

/* Referenced so the compiler keeps the types. */
PyTypeObject type_i;
PyBytesObject bytes_i;
PyUnicodeObject unicode_i;
PyCodeObject code_i;
struct _PyInterpreterFrame frame_i;
PyThreadState ts_i;
PyInterpreterState interp_i;
_PyRuntimeState runtime_i;
struct _gil_runtime_state gil_i;

#define V317 0x031100a1u /* newer than every table */
#define V316 0x031000a2u /* a provisional field list */

static char self_path[4096];

static struct ju_py_layout layout_of_this_build(void)
{
    struct ju_py_layout L = *ju_py_layout_newest(0);
    JU_LAYOUT_FROM_TYPES(L);
    L.interp_gil_ptr = offsetof(PyInterpreterState, ceval.gil);
    L.gil_last_holder = offsetof(struct _gil_runtime_state, last_holder);
    L.ts_holds_gil = offsetof(PyThreadState, holds_gil);
    L.ts_last_profiled_frame = offsetof(PyThreadState, last_profiled_frame);
    L.ts_last_profiled_seq = offsetof(PyThreadState, last_profiled_frame_seq);
    return L;
}

static void build(struct py_image *p, const struct ju_py_layout *L, uint32_t version,
                  uint64_t *frame)
{
    uint64_t interp, outer, inner, ts;
    ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    ck_assert_int_gt(n, 0);
    self_path[n] = 0;
    pyi_init_from(p, L, version);
    outer = pyi_frame(p, pyi_code(p, "outer", "/app.py", 10, 8), 0, 2, 0, 0);
    inner = pyi_frame(p, pyi_code(p, "inner", "/app.py", 20, 8), outer, 5, 0, 0);
    interp = pyi_interp(p, 0, 0);
    ts = pyi_thread(p, interp, inner, 316);
    ju_builder_u32(p->b, ts + L->ts_holds_gil, 1);
    pyi_set_interpreters(p, interp);
    *frame = inner;
}

/* The thread and frames every test target holds, read through r. */
static void expect_target(jitunwind_pyreader *r, uint64_t frame)
{
    struct jitunwind_py_thread t[2];
    struct jitunwind_py_frame f[4];
    size_t n;
    ck_assert_int_eq(jitunwind_pyreader_threads(r, t, 2, &n), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(t[0].native_thread_id, 316);
    ck_assert_int_eq(t[0].holds_gil, 1);
    ck_assert_int_eq(jitunwind_pyreader_frames(r, frame, f, 4, &n), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(f[0].qualname, "inner");
    ck_assert_int_eq(f[0].line, 25);
    ck_assert_str_eq(f[1].qualname, "outer");
    ck_assert_str_eq(f[1].filename, "/app.py");
    ck_assert_int_eq(f[1].line, 12);
}

/* A target of this build whose runtime starts with the debug offsets of
 * `debug_offsets` (the build's own layout, or a wrong one). */
static void build_with_debug_offsets(struct py_image *p, const struct ju_py_layout *L,
                                     const struct ju_py_layout *debug_offsets, uint64_t *frame)
{
    uint8_t block[2048];
    size_t len;
    build(p, L, V316, frame);
    ck_assert_int_eq(
        ju_py_encode_debug_offsets(V316, debug_offsets, NULL, block, sizeof block, &len), 0);
    ck_assert_uint_lt(len, offsetof(_PyRuntimeState, interpreters));
    ju_builder_write(p->b, p->runtime, block, len);
}

START_TEST(a_newer_version_is_read_only_by_opt_in_with_dwarf)
{
    struct ju_py_layout L = layout_of_this_build();
    struct py_image p;
    struct jitunwind_memory mem;
    struct jitunwind_py_dwarf_report rep;
    jitunwind_pyreader *r;
    uint64_t frame;
    build(&p, &L, V317, &frame);
    mem = ju_builder_memory(p.b);
    /* Without the opt-in: refused, clearly. */
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, V317,
                                             JITUNWIND_PYREADER_OPTS(.module = self_path)),
                     JITUNWIND_EVERSION);
    ck_assert_ptr_nonnull(strstr(jitunwind_pyreader_last_error(r)->message, "not supported"));
    jitunwind_pyreader_free(r);
    /* Opt-in without DWARF: refused, saying why. */
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, V317,
                                             JITUNWIND_PYREADER_OPTS(.flags = JITUNWIND_PYREADER_ASSUME_LAYOUT)),
                     JITUNWIND_EVERSION);
    ck_assert_ptr_nonnull(strstr(jitunwind_pyreader_last_error(r)->message, "DWARF"));
    jitunwind_pyreader_free(r);
    /* Opt-in with DWARF: every offset from it, 3.14 semantics, said so. */
    ck_assert_msg(jitunwind_pyreader_open(&r, &mem, p.runtime, V317,
                                          JITUNWIND_PYREADER_OPTS(.module = self_path,
                                                                  .flags = JITUNWIND_PYREADER_ASSUME_LAYOUT)) == 0,
                  "%s", jitunwind_pyreader_last_error(r)->message);
    ck_assert_ptr_nonnull(strstr(jitunwind_pyreader_layout_name(r), "assumed"));
    ck_assert_ptr_nonnull(strstr(jitunwind_pyreader_layout_name(r), "3.17"));
    ck_assert_int_eq(jitunwind_pyreader_dwarf_report(r, &rep), 0);
    ck_assert_uint_gt(rep.adopted, 10); /* most offsets differ from the newest table's */
    expect_target(r, frame);
    {
        /* This DWARF describes no executors: with the newest table's
         * executor layout (DWARF only), they are said to be unknown, and why. */
        struct jitunwind_py_executor e[1];
        size_t n = 9;
        ck_assert_int_eq(jitunwind_pyreader_executors(r, e, 1, &n), JITUNWIND_EUNSUPPORTED);
        ck_assert_uint_eq(n, 0);
        ck_assert_ptr_nonnull(strstr(jitunwind_pyreader_last_error(r)->message,
                                     "has no PyInterpreterState.interp_executor_array: they are "
                                     "known only as GDB JIT interface ranges"));
    }
    jitunwind_pyreader_free(r);
    pyi_free(&p);
}
END_TEST

START_TEST(a_provisional_field_list_is_used_when_dwarf_confirms_it)
{
    struct ju_py_layout L = layout_of_this_build();
    struct py_image p;
    struct jitunwind_memory mem;
    struct jitunwind_py_dwarf_report rep;
    jitunwind_pyreader *r;
    uint64_t frame;
    build_with_debug_offsets(&p, &L, &L, &frame);
    mem = ju_builder_memory(p.b);
    ck_assert_msg(jitunwind_pyreader_open(&r, &mem, p.runtime, V316,
                                          JITUNWIND_PYREADER_OPTS(.module = self_path)) == 0,
                  "%s", jitunwind_pyreader_last_error(r)->message);
    ck_assert_str_eq(jitunwind_pyreader_layout_name(r), "CPython 3.16");
    ck_assert_int_eq(jitunwind_pyreader_dwarf_report(r, &rep), 0);
    ck_assert_uint_gt(rep.checked, 20);
    ck_assert_uint_eq(rep.mismatches, 0);
    expect_target(r, frame);
    jitunwind_pyreader_free(r);
    /* No DWARF to confirm it: refused (check_py_versions has more). */
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, V316, NULL),
                     JITUNWIND_EVERSION);
    ck_assert_ptr_nonnull(strstr(jitunwind_pyreader_last_error(r)->message, "provisional"));
    jitunwind_pyreader_free(r);
    pyi_free(&p);
}
END_TEST

/* As a list that missed one inserted field would read: every thread-state
 * offset after the insertion one slot off. */
START_TEST(a_provisional_field_list_that_dwarf_contradicts_is_refused)
{
    struct ju_py_layout L = layout_of_this_build(), shifted = L;
    struct py_image p;
    struct jitunwind_memory mem;
    jitunwind_pyreader *r;
    const char *msg;
    uint64_t frame;
    shifted.ts_current_frame -= 8;
    shifted.ts_thread_id -= 8;
    shifted.ts_native_thread_id -= 8;
    build_with_debug_offsets(&p, &L, &shifted, &frame);
    mem = ju_builder_memory(p.b);
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, V316,
                                             JITUNWIND_PYREADER_OPTS(.module = self_path)),
                     JITUNWIND_EVERSION);
    msg = jitunwind_pyreader_last_error(r)->message;
    ck_assert_msg(strstr(msg, "3.16.0a2") && strstr(msg, "does not fit") &&
                      strstr(msg, "PyThreadState."),
                  "%s", msg);
    jitunwind_pyreader_free(r);
    /* The opt-in reads it from DWARF alone, with the version's own table. */
    ck_assert_msg(jitunwind_pyreader_open(&r, &mem, p.runtime, V316,
                                          JITUNWIND_PYREADER_OPTS(.module = self_path,
                                                                  .flags = JITUNWIND_PYREADER_ASSUME_LAYOUT)) == 0,
                  "%s", jitunwind_pyreader_last_error(r)->message);
    ck_assert_ptr_nonnull(strstr(jitunwind_pyreader_layout_name(r), "assumed"));
    ck_assert_ptr_nonnull(strstr(jitunwind_pyreader_layout_name(r), "CPython 3.16 semantics"));
    expect_target(r, frame);
    jitunwind_pyreader_free(r);
    pyi_free(&p);
}
END_TEST

START_TEST(the_assumption_is_strict)
{
    struct ju_py_layout L = layout_of_this_build();
    struct py_image p;
    struct jitunwind_memory mem;
    jitunwind_pyreader *r;
    uint64_t frame, bad_version = 0x030e00f0;
    build(&p, &L, V317, &frame);
    mem = ju_builder_memory(p.b);
    /* A free-threaded header: its tables need tlbc members this DWARF lacks. */
    ju_builder_u64(p.b, p.runtime + 16, 1);
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, V317,
                                             JITUNWIND_PYREADER_OPTS(.module = self_path,
                                                                     .flags = JITUNWIND_PYREADER_ASSUME_LAYOUT)),
                     JITUNWIND_EVERSION);
    ck_assert_ptr_nonnull(strstr(jitunwind_pyreader_last_error(r)->message, "tlbc_index"));
    jitunwind_pyreader_free(r);
    /* A header for another version: not this runtime. */
    ju_builder_u64(p.b, p.runtime + 16, 0);
    ju_builder_u64(p.b, p.runtime + 8, bad_version);
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, V317,
                                             JITUNWIND_PYREADER_OPTS(.module = self_path,
                                                                     .flags = JITUNWIND_PYREADER_ASSUME_LAYOUT)),
                     JITUNWIND_ECORRUPT);
    jitunwind_pyreader_free(r);
    /* Versions with a table ignore the flag. */
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, 0x030b07f0,
                                             JITUNWIND_PYREADER_OPTS(.flags = JITUNWIND_PYREADER_ASSUME_LAYOUT)),
                     JITUNWIND_ENOTFOUND); /* read as 3.11: no interpreter where 3.11 has it */
    ck_assert_ptr_nonnull(strstr(jitunwind_pyreader_last_error(r)->message, "or not "));
    jitunwind_pyreader_free(r);
    pyi_free(&p);
}
END_TEST

int main(void)
{
    return ju_run_tests("py_assume",
                        JU_TESTS(a_newer_version_is_read_only_by_opt_in_with_dwarf,
                                 the_assumption_is_strict,
                                 a_provisional_field_list_is_used_when_dwarf_confirms_it,
                                 a_provisional_field_list_that_dwarf_contradicts_is_refused));
}
