/* The version-independent view of CPython's data structures.
 *
 * Every offset, size and encoding the decoders need is a field here; each
 * supported CPython version is one table (layout_table.c). Decoders never
 * test the version themselves. An offset of JU_PY_NONE means "this version
 * has no such field". */
#ifndef JITUNWIND_PY_LAYOUT_H
#define JITUNWIND_PY_LAYOUT_H

#include <stdint.h>

#include "internal.h"

#define JU_PY_NONE UINT32_MAX
/* In a static table only: this version has the member, and only the
 * build's DWARF says where (3.15's executors: no build was at hand to take
 * offsets from). ju_py_apply_dwarf and ju_py_jit_apply_dwarf replace it
 * with DWARF's value; ju_py_layout_settle turns what is left into
 * JU_PY_NONE before any decoder reads with the layout. */
#define JU_PY_FROM_DWARF (UINT32_MAX - 1)

/* JIT developer view (3.13 to 3.16): executors' traces, exits, vm_data and
 * the stencil table (jit_view.c). `known` is 0 for versions without them.
 * ex_side_entry NONE: the executor has no shim of its own (3.15+), its
 * first uop's code starts at jit_code.
 * Offsets into _PyExecutorObject are from the executor; vm_data's flags
 * are {byte offset, bit, width} (width 0: absent). Checked against and
 * completed from DWARF by jit_layout.c. */
struct ju_py_jit_bits {
    uint32_t offset;
    uint8_t bit, width;
};

struct ju_py_jit_layout {
    uint8_t known;
    uint8_t opcode_bits;     /* _PyUOpInstruction.opcode: the low bits of its first u16 */
    uint8_t format_jump;     /* format value of a uop whose target word is {jump, error} */
    uint8_t format_exit;     /* format value of a uop whose target word is an exit index (3.13), or 0xff */
    uint32_t uop_size;       /* sizeof(_PyUOpInstruction) (Py_STATS builds differ) */
    uint32_t uop_oparg, uop_target, uop_operand0, uop_operand1; /* operand1: NONE in 3.13 */
    uint32_t ex_trace, ex_exit_count, ex_code_size, ex_side_entry, ex_exits;
    uint32_t exit_size, exit_target, exit_executor;
    uint32_t vm_opcode, vm_oparg, vm_index;
    struct ju_py_jit_bits vm_valid, vm_linked, vm_chain_depth, vm_warm;
    uint32_t stencil_size;      /* sizeof(StencilGroup): DWARF, else the symbol sizes */
    uint32_t stencil_code_size; /* its code size member (size_t) */
};

/* The CPython structs that hold layout fields. Those the decoder copies
 * into a local buffer have a size field in the layout (the bytes copied)
 * and a buffer capacity (ju_py_holders). */
enum ju_py_holder {
    JU_PYH_NONE, JU_PYH_RUNTIME, JU_PYH_INTERP, JU_PYH_GIL, JU_PYH_TSTATE, JU_PYH_CFRAME,
    JU_PYH_FRAME, JU_PYH_CODE, JU_PYH_OBJECT, JU_PYH_TYPE, JU_PYH_BYTES, JU_PYH_ASCII,
    JU_PYH_COMPACT, JU_PYH_UNICODE, JU_PYH_EXECUTOR, JU_PYH_UOP, JU_PYH_EXIT, JU_PYH_STENCIL,
    JU_PYH_COUNT
};

struct ju_py_layout {
    const char *name;
    uint32_t version;            /* 0xMMmm0000: major.minor this table is for */
    uint8_t free_threaded;       /* a Py_GIL_DISABLED ("t") build */

    /* _PyRuntimeState */
    uint32_t rt_interpreters_head;
    uint32_t rt_gil_holder;      /* tstate pointer of the GIL holder (3.11), or NONE */
    uint32_t rt_perf_code_arena; /* ceval.perf.code_arena, newest trampoline arena, or NONE
                                  * (build-specific: not in _Py_DebugOffsets) */

    /* PyInterpreterState */
    uint32_t interp_next;
    uint32_t interp_id;
    uint32_t interp_threads_head;
    uint32_t interp_gil_ptr;     /* pointer to the GIL in use (3.12+), or NONE */
    uint32_t gil_last_holder;    /* offset of last_holder in that GIL struct */

