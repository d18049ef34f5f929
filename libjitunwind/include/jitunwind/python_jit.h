/* CPython's JIT seen from the decoder (python.h): the executors of 3.13
 * and later, their machine-code ranges, and the developer view from a PC to
 * executor, uop, bytecode and line. Threads: each call with a pyreader is
 * a use of it, one thread at a time (jitunwind.h). */
#ifndef JITUNWIND_PYTHON_JIT_H
#define JITUNWIND_PYTHON_JIT_H

#include <stddef.h>
#include <stdint.h>

#include "jitunwind/python.h"
#include "jitunwind/registry.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --- JIT executors (3.13 and later; 3.15+ where DWARF describes them) --- */

#define JITUNWIND_PYEXEC_DELETED (1u << 0)   /* on the deletion list: invalid, still mapped */
#define JITUNWIND_PYEXEC_COLD_EXIT (1u << 1) /* one of 3.13's static cold-exit executors */
#define JITUNWIND_PYEXEC_NO_CODE (1u << 2)   /* no code object (cold exits, detached) */

struct jitunwind_py_executor {
    uint64_t address;  /* the _PyExecutorObject */
    uint64_t interp;   /* its interpreter (0 for cold exits, which are shared) */
    uint64_t jit_code; /* machine code: [jit_code, jit_code + jit_size); 0 if not compiled */
    uint64_t jit_size;
    uint64_t code;     /* the code object it was made for, or 0 */
    uint32_t flags;    /* JITUNWIND_PYEXEC_* (and JITUNWIND_PYFRAME_NAME_TRUNCATED) */
    int32_t first_line;
    char qualname[JITUNWIND_PY_NAME_MAX];
    char filename[JITUNWIND_PY_FILENAME_MAX];
};

#define JITUNWIND_PY_MAX_EXECUTORS 65536u

/* Every executor of every interpreter of READER's target into OUT: the
 * executor list, then the deletion list (3.14: invalidated executors whose
 * code may still be running), then 3.13's cold exits. At most MAX (OUT may
 * be NULL when MAX is 0; ELIMIT when there are more); *COUNT gets the
 * number. Returns 0, EINVAL (READER or COUNT NULL), EUNSUPPORTED for
 * versions without executors (3.11, 3.12) and for 3.15+ when the
 * interpreter's DWARF does not describe them (they are then known only as
 * GDB JIT interface ranges: jit.h), ENOTFOUND when where this build keeps
 * them is unknown (no DWARF: open with jitunwind_pyreader_opts.module).
 * Lists are bounded and cycle-checked; a negative status leaves the
 * *COUNT executors before the problem valid. */
JITUNWIND_API int jitunwind_pyreader_executors(jitunwind_pyreader *reader,
                                               struct jitunwind_py_executor *out, size_t max,
                                               size_t *count);

/* Add to REGISTRY a range for the machine code of each compiled executor of
 * READER's target, for ARCH (enum jitunwind_arch): kind JIT, origin
 * INTERPRETER, cookie = the code object, name "py::jit:<qualname>
 * (<file>:<first line>)" (cold exits "py::jit:<cold exit>"), rule from the
 * version's layout (x86-64 3.13/3.14: SCAN towards [EVAL_START, EVAL_END), the
 * eval loop's code; (0, 0): the reader's own, the `main` one of
 * jitunwind_pyreader_eval_ranges). Ranges that overlap registered ones are
 * skipped. *ADDED (may be NULL) gets the count. EINVAL (READER or REGISTRY
 * NULL, an unknown ARCH); otherwise the statuses of
 * jitunwind_pyreader_executors, with the ranges added before a problem kept.
 * When the rule is SCAN and the eval loop's range is unknown (0, 0), those
 * ranges cannot be unwound and are not registered: the others are, and the
 * call returns ENOTFOUND with a message saying how many were left out and why.
 * Threads: READER and REGISTRY are in use. */
JITUNWIND_API int jitunwind_pyreader_executor_ranges(jitunwind_pyreader *reader,
                                                     jitunwind_registry *registry, int arch,
                                                     uint64_t eval_start, uint64_t eval_end,
                                                     size_t *added);
/* One line on the interpreter's own GDB JIT registrations that the last
 * jitunwind_pyreader_executor_ranges matched to executors, or "" (never
 * NULL): a name other than the one the version gives its executors' code
 * (3.15: "py::jit:executor"), or, on 3.16 (in development), that ranges
 * named "py::jit_entry:*" (CPython's main branch) were seen and that this
 * name is provisional. Valid until the next call with READER ("" for a
 * NULL READER). */
JITUNWIND_API const char *jitunwind_pyreader_executor_ranges_note(const jitunwind_pyreader *reader);


