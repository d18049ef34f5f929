/* Every field of every layout table, once, in one form: the frame
 * decoder's (struct ju_py_layout), its JIT view's (struct ju_py_jit_layout,
 * L->jit) and the value renderer's (struct ju_py_value_layout). One row
 * per field:
 *   name    the member of its table;
 *   holder  the CPython struct that holds it (ju_py_holders: its DWARF name);
 *   width   the bytes the decoder loads from it (0 for a size, or a place
 *           that is only an address, never loaded);
 *   also    another holder whose local copy it is loaded from (ob_type from
 *           the code object's copy), or NONE;
 *   kind    how its value is resolved (enum ju_py_field_kind);
 *   debug   its field in the target's _Py_DebugOffsets (3.13+; enum
 *           ju_py_debug_field without its prefix, SKIP: none), whose value
 *           then wins over DWARF's;
 *   paths   its DWARF member paths in the holder, '|' between the names
 *           versions gave it; NULL for a size.
 * The decoders load fields only through ju_py_get/ju_py_fetch (frames, JIT
 * view) or with the width listed here (values). One resolver merges each
 * table from its sources in one order (resolve.c: table, debug offsets,
 * DWARF, settle) and one check holds every field to these rows
 * (ju_py_fields_check) before a decoder reads with it. A table that fails
 * costs only what reads with it: the reader (frames), the JIT view, or the
 * values. */
#ifndef JITUNWIND_PY_FIELDS_H
#define JITUNWIND_PY_FIELDS_H

#include <stdint.h>

/* The CPython structs that hold layout fields. Those the decoder copies
 * into a local buffer have a size field (the bytes copied) and a buffer
 * capacity (ju_py_holders). Objects (`object` in ju_py_holders) hold
 * value fields counted from the end of the object header. */
enum ju_py_holder {
    JU_PYH_NONE, JU_PYH_RUNTIME, JU_PYH_INTERP, JU_PYH_GIL, JU_PYH_TSTATE, JU_PYH_CFRAME,
    JU_PYH_FRAME, JU_PYH_CODE, JU_PYH_OBJECT, JU_PYH_TYPE, JU_PYH_BYTES, JU_PYH_ASCII,
    JU_PYH_COMPACT, JU_PYH_UNICODE, JU_PYH_EXECUTOR, JU_PYH_UOP, JU_PYH_EXIT, JU_PYH_STENCIL,
    JU_PYH_LONG, JU_PYH_FLOAT, JU_PYH_TUPLE, JU_PYH_LIST, JU_PYH_DICT, JU_PYH_SET,
    JU_PYH_FUNCTION, JU_PYH_CFUNCTION, JU_PYH_METHOD, JU_PYH_MODULE, JU_PYH_CELL,
    JU_PYH_HEAPTYPE, JU_PYH_DICTKEYS, JU_PYH_DICTVALUES,
    JU_PYH_COUNT
};

/* The _Py_DebugOffsets fields the reader uses (debug_offsets.c lists, per
 * version, where each lies in the block). */
