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
#include "jitunwind/registry.h"

#ifdef __cplusplus
extern "C" {
#endif

enum jitunwind_native_role {
    JITUNWIND_ROLE_OTHER = 0,
    JITUNWIND_ROLE_EVAL = 1,       /* an eval-loop activation (runs a group of Python frames) */
    JITUNWIND_ROLE_JIT = 2,        /* JIT code */
    JITUNWIND_ROLE_TRAMPOLINE = 3  /* a perf-style trampoline */
};

/* Returns the role (enum jitunwind_native_role) of a native frame from its
 * function's name SYMBOL (NULL: OTHER):
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

/* Interleave N_NATIVE native frames, whose roles are ROLES[i] (innermost
 * first), with the N_PY Python frames at PY (innermost first): into OUT at
 * most MAX items, *COUNT the number written. ROLES, PY and OUT may be NULL
 * when their count is 0. Returns 0, or ELIMIT when MAX was too small (the
 * items written are a valid prefix), EINVAL (COUNT NULL, a NULL array
 * with a count, N_NATIVE over UINT32_MAX - 1, N_PY over UINT32_MAX). No
 * handle, no allocation. */
JITUNWIND_API int jitunwind_mix(const uint32_t *roles, size_t n_native,
                                const struct jitunwind_py_frame *py, size_t n_py,
                                struct jitunwind_mixed_item *out, size_t max,
                                size_t *count);

/* --- Incremental mixer: roles, groups, flags and exact lines, frame by frame ---
 *
 * The whole mixed-stack policy for a consumer that unwinds native frames
 * (all at once, or in batches as a debugger pulls them): each native frame
 * fed gets its role (a registered range: JIT or trampoline; else EVAL when
 * its lookup address lies in the eval loop the reader found or its symbol
 * names it; else OTHER), each eval-loop frame its group of Python frames as
 * jitunwind_mix places them, the frame an eval loop runs straight into JIT
 * code JITUNWIND_PYFRAME_IN_JIT | JITUNWIND_PYFRAME_LINE_MAY_LAG, and that
 * frame its exact line from the uop at the innermost JIT frame above the
 * eval loop (jitunwind_pyreader_jit_pc in its code object; LINE_MAY_LAG is
 * then cleared, IN_JIT kept: its values may still be stale).
 *
 * A mixer serves one stack of one thread. It is not thread-safe; distinct
 * mixers may be used from distinct threads when their reader and registry
 * are not used elsewhere meanwhile. */

typedef struct jitunwind_mixer jitunwind_mixer;

/* Mixer flags. HIDE_INTERPRETER: keep what jitunwind_mixer_hidden answers
 * (one byte per native frame fed). */
#define JITUNWIND_MIXER_HIDE_INTERPRETER (1u << 0)

struct jitunwind_mixer_options {
    size_t size;                        /* sizeof(struct jitunwind_mixer_options), checked as
                                         * jitunwind_memory's */
    uint32_t arch;                      /* enum jitunwind_arch of the pcs; 0: unknown */
    uint32_t flags;                     /* JITUNWIND_MIXER_* */
    const jitunwind_registry *registry; /* the target's ranges; may be NULL */
    jitunwind_pyreader *reader;         /* eval loop by address, exact lines; may be NULL */
};

/* Native frame flags. INLINED: a call inlined into the next frame fed (it
 * has that frame's pc; the innermost concrete frame's pc is the only one
 * not a return address). INTERPRETER: the frame's code is in the
 * interpreter's own module (may be hidden). ROLE_GIVEN: `role` is taken as
 * set by the caller instead of classified. NOT_INNERMOST: the first frame
 * fed to a new mixer is a caller (a stack continued by another mixer). */
#define JITUNWIND_MIXER_INLINED (1u << 0)
#define JITUNWIND_MIXER_INTERPRETER (1u << 1)
#define JITUNWIND_MIXER_ROLE_GIVEN (1u << 2)
#define JITUNWIND_MIXER_NOT_INNERMOST (1u << 3)

struct jitunwind_mixer_native {
    uint64_t pc;        /* as unwound */
    const char *symbol; /* its function's name, or NULL; read only during the call */
    uint32_t flags;     /* JITUNWIND_MIXER_INLINED, _INTERPRETER, _ROLE_GIVEN, _NOT_INNERMOST */
    uint32_t role;      /* set by jitunwind_mixer_feed: enum jitunwind_native_role */
    uint64_t address;   /* set by jitunwind_mixer_feed: where its code is looked up
                         * (jitunwind_lookup_address: a return address moved back) */
};

/* A new mixer in *OUT with OPTIONS (copied; its size must be at least up
 * to `flags`): 0, or EINVAL (OUT or OPTIONS NULL, a size refused), ENOMEM;
 * on failure *OUT is NULL (status.h's constructor contract). The registry
 * and the reader must outlive the mixer and not change while it is used.
 * Free it with jitunwind_mixer_free. */
JITUNWIND_API int jitunwind_mixer_new(const struct jitunwind_mixer_options *options,
                                      jitunwind_mixer **out);
/* Free MIXER (NULL is ignored); the Python frames it was given stay the
 * caller's. */
JITUNWIND_API void jitunwind_mixer_free(jitunwind_mixer *mixer);

/* Give MIXER the thread's Python frames, innermost first (N_PY of them at
 * PY).
 * The array is borrowed, not copied: it must stay valid until the mixer is
 * freed, and the mixer updates the `line` and `flags` of the frames that
 * run JIT code in place. Called once, before feeding or when
 * jitunwind_mixer_feed returns JITUNWIND_MIXER_WANTS_PYTHON; a thread
 * without Python frames is given none (N_PY 0). Returns 0, or EINVAL (a
 * second call, NULL with N_PY > 0, N_PY over UINT32_MAX). */
JITUNWIND_API int jitunwind_mixer_python(jitunwind_mixer *mixer, struct jitunwind_py_frame *py,
                                         size_t n_py);

/* jitunwind_mixer_feed's return when it meets an eval-loop frame before
 * the Python frames were given. */
#define JITUNWIND_MIXER_WANTS_PYTHON 1

/* Feed MIXER the next N native frames (NATIVES, innermost first; NULL when N
 * is 0; their `role` and `address` are set). Writes the items of those frames
 * to OUT (at most MAX; COUNT), as jitunwind_mix does, with native indexes and
 * anchors counted over every frame fed to this mixer; *FED says how many of
 * NATIVES were taken. Returns 0 when all were; JITUNWIND_MIXER_WANTS_PYTHON
 * when it stopped at the first eval-loop frame because the Python frames were
 * not given (give them, then feed NATIVES + *FED on: a consumer reads them
 * only for a stack that has an eval loop); ELIMIT when OUT had no room for the
 * next frame and its group (N + the Python frames not yet placed is always
 * enough; also past UINT32_MAX - 1 frames fed); ENOMEM (the
 * HIDE_INTERPRETER marks); EINVAL (MIXER, FED or COUNT NULL, NATIVES or OUT
 * NULL with a count). On every return the items written and the frames
 * taken agree, so feeding may go on. Threads: MIXER's registry and reader
 * are in use during the call. */
JITUNWIND_API int jitunwind_mixer_feed(jitunwind_mixer *mixer,
                                       struct jitunwind_mixer_native *natives, size_t n,
                                       size_t *fed, struct jitunwind_mixed_item *out, size_t max,
                                       size_t *count);

/* Returns where the Python frames begin that no native frame fed to MIXER
 * so far runs: the index of the first of them (they run to the end of the
 * array given); the number given when every one is placed, 0 before they
 * are given (and for a NULL MIXER). */
JITUNWIND_API size_t jitunwind_mixer_next_python(const jitunwind_mixer *mixer);

/* Returns 1 when native frame INDEX (counted over every frame fed) is
 * hidden: an OTHER frame flagged INTERPRETER between the innermost and the
 * outermost eval-loop frame fed to MIXER so far (the interpreter's calls and
 * vectorcalls; the Python frames say the same); else 0 (also without
 * JITUNWIND_MIXER_HIDE_INTERPRETER, and for a NULL MIXER). */
JITUNWIND_API int jitunwind_mixer_hidden(const jitunwind_mixer *mixer, size_t index);

#ifdef __cplusplus
}
#endif

#endif