/* --- JIT developer view (3.13 and later): from a PC to executor, uop,
 * bytecode instruction and line --- *
 *
 * An executor's machine code is laid out as [shim][stencil of trace[0]] ...
 * [stencil of trace[n-1]][_FATAL_ERROR][3.14 AArch64: trampolines][data]:
 * the shim is jit_side_entry - jit_code bytes (3.15+ executors have no
 * shim of their own: jit_side_entry == jit_code, shim_size 0), each stencil
 * stencil_groups[opcode].code_size (a static table of the interpreter,
 * found by symbol), uop names are _PyOpcode_uop_name[opcode]. The trace,
 * exits and vm_data are read with the version's layout, checked against
 * the interpreter's DWARF. Where a piece is missing (no symbols, unknown
 * layout, sizes that do not add up to the executor's code), the calls
 * still return what they could and `missing` says in one line what was
 * missing; nothing is guessed. */

#define JITUNWIND_PY_UOP_NAME_MAX 48
#define JITUNWIND_PY_MAX_UOPS 4096u  /* trace entries and exits read per executor */
#define JITUNWIND_PY_MISSING_MAX 160

/* How a uop's bytecode target was found. */
enum jitunwind_uop_target_source {
    JITUNWIND_UOP_TARGET_NONE = 0,     /* unknown: target is -1 */
    JITUNWIND_UOP_TARGET_OWN = 1,      /* its own target field */
    JITUNWIND_UOP_TARGET_ERROR = 2,    /* its error stub's (_ERROR_POP_N's operand) */
    JITUNWIND_UOP_TARGET_EXIT = 3,     /* its exit's (side-exit or deopt stub, 3.13 exits[]) */
    JITUNWIND_UOP_TARGET_PREVIOUS = 4  /* the uop before it (it has no target of its own) */
};

struct jitunwind_py_uop {
    uint32_t index;       /* in the trace */
    uint16_t opcode;
    uint16_t oparg;
    uint8_t format;       /* the uop's format bits as stored */
    uint8_t target_source;/* enum jitunwind_uop_target_source */
    uint16_t depth;       /* frames the trace pushed before it (0: the executor's code object) */
    uint32_t raw_target;  /* the target word as stored */
    int32_t target;       /* bytecode offset in code units, or -1 */
    int32_t line;         /* its line, or -1 (unknown, or in a callee's code: depth > 0) */
    int32_t code_offset;  /* its stencil's offset from jit_code, or -1 */
    uint32_t code_size;   /* its stencil's size (0 when unknown) */
    uint64_t operand0;
    uint64_t operand1;
    char name[JITUNWIND_PY_UOP_NAME_MAX]; /* "_CALL_BUILTIN_FAST", or "uop 371" */
};

struct jitunwind_py_jit_exit {
    uint32_t index;
    int32_t target;     /* bytecode offset in code units it leaves to */
    int32_t line;       /* that instruction's line in the executor's code, or -1 */
    uint32_t reserved;
    uint64_t executor;  /* the executor it is linked to; 0: none yet (cold) */
};

struct jitunwind_py_executor_detail {
    struct jitunwind_py_executor ex; /* as jitunwind_pyreader_executors lists it */
    uint64_t trace;
    uint64_t jit_side_entry;
    uint32_t uop_count;      /* code_size: trace entries */
    uint32_t exit_count;
    uint32_t shim_size;      /* jit_side_entry - jit_code */
    int32_t fatal_offset;    /* _FATAL_ERROR's stencil, from jit_code; -1 unknown */
    uint32_t fatal_size;
    int32_t enter_index;     /* vm_data.index: the ENTER_EXECUTOR instruction (code units) */
    int32_t enter_line;      /* its line, or -1 */
    int8_t valid, linked, warm, chain_depth; /* -1 where the version has no such field */
    uint8_t vm_opcode, vm_oparg;
    uint8_t have_stencils;   /* stencil offsets are known (and add up) */
    uint8_t have_names;
    char missing[JITUNWIND_PY_MISSING_MAX]; /* "" when everything was found */
};

/* The executor at EXECUTOR (which must be on one of the interpreter's
 * lists: anything else is ENOTFOUND) into *OUT, with its header, vm_data
 * and the layout of its code; where a piece is missing, 0 with
 * OUT->missing saying what. EINVAL (READER or OUT NULL, EXECUTOR 0), or
 * the statuses of jitunwind_pyreader_executors. */
JITUNWIND_API int jitunwind_pyreader_executor_detail(jitunwind_pyreader *reader,
                                                     uint64_t executor,
                                                     struct jitunwind_py_executor_detail *out);

/* EXECUTOR's trace into OUT, a uop per entry, at most MAX (and
 * JITUNWIND_PY_MAX_UOPS; OUT may be NULL when MAX is 0; ELIMIT when the
 * trace is longer). Lines are computed in CODE (a code object whose frame
 * runs the trace: every uop's line is computed in it), or with 0 in the
 * executor's own, for uops at depth 0 only. DETAIL (may be NULL) gets the
 * executor's detail with the stencil layout filled in (fatal_offset,
 * have_stencils). Returns 0, EINVAL (READER or COUNT NULL), or a negative
 * status with the *COUNT uops read before the problem still valid. */
JITUNWIND_API int jitunwind_pyreader_executor_trace(jitunwind_pyreader *reader,
                                                    uint64_t executor, uint64_t code,
                                                    struct jitunwind_py_uop *out, size_t max,
                                                    size_t *count,
                                                    struct jitunwind_py_executor_detail *detail);

