/* Layout tables, one per supported CPython version and build kind (GIL or
 * free-threaded) and, where they differ, per architecture. x86-64 and
 * AArch64 are both LP64 and lay out these structs alike, except after a
 * glibc lock held by value (pthread_mutex_t is 40 bytes on x86-64, 48 on
 * AArch64): of the fields below, only 3.11's runtime GIL holder. That is
 * checked by tests/layout/test_layout_headers.py, which compiles the real
 * headers of every interpreter it finds for both architectures and compares
 * each table field with offsetof.
 *
 * 3.11: checked with `gdb ptype /o` against Debian's python3.11 3.11.2
 * (python3.11-dbg) and pyenv's 3.11.7. 3.12: pyenv's 3.12.1 (DWARF).
 * 3.13: pyenv's 3.13.0 (DWARF), equal to its _Py_DebugOffsets. 3.14: the
 * 3.14.7 headers, and a local 3.14.7 build end to end. Each is also
 * checked end to end by tests/unit/check_py_live.c, which decodes live
 * processes of those interpreters. 3.15, 3.16: not run against a real
 * build (none was available); see their tables. */
#include "python/layout/versions.h"

/* No JIT before 3.13. */
#define NO_EXECUTOR_ARRAY                                                               \
    .interp_executor_array = JU_PY_NONE, .interp_executor_count = JU_PY_NONE,            \
    .interp_cold_executor = JU_PY_NONE, .interp_cold_dynamic = JU_PY_NONE
#define NO_EXECUTORS                                                                    \
    NO_EXECUTOR_ARRAY, .interp_executor_list = JU_PY_NONE,                               \
    .interp_executor_deleted = JU_PY_NONE, .ex_size = JU_PY_NONE,                        \
    .ex_links_next = JU_PY_NONE, .ex_code = JU_PY_NONE, .ex_jit_size = JU_PY_NONE,       \
    .ex_jit_code = JU_PY_NONE

/* _PyExecutorObject of 3.13 and 3.14 (DWARF of pyenv's 3.13.0 and of a
 * 3.14.7 JIT build agree). x86-64 JIT code of both does not keep RBP (3.13
 * passes arguments in it, 3.14 stencils may use it as scratch), so the
 * caller is found by the fp-or-scan rule; AArch64 stencils keep x29 frame
 * records. The list heads are build-specific: DWARF gives them. */
#define EXECUTORS_3_13_TO_3_14                                                          \
    NO_EXECUTOR_ARRAY, .interp_executor_list = JU_PY_NONE,                               \
    .interp_executor_deleted = JU_PY_NONE,                                               \
    .ex_size = 144, .ex_links_next = 72, .ex_code = 88, .ex_jit_size = 104,              \
    .ex_jit_code = 112, .ex_rule_x86_64 = JITUNWIND_RULE_SCAN,                           \
    .ex_rule_aarch64 = JITUNWIND_RULE_FP_PRESERVING

/* The same behind the 16 bytes longer object header of free-threaded builds
 * (DWARF of a 3.14.7t build). */
#define EXECUTORS_3_13_TO_3_14_FREE_THREADED                                            \
    NO_EXECUTOR_ARRAY, .interp_executor_list = JU_PY_NONE,                               \
    .interp_executor_deleted = JU_PY_NONE,                                               \
    .ex_size = 160, .ex_links_next = 88, .ex_code = 104, .ex_jit_size = 120,             \
    .ex_jit_code = 128, .ex_rule_x86_64 = JITUNWIND_RULE_SCAN,                           \
    .ex_rule_aarch64 = JITUNWIND_RULE_FP_PRESERVING

/* JIT view: traces, exits and vm_data of 3.13 and 3.14 (`ptype /o` of
 * pyenv's 3.13.0 and of the 3.14.7 JIT builds; 3.13's StencilGroup
 * {emit, code_size, data_size} from its Tools/jit output, not checked
 * against a 3.13 JIT build: DWARF wins). 3.13: 14-bit opcodes, formats
 * target/exit/jump, byte-wide valid and linked; 3.14: 15-bit opcodes,
 * formats target/jump, bit-field flags, chain depth and warm, operand1. */
