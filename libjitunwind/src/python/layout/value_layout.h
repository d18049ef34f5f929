/* The layout of the objects the value renderer and the frame-variable
 * reader look into (ints, floats, containers, functions, types, code
 * variables, frame globals): a separate table from struct ju_py_layout,
 * kept apart so that the frame decoder's table stays what it needs.
 *
 * Object fields are counted from the end of the object header (PyObject:
 * 16 bytes in GIL builds, 32 free-threaded: ju_py_layout.ob_type + 8), so
 * one table serves both builds of a version; dict-keys, dict-values, frame,
 * GIL and interpreter fields are absolute (they are not objects).
 * JU_PY_NONE: the version has no such field. Version differences live only
 * in the tables (value_layout.c).
 *
 * Each reader builds its own copy (struct ju_py_values) the way the frame
 * layout is built: the version's table, then the target's _Py_DebugOffsets
 * where they describe a field (3.13+), then the interpreter's DWARF, then
 * one check of every field's width against the size of the struct that
 * holds it. The decoders use a copy only when that check passed. */
#ifndef JITUNWIND_PY_VALUE_LAYOUT_H
#define JITUNWIND_PY_VALUE_LAYOUT_H

#include "python/layout/layout.h"

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
    /* instance attributes: where an object's dict or slots are (NONE: unknown,
     * instances then show without their attributes) */
    uint32_t tp_basicsize, tp_dictoffset, tp_members, tp_base;
    uint32_t ht_qualname;      /* PyHeapTypeObject */
    uint32_t ht_cached_keys;   /* PyHeapTypeObject: the keys of its instances' inline values */
    uint32_t co_flags, co_argcount, co_kwonlyargcount, co_nlocalsplus;
    uint32_t co_localsplusnames, co_localspluskinds;

    /* PyDictKeysObject and PyDictValues */
    uint32_t dk_log2_size, dk_log2_index_bytes, dk_kind, dk_nentries, dk_indices;
    uint32_t dv_values;        /* values[] in PyDictValues */
    uint32_t dv_valid;         /* PyDictValues.valid (3.13+): inline values in use; else NONE */
    uint8_t dv_order_before;   /* 1: insertion order bytes before values (3.11, 3.12: byte
                                * [-3-i], count at [-2]); 0: after values[capacity]
                                * (3.13+: capacity at byte 0, count at byte 1) */
    uint8_t free_threaded;     /* the table of a Py_GIL_DISABLED build */
    uint8_t reserved[2];

    /* _PyInterpreterFrame */
    uint32_t fr_globals, fr_builtins, fr_localsplus;

    /* struct _gil_runtime_state (3.12+): `locked`, without which its
     * last_holder is only the last thread that held it; NONE: unknown */
    uint32_t gil_locked;
    /* PyInterpreterState.gc.collecting (int); NONE: unknown (the
     * free-threaded tables: it comes from _Py_DebugOffsets or DWARF) */
    uint32_t interp_gc_collecting;
    /* PyInterpreterState's sys.modules dict (imports.modules; 3.11:
     * modules); NONE: unknown (free-threaded tables: from DWARF) */
    uint32_t interp_modules;
};

/* Every offset of struct ju_py_value_layout, once, in the form of the
 * frame layout's rows (layout.h): the CPython struct that holds it, the
 * bytes the decoders load from it (0: an address only), its kind (enum
 * ju_py_field_kind: CHECKED, values cannot be read without it; OPTIONAL, a
 * detail the decoders do without, NONE when unknown; BUILD, build-specific,
 * DWARF wins even over the table's NONE), and the member paths DWARF knows
 * it by ('|' between versions' names). Which of them the target's
 * _Py_DebugOffsets give is debug_offsets.c's VALUES list. */