enum ju_py_debug_field {
    JU_PYD_SKIP = 0,
    JU_PYD_RT_SIZE, JU_PYD_RT_INTERPRETERS_HEAD,
    JU_PYD_IS_SIZE, JU_PYD_IS_ID, JU_PYD_IS_NEXT, JU_PYD_IS_THREADS_HEAD, JU_PYD_IS_CEVAL_GIL,
    JU_PYD_TS_SIZE, JU_PYD_TS_NEXT, JU_PYD_TS_INTERP, JU_PYD_TS_CURRENT_FRAME,
    JU_PYD_TS_THREAD_ID, JU_PYD_TS_NATIVE_THREAD_ID,
    JU_PYD_FR_SIZE, JU_PYD_FR_PREVIOUS, JU_PYD_FR_EXECUTABLE, JU_PYD_FR_INSTR_PTR,
    JU_PYD_FR_OWNER, JU_PYD_FR_TLBC_INDEX,
    JU_PYD_CO_SIZE, JU_PYD_CO_FILENAME, JU_PYD_CO_NAME, JU_PYD_CO_QUALNAME, JU_PYD_CO_LINETABLE,
    JU_PYD_CO_FIRSTLINENO, JU_PYD_CO_CODE_ADAPTIVE, JU_PYD_CO_TLBC,
    JU_PYD_OB_SIZE, JU_PYD_OB_TYPE,
    JU_PYD_TP_SIZE, JU_PYD_TP_NAME,
    JU_PYD_BY_SIZE, JU_PYD_BY_OB_SIZE, JU_PYD_BY_OB_SVAL,
    JU_PYD_UN_SIZE, JU_PYD_UN_STATE, JU_PYD_UN_LENGTH, JU_PYD_UN_ASCII_SIZE,
    JU_PYD_UN_COMPACT_SIZE,
    JU_PYD_TS_HOLDS_GIL, JU_PYD_TS_LAST_PROFILED_FRAME, JU_PYD_TS_LAST_PROFILED_SEQ,
    JU_PYD_IS_GC, JU_PYD_FR_LOCALSPLUS, JU_PYD_CO_ARGCOUNT, JU_PYD_CO_LOCALSPLUSNAMES,
    JU_PYD_CO_LOCALSPLUSKINDS, JU_PYD_TP_FLAGS,
    JU_PYD_TU_SIZE, JU_PYD_TU_OB_ITEM, JU_PYD_TU_OB_SIZE,
    JU_PYD_LI_SIZE, JU_PYD_LI_OB_ITEM, JU_PYD_LI_OB_SIZE,
    JU_PYD_SE_SIZE, JU_PYD_SE_USED, JU_PYD_SE_TABLE, JU_PYD_SE_MASK,
    JU_PYD_DI_SIZE, JU_PYD_DI_MA_KEYS, JU_PYD_DI_MA_VALUES,
    JU_PYD_FL_SIZE, JU_PYD_FL_OB_FVAL, JU_PYD_LO_SIZE, JU_PYD_LO_LV_TAG, JU_PYD_LO_OB_DIGIT,
    JU_PYD_GC_SIZE, JU_PYD_GC_COLLECTING, JU_PYD_HT_SIZE,
    JU_PYD_TS_PREV,
    JU_PYD_COUNT
};