#define JIT_3_13(ob)                                                                    \
    {.known = 1, .opcode_bits = 14, .format_jump = 2, .format_exit = 1, .uop_size = 16,  \
     .uop_oparg = 2, .uop_target = 4, .uop_operand0 = 8, .uop_operand1 = JU_PY_NONE,     \
     .ex_trace = 24 + (ob), .ex_exit_count = 96 + (ob), .ex_code_size = 100 + (ob),      \
     .ex_side_entry = 120 + (ob), .ex_exits = 128 + (ob), .exit_size = 16,                \
     .exit_target = 0, .exit_executor = 8, .vm_opcode = 32 + (ob), .vm_oparg = 33 + (ob), \
     .vm_index = 36 + (ob), .vm_valid = {34 + (ob), 0, 8}, .vm_linked = {35 + (ob), 0, 8}, \
     .vm_chain_depth = {JU_PY_NONE, 0, 0}, .vm_warm = {JU_PY_NONE, 0, 0},                 \
     .stencil_size = 24, .stencil_code_size = 8}
#define JIT_3_14(ob)                                                                    \
    {.known = 1, .opcode_bits = 15, .format_jump = 1, .format_exit = 0xff, .uop_size = 24, \
     .uop_oparg = 2, .uop_target = 4, .uop_operand0 = 8, .uop_operand1 = 16,             \
     .ex_trace = 24 + (ob), .ex_exit_count = 96 + (ob), .ex_code_size = 100 + (ob),      \
     .ex_side_entry = 120 + (ob), .ex_exits = 128 + (ob), .exit_size = 16,                \
     .exit_target = 0, .exit_executor = 8, .vm_opcode = 32 + (ob), .vm_oparg = 33 + (ob), \
     .vm_index = 36 + (ob), .vm_valid = {34 + (ob), 0, 1}, .vm_linked = {34 + (ob), 1, 1}, \
     .vm_chain_depth = {34 + (ob), 2, 6}, .vm_warm = {35 + (ob), 0, 8},                   \
     .stencil_size = 40, .stencil_code_size = 8}

/* 3.15 and 3.16: executors in an array of pointers per interpreter
 * (executor_ptrs[0..executor_count), gh-144888), the deletion list through
 * vm_data.links.next, and two shared cold executors (cold_executor,
 * cold_dynamic_executor); no list of live executors. No JIT build of 3.15
 * was at hand, so every offset and size of these structs is left to the
 * build's DWARF (JU_PY_FROM_DWARF; without it the executors are known only
 * from the GDB JIT interface). What is fixed here follows the shape of
 * CPython's main-branch headers after gh-144888 (Include/internal/
 * pycore_optimizer.h, pycore_uop.h; Python/optimizer.c, Python/jit.c):
 * executor code starts with the first uop's stencil (one process-wide
 * shim, _PyJIT_Entry, replaced the per-executor one, and jit_side_entry is
 * gone: ex_side_entry NONE); _PyUOpInstruction keeps 3.14's 15-bit opcode
 * and target/jump formats; vm_data's valid and chain_depth are whole
 * bytes (offset from DWARF, bit 0, 8 wide), `linked` and `warm` are gone.
 * The shim keeps a frame pointer and stencils never write it (RBP, x29), so
 * executor code unwinds by the frame-pointer rule on both architectures;
 * on AArch64 the frame is the shim's whole 96 bytes (CPython's own CFI for
 * executors: CFA = x29 + 96, derived when CPython is built; the GDB JIT
 * interface's ranges carry each build's own value and are registered
 * first). */
#define EXECUTORS_3_15_TO_3_16                                                          \
    .interp_executor_list = JU_PY_NONE, .interp_executor_deleted = JU_PY_NONE,           \
    .interp_executor_array = JU_PY_FROM_DWARF,                                           \
    .interp_executor_count = JU_PY_FROM_DWARF,                                           \
    .interp_cold_executor = JU_PY_NONE, .interp_cold_dynamic = JU_PY_NONE,               \
    .ex_size = JU_PY_FROM_DWARF, .ex_links_next = JU_PY_FROM_DWARF,                      \
    .ex_code = JU_PY_FROM_DWARF, .ex_jit_size = JU_PY_FROM_DWARF,                        \
    .ex_jit_code = JU_PY_FROM_DWARF, .cold_exits_symbol = NULL,                          \
    .ex_rule_x86_64 = JITUNWIND_RULE_FP_PRESERVING,                                      \
    .ex_rule_aarch64 = JITUNWIND_RULE_FP_PRESERVING, .ex_frame_aarch64 = 96
