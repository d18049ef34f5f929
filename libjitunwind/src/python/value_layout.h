/* The layout of the objects the value renderer and the frame-variable
 * reader look into (ints, floats, containers, functions, types, code
 * variables, frame globals): a separate table from struct ju_py_layout,
 * kept apart so that the frame decoder's table stays what it needs.
 *
 * Object fields are counted from the end of the object header (PyObject:
 * 16 bytes in GIL builds, 32 free-threaded: ju_py_layout.ob_type + 8), so
 * one table serves both builds of a version; dict-keys, dict-values and
 * frame fields are absolute (they are not objects). JU_PY_NONE: the version
 * has no such field. Version differences live only here. */
#ifndef JITUNWIND_PY_VALUE_LAYOUT_H
#define JITUNWIND_PY_VALUE_LAYOUT_H

#include "python/layout.h"

struct ju_py_value_layout {
    uint32_t version;          /* 0xMMmm0000 */

    /* int: 3.11 keeps sign and digit count in ob_size; 3.12+ in lv_tag
     * (bits 0-1 sign: 0 positive, 1 zero, 2 negative; digit count >> 3) */
    uint32_t long_size;        /* ob_size (3.11), or NONE */
    uint32_t long_tag;         /* long_value.lv_tag (3.12+), or NONE */
    uint32_t long_digits;      /* 30-bit digits, uint32 each */
    uint32_t float_value;
    uint32_t var_size;         /* ob_size of tuple, list */
    uint32_t tuple_items;      /* ob_item[] (3.14 put ob_hash before it) */
    uint32_t list_items;       /* PyObject **ob_item */
    uint32_t dict_used, dict_keys, dict_values;
    uint32_t set_used, set_mask, set_table;
    uint32_t func_qualname;
    uint32_t cfunc_ml, cfunc_self; /* PyCFunctionObject; ml_name is the PyMethodDef's first field */
    uint32_t method_func, method_self;
    uint32_t module_dict;
    uint32_t cell_ref;
    uint32_t tp_flags, tp_dict;
    uint32_t ht_qualname;      /* PyHeapTypeObject */
    uint32_t co_flags, co_argcount, co_kwonlyargcount, co_nlocalsplus;
    uint32_t co_localsplusnames, co_localspluskinds;

    /* PyDictKeysObject and PyDictValues */
    uint32_t dk_log2_size, dk_log2_index_bytes, dk_kind, dk_nentries, dk_indices;
    uint32_t dv_values;        /* values[] in PyDictValues */
    uint8_t dv_order_before;   /* 1: insertion order bytes before values (3.11, 3.12: byte
                                * [-3-i], count at [-2]); 0: after values[capacity]
                                * (3.13+: capacity at byte 0, count at byte 1) */
    uint8_t reserved[3];

    /* _PyInterpreterFrame */
    uint32_t fr_globals, fr_builtins, fr_localsplus;

    /* struct _gil_runtime_state (3.12+): `locked`, without which its
     * last_holder is only the last thread that held it; NONE: unknown */
    uint32_t gil_locked;
    /* PyInterpreterState.gc.collecting (int), GIL [0] and free-threaded [1]
     * builds; NONE: unknown */
    uint32_t interp_gc_collecting[2];
};

/* The table for the reader's layout (its version), or NULL for versions
 * whose objects have not been checked (3.15+). */
JU_HIDDEN const struct ju_py_value_layout *ju_py_value_layout_for(const struct ju_py_layout *L);

#endif