#define JU_PY_VALUE_FIELDS(X)                                                           \
    X(long_size, LONG, 8, CHECKED, "ob_base.ob_size")                                    \
    X(long_tag, LONG, 8, CHECKED, "long_value.lv_tag")                                   \
    X(long_digits, LONG, 4, CHECKED, "long_value.ob_digit|ob_digit")                     \
    X(float_value, FLOAT, 8, CHECKED, "ob_fval")                                         \
    X(var_size, TUPLE, 8, CHECKED, "ob_base.ob_size")                                    \
    X(tuple_items, TUPLE, 0, CHECKED, "ob_item") /* the items' start */                 \
    X(list_items, LIST, 8, CHECKED, "ob_item")                                           \
    X(dict_used, DICT, 8, CHECKED, "ma_used")                                            \
    X(dict_keys, DICT, 8, CHECKED, "ma_keys")                                            \
    X(dict_values, DICT, 8, CHECKED, "ma_values")                                        \
    X(set_used, SET, 8, CHECKED, "used")                                                 \
    X(set_mask, SET, 8, CHECKED, "mask")                                                 \
    X(set_table, SET, 8, CHECKED, "table")                                               \
    X(func_qualname, FUNCTION, 8, CHECKED, "func_qualname")                              \
    X(cfunc_ml, CFUNCTION, 8, CHECKED, "m_ml")                                           \
    X(cfunc_self, CFUNCTION, 8, CHECKED, "m_self")                                       \
    X(method_func, METHOD, 8, CHECKED, "im_func")                                        \
    X(method_self, METHOD, 8, CHECKED, "im_self")                                        \
    X(module_dict, MODULE, 8, CHECKED, "md_dict")                                        \
    X(cell_ref, CELL, 8, CHECKED, "ob_ref")                                              \
    X(tp_flags, TYPE, 8, CHECKED, "tp_flags")                                            \
    X(tp_dict, TYPE, 8, CHECKED, "tp_dict")                                              \
    X(tp_basicsize, TYPE, 8, OPTIONAL, "tp_basicsize")                                   \
    X(tp_dictoffset, TYPE, 8, OPTIONAL, "tp_dictoffset")                                 \
    X(tp_members, TYPE, 8, OPTIONAL, "tp_members")                                       \
    X(tp_base, TYPE, 8, OPTIONAL, "tp_base")                                             \
    X(ht_qualname, HEAPTYPE, 8, CHECKED, "ht_qualname")                                  \
    X(ht_cached_keys, HEAPTYPE, 8, OPTIONAL, "ht_cached_keys")                           \
    X(co_flags, CODE, 4, CHECKED, "co_flags")                                            \
    X(co_argcount, CODE, 4, CHECKED, "co_argcount")                                      \
    X(co_kwonlyargcount, CODE, 4, CHECKED, "co_kwonlyargcount")                          \
    X(co_nlocalsplus, CODE, 4, CHECKED, "co_nlocalsplus")                                \
    X(co_localsplusnames, CODE, 8, CHECKED, "co_localsplusnames")                        \
    X(co_localspluskinds, CODE, 8, CHECKED, "co_localspluskinds")                        \
    X(dk_log2_size, DICTKEYS, 1, CHECKED, "dk_log2_size")                                \
    X(dk_log2_index_bytes, DICTKEYS, 1, CHECKED, "dk_log2_index_bytes")                  \
    X(dk_kind, DICTKEYS, 1, CHECKED, "dk_kind")                                          \
    X(dk_nentries, DICTKEYS, 8, CHECKED, "dk_nentries")                                  \
    X(dk_indices, DICTKEYS, 0, CHECKED, "dk_indices") /* = the header copied */         \
    X(dv_values, DICTVALUES, 8, CHECKED, "values")                                       \
    X(dv_valid, DICTVALUES, 1, OPTIONAL, "valid")                                        \
    X(fr_globals, FRAME, 8, CHECKED, "f_globals")                                        \
    X(fr_builtins, FRAME, 8, CHECKED, "f_builtins")                                      \
    X(fr_localsplus, FRAME, 0, CHECKED, "localsplus") /* the slots' start */            \
    X(gil_locked, GIL, 4, OPTIONAL, "locked")                                           \
    X(interp_gc_collecting, INTERP, 4, BUILD, "gc.collecting")                           \
    X(interp_modules, INTERP, 8, BUILD, "imports.modules|modules")

enum ju_pyv_field_id {
#define JU_PYV_ID(name, holder, width, kind, paths) JU_PYV_##name,
    JU_PY_VALUE_FIELDS(JU_PYV_ID)
#undef JU_PYV_ID
    JU_PYV_COUNT
};

/* The CPython structs that hold value fields; objects' fields are counted
 * from the end of the header, the others from the struct's start. */
enum ju_pyv_holder {
    JU_PYVH_LONG, JU_PYVH_FLOAT, JU_PYVH_TUPLE, JU_PYVH_LIST, JU_PYVH_DICT, JU_PYVH_SET,
    JU_PYVH_FUNCTION, JU_PYVH_CFUNCTION, JU_PYVH_METHOD, JU_PYVH_MODULE, JU_PYVH_CELL,
    JU_PYVH_TYPE, JU_PYVH_HEAPTYPE, JU_PYVH_CODE,
    JU_PYVH_FIRST_ABSOLUTE, /* the holders below are not objects */
    JU_PYVH_DICTKEYS = JU_PYVH_FIRST_ABSOLUTE, JU_PYVH_DICTVALUES, JU_PYVH_FRAME, JU_PYVH_GIL,
    JU_PYVH_INTERP,
    JU_PYVH_COUNT
};

#define JU_PY_DICT_KEYS_COPY 64u /* bytes of a keys object's header the decoder copies */