#define DW JU_PY_FROM_DWARF /* shorthand for the 3.15+ JIT view below */
#define JIT_3_15_TO_3_16                                                                \
    {.known = 1, .opcode_bits = 15, .format_jump = 1, .format_exit = 0xff,               \
     .uop_size = DW, .uop_oparg = DW, .uop_target = DW, .uop_operand0 = DW,              \
     .uop_operand1 = DW, .ex_trace = DW, .ex_exit_count = DW, .ex_code_size = DW,        \
     .ex_side_entry = JU_PY_NONE, .ex_exits = DW, .exit_size = DW, .exit_target = DW,    \
     .exit_executor = DW, .vm_opcode = DW, .vm_oparg = DW, .vm_index = DW,               \
     .vm_valid = {DW, 0, 8}, .vm_linked = {JU_PY_NONE, 0, 0},                           \
     .vm_chain_depth = {DW, 0, 8}, .vm_warm = {JU_PY_NONE, 0, 0}, .stencil_size = DW,     \
     .stencil_code_size = DW}

/* 3.11 but for the runtime's GIL holder (gilstate.tstate_current, after
 * ceval.gil and its two mutexes and two condition variables). */
#define PY311_ALL_ARCHITECTURES                                                         \
    .name = "CPython 3.11", .version = 0x030b0000, .rt_interpreters_head = 40,           \
    .rt_perf_code_arena = JU_PY_NONE /* no perf trampolines before 3.12 */,              \
    .interp_next = 0, .interp_id = 48, .interp_threads_head = 16,                        \
    .interp_gil_ptr = JU_PY_NONE, .gil_last_holder = JU_PY_NONE, .ts_next = 8,           \
    .ts_prev = 0,                                                                        \
    .ts_interp = 16, .ts_thread_id = 152, .ts_native_thread_id = 160,                    \
    .ts_current_frame = JU_PY_NONE, .ts_holds_gil = JU_PY_NONE, .ts_cframe = 56,         \
    .ts_last_profiled_frame = JU_PY_NONE, .ts_last_profiled_seq = JU_PY_NONE,            \
    .cframe_current_frame = 8, .fr_size = 72, .fr_code = 32, .fr_previous = 48,          \
    .fr_instr = 56, .fr_owner = 69, .fr_tlbc_index = JU_PY_NONE, .co_tlbc = JU_PY_NONE,  \
    .fr_is_entry = 68, .instr_is_previous = 1, .owner_generator = 1,                     \
    .owner_sentinel_min = 0, .code_tag_mask = 0, .co_size = 192, .co_filename = 112,     \
    .co_name = 120, .co_qualname = 128, .co_linetable = 136, .co_firstlineno = 72,       \
    .co_code_adaptive = 184, .ob_type = 8, .tp_name = 24, .bytes_size = 16,              \
    .bytes_sval = 32, .str_length = 16, .str_state = 32, .str_ascii_size = 48,           \
    .str_compact_size = 72, .str_legacy_data = 72, .st_kind_shift = 2,                   \
    .st_compact_bit = 5, .st_ascii_bit = 6, .st_ready_bit = 7, NO_EXECUTORS

const struct ju_py_layout ju_py_layout_311_x86_64 = {
    PY311_ALL_ARCHITECTURES,
    .rt_gil_holder = 576,
};

const struct ju_py_layout ju_py_layout_311_aarch64 = {
    PY311_ALL_ARCHITECTURES,
    .rt_gil_holder = 592,
};

/* Object headers, bytes and str (PyASCIIObject without wstr) of GIL builds,
 * unchanged from 3.12 to 3.15 (3.16: as in development). */
#define OBJECTS_3_12_TO_3_16                                                            \
    .ob_type = 8, .tp_name = 24, .bytes_size = 16, .bytes_sval = 32, .str_length = 16,  \
    .str_state = 32, .str_ascii_size = 40, .str_compact_size = 56, .str_legacy_data = 56, \
    .st_kind_shift = 2, .st_compact_bit = 5, .st_ascii_bit = 6, .st_ready_bit = 0xff

