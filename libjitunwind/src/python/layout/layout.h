/* The version-independent view of CPython's data structures.
 *
 * Every offset, size and encoding the decoders need is a field here; each
 * supported CPython version is one table (layout_table.c), its fields
 * described by the rows of fields.h. Decoders never
 * test the version themselves. An offset of JU_PY_NONE means "this version
 * has no such field". */
#ifndef JITUNWIND_PY_LAYOUT_H
#define JITUNWIND_PY_LAYOUT_H

#include <stdint.h>

#include "internal.h"
#include "python/layout/fields.h"

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
    uint32_t ts_prev;            /* the previous state's link (jitunwind_pyreader_threads_again) */
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

/* One table being checked: its fields are held to their rows, whatever
 * their source. */
struct ju_py_table_view {
    const char *name;            /* what messages begin with: "CPython 3.13" */
    const void *table;           /* struct ju_py_layout (frames, JIT view) or
                                  * struct ju_py_value_layout (values) */
    const uint32_t *holder_size; /* [JU_PYH_COUNT]: sizeof each holder, 0: unknown */
    uint32_t header;             /* bytes before an object's fields in this table
                                  * (the object header for values; 0: absolute) */
    const uint8_t *source;       /* JU_PY_SRC_* bits per field of the part, or NULL */
};

/* Where a field's value came from (struct ju_py_table_view.source). */
enum {
    JU_PY_SRC_TABLE = 1, JU_PY_SRC_DEBUG_OFFSETS = 2, JU_PY_SRC_DWARF = 4,
    JU_PY_SRC_IN_HEADER = 8 /* the target gave an offset inside the object header */
};

/* One table being merged from its sources (merge.h), whichever part it
 * is: where its rows' slots are, and what a source's offset is counted
 * from there. */
struct ju_py_table_build {
    void *table;     /* the struct its part's rows' slots are in */
    uint32_t header; /* bytes before an object's fields in this table (the object header
                      * for values); 0: offsets from the object's start */
    uint8_t *source; /* JU_PY_SRC_* bits per field of the part, or NULL: not kept */
};

/* Set field `id` of t from `offset`, counted from its holder's start as a
 * source gives it, and add `source` (JU_PY_SRC_*) to its bits. An offset
 * inside the object header leaves the field 0 and marks it
 * JU_PY_SRC_IN_HEADER, which the check refuses by name; one past any
 * plausible struct is kept as JU_PY_MAX_STRUCT, which the check refuses
 * too. */
JU_HIDDEN void ju_py_table_set(const struct ju_py_table_build *t, enum ju_py_field_id id,
                               uint64_t offset, int source);

/* The one check (layout_fields.c; CPython's debug_offsets_validation.h is
 * the model): every field of `part` present in t, loaded with its width,
 * inside the struct that holds it as far as its size is known, inside the
 * decoder's copy of that struct, and below any plausible struct size. 0,
 * or ECORRUPT with a message naming the first field that does not fit
 * ("CPython 3.13: PyCodeObject.co_qualname (offset 508, 8 bytes) ends past
 * ..."). */
JU_HIDDEN int ju_py_fields_check(const struct ju_py_table_view *t, enum ju_py_part part,
                                 char *why, size_t size);

/* ju_py_fields_check of L's frame fields. */
JU_HIDDEN int ju_py_layout_check(const struct ju_py_layout *L, char *why, size_t size);

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

/* What the build's DWARF gives for field f of any table, by its row: its
 * holder's size (SIZE_OF), a bit offset (BITS), else a byte offset, less
 * `base` (the bytes before the table's fields, the object header for
 * values). 0, or ENOTFOUND (also for a value not in [base, JU_PY_NONE)). */
JU_HIDDEN int ju_py_dwarf_field(jitunwind_dwarf_types *types, const struct ju_py_field_desc *f,
                                uint32_t base, uint64_t *value);

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