/* The frame decoder's table, struct ju_py_layout. */
#define JU_PY_LAYOUT_FIELDS(X)                                                              \
    X(rt_interpreters_head, RUNTIME, 8, NONE, CHECKED, RT_INTERPRETERS_HEAD, "interpreters.head") \
    X(rt_gil_holder, RUNTIME, 8, NONE, CHECKED, SKIP, "gilstate.tstate_current")            \
    X(rt_perf_code_arena, RUNTIME, 8, NONE, BUILD, SKIP, "ceval.perf.code_arena")           \
    X(interp_next, INTERP, 8, NONE, CHECKED, IS_NEXT, "next")                               \
    X(interp_id, INTERP, 8, NONE, CHECKED, IS_ID, "id")                                     \
    X(interp_threads_head, INTERP, 8, NONE, CHECKED, IS_THREADS_HEAD, "threads.head")       \
    X(interp_gil_ptr, INTERP, 8, NONE, CHECKED, IS_CEVAL_GIL, "ceval.gil")                  \
    X(gil_last_holder, GIL, 8, NONE, CHECKED, SKIP, "last_holder")                          \
    X(ts_next, TSTATE, 8, NONE, CHECKED, TS_NEXT, "next")                                   \
    X(ts_prev, TSTATE, 8, NONE, OPTIONAL, TS_PREV, "prev")                                  \
    X(ts_interp, TSTATE, 8, NONE, CHECKED, TS_INTERP, "interp")                             \
    X(ts_thread_id, TSTATE, 8, NONE, CHECKED, TS_THREAD_ID, "thread_id")                    \
    X(ts_native_thread_id, TSTATE, 8, NONE, CHECKED, TS_NATIVE_THREAD_ID, "native_thread_id") \
    X(ts_current_frame, TSTATE, 8, NONE, CHECKED, TS_CURRENT_FRAME, "current_frame")        \
    X(ts_holds_gil, TSTATE, 4, NONE, OPTIONAL, TS_HOLDS_GIL, "holds_gil")                   \
    X(ts_cframe, TSTATE, 8, NONE, CHECKED, SKIP, "cframe")                                  \
    X(ts_last_profiled_frame, TSTATE, 8, NONE, OPTIONAL, TS_LAST_PROFILED_FRAME,                \
      "last_profiled_frame")                                                                \
    X(ts_last_profiled_seq, TSTATE, 8, NONE, OPTIONAL, TS_LAST_PROFILED_SEQ,                    \
      "last_profiled_frame_seq")                                                            \
    X(cframe_current_frame, CFRAME, 8, NONE, CHECKED, SKIP, "current_frame")                \
    X(fr_size, FRAME, 0, NONE, COPY, FR_SIZE, NULL)                                         \
    X(fr_code, FRAME, 8, NONE, CHECKED, FR_EXECUTABLE, "f_executable|f_code")               \
    X(fr_previous, FRAME, 8, NONE, CHECKED, FR_PREVIOUS, "previous")                        \
    X(fr_instr, FRAME, 8, NONE, CHECKED, FR_INSTR_PTR, "instr_ptr|prev_instr")              \
    X(fr_owner, FRAME, 1, NONE, CHECKED, FR_OWNER, "owner")                                 \
    X(fr_is_entry, FRAME, 1, NONE, CHECKED, SKIP, "is_entry")                               \
    X(fr_tlbc_index, FRAME, 4, NONE, CHECKED, FR_TLBC_INDEX, "tlbc_index")                  \
    X(co_size, CODE, 0, NONE, COPY, SKIP, NULL)                                             \
    X(co_filename, CODE, 8, NONE, CHECKED, CO_FILENAME, "co_filename")                      \
    X(co_name, CODE, 8, NONE, CHECKED, CO_NAME, "co_name")                                  \
    X(co_qualname, CODE, 8, NONE, CHECKED, CO_QUALNAME, "co_qualname")                      \
    X(co_linetable, CODE, 8, NONE, CHECKED, CO_LINETABLE, "co_linetable")                   \
    X(co_firstlineno, CODE, 4, NONE, CHECKED, CO_FIRSTLINENO, "co_firstlineno")             \
    /* co_code_adaptive: the first code unit */                                             \
    X(co_code_adaptive, CODE, 2, NONE, CHECKED, CO_CODE_ADAPTIVE, "co_code_adaptive")         \
    X(co_tlbc, CODE, 8, NONE, CHECKED, CO_TLBC, "co_tlbc")                                  \
    X(ob_type, OBJECT, 8, CODE, CHECKED, OB_TYPE, "ob_type")                                \
    X(tp_name, TYPE, 8, NONE, CHECKED, TP_NAME, "tp_name")                                  \
    X(bytes_size, BYTES, 8, NONE, CHECKED, BY_OB_SIZE, "ob_base.ob_size")                   \
    X(bytes_sval, BYTES, 0, NONE, CHECKED, BY_OB_SVAL, "ob_sval")                           \
    X(str_length, ASCII, 8, NONE, CHECKED, UN_LENGTH, "length")                             \
    X(str_state, ASCII, 4, NONE, CHECKED, UN_STATE, "state")                                \
    X(str_ascii_size, ASCII, 0, NONE, SIZE_OF, UN_ASCII_SIZE, NULL)                         \
    X(str_compact_size, COMPACT, 0, NONE, SIZE_OF, UN_COMPACT_SIZE, NULL)                   \
    X(str_legacy_data, UNICODE, 8, NONE, CHECKED, SKIP, "data")                             \
    X(interp_executor_list, INTERP, 8, NONE, BUILD, SKIP, "executor_list_head")             \
    X(interp_executor_deleted, INTERP, 8, NONE, BUILD, SKIP, "executor_deletion_list_head") \
    X(interp_executor_array, INTERP, 8, NONE, BUILD, SKIP, "executor_ptrs")                 \
    X(interp_executor_count, INTERP, 8, NONE, BUILD, SKIP, "executor_count")                \
    X(interp_cold_executor, INTERP, 8, NONE, BUILD, SKIP, "cold_executor")                  \
    X(interp_cold_dynamic, INTERP, 8, NONE, BUILD, SKIP, "cold_dynamic_executor")           \
    X(ex_size, EXECUTOR, 0, NONE, BUILD, SKIP, NULL)                                        \
    X(ex_links_next, EXECUTOR, 8, NONE, OPTIONAL, SKIP, "vm_data.links.next")               \
    X(ex_code, EXECUTOR, 8, NONE, OPTIONAL, SKIP, "vm_data.code")                           \
    X(ex_jit_size, EXECUTOR, 8, NONE, OPTIONAL, SKIP, "jit_size")                           \
    X(ex_jit_code, EXECUTOR, 8, NONE, OPTIONAL, SKIP, "jit_code")