/* The detail of every executor into OUT (at most MAX; OUT may be NULL
 * when MAX is 0), in jitunwind_pyreader_executors' order, with one walk
 * over the lists (not one per executor); *COUNT gets the number. Returns
 * 0, EINVAL (READER or COUNT NULL), ENOMEM, or the statuses of
 * jitunwind_pyreader_executors with the *COUNT details before the problem
 * valid. */
JITUNWIND_API int jitunwind_pyreader_executor_details(jitunwind_pyreader *reader,
                                                      struct jitunwind_py_executor_detail *out,
                                                      size_t max, size_t *count);

/* The exits of the executor whose detail D was read (no walk) into OUT
 * (at most MAX; OUT may be NULL when MAX is 0; ELIMIT when it has more);
 * *COUNT gets the number. Returns 0, EINVAL (READER, D or COUNT NULL),
 * EUNSUPPORTED (the exits' layout is unknown), or EREAD with the *COUNT
 * exits before it valid. */
JITUNWIND_API int jitunwind_pyreader_detail_exits(jitunwind_pyreader *reader,
                                                  const struct jitunwind_py_executor_detail *d,
                                                  struct jitunwind_py_jit_exit *out, size_t max,
                                                  size_t *count);

/* The exits of EXECUTOR in READER's target into OUT (at most MAX; OUT may
 * be NULL when MAX is 0) and *COUNT, as jitunwind_pyreader_executor_detail
 * then jitunwind_pyreader_detail_exits give them: target, line and the
 * executor each is linked to. Returns 0, EINVAL (READER or COUNT NULL, OUT
 * NULL with MAX > 0), or the statuses of those two calls, with the *COUNT
 * exits read before the problem valid. */
JITUNWIND_API int jitunwind_pyreader_executor_exits(jitunwind_pyreader *reader,
                                                    uint64_t executor,
                                                    struct jitunwind_py_jit_exit *out,
                                                    size_t max, size_t *count);

enum jitunwind_jit_region {
    JITUNWIND_JIT_REGION_UNKNOWN = 0, /* in the executor, but its layout is not known */
    JITUNWIND_JIT_REGION_SHIM = 1,    /* [jit_code, jit_side_entry) */
    JITUNWIND_JIT_REGION_UOP = 2,     /* a uop's stencil */
    JITUNWIND_JIT_REGION_FATAL = 3,   /* _FATAL_ERROR after the last stencil */
    JITUNWIND_JIT_REGION_TAIL = 4     /* past it: trampolines (3.14 AArch64) and data */
};

struct jitunwind_py_jit_pc {
    uint64_t pc;
    uint64_t executor;
    uint64_t jit_code;
    uint32_t offset;      /* pc - jit_code */
    uint32_t region;      /* enum jitunwind_jit_region */
    uint32_t uop_count;
    uint32_t reserved;
    struct jitunwind_py_uop uop; /* REGION_UOP: the uop whose stencil holds pc */
    struct jitunwind_py_executor ex;
    char missing[JITUNWIND_PY_MISSING_MAX];
};

/* Which executor, region and uop hold PC, into *OUT (a return address is
 * looked up as pc - 1 by the caller's choice: pass the address to look
 * up). CODE: the code object the line is computed in (the innermost Python
 * frame's, which is the code running at PC); 0: the executor's own.
 * Returns 0 with what was found and OUT->missing saying what was not;
 * EINVAL (READER or OUT NULL); ENOTFOUND when no executor's code holds
 * PC; or the statuses of jitunwind_pyreader_executors. Each call walks the
 * executor lists once (docs/architecture.md says why there is no index). */
JITUNWIND_API int jitunwind_pyreader_jit_pc(jitunwind_pyreader *reader, uint64_t pc,
                                            uint64_t code, struct jitunwind_py_jit_pc *out);

/* WHERE's region as "[uop 17/42 _CALL_BUILTIN_FAST]", "[shim]",
 * "[_FATAL_ERROR]", "[past _FATAL_ERROR: trampolines/data]", or "" when the
 * region is unknown, into BUF (SIZE bytes, NUL-terminated). Returns
 * snprintf's count, or EINVAL (WHERE or BUF NULL, SIZE 0). No handle, no
 * target reads. */
JITUNWIND_API int jitunwind_py_jit_pc_label(const struct jitunwind_py_jit_pc *where, char *buf,
                                            size_t size);

/* The name a JIT frame at WHERE is shown by, into BUF (SIZE bytes,
 * NUL-terminated): "py::jit:hot [uop 17/42 _CALL_BUILTIN_FAST]
 * (app.py:12)", the executor's qualified name (or "<executor 0x...>"), the
 * label above, and the line of the uop that holds pc (no line when that uop
 * has none); outside the uops, the executor's first line. Text the target
 * controls is copied as it is (escape it before a terminal sees it).
 * Returns snprintf's count, or EINVAL (WHERE or BUF NULL, SIZE 0). */
JITUNWIND_API int jitunwind_py_jit_frame_name(const struct jitunwind_py_jit_pc *where, char *buf,
                                              size_t size);

#ifdef __cplusplus
}
#endif

#endif
