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

    /* JIT executors (3.13, 3.14): _PyExecutorObject, and where each
     * interpreter keeps its lists. The list offsets are build-specific (not
     * in _Py_DebugOffsets): NONE in the tables, found from DWARF. */
    uint32_t interp_executor_list;     /* executor_list_head */
    uint32_t interp_executor_deleted;  /* executor_deletion_list_head (3.14), or NONE */
    uint32_t ex_size;                  /* sizeof(_PyExecutorObject): the array stride */
    uint32_t ex_links_next;            /* vm_data.links.next */
    uint32_t ex_code;                  /* vm_data.code: the code object, or NULL */
    uint32_t ex_jit_size;
    uint32_t ex_jit_code;
    const char *cold_exits_symbol;     /* static array of executors (3.13), or NULL */
    uint8_t ex_rule_x86_64;            /* unwind rule of executor code (enum jitunwind_rule) */
    uint8_t ex_rule_aarch64;
};

/* The layout for a PY_VERSION_HEX of a GIL (0) or free-threaded (1) build
 * on `arch` (enum jitunwind_arch), or NULL. */
JU_HIDDEN const struct ju_py_layout *ju_py_layout_for_build(uint32_t version_hex,
                                                            int free_threaded, int arch);
/* The same for a GIL build. */
JU_HIDDEN const struct ju_py_layout *ju_py_layout_for(uint32_t version_hex, int arch);
/* The newest table of a GIL (0) or free-threaded (1) build (the same on
 * every architecture). */
JU_HIDDEN const struct ju_py_layout *ju_py_layout_newest(int free_threaded);

#endif
