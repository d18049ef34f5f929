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

/* Its fields are the rows of JU_PY_VALUE_FIELDS (fields.h), ids
 * JU_PYF_val_<member>. */
#define JU_PY_VALUE_COUNT (JU_PYF_COUNT - JU_PYF_JIT_END)

/* A reader's value layout, being built and then checked. */
struct ju_py_values {
    struct ju_py_value_layout V;
    uint32_t holder_size[JU_PYH_COUNT]; /* sizeof each holder (debug offsets, DWARF); 0: unknown */
    uint8_t source[JU_PY_VALUE_COUNT];  /* JU_PY_SRC_* bits, by id - JU_PYF_JIT_END */
    uint8_t borrowed;  /* no table of this version: the newest one's values are only a
                        * start, and a needed field must come from the target or DWARF */
    uint8_t dwarf_seen; /* DWARF was applied */
    int status;        /* 0: checked, usable; else a negative status and `why` */
    char why[JITUNWIND_ERROR_MESSAGE_MAX];
};

/* Bytes before a holder's value fields: the object header (L) for objects. */
static inline uint32_t ju_pyv_base(const struct ju_py_layout *L, unsigned holder)
{
    return ju_py_holders[holder].object ? L->ob_type + 8 : 0;
}

/* Begin the value layout of a reader with frame layout L for version_hex:
 * the version's table, or the newest one, borrowed. */
JU_HIDDEN void ju_py_values_start(struct ju_py_values *s, const struct ju_py_layout *L,
                                  uint32_t version_hex);
/* s as a table being merged (ju_py_table_set), for a reader with frame
 * layout L. */
static inline struct ju_py_table_build ju_py_values_build(struct ju_py_values *s,
                                                          const struct ju_py_layout *L)
{
    struct ju_py_table_build t = {&s->V, ju_pyv_base(L, JU_PYH_OBJECT), s->source};
    return t;
}
/* Record sizeof(holder h) (a size of 0 is ignored). */
JU_HIDDEN void ju_py_values_holder_size(struct ju_py_values *s, enum ju_py_holder h,
                                        uint64_t size);
/* Check against, and complete from, the build's DWARF (the same lookup as
 * the frame layout's): a disagreement with the table is resolved in
 * DWARF's favour, one with the target's confirmed _Py_DebugOffsets in
 * theirs; each is counted in `report` (the reader's report.values,
 * jitunwind_pyreader_values_report). */
JU_HIDDEN void ju_py_values_apply_dwarf(struct ju_py_values *s, const struct ju_py_layout *L,
                                        jitunwind_dwarf_types *types, int debug_offsets_win,
                                        struct jitunwind_py_dwarf_report *report);
/* Finish: a borrowed layout keeps only what the target or DWARF gave;
 * then every field is checked (ju_py_values_check). Sets s->status, s->why. */
JU_HIDDEN void ju_py_values_finish(struct ju_py_values *s, const struct ju_py_layout *L,
                                   const char *release);
/* ju_py_fields_check of the value fields ("values of CPython 3.13: ..."). */
JU_HIDDEN int ju_py_values_check(const struct ju_py_values *s, const struct ju_py_layout *L,
                                 char *why, size_t size);
/* The table of a version (0xMMmm....) and build (free-threaded or not), or
 * NULL. For tests and encoders. */
JU_HIDDEN const struct ju_py_value_layout *ju_py_value_table(uint32_t version_hex,
                                                             int free_threaded);
/* The newest table of a build. */
JU_HIDDEN const struct ju_py_value_layout *ju_py_value_table_newest(int free_threaded);

#endif