    /* PyThreadState */
    uint32_t ts_next;
    uint32_t ts_interp;
    uint32_t ts_thread_id;
    uint32_t ts_native_thread_id;
    uint32_t ts_current_frame;   /* direct pointer (3.13+), or NONE */
    uint32_t ts_holds_gil;       /* int: this thread holds its GIL (3.15+ GIL builds), or NONE */
    uint32_t ts_cframe;          /* pointer to a _PyCFrame (3.11, 3.12), or NONE */
    uint32_t ts_last_profiled_frame; /* a profiler's frame marker (3.15+), or NONE */
    uint32_t ts_last_profiled_seq;   /* bumped when the interpreter moves it (3.15+), or NONE;
                                      * read as 8 bytes (the debug offsets give no width: a
                                      * wider read only compares more, costing early stops) */
    uint32_t cframe_current_frame;

    /* _PyInterpreterFrame */
    uint32_t fr_size;            /* bytes read per frame (covers every field below) */
    uint32_t fr_code;
    uint32_t fr_previous;
    uint32_t fr_instr;
    uint32_t fr_owner;
    uint32_t fr_is_entry;        /* bool (3.11), or NONE */
    uint32_t fr_tlbc_index;      /* int32 index into co_tlbc (3.14t), or NONE */
    uint8_t instr_is_previous;   /* 1: points at the last started code unit (3.11, 3.12) */
    uint8_t owner_generator;     /* owner value of generator frames */
    uint8_t owner_sentinel_min;  /* owners >= this close an eval-loop activation; 0 = none */
    uint8_t reserved0;
    uint64_t code_tag_mask;      /* bits to clear from the code pointer (tagged refs) */

    /* PyCodeObject */
    uint32_t co_size;            /* bytes read per code object */
    uint32_t co_filename;
    uint32_t co_name;
    uint32_t co_qualname;
    uint32_t co_linetable;
    uint32_t co_firstlineno;
    uint32_t co_code_adaptive;
    uint32_t co_tlbc;            /* _PyCodeArray *: per-thread bytecode copies (3.14t), or NONE */

    /* objects */
    uint32_t ob_type;
    uint32_t tp_name;
    uint32_t bytes_size;
    uint32_t bytes_sval;
    uint32_t str_length;
    uint32_t str_state;
    uint32_t str_ascii_size;     /* sizeof(PyASCIIObject): data of compact ASCII strings */
    uint32_t str_compact_size;   /* sizeof(PyCompactUnicodeObject) */
    uint32_t str_legacy_data;    /* PyUnicodeObject.data.any */
    uint8_t st_kind_shift;       /* state bit positions */
    uint8_t st_compact_bit;
    uint8_t st_ascii_bit;
    uint8_t st_ready_bit;        /* 3.11 only; 0xff = none */

    /* JIT executors (3.13+): _PyExecutorObject, and where each interpreter
     * keeps them: 3.13 and 3.14 on a list, 3.15+ in an array of pointers
     * (executor_ptrs[0..executor_count)), both with a deletion list. The
     * interpreter offsets are build-specific (not in _Py_DebugOffsets):
     * NONE or FROM_DWARF in the tables, found from DWARF. */
    uint32_t interp_executor_list;     /* executor_list_head (3.13, 3.14), or NONE */
    uint32_t interp_executor_deleted;  /* executor_deletion_list_head (3.14+), or NONE */
    uint32_t interp_executor_array;    /* executor_ptrs (3.15+), or NONE */
    uint32_t interp_executor_count;    /* executor_count (size_t) (3.15+), or NONE */
    uint32_t interp_cold_executor;     /* cold_executor (3.15+), or NONE */
    uint32_t interp_cold_dynamic;      /* cold_dynamic_executor (3.15+), or NONE */
    uint32_t ex_size;                  /* sizeof(_PyExecutorObject): the array stride */
    uint32_t ex_links_next;            /* vm_data.links.next */
    uint32_t ex_code;                  /* vm_data.code: the code object, or NULL */
    uint32_t ex_jit_size;
    uint32_t ex_jit_code;
    const char *cold_exits_symbol;     /* static array of executors (3.13), or NULL */
    uint8_t ex_rule_x86_64;            /* unwind rule of executor code (enum jitunwind_rule) */
    uint8_t ex_rule_aarch64;
    uint16_t ex_frame_aarch64;         /* FP rule on AArch64: caller sp = x29 + this (0: 16) */

    /* JIT view (jit_view.c) */
    struct ju_py_jit_layout jit;

    /* sizeof each holder as the target's own _Py_DebugOffsets give it; 0:
     * unknown, as in every static table. ju_py_layout_check holds every
     * field to it, whatever its source. (The build's DWARF sizes check only
     * what DWARF itself gives: a table member DWARF lacks stays the
     * table's.) */
    uint32_t holder_size[JU_PYH_COUNT];
};