/* Where a reader's value field came from (bits of ju_py_values.source). */
enum {
    JU_PYV_FROM_TABLE = 1, JU_PYV_FROM_DEBUG_OFFSETS = 2, JU_PYV_FROM_DWARF = 4,
    JU_PYV_IN_HEADER = 8 /* the target gave an offset inside the object header */
};

/* A reader's value layout, being built and then checked. */
struct ju_py_values {
    struct ju_py_value_layout V;
    uint32_t holder_size[JU_PYVH_COUNT]; /* sizeof each holder (debug offsets, DWARF); 0: unknown */
    uint8_t source[JU_PYV_COUNT];        /* JU_PYV_FROM_* bits */
    uint8_t borrowed;  /* no table of this version: the newest one's values are only a
                        * start, and a needed field must come from the target or DWARF */
    uint8_t dwarf_seen; /* DWARF was applied */
    struct jitunwind_py_dwarf_report dwarf; /* what DWARF said of these fields */
    int status;        /* 0: checked, usable; else a negative status and `why` */
    char why[JITUNWIND_ERROR_MESSAGE_MAX];
};

struct ju_pyv_field_desc {
    const char *name;  /* the struct ju_py_value_layout member */
    const char *paths; /* DWARF member paths in the holder */
    uint16_t slot;     /* offsetof(struct ju_py_value_layout, name) */
    uint8_t width;     /* bytes loaded; 0: an address */
    uint8_t holder;    /* enum ju_pyv_holder */
    uint8_t kind;      /* enum ju_py_field_kind: CHECKED, OPTIONAL or BUILD */
};
struct ju_pyv_holder_desc {
    const char *type;  /* the CPython struct, as DWARF names it */
};
JU_HIDDEN extern const struct ju_pyv_field_desc ju_pyv_fields[JU_PYV_COUNT];
JU_HIDDEN extern const struct ju_pyv_holder_desc ju_pyv_holders[JU_PYVH_COUNT];

/* Field `id` of V: its offset, or JU_PY_NONE. */
static inline uint32_t ju_pyv_offset(const struct ju_py_value_layout *V, enum ju_pyv_field_id id)
{
    return ju_py_slot(V, ju_pyv_fields[id].slot);
}

/* Bytes before a holder's fields: the object header (L) for objects. */
static inline uint32_t ju_pyv_base(const struct ju_py_layout *L, unsigned holder)
{
    return holder < JU_PYVH_FIRST_ABSOLUTE ? L->ob_type + 8 : 0;
}

/* Begin the value layout of a reader with frame layout L for version_hex:
 * the version's table, or the newest one, borrowed. */
JU_HIDDEN void ju_py_values_start(struct ju_py_values *s, const struct ju_py_layout *L,
                                  uint32_t version_hex);
/* Set field `id` from an absolute offset `offset` (from the object's start
 * for objects, whose header L gives) taken from `source`. */
JU_HIDDEN void ju_py_values_set(struct ju_py_values *s, const struct ju_py_layout *L,
                                enum ju_pyv_field_id id, uint64_t offset, int source);
/* Record sizeof(holder h) (a size of 0 is ignored). */
JU_HIDDEN void ju_py_values_holder_size(struct ju_py_values *s, enum ju_pyv_holder h,
                                        uint64_t size);
/* Check against, and complete from, the build's DWARF (the same lookup as
 * the frame layout's): a disagreement with the table is resolved in
 * DWARF's favour, one with the target's confirmed _Py_DebugOffsets in
 * theirs; each is counted in s->dwarf (jitunwind_pyreader_values_report). */
JU_HIDDEN void ju_py_values_apply_dwarf(struct ju_py_values *s, const struct ju_py_layout *L,
                                        jitunwind_dwarf_types *types, int debug_offsets_win);
/* Finish: a borrowed layout keeps only what the target or DWARF gave;
 * then every field is checked (ju_py_values_check). Sets s->status, s->why. */
JU_HIDDEN void ju_py_values_finish(struct ju_py_values *s, const struct ju_py_layout *L,
                                   const char *release);
/* Every field present, with its width, inside its holder (its known size,
 * else any plausible struct) and inside the decoder's copy: 0, or ECORRUPT
 * with a message naming the field. */
JU_HIDDEN int ju_py_values_check(const struct ju_py_values *s, const struct ju_py_layout *L,
                                 char *why, size_t size);
/* The table of a version (0xMMmm....) and build (free-threaded or not), or
 * NULL. For tests and encoders. */
JU_HIDDEN const struct ju_py_value_layout *ju_py_value_table(uint32_t version_hex,
                                                             int free_threaded);
/* The newest table of a build. */
JU_HIDDEN const struct ju_py_value_layout *ju_py_value_table_newest(int free_threaded);

#endif