const struct ju_py_layout ju_py_layout_312 = {
    .name = "CPython 3.12",
    .version = 0x030c0000,
    .rt_interpreters_head = 40,
    .rt_gil_holder = JU_PY_NONE,    /* the GIL moved into the interpreter */
    .rt_perf_code_arena = 1960,     /* ceval (1944) + perf.code_arena (16) */
    .interp_next = 0,
    .interp_id = 8,
    .interp_threads_head = 72,
    .interp_gil_ptr = 384,          /* ceval.gil */
    .gil_last_holder = 8,
    .ts_next = 8, .ts_prev = 0,
    .ts_interp = 16,
    .ts_thread_id = 136,
    .ts_native_thread_id = 144,
    .ts_current_frame = JU_PY_NONE,
    .ts_holds_gil = JU_PY_NONE,
    .ts_cframe = 56,
    .ts_last_profiled_frame = JU_PY_NONE,
    .ts_last_profiled_seq = JU_PY_NONE,
    .cframe_current_frame = 0,
    .fr_size = 72,
    .fr_code = 0,
    .fr_previous = 8,
    .fr_instr = 56,
    .fr_owner = 70,
    .fr_tlbc_index = JU_PY_NONE,
    .co_tlbc = JU_PY_NONE,
    .fr_is_entry = JU_PY_NONE,
    .instr_is_previous = 1,
    .owner_generator = 1,
    .owner_sentinel_min = 3,        /* FRAME_OWNED_BY_CSTACK: the eval loop's entry frame */
    .code_tag_mask = 0,
    .co_size = 200,
    .co_filename = 112,
    .co_name = 120,
    .co_qualname = 128,
    .co_linetable = 136,
    .co_firstlineno = 68,
    .co_code_adaptive = 192,
    OBJECTS_3_12_TO_3_16,
    NO_EXECUTORS,
};

/* Thread states and frames as 3.13 and 3.14 lay them out (the debug
 * offsets replace the offsets; the semantics stay): a direct current_frame,
 * f_executable first, instr_ptr at the current instruction, owners >= 3
 * (FRAME_OWNED_BY_INTERPRETER/_CSTACK) close an eval-loop activation. */
#define THREAD_STATE_3_13_TO_3_14                                                       \
    .ts_next = 8, .ts_interp = 16, .ts_thread_id = 152, .ts_native_thread_id = 160,     \
    .ts_prev = 0,                                                                       \
    .ts_current_frame = 72, .ts_holds_gil = JU_PY_NONE, .ts_cframe = JU_PY_NONE,           \
    .ts_last_profiled_frame = JU_PY_NONE, .ts_last_profiled_seq = JU_PY_NONE,             \
    .cframe_current_frame = JU_PY_NONE
#define FRAMES_3_13_TO_3_14                                                             \
    .fr_code = 0, .fr_previous = 8, .fr_instr = 56, .fr_is_entry = JU_PY_NONE,           \
    .instr_is_previous = 0, .owner_generator = 1, .owner_sentinel_min = 3

/* Object headers, bytes and str of free-threaded builds: everything 16
 * bytes further than in GIL builds (the string state bits differ by version). */
#define OBJECTS_FREE_THREADED                                                           \
    .ob_type = 24, .tp_name = 40, .bytes_size = 32, .bytes_sval = 48, .str_length = 32, \
    .str_state = 48, .str_ascii_size = 56, .str_compact_size = 72, .str_legacy_data = 72

const struct ju_py_layout ju_py_layout_313 = {
    .name = "CPython 3.13",
    .version = 0x030d0000,
    .rt_interpreters_head = 632,
    .rt_gil_holder = JU_PY_NONE,
    .rt_perf_code_arena = 2576,
    .interp_next = 7264,
    .interp_id = 7272,
    .interp_threads_head = 7344,
    .interp_gil_ptr = 16,           /* ceval.gil */
    .gil_last_holder = 8,
    THREAD_STATE_3_13_TO_3_14,
    FRAMES_3_13_TO_3_14,
    .fr_size = 72,
    .fr_owner = 70,
    .fr_tlbc_index = JU_PY_NONE,
    .co_tlbc = JU_PY_NONE,
    .code_tag_mask = 0,
    .co_size = 208,
    .co_filename = 112,
    .co_name = 120,
    .co_qualname = 128,
    .co_linetable = 136,
    .co_firstlineno = 68,
    .co_code_adaptive = 200,
    OBJECTS_3_12_TO_3_16,
    EXECUTORS_3_13_TO_3_14,
    .cold_exits_symbol = "COLD_EXITS", /* Python/optimizer.c, tier-2 builds only */
    .jit = JIT_3_13(0),
};

/* 3.14: the base for what _Py_DebugOffsets do not describe (they are always
 * applied on top, see debug_offsets.c): _PyStackRef code pointers carry tag
 * bits, owners >= 3 (FRAME_OWNED_BY_INTERPRETER, _CSTACK) close an
 * activation, the trampoline arenas' location. The runtime, interpreter,
 * thread and frame offsets below (3.14.7's) are replaced by the target's
 * debug offsets. */