/* The JIT view's table, struct ju_py_jit_layout (L->jit), ids
 * JU_PYF_jit_<field>. No debug offset describes them, so DWARF wins every
 * disagreement. vm_data's flags (kind BITS) are checked as the 32-bit word
 * they are read from (at their byte offset). */
#define JU_PY_JIT_FIELDS(X)                                                                 \
    X(ex_trace, EXECUTOR, 8, NONE, CHECKED, SKIP, "trace")                                  \
    X(ex_exit_count, EXECUTOR, 4, NONE, CHECKED, SKIP, "exit_count")                        \
    X(ex_code_size, EXECUTOR, 4, NONE, CHECKED, SKIP, "code_size")                          \
    X(ex_side_entry, EXECUTOR, 8, NONE, CHECKED, SKIP, "jit_side_entry")                    \
    X(ex_exits, EXECUTOR, 0, NONE, CHECKED, SKIP, "exits") /* exits[]: an address */        \
    X(vm_opcode, EXECUTOR, 1, NONE, CHECKED, SKIP, "vm_data.opcode")                        \
    X(vm_oparg, EXECUTOR, 1, NONE, CHECKED, SKIP, "vm_data.oparg")                          \
    X(vm_index, EXECUTOR, 4, NONE, CHECKED, SKIP, "vm_data.index")                          \
    X(vm_valid, EXECUTOR, 4, NONE, BITS, SKIP, "vm_data.valid")                             \
    X(vm_linked, EXECUTOR, 4, NONE, BITS, SKIP, "vm_data.linked")                           \
    X(vm_chain_depth, EXECUTOR, 4, NONE, BITS, SKIP, "vm_data.chain_depth")                 \
    X(vm_warm, EXECUTOR, 4, NONE, BITS, SKIP, "vm_data.warm")                               \
    X(uop_size, UOP, 0, NONE, SIZE_OF, SKIP, NULL)                                          \
    X(uop_oparg, UOP, 2, NONE, CHECKED, SKIP, "oparg")                                      \
    X(uop_target, UOP, 4, NONE, CHECKED, SKIP, "target")                                    \
    X(uop_operand0, UOP, 8, NONE, CHECKED, SKIP, "operand0|operand")                        \
    X(uop_operand1, UOP, 8, NONE, CHECKED, SKIP, "operand1")                                \
    X(exit_size, EXIT, 0, NONE, SIZE_OF, SKIP, NULL)                                        \
    X(exit_target, EXIT, 4, NONE, CHECKED, SKIP, "target")                                  \
    X(exit_executor, EXIT, 8, NONE, CHECKED, SKIP, "executor")                              \
    X(stencil_size, STENCIL, 0, NONE, SIZE_OF, SKIP, NULL)                                  \
    X(stencil_code_size, STENCIL, 8, NONE, CHECKED, SKIP, "code_size|code.body_size")

/* The value renderer's table, struct ju_py_value_layout (value_layout.h),
 * ids JU_PYF_val_<field>. Fields of objects are counted from the end of
 * the object header. */
