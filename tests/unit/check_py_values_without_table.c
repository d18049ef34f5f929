/* A version with no value table (3.15) whose objects are still read: its
 * _Py_DebugOffsets give what they describe, and this file's DWARF (it is
 * built with -g, declaring the structs below as a 3.15 build's DWARF would,
 * with 3.14's offsets) gives the rest. Every needed field is then known
 * from the target or DWARF, so values render; synthetic only (no real 3.15
 * build is at hand). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "py_objects.h"
#include "python/pyreader.h"
#include "suite.h"

#define V315 0x030f00f0u

typedef struct {
    char h[16];
    long ma_used;
    unsigned long long ma_version;
    void *ma_keys, *ma_values;
} PyDictObject;
typedef struct { char h[40]; void *func_qualname; } PyFunctionObject;
typedef struct { char h[16]; void *m_ml, *m_self; } PyCFunctionObject;
typedef struct { char h[16]; void *im_func, *im_self; } PyMethodObject;
typedef struct { char h[16]; void *md_dict; } PyModuleObject;
typedef struct { char h[16]; void *ob_ref; } PyCellObject;
typedef struct { char h[168]; unsigned long tp_flags; char p[88]; void *tp_dict; } PyTypeObject;
typedef struct { char h[872]; void *ht_qualname; } PyHeapTypeObject;
typedef struct {
    char h[48];
    int co_flags, co_argcount, co_posonlyargcount, co_kwonlyargcount;
    char p1[8];
    int co_nlocalsplus;
    char p2[20];
    void *co_localsplusnames, *co_localspluskinds;
} PyCodeObject;
typedef struct {
    char h[8];
    unsigned char dk_log2_size, dk_log2_index_bytes, dk_kind;
    char p[13];
    long dk_nentries;
    char dk_indices[];
} PyDictKeysObject;
typedef struct {
    unsigned char capacity, size, embedded, valid;
    char p[4];
    void *values[1];
} PyDictValues;
struct _PyInterpreterFrame {
    char h[24];
    void *f_globals, *f_builtins;
    char p[40];
    void *localsplus[1];
};

PyDictObject s1; PyFunctionObject s2; PyCFunctionObject s3; PyMethodObject s4; PyModuleObject s5;
PyCellObject s6; PyTypeObject s7; PyHeapTypeObject s8; PyCodeObject s9; PyDictKeysObject s10;
PyDictValues s11; struct _PyInterpreterFrame s12;

START_TEST(debug_offsets_and_dwarf_read_a_version_without_a_table)
{
    struct py_image p;
    struct pyo o;
    struct jitunwind_memory mem;
    struct jitunwind_py_dwarf_report rep;
    jitunwind_pyreader *r;
    char self_path[4096], buf[256], expect[256];
    ssize_t got = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    uint64_t interp, key, items[2], d, fn;
    int status = -1;
    ck_assert_int_gt(got, 0);
    self_path[got] = 0;
    pyi_init(&p, V315);
    pyo_init(&o, &p);
    interp = pyi_interp(&p, 0, 0);
    pyi_thread(&p, interp, 0, 1);
    pyi_set_interpreters(&p, interp);
    mem = ju_builder_memory(p.b);
    ck_assert_msg(jitunwind_pyreader_open(&r, &mem, p.runtime, V315,
                                          JITUNWIND_PYREADER_OPTS(.module = self_path)) == 0,
                  "%s", jitunwind_pyreader_last_error(r)->message);
    ck_assert_int_eq(jitunwind_pyreader_values_report(r, &rep, &status), 0);
    ck_assert_int_eq(status, 0);
    ck_assert_uint_ge(rep.checked, 24);
    ck_assert_msg(rep.mismatches == 0, "%s", rep.first_mismatch);
    key = pyo_str(&o, "name");
    items[0] = pyo_int(&o, -7);
    items[1] = pyo_float(&o, 0.5);
    d = pyo_dict(&o, 1, &key, (uint64_t[]){pyo_list(&o, 2, items)});
    ck_assert_int_eq(jitunwind_pyreader_repr(r, d, NULL, buf, sizeof buf, NULL), 0);
    ck_assert_str_eq(buf, "{'name': [-7, 0.5]}");
    fn = pyo_function(&o, "outer.<locals>.f");
    snprintf(expect, sizeof expect, "<function outer.<locals>.f at 0x%llx>",
             (unsigned long long)fn);
    ck_assert_int_eq(jitunwind_pyreader_repr(r, fn, NULL, buf, sizeof buf, NULL), 0);
    ck_assert_str_eq(buf, expect);
    jitunwind_pyreader_free(r);
    /* the same target without DWARF: refused, naming a field */
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, V315, NULL), 0);
    ck_assert_int_eq(jitunwind_pyreader_repr(r, d, NULL, buf, sizeof buf, NULL),
                     JITUNWIND_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(jitunwind_pyreader_last_error(r)->message, "dict_used"));
    jitunwind_pyreader_free(r);
    pyi_free(&p);
}
END_TEST

int main(void)
{
    return ju_run_tests("py_values_without_table",
                        JU_TESTS(debug_offsets_and_dwarf_read_a_version_without_a_table));
}