const struct ju_py_layout ju_py_layout_314 = {
    .name = "CPython 3.14",
    .version = 0x030e0000,
    .rt_interpreters_head = 808,
    .rt_gil_holder = JU_PY_NONE,
    .rt_perf_code_arena = 2760,     /* checked on a 3.14.7 x86-64 build (DWARF) */
    .interp_next = 7272,
    .interp_id = 7280,
    .interp_threads_head = 7344,
    .interp_gil_ptr = 16,
    .gil_last_holder = 8,
    THREAD_STATE_3_13_TO_3_14,
    FRAMES_3_13_TO_3_14,
    .fr_size = 80,
    .fr_owner = 74,
    .fr_tlbc_index = JU_PY_NONE,
    .co_tlbc = JU_PY_NONE,
    .code_tag_mask = 3,
    .co_size = 216,
    .co_filename = 112,
    .co_name = 120,
    .co_qualname = 128,
    .co_linetable = 136,
    .co_firstlineno = 68,
    .co_code_adaptive = 208,
    OBJECTS_3_12_TO_3_16,
    EXECUTORS_3_13_TO_3_14,
    .cold_exits_symbol = NULL,         /* exits start as NULL in 3.14 */
    .jit = JIT_3_14(0),
};

/* Free-threaded builds: a 32-byte object header (ob_tid, flags, mutex,
 * gc bits, local and shared refcounts, then ob_type at 24), so every object
 * field moves by 16; no GIL whose holder means anything (holds_gil is
 * unknown). Runtime, thread, frame and code offsets come from the target's
 * _Py_DebugOffsets; the values below are what they replace.
 *
 * 3.14t: checked with the DWARF of a local 3.14.7 --disable-gil build, and
 * end to end on it. Thread-local bytecode: instr_ptr points into
 * co_tlbc->entries[tlbc_index]; stack refs carry one tag bit; `interned`
 * is a whole byte, so kind/compact/ascii sit at bits 8, 11 and 12. */
const struct ju_py_layout ju_py_layout_314t = {
    .name = "CPython 3.14 (free-threaded)",
    .version = 0x030e0000,
    .free_threaded = 1,
    .rt_interpreters_head = 808,
    .rt_gil_holder = JU_PY_NONE,
    .rt_perf_code_arena = 2760,
    .interp_next = 7272,
    .interp_id = 7280,
    .interp_threads_head = 7344,
    .interp_gil_ptr = JU_PY_NONE,
    .gil_last_holder = JU_PY_NONE,
    THREAD_STATE_3_13_TO_3_14,
    FRAMES_3_13_TO_3_14,
    .fr_size = 80,
    .fr_owner = 78,
    .fr_tlbc_index = 72,
    .code_tag_mask = 1,
    .co_size = 240,
    .co_filename = 128,
    .co_name = 136,
    .co_qualname = 144,
    .co_linetable = 152,
    .co_firstlineno = 84,
    .co_code_adaptive = 232,
    .co_tlbc = 224,
    OBJECTS_FREE_THREADED,
    .st_kind_shift = 8,
    .st_compact_bit = 11,
    .st_ascii_bit = 12,
    .st_ready_bit = 0xff,
    EXECUTORS_3_13_TO_3_14_FREE_THREADED, /* no JIT with free threading in 3.14: lists stay empty */
    .cold_exits_symbol = NULL,
    .jit = JIT_3_14(16),
};

/* 3.13t: the object header as in 3.14t; no thread-local bytecode; the str
 * state bits as in GIL builds (`interned` became a byte only in 3.14t).
 * Not checked against a real 3.13t build: the debug offsets carry what
 * matters, and the trampoline arenas' place is left to DWARF. */
const struct ju_py_layout ju_py_layout_313t = {
    .name = "CPython 3.13 (free-threaded)",
    .version = 0x030d0000,
    .free_threaded = 1,
    .rt_interpreters_head = 632,
    .rt_gil_holder = JU_PY_NONE,
    .rt_perf_code_arena = JU_PY_NONE,
    .interp_next = 7264,
    .interp_id = 7272,
    .interp_threads_head = 7344,
    .interp_gil_ptr = JU_PY_NONE,
    .gil_last_holder = JU_PY_NONE,
    THREAD_STATE_3_13_TO_3_14,
    FRAMES_3_13_TO_3_14,
    .fr_size = 72,
    .fr_owner = 70,
    .fr_tlbc_index = JU_PY_NONE,
    .code_tag_mask = 0,
    .co_size = 224,
    .co_filename = 128,
    .co_name = 136,
    .co_qualname = 144,
    .co_linetable = 152,
    .co_firstlineno = 84,
    .co_code_adaptive = 216,
    .co_tlbc = JU_PY_NONE,
    OBJECTS_FREE_THREADED,
    .st_kind_shift = 2,
    .st_compact_bit = 5,
    .st_ascii_bit = 6,
    .st_ready_bit = 0xff,
    EXECUTORS_3_13_TO_3_14_FREE_THREADED,
    .cold_exits_symbol = "COLD_EXITS",
    .jit = JIT_3_13(16),
};