#define JU_PY_VALUE_FIELDS(X)                                                               \
    X(long_size, LONG, 8, NONE, CHECKED, SKIP, "ob_base.ob_size")                           \
    X(long_tag, LONG, 8, NONE, CHECKED, LO_LV_TAG, "long_value.lv_tag")                     \
    X(long_digits, LONG, 4, NONE, CHECKED, LO_OB_DIGIT, "long_value.ob_digit|ob_digit")     \
    X(float_value, FLOAT, 8, NONE, CHECKED, FL_OB_FVAL, "ob_fval")                          \
    X(var_size, TUPLE, 8, NONE, CHECKED, TU_OB_SIZE, "ob_base.ob_size")                     \
    X(tuple_items, TUPLE, 0, NONE, CHECKED, TU_OB_ITEM, "ob_item") /* the items' start */   \
    X(list_items, LIST, 8, NONE, CHECKED, LI_OB_ITEM, "ob_item")                            \
    X(dict_used, DICT, 8, NONE, CHECKED, SKIP, "ma_used")                                   \
    X(dict_keys, DICT, 8, NONE, CHECKED, DI_MA_KEYS, "ma_keys")                             \
    X(dict_values, DICT, 8, NONE, CHECKED, DI_MA_VALUES, "ma_values")                       \
    X(set_used, SET, 8, NONE, CHECKED, SE_USED, "used")                                     \
    X(set_mask, SET, 8, NONE, CHECKED, SE_MASK, "mask")                                     \
    X(set_table, SET, 8, NONE, CHECKED, SE_TABLE, "table")                                  \
    X(func_qualname, FUNCTION, 8, NONE, CHECKED, SKIP, "func_qualname")                     \
    X(cfunc_ml, CFUNCTION, 8, NONE, CHECKED, SKIP, "m_ml")                                  \
    X(cfunc_self, CFUNCTION, 8, NONE, CHECKED, SKIP, "m_self")                              \
    X(method_func, METHOD, 8, NONE, CHECKED, SKIP, "im_func")                               \
    X(method_self, METHOD, 8, NONE, CHECKED, SKIP, "im_self")                               \
    X(module_dict, MODULE, 8, NONE, CHECKED, SKIP, "md_dict")                               \
    X(cell_ref, CELL, 8, NONE, CHECKED, SKIP, "ob_ref")                                     \
    X(tp_flags, TYPE, 8, NONE, CHECKED, TP_FLAGS, "tp_flags")                               \
    X(tp_dict, TYPE, 8, NONE, CHECKED, SKIP, "tp_dict")                                     \
    X(tp_basicsize, TYPE, 8, NONE, OPTIONAL, SKIP, "tp_basicsize")                          \
    X(tp_dictoffset, TYPE, 8, NONE, OPTIONAL, SKIP, "tp_dictoffset")                        \
    X(tp_members, TYPE, 8, NONE, OPTIONAL, SKIP, "tp_members")                              \
    X(tp_base, TYPE, 8, NONE, OPTIONAL, SKIP, "tp_base")                                    \
    X(ht_qualname, HEAPTYPE, 8, NONE, CHECKED, SKIP, "ht_qualname")                         \
    X(ht_cached_keys, HEAPTYPE, 8, NONE, OPTIONAL, SKIP, "ht_cached_keys")                  \
    X(co_flags, CODE, 4, NONE, CHECKED, SKIP, "co_flags")                                   \
    X(co_argcount, CODE, 4, NONE, CHECKED, CO_ARGCOUNT, "co_argcount")                      \
    X(co_kwonlyargcount, CODE, 4, NONE, CHECKED, SKIP, "co_kwonlyargcount")                 \
    X(co_nlocalsplus, CODE, 4, NONE, CHECKED, SKIP, "co_nlocalsplus")                       \
    X(co_localsplusnames, CODE, 8, NONE, CHECKED, CO_LOCALSPLUSNAMES, "co_localsplusnames") \
    X(co_localspluskinds, CODE, 8, NONE, CHECKED, CO_LOCALSPLUSKINDS, "co_localspluskinds") \
    X(dk_log2_size, DICTKEYS, 1, NONE, CHECKED, SKIP, "dk_log2_size")                       \
    X(dk_log2_index_bytes, DICTKEYS, 1, NONE, CHECKED, SKIP, "dk_log2_index_bytes")         \
    X(dk_kind, DICTKEYS, 1, NONE, CHECKED, SKIP, "dk_kind")                                 \
    X(dk_nentries, DICTKEYS, 8, NONE, CHECKED, SKIP, "dk_nentries")                         \
    X(dk_indices, DICTKEYS, 0, NONE, CHECKED, SKIP, "dk_indices") /* = the header copied */ \
    X(dv_values, DICTVALUES, 8, NONE, CHECKED, SKIP, "values")                              \
    X(dv_valid, DICTVALUES, 1, NONE, OPTIONAL, SKIP, "valid")                               \
    X(fr_globals, FRAME, 8, NONE, CHECKED, SKIP, "f_globals")                               \
    X(fr_builtins, FRAME, 8, NONE, CHECKED, SKIP, "f_builtins")                             \
    X(fr_localsplus, FRAME, 0, NONE, CHECKED, FR_LOCALSPLUS, "localsplus") /* the slots' start */ \
    X(gil_locked, GIL, 4, NONE, OPTIONAL, SKIP, "locked")                                   \
    /* interp_gc_collecting: the target gives it as interp.gc + gc.collecting */              \
    X(interp_gc_collecting, INTERP, 4, NONE, BUILD, SKIP, "gc.collecting")                  \
    X(interp_modules, INTERP, 8, NONE, BUILD, SKIP, "imports.modules|modules")

