/* Mixed backtraces: native frames and Python frames interleaved.
 *
 * Each native activation of the eval loop runs a contiguous group of Python
 * frames (up to and including one flagged JITUNWIND_PYFRAME_ENTRY). Walking
 * both stacks from the innermost end, the k-th eval-loop frame gets the k-th
 * group. The Python frames of a group are placed right after their eval-loop
 * frame, innermost first. Groups left over (native frames that could not be
 * unwound) are placed at the end, unanchored, so nothing is silently lost. */
#ifndef JITUNWIND_MIXED_H
#define JITUNWIND_MIXED_H

#include <stddef.h>
#include <stdint.h>

#include "jitunwind/export.h"
#include "jitunwind/python.h"

#ifdef __cplusplus
extern "C" {
#endif

enum jitunwind_native_role {
    JITUNWIND_ROLE_OTHER = 0,
    JITUNWIND_ROLE_EVAL = 1,       /* an eval-loop activation (runs a group of Python frames) */
    JITUNWIND_ROLE_JIT = 2,        /* JIT code */
    JITUNWIND_ROLE_TRAMPOLINE = 3  /* a perf-style trampoline */
};

/* The role of a native frame from its function's symbol name (NULL ok):
 * "_PyEval_EvalFrameDefault" and the parts a compiler split off or cloned
 * from it ("_PyEval_EvalFrameDefault.cold", ".part.N", ".constprop.N",
 * ".isra.N", ".lto_priv.N", chained) are EVAL; "py::..." names are
 * TRAMPOLINE. By address: jitunwind_pyreader_in_eval_loop. */
JITUNWIND_API int jitunwind_native_role_from_symbol(const char *symbol);

enum jitunwind_mixed_kind {
    JITUNWIND_MIXED_NATIVE = 1,
    JITUNWIND_MIXED_PYTHON = 2
};

#define JITUNWIND_MIXED_NO_ANCHOR UINT32_MAX

/* Item flags. LINE_MAY_LAG: the innermost Python frame of an eval loop that
 * called straight into JIT code (the JIT frame is the eval frame's direct
 * callee): JIT code updates the frame's instruction pointer only at some
 * points, so its line may be behind. */
#define JITUNWIND_MIXED_LINE_MAY_LAG (1u << 0)

struct jitunwind_mixed_item {
    uint32_t kind;   /* enum jitunwind_mixed_kind */
    uint32_t index;  /* index into the native or the Python array */
    uint32_t anchor; /* PYTHON: index of its eval-loop native frame, or NO_ANCHOR */
    uint32_t flags;  /* JITUNWIND_MIXED_* */
};

/* Interleave. `roles[i]` is the role of native frame i (innermost first).
 * Writes at most `max` items; returns 0, or ELIMIT when `max` was too small
 * (the items written are a valid prefix). */
JITUNWIND_API int jitunwind_mix(const uint32_t *roles, size_t n_native,
                                const struct jitunwind_py_frame *py, size_t n_py,
                                struct jitunwind_mixed_item *out, size_t max,
                                size_t *count);

#ifdef __cplusplus
}
#endif

#endif
