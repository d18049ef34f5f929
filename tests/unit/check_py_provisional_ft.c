/* A provisional field list on a free-threaded build: a "3.16t" whose DWARF
 * (this program is built with -g) describes the structs below, laid out as
 * free-threaded builds are (a 32-byte object header, `interned` a whole byte
 * of the str state, thread-local bytecode), with members moved off the
 * tables' placeholders. The reader must take the free-threaded base table,
 * confirm the debug offsets against DWARF, and decode thread-local bytecode
 * and non-ASCII names. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "layout_from_types.h"
#include "py_image.h"
#include "python/pyreader.h"
#include "suite.h"

typedef struct {
    uintptr_t ob_tid;
    uint16_t ob_flags;
    uint8_t ob_mutex, ob_gc_bits;
    uint32_t ob_ref_local;
    intptr_t ob_ref_shared;
    void *ob_type;
} PyObject;
typedef struct {
    PyObject ob_base;
    intptr_t ob_size;
} PyVarObject;
typedef struct {
    PyVarObject ob_base;
    const char *tp_name;
} PyTypeObject;
typedef struct {
    PyVarObject ob_base;
    intptr_t ob_shash;
    char ob_sval[1];
} PyBytesObject;
typedef struct {
    PyObject ob_base;
    intptr_t length;
    intptr_t hash;
    struct {
        unsigned char interned;
        unsigned short kind : 3;
        unsigned short compact : 1;
        unsigned short ascii : 1;
        unsigned short statically_allocated : 1;
        unsigned int : 18;
    } state;
} PyASCIIObject;
typedef struct {
    PyASCIIObject _base;
    intptr_t utf8_length;
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
    void *co_consts, *co_names, *co_exceptiontable, *extra_316;
    int co_flags, co_argcount, co_posonlyargcount, co_kwonlyargcount, co_stacksize;
    int co_firstlineno;
    void *co_localsplusnames, *co_localspluskinds, *co_filename, *co_name, *co_qualname;
    void *co_linetable, *co_weakreflist, *co_executors, *co_cached, *co_tlbc;
    char co_code_adaptive[2];
} PyCodeObject;
struct _PyInterpreterFrame {
    void *f_executable;
    struct _PyInterpreterFrame *previous;
    void *f_funcobj, *f_globals, *f_builtins, *f_locals, *frame_obj, *extra_316;
    void *instr_ptr;
    void *stackpointer;
    int32_t tlbc_index;
    unsigned short return_offset;
    char owner;
    char visited;
    void *localsplus[1];
};
typedef struct _ts {
    struct _ts *prev, *next;
    void *interp;
    void *base_frame, *last_profiled_frame, *last_profiled_frame_seq, *extra_316;
    struct _PyInterpreterFrame *current_frame;
    unsigned long thread_id, native_thread_id;
} PyThreadState;
typedef struct _is {
    struct _is *next;
    long id;
    long pad[24];
    struct {
        void *mutex;
        PyThreadState *head;
    } threads;
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

#define V316 0x031000a2u

static struct ju_py_layout layout_of_this_build(void)
{
    struct ju_py_layout L = *ju_py_layout_for_build(V316, 1, jitunwind_host_arch());
    JU_LAYOUT_FROM_TYPES(L);
    L.fr_tlbc_index = offsetof(struct _PyInterpreterFrame, tlbc_index);
    L.co_tlbc = offsetof(PyCodeObject, co_tlbc);
    L.ts_last_profiled_frame = offsetof(PyThreadState, last_profiled_frame);
    L.ts_last_profiled_seq = offsetof(PyThreadState, last_profiled_frame_seq);
    return L;
}

START_TEST(a_free_threaded_provisional_list_confirmed_by_dwarf)
{
    static const uint32_t NAME[] = {'r', 0xfc, 'c', 'k'}; /* "rück": latin-1, not ASCII */
    struct ju_py_layout L = layout_of_this_build();
    struct py_image p;
    struct jitunwind_memory mem;
    struct jitunwind_py_dwarf_report rep;
    struct jitunwind_py_thread t[2];
    struct jitunwind_py_frame f[2];
    jitunwind_pyreader *r;
    uint8_t block[2048];
    char self_path[4096];
    uint64_t code, copy, tlbc, frame, interp;
    size_t len, n;
    ssize_t got = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    ck_assert_int_gt(got, 0);
    self_path[got] = 0;
    pyi_init_from(&p, &L, V316);
    ck_assert_int_eq(ju_py_encode_debug_offsets(V316, &L, NULL, block, sizeof block, &len), 0);
    ju_builder_write(p.b, p.runtime, block, len);
    code = pyi_code(&p, "x", "/ft.py", 50, 8);
    ju_builder_u64(p.b, code + L.co_qualname, pyi_str_kind(&p, NAME, 4, 1));
    copy = pyi_alloc(&p, 64);        /* this thread's copy of the bytecode */
    tlbc = pyi_alloc(&p, 8 + 8 * 2); /* {size = 2, entries[2]} */
    ju_builder_u64(p.b, tlbc, 2);
    ju_builder_u64(p.b, tlbc + 8, code + L.co_code_adaptive);
    ju_builder_u64(p.b, tlbc + 16, copy);
    ju_builder_u64(p.b, code + L.co_tlbc, tlbc);
    frame = pyi_frame(&p, code, 0, 0, 0, 0);
    ju_builder_u64(p.b, frame + L.fr_instr, copy + 2 * 6);
    ju_builder_u32(p.b, frame + L.fr_tlbc_index, 1);
    interp = pyi_interp(&p, 0, 0);
    pyi_thread(&p, interp, frame, 3160);
    pyi_set_interpreters(&p, interp);
    mem = ju_builder_memory(p.b);
    ck_assert_msg(jitunwind_pyreader_open(&r, &mem, p.runtime, V316,
                                          JITUNWIND_PYREADER_OPTS(.module = self_path)) == 0,
                  "%s", jitunwind_pyreader_last_error(r)->message);
    ck_assert_str_eq(jitunwind_pyreader_layout_name(r), "CPython 3.16 (free-threaded)");
    ck_assert_int_eq(jitunwind_pyreader_dwarf_report(r, &rep), 0);
    ck_assert_uint_gt(rep.checked, 20);
    ck_assert_uint_eq(rep.mismatches, 0);
    ck_assert_int_eq(jitunwind_pyreader_threads(r, t, 2, &n), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(t[0].native_thread_id, 3160);
    ck_assert_int_eq(t[0].holds_gil, -1); /* no GIL to hold */
    ck_assert_int_eq(jitunwind_pyreader_frames(r, frame, f, 2, &n), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(f[0].qualname, "r\xc3\xbc" "ck");
    ck_assert_int_eq(f[0].lasti, 6);
    ck_assert_int_eq(f[0].line, 56);
    jitunwind_pyreader_free(r);
    /* The same target with a header that says GIL build: the GIL table's str
     * state bits are wrong for it, and what the debug offsets do not carry
     * DWARF corrects, so the name still decodes (a disagreement with the
     * debug offsets themselves would refuse the target instead). */
    ju_builder_u64(p.b, p.runtime + 16, 0);
    ck_assert_msg(jitunwind_pyreader_open(&r, &mem, p.runtime, V316,
                                          JITUNWIND_PYREADER_OPTS(.module = self_path)) == 0,
                  "%s", jitunwind_pyreader_last_error(r)->message);
    ck_assert_str_eq(jitunwind_pyreader_layout_name(r), "CPython 3.16");
    ck_assert_int_eq(jitunwind_pyreader_dwarf_report(r, &rep), 0);
    ck_assert_uint_ge(rep.adopted, 3);
    ck_assert_ptr_nonnull(strstr(rep.first_mismatch, "state.kind"));
    /* the state bits are named in the same wording as every field, by bit position */
    ck_assert_msg(strncmp(rep.first_mismatch, "PyASCIIObject.state.kind: table ", 32) == 0 &&
                      strstr(rep.first_mismatch, " (bits)"),
                  "%s", rep.first_mismatch);
    ck_assert_int_eq(jitunwind_pyreader_frames(r, frame, f, 2, &n), 0);
    ck_assert_str_eq(f[0].qualname, "r\xc3\xbc" "ck");
    jitunwind_pyreader_free(r);
    pyi_free(&p);
}
END_TEST

int main(void)
{
    return ju_run_tests("py_provisional_ft",
                        JU_TESTS(a_free_threaded_provisional_list_confirmed_by_dwarf));
}