/* 3.15 and 3.16 (in development): 3.14's semantics (stack refs tagged
 * with up to 3 bits in both builds, owners >= 3 close an activation, the
 * location table and str encodings unchanged); thread states gained
 * base_frame, last_profiled_frame(_seq) after current_frame, and a per-
 * thread holds_gil that says who holds the GIL better than the GIL's
 * last holder does. The offsets below are placeholders that the target's
 * _Py_DebugOffsets always replace (their field list: debug_offsets.c).
 * JIT executors: see EXECUTORS_3_15_TO_3_16; the trampoline arenas' place
 * is left to DWARF. */
#define SEMANTICS_3_15_TO_3_16                                                          \
    .rt_interpreters_head = 936, .rt_gil_holder = JU_PY_NONE,                            \
    .rt_perf_code_arena = JU_PY_NONE, .interp_next = 7264, .interp_id = 7272,            \
    .interp_threads_head = 7336, .ts_next = 8, .ts_interp = 16, .ts_thread_id = 176,     \
    .ts_prev = 0,                                                                        \
    .ts_native_thread_id = 184, .ts_current_frame = 72, .ts_cframe = JU_PY_NONE,        \
    .ts_last_profiled_frame = 88, .ts_last_profiled_seq = 96,                            \
    .cframe_current_frame = JU_PY_NONE, FRAMES_3_13_TO_3_14, .fr_size = 88,              \
    .code_tag_mask = 3, EXECUTORS_3_15_TO_3_16, .jit = JIT_3_15_TO_3_16
#define GIL_3_15_TO_3_16                                                                \
    .interp_gil_ptr = 16, .gil_last_holder = 8, .ts_holds_gil = 36, .fr_owner = 74,     \
    .fr_tlbc_index = JU_PY_NONE, .co_size = 216, .co_filename = 112, .co_name = 120,     \
    .co_qualname = 128, .co_linetable = 136, .co_firstlineno = 68,                       \
    .co_code_adaptive = 208, .co_tlbc = JU_PY_NONE, OBJECTS_3_12_TO_3_16
/* As 3.14t: the 32-byte object header, thread-local bytecode, `interned`
 * a whole byte in the str state. */
#define FREE_THREADED_3_15_TO_3_16                                                      \
    .free_threaded = 1, .interp_gil_ptr = JU_PY_NONE, .gil_last_holder = JU_PY_NONE,     \
    .ts_holds_gil = JU_PY_NONE, .fr_owner = 78, .fr_tlbc_index = 72, .co_size = 240,     \
    .co_filename = 128, .co_name = 136, .co_qualname = 144, .co_linetable = 152,         \
    .co_firstlineno = 84, .co_code_adaptive = 232, .co_tlbc = 224, OBJECTS_FREE_THREADED, \
    .st_kind_shift = 8, .st_compact_bit = 11, .st_ascii_bit = 12, .st_ready_bit = 0xff

const struct ju_py_layout ju_py_layout_315 = {
    .name = "CPython 3.15",
    .version = 0x030f0000,
    SEMANTICS_3_15_TO_3_16,
    GIL_3_15_TO_3_16,
};

const struct ju_py_layout ju_py_layout_315t = {
    .name = "CPython 3.15 (free-threaded)",
    .version = 0x030f0000,
    SEMANTICS_3_15_TO_3_16,
    FREE_THREADED_3_15_TO_3_16,
};

const struct ju_py_layout ju_py_layout_316 = {
    .name = "CPython 3.16",
    .version = 0x03100000,
    SEMANTICS_3_15_TO_3_16,
    GIL_3_15_TO_3_16,
};

const struct ju_py_layout ju_py_layout_316t = {
    .name = "CPython 3.16 (free-threaded)",
    .version = 0x03100000,
    SEMANTICS_3_15_TO_3_16,
    FREE_THREADED_3_15_TO_3_16,
};
