/* Object layouts for values and frame variables, per CPython version.
 * Checked with `gdb ptype /o` against the DWARF of pyenv's 3.11.7, 3.12.1,
 * 3.13.0 and a 3.14.7 build (x86-64; the same on AArch64: no lock is held
 * by value in these structs), and end to end by tests/values (reprs of a
 * corpus compared with the interpreter's own). Free-threaded builds: the
 * same tables behind the 32-byte header (PyDictKeysObject's dk_mutex sits
 * in a padding byte; the frame's fields before localsplus are unchanged).
 * The GIL's `locked` and the interpreter's gc.collecting: gdb on the same
 * builds and on Debian's 3.11.2 (release and debug), 3.12.0, 3.13.0 and
 * 3.14.7 debug builds, which agree; not known for free-threaded builds. */
#include "python/value_layout.h"

#define OBJECTS_COMMON                                                                  \
    .long_digits = 8, .float_value = 0, .var_size = 0, .list_items = 8, .dict_used = 0,  \
    .dict_keys = 16, .dict_values = 24, .set_used = 8, .set_mask = 16, .set_table = 24,  \
    .func_qualname = 24, .cfunc_ml = 0, .cfunc_self = 8, .method_func = 0,               \
    .method_self = 8, .module_dict = 0, .cell_ref = 0, .tp_flags = 152, .tp_dict = 248,  \
    .co_flags = 32, .co_localsplusnames = 80, .co_localspluskinds = 88,                  \
    .dk_log2_size = 8, .dk_log2_index_bytes = 9, .dk_kind = 10, .dk_nentries = 24,       \
    .dk_indices = 32

static const struct ju_py_value_layout VALUES_311 = {
    .version = 0x030b0000, OBJECTS_COMMON,
    .long_size = 0, .long_tag = JU_PY_NONE, .tuple_items = 8, .ht_qualname = 848,
    .co_argcount = 40, .co_kwonlyargcount = 48, .co_nlocalsplus = 60,
    .dv_values = 0, .dv_order_before = 1,
    .fr_globals = 8, .fr_builtins = 16, .fr_localsplus = 72,
    .gil_locked = JU_PY_NONE, /* 3.11: the runtime's current thread state says it */
    .interp_gc_collecting = {848, JU_PY_NONE},
};

static const struct ju_py_value_layout VALUES_312 = {
    .version = 0x030c0000, OBJECTS_COMMON,
    .long_size = JU_PY_NONE, .long_tag = 0, .tuple_items = 8, .ht_qualname = 856,
    .co_argcount = 36, .co_kwonlyargcount = 44, .co_nlocalsplus = 56,
    .dv_values = 0, .dv_order_before = 1,
    .fr_globals = 24, .fr_builtins = 32, .fr_localsplus = 72, .gil_locked = 16,
    .interp_gc_collecting = {312, JU_PY_NONE},
};

static const struct ju_py_value_layout VALUES_313 = {
    .version = 0x030d0000, OBJECTS_COMMON,
    .long_size = JU_PY_NONE, .long_tag = 0, .tuple_items = 8, .ht_qualname = 856,
    .co_argcount = 36, .co_kwonlyargcount = 44, .co_nlocalsplus = 56,
    .dv_values = 8, .dv_order_before = 0,
    .fr_globals = 24, .fr_builtins = 32, .fr_localsplus = 72, .gil_locked = 16,
    .interp_gc_collecting = {7600, JU_PY_NONE},
};

static const struct ju_py_value_layout VALUES_314 = {
    .version = 0x030e0000, OBJECTS_COMMON,
    .long_size = JU_PY_NONE, .long_tag = 0, .tuple_items = 16 /* after ob_hash */,
    .ht_qualname = 856, .co_argcount = 36, .co_kwonlyargcount = 44, .co_nlocalsplus = 56,
    .dv_values = 8, .dv_order_before = 0,
    .fr_globals = 24, .fr_builtins = 32, .fr_localsplus = 80, .gil_locked = 16,
    .interp_gc_collecting = {7600, JU_PY_NONE},
};

const struct ju_py_value_layout *ju_py_value_layout_for(const struct ju_py_layout *L)
{
    static const struct ju_py_value_layout *const TABLES[] = {&VALUES_311, &VALUES_312,
                                                              &VALUES_313, &VALUES_314};
    size_t i;
    for (i = 0; i < sizeof TABLES / sizeof TABLES[0]; i++)
        if (TABLES[i]->version == (L->version & 0xffff0000u))
            return TABLES[i];
    return NULL;
}