/* How a field's value is resolved (every table alike). */
enum ju_py_field_kind {
    JU_PYK_CHECKED,  /* the table's (or the target's) value, cross-checked with DWARF;
                      * needed: without it the reader (or the values) cannot work */
    JU_PYK_OPTIONAL, /* the same, for a detail the decoder can do without */
    JU_PYK_BUILD,    /* build-specific: taken from DWARF whenever it has it */
    JU_PYK_SIZE_OF,  /* sizeof the holder, not a member offset */
    JU_PYK_BITS,     /* a bit-field: DWARF gives its bit offset */
    JU_PYK_COPY      /* bytes of the holder the decoder copies: no DWARF member */
};

/* The tables, in the order of their fields' ids. */
enum ju_py_part { JU_PYP_MAIN, JU_PYP_JIT, JU_PYP_VALUES, JU_PYP_COUNT };

enum ju_py_field_id {
#define JU_PY_FIELD_ID(name, holder, width, also, kind, debug, paths) JU_PYF_##name,
#define JU_PY_JIT_FIELD_ID(name, holder, width, also, kind, debug, paths) JU_PYF_jit_##name,
#define JU_PY_VAL_FIELD_ID(name, holder, width, also, kind, debug, paths) JU_PYF_val_##name,
    JU_PY_LAYOUT_FIELDS(JU_PY_FIELD_ID)
    JU_PYF_MAIN_END, /* the JIT view's fields follow */
    JU_PYF_JIT_BEFORE = JU_PYF_MAIN_END - 1,
    JU_PY_JIT_FIELDS(JU_PY_JIT_FIELD_ID)
    JU_PYF_JIT_END, /* the value fields follow */
    JU_PYF_VAL_BEFORE = JU_PYF_JIT_END - 1,
    JU_PY_VALUE_FIELDS(JU_PY_VAL_FIELD_ID)
#undef JU_PY_VAL_FIELD_ID
#undef JU_PY_JIT_FIELD_ID
#undef JU_PY_FIELD_ID
    JU_PYF_COUNT
};

#define JU_PY_FRAME_COPY 256u /* bytes of a frame the decoder can copy (frames.c) */
#define JU_PY_CODE_COPY 512u  /* of a code object (code.c) */
#define JU_PY_STR_COPY 128u   /* of a str header (strings.c) */
#define JU_PY_UOP_COPY 64u    /* of a trace entry, _PyUOpInstruction (jit_view.c) */
#define JU_PY_DICT_KEYS_COPY 64u /* of a keys object's header (values/objects.c) */
#define JU_PY_MAX_STRUCT (1u << 20) /* no CPython struct the decoder reads is larger */

struct ju_py_field_desc {
    const char *name;  /* the member of its table */
    const char *paths; /* DWARF member paths in the holder; NULL: none, or a size */
    uint16_t slot;     /* the member's offset in its table's struct */
    uint8_t width;     /* bytes loaded; 0: a size, or an address never loaded */
    uint8_t holder;    /* enum ju_py_holder */
    uint8_t also;      /* another holder whose copy it is loaded from, or NONE */
    uint8_t kind;      /* enum ju_py_field_kind */
    uint8_t debug;     /* enum ju_py_debug_field, or JU_PYD_SKIP */
    uint8_t part;      /* enum ju_py_part: its table */
};
struct ju_py_holder_desc {
    const char *type;       /* the CPython struct, as DWARF names it */
    int size_field;         /* enum ju_py_field_id of the bytes copied, or -1 */
    uint32_t copy_capacity; /* the decoder's buffer for it; 0 when never copied */
    uint8_t object;         /* a Python object: value fields count from its header's end */
    uint8_t debug_size;     /* enum ju_py_debug_field of its sizeof, or JU_PYD_SKIP */
};
/* The fields [first, end) of each table. */
struct ju_py_part_desc {
    uint16_t first, end;
};
JU_HIDDEN extern const struct ju_py_field_desc ju_py_fields[JU_PYF_COUNT];
JU_HIDDEN extern const struct ju_py_holder_desc ju_py_holders[JU_PYH_COUNT];
JU_HIDDEN extern const struct ju_py_part_desc ju_py_parts[JU_PYP_COUNT];

#endif