/* Every offset and size of struct ju_py_layout, once, one row each:
 *   name    the struct ju_py_layout member;
 *   holder  the CPython struct that holds it (ju_py_holders: its DWARF name);
 *   width   the bytes the decoder loads from it (0 for a size, or a place
 *           that is only an address, never loaded);
 *   also    another holder whose local copy it is loaded from (ob_type from
 *           the code object's copy), or NONE;
 *   kind    how its value is resolved (enum ju_py_field_kind);
 *   debug   its field in the target's _Py_DebugOffsets (3.13+; the names
 *           of debug_offsets.c's enum field, SKIP: none), whose value then
 *           wins over DWARF's;
 *   paths   its DWARF member paths in the holder, '|' between the names
 *           versions gave it; NULL for a size.
 * The decoders load fields only through ju_py_get/ju_py_fetch, which take
 * the width from here; the version table, the target's debug offsets and
 * the build's DWARF are merged into a layout in one order (table, debug
 * offsets, DWARF, settle), and every layout is checked against these rows
 * once, when it is built (ju_py_layout_check, validate.h). */
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

/* The JIT view's fields (struct ju_py_jit_layout, L->jit) in the same
 * form, ids JU_PYF_jit_<field>. No debug offset describes them, so DWARF
 * wins every disagreement. They are held to the same rules by their own
 * check (ju_py_jit_layout_check), because a JIT layout that fails only
 * takes the JIT view away, not the reader. vm_data's flags (kind BITS)
 * are checked as the 32-bit word they are read from (at their byte
 * offset). */
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

/* How a field's value is resolved (the kinds of every field list: frames,
 * JIT view, values). */
enum ju_py_field_kind {
    JU_PYK_CHECKED,  /* the table's (or the target's) value, cross-checked with DWARF;
                      * needed: without it the reader (or the values) cannot work */
    JU_PYK_OPTIONAL, /* the same, for a detail the decoder can do without */
    JU_PYK_BUILD,    /* build-specific: taken from DWARF whenever it has it */
    JU_PYK_SIZE_OF,  /* sizeof the holder, not a member offset */
    JU_PYK_BITS,     /* a bit-field: DWARF gives its bit offset */
    JU_PYK_COPY      /* bytes of the holder the decoder copies: no DWARF member */
};

enum ju_py_field_id {
#define JU_PY_FIELD_ID(name, holder, width, also, kind, debug, paths) JU_PYF_##name,
#define JU_PY_JIT_FIELD_ID(name, holder, width, also, kind, debug, paths) JU_PYF_jit_##name,
    JU_PY_LAYOUT_FIELDS(JU_PY_FIELD_ID)
    JU_PYF_MAIN_END, /* the JIT view's fields follow */
    JU_PYF_JIT_BEFORE = JU_PYF_MAIN_END - 1,
    JU_PY_JIT_FIELDS(JU_PY_JIT_FIELD_ID)
#undef JU_PY_JIT_FIELD_ID
#undef JU_PY_FIELD_ID
    JU_PYF_COUNT
};

#define JU_PY_FRAME_COPY 256u /* bytes of a frame the decoder can copy (frames.c) */
#define JU_PY_CODE_COPY 512u  /* of a code object (code.c) */
#define JU_PY_STR_COPY 128u   /* of a str header (strings.c) */
#define JU_PY_UOP_COPY 64u    /* of a trace entry, _PyUOpInstruction (jit_view.c) */
#define JU_PY_MAX_STRUCT (1u << 20) /* no CPython struct the decoder reads is larger */

struct ju_py_field_desc {
    const char *name;  /* the struct ju_py_layout member */
    const char *paths; /* DWARF member paths in the holder; NULL: none, or a size */
    uint16_t slot;     /* offsetof(struct ju_py_layout, name) */
    uint8_t width;     /* bytes loaded; 0: a size, or an address never loaded */
    uint8_t holder;    /* enum ju_py_holder */
    uint8_t also;      /* another holder whose copy it is loaded from, or NONE */
    uint8_t kind;      /* enum ju_py_field_kind */
};
struct ju_py_holder_desc {
    const char *type;       /* the CPython struct, for messages */
    int size_field;         /* enum ju_py_field_id of the bytes copied, or -1 */
    uint32_t copy_capacity; /* the decoder's buffer for it; 0 when never copied */
};
JU_HIDDEN extern const struct ju_py_field_desc ju_py_fields[JU_PYF_COUNT];
JU_HIDDEN extern const struct ju_py_holder_desc ju_py_holders[JU_PYH_COUNT];

/* The uint32 at byte `slot` of a layout table (any of them). */
static inline uint32_t ju_py_slot(const void *table, size_t slot)
{
    uint32_t v;
    memcpy(&v, (const char *)table + slot, sizeof v);
    return v;
}

/* The offset (or size) a layout gives field `id`; JU_PY_NONE when absent. */
static inline uint32_t ju_py_offset(const struct ju_py_layout *L, enum ju_py_field_id id)
{
    return ju_py_slot(L, ju_py_fields[id].slot);
}

/* Field `id` of an object copied into buf (len bytes): its width's bytes,
 * zero-extended. 0 when the layout has no such field or the field does not
 * lie inside the copy, which a checked layout rules out. */
static inline uint64_t ju_py_get(const struct ju_py_layout *L, enum ju_py_field_id id,
                                 const uint8_t *buf, size_t len)
{
    uint32_t off = ju_py_offset(L, id);
    unsigned width = ju_py_fields[id].width;
    uint64_t v = 0;
    if (off >= JU_PY_FROM_DWARF || width == 0 || width > sizeof v || off > len ||
        width > len - off)
        return 0;
    memcpy(&v, buf + off, width); /* little-endian targets only */
    return v;
}

/* Field `id` of the object at `obj` in target memory, read with its width
 * and zero-extended: 0, or EREAD (and *out 0); ENOTFOUND when the layout
 * has no such field. */
JU_HIDDEN int ju_py_fetch(const struct jitunwind_memory *mem, const struct ju_py_layout *L,
                          uint64_t obj, enum ju_py_field_id id, uint64_t *out);

/* Check every field of L against its width, the size of the object that
 * holds it, and the decoder's copy of that object: 0, or ECORRUPT with a
 * message naming the first field that does not fit ("PyCodeObject.
 * co_qualname (offset 508, 8 bytes) ends past ..."). */
JU_HIDDEN int ju_py_layout_check(const struct ju_py_layout *L, char *why, size_t size);

/* The same for fields [first, end) of the table: what ju_py_layout_check
 * (the main fields) and ju_py_jit_layout_check (the JIT view's) run. */
JU_HIDDEN int ju_py_fields_check(const struct ju_py_layout *L, enum ju_py_field_id first,
                                 enum ju_py_field_id end, char *why, size_t size);

/* Turn every JU_PY_FROM_DWARF left in L (main and JIT fields) into
 * JU_PY_NONE (a vm_data flag also gets width 0). Returns how many there
 * were; the first main and the first JIT one are named, holder and layout
 * field ("_PyExecutorObject.ex_jit_code"), in main_missing and jit_missing
 * (size bytes each; empty when none). A JIT field left makes the JIT view
 * unknown (L->jit.known 0). */
JU_HIDDEN int ju_py_layout_settle(struct ju_py_layout *L, char *main_missing,
                                  char *jit_missing, size_t size);

/* The check of L->jit (jit_layout.c): its fields as above, the strides the
 * view steps by present, vm_data's flags inside their 32-bit word. 0 (also
 * for a layout without a JIT view), or ECORRUPT and the first failure. */
JU_HIDDEN int ju_py_jit_layout_check(const struct ju_py_layout *L, char *why, size_t size);

/* The one DWARF lookup of the layouts (frame, JIT view, values;
 * dwarf_lookup.c): the first of `paths` ('|' between alternatives) that
 * `type` has, as a byte offset (a bit offset when `bits`), or sizeof(type)
 * when paths is NULL: 0, or ENOTFOUND. */
JU_HIDDEN int ju_py_dwarf_lookup(jitunwind_dwarf_types *types, const char *type,
                                 const char *paths, int bits, uint64_t *value);

/* The layout for a PY_VERSION_HEX of a GIL (0) or free-threaded (1) build
 * on `arch` (enum jitunwind_arch), or NULL (from the version table,
 * versions.c). */
JU_HIDDEN const struct ju_py_layout *ju_py_layout_for_build(uint32_t version_hex,
                                                            int free_threaded, int arch);
/* The same for a GIL build. */
JU_HIDDEN const struct ju_py_layout *ju_py_layout_for(uint32_t version_hex, int arch);
/* The newest table of a GIL (0) or free-threaded (1) build (the same on
 * every architecture). */
JU_HIDDEN const struct ju_py_layout *ju_py_layout_newest(int free_threaded);

#endif
