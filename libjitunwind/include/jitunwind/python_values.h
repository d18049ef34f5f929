/* Python values read through the decoder (python.h): repr() of objects,
 * a frame's variables, name lookup as Python does it, and the GC state.
 * Threads: each call is a use of its pyreader, one thread at a time
 * (jitunwind.h). */
#ifndef JITUNWIND_PYTHON_VALUES_H
#define JITUNWIND_PYTHON_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include "jitunwind/python.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --- Values and frame variables (3.11-3.14) --- */

/* Limits of jitunwind_pyreader_repr; a 0 field takes the default. */
struct jitunwind_py_repr_options {
    size_t size;        /* sizeof(struct jitunwind_py_repr_options), checked as jitunwind_memory's */
    uint32_t max_depth; /* containers nested deeper show as [...], {...}: default 2
                         * (libpython style: 16) */
    uint32_t max_items; /* items shown per container, then "...": default 10 (1000) */
    uint32_t max_chars; /* characters of a str or bytes, digits of an int: default 200
                         * (1024) */
    uint32_t style;     /* JITUNWIND_PYREPR_STYLE_* bits; 0: as repr() */
};

/* Values as CPython's libpython.py shows them, so that output read by tools
 * made for libpython matches: builtin functions and methods as
 * `<built-in method NAME of TYPE object at remote 0x...>` whenever the
 * builtin has a `self` (a module too); an instance of a class defined in
 * Python with its attributes (its __dict__, inline values or managed dict,
 * and __slots__), `<Order(oid=1, items=['x']) at remote 0x...>`, itself
 * inside itself as `<...>`; libpython's limits by default (above), and the
 * whole text cut at 1,024 bytes and ended with "...(truncated)". */
#define JITUNWIND_PYREPR_STYLE_LIBPYTHON (1u << 0)

#define JITUNWIND_PYREPR_TRUNCATED (1u << 0)  /* a limit cut something ("..." marks where) */
#define JITUNWIND_PYREPR_UNREADABLE (1u << 1) /* some pointer could not be read */

/* Render the object at OBJECT as Python's repr() would, bounded, with
 * OPTIONS (NULL: every default): None,
 * bool, int, float, str, bytes, tuple, list, dict (combined and split
 * tables), set, frozenset, type, function, builtin function or method,
 * bound method, module, code, cell, Ellipsis, NotImplemented; any other
 * object (and subclasses of the builtins) as Python's default
 * `<module.Class object at 0x...>`. Cut parts end in "..."; a reference
 * cycle shows as Python shows it ([...], {...}); a pointer that cannot be
 * read as `<unreadable 0x...>`, with nothing read past a failed page. No
 * recursion, no allocation: the text goes to BUF (NUL-terminated, cut with
 * "..." at SIZE, which must be >= 32); strings are the target's text,
 * unescaped. *FLAGS (may be NULL) gets JITUNWIND_PYREPR_*. Returns 0,
 * EINVAL (READER or BUF NULL, SIZE < 32, OPTIONS refused by its size),
 * EUNSUPPORTED for versions whose objects are not described (3.15+), or
 * the status of a values layout that failed its check
 * (jitunwind_pyreader_values_report). docs/values.md lists what differs
 * from CPython's own repr. */
JITUNWIND_API int jitunwind_pyreader_repr(jitunwind_pyreader *reader, uint64_t object,
                                          const struct jitunwind_py_repr_options *options,
                                          char *buf, size_t size, uint32_t *flags);

/* Variable kinds and flags. */
#define JITUNWIND_PYVAR_ARG (1u << 0)      /* a parameter (incl. *args, **kwargs) */
#define JITUNWIND_PYVAR_LOCAL (1u << 1)
#define JITUNWIND_PYVAR_CELL (1u << 2)     /* captured by an inner function: read through its cell */
#define JITUNWIND_PYVAR_FREE (1u << 3)     /* from an enclosing function: read through its cell */
#define JITUNWIND_PYVAR_UNBOUND (1u << 8)  /* no value yet (or deleted): `value` is 0 */
#define JITUNWIND_PYVAR_MAY_BE_STALE (1u << 9) /* the frame runs JIT code: may lag */
#define JITUNWIND_PYVAR_NAME_TRUNCATED (1u << 10)

struct jitunwind_py_variable {
    uint64_t value;    /* the object (a cell's content for CELL/FREE), 0 when unbound */
    uint32_t flags;    /* JITUNWIND_PYVAR_* */
    uint32_t reserved;
    char name[JITUNWIND_PY_NAME_MAX];
};

#define JITUNWIND_PY_MAX_VARIABLES 65536u

/* The variables of FRAME (decoded by jitunwind_pyreader_frames), from its
 * localsplus and its code's co_localsplusnames/co_localspluskinds:
 * arguments first, then locals, cells and free variables; hidden
 * (inlined-comprehension) slots only when bound. Frames flagged
 * JITUNWIND_PYFRAME_IN_JIT or JITUNWIND_PYFRAME_LINE_MAY_LAG (running JIT
 * code) give every variable JITUNWIND_PYVAR_MAY_BE_STALE. Into OUT, at
 * most MAX (OUT may be NULL when MAX is 0); *COUNT gets the number.
 * Returns 0, EINVAL (READER, FRAME or COUNT NULL), or a negative status
 * (EREAD, ECORRUPT, ELIMIT, EUNSUPPORTED as for jitunwind_pyreader_repr)
 * with the *COUNT variables before the problem valid. */
JITUNWIND_API int jitunwind_pyreader_frame_variables(jitunwind_pyreader *reader,
                                                     const struct jitunwind_py_frame *frame,
                                                     struct jitunwind_py_variable *out,
                                                     size_t max, size_t *count);

#define JITUNWIND_PYSCOPE_LOCAL 1
#define JITUNWIND_PYSCOPE_GLOBAL 2
#define JITUNWIND_PYSCOPE_BUILTIN 3
#define JITUNWIND_PYSCOPE_UNBOUND_LOCAL 4 /* a variable of the frame, not bound: *value 0 */

/* Find NAME as Python would from FRAME in READER's target: its variables,
 * then its globals, then its builtins. Returns 0 with *VALUE and *SCOPE
 * (JITUNWIND_PYSCOPE_*) set, EINVAL (any argument NULL), ENOTFOUND (the
 * reason in READER's last error), or another negative status. A variable of
 * the frame that is not bound is JITUNWIND_PYSCOPE_UNBOUND_LOCAL: Python would
 * raise for it rather than look further, so a global of the same name is not
 * it. */
JITUNWIND_API int jitunwind_pyreader_frame_lookup(jitunwind_pyreader *reader,
                                                  const struct jitunwind_py_frame *frame,
                                                  const char *name, uint64_t *value, int *scope);

/* The attribute NAME of the object at OBJECT in READER's target, found where
 * CPython keeps it without running code: an instance's own attributes (its
 * __dict__, inline values or managed dict, its __slots__), a module's
 * globals, a class's own dict (not its bases', nor properties or other
 * descriptors). Returns 0 with *VALUE set, ENOTFOUND, EINVAL (READER, NAME
 * or VALUE NULL), or another negative status (EREAD, ELIMIT after 256
 * attributes, EUNSUPPORTED or the status of a values layout that failed its
 * check); *VALUE is 0 unless 0 is returned. */
JITUNWIND_API int jitunwind_pyreader_attribute(jitunwind_pyreader *reader, uint64_t object,
                                               const char *name, uint64_t *value);

/* A builtin function or method object (PyCFunctionObject) and the C
 * function it calls (its PyMethodDef's ml_meth). */
struct jitunwind_py_cfunction {
    uint64_t object;
    uint64_t function;
};

#define JITUNWIND_PY_STACK_SLOTS 64u /* value-stack slots frame_cfunctions reads */

/* The builtin function and method objects on FRAME's value stack (the
 * first JITUNWIND_PY_STACK_SLOTS slots past its locals, live or left over
 * from earlier calls): the builtin a frame is calling is among them. A
 * specialized CALL (CALL_BUILTIN_O and kin, in the eval loop and in JIT
 * code) calls the C function directly, with no cfunction_* frame between
 * to name it: a caller matches `function` with that native frame's. Into
 * OUT, at most MAX (OUT may be NULL when MAX is 0), in slot order; *COUNT
 * gets the number. Returns 0, EINVAL (READER, FRAME or COUNT NULL),
 * ECORRUPT (no readable code object), or the values layout's status. */
JITUNWIND_API int jitunwind_pyreader_frame_cfunctions(jitunwind_pyreader *reader,
                                                      const struct jitunwind_py_frame *frame,
                                                      struct jitunwind_py_cfunction *out,
                                                      size_t max, size_t *count);

/* Whether the interpreter INTERP (jitunwind_py_thread.interp) is running
 * a garbage collection: 0 with *COLLECTING 0 or 1; EINVAL (READER or
 * COLLECTING NULL, INTERP 0); EUNSUPPORTED where its place is not known
 * (free-threaded builds, 3.15+), EREAD. */
JITUNWIND_API int jitunwind_pyreader_gc_collecting(jitunwind_pyreader *reader, uint64_t interp,
                                                   int *collecting);

#define JITUNWIND_PY_THREAD_NAME_MAX 64u

/* The Python name of THREAD (a thread state from jitunwind_pyreader_threads
 * of READER): the `_name` of the threading.Thread that `threading._active`
 * (found through the interpreter's sys.modules) keys by its thread_id, such
 * as "MainThread", into BUF (UTF-8, NUL-terminated, cut at SIZE - 1 bytes;
 * SIZE >= 2). Nothing runs in the target; every read is bounded. Returns 0,
 * ENOTFOUND (threading not imported, or the thread not among its
 * threads), EUNSUPPORTED (the interpreter's modules are not known for this
 * build), EINVAL (READER, THREAD or BUF NULL, SIZE < 2), or EREAD; BUF is
 * "" unless 0. */
JITUNWIND_API int jitunwind_pyreader_thread_name(jitunwind_pyreader *reader,
                                                 const struct jitunwind_py_thread *thread,
                                                 char *buf, size_t size);

/* The Python names of COUNT threads at once, each interpreter's
 * threading._active read in one pass (naming threads one by one reads it
 * once per thread): NAMES[i * NAME_SIZE] gets THREADS[i]'s name as
 * jitunwind_pyreader_thread_name gives it, or "" where it has none.
 * *NAMED (may be NULL) is how many were named. Returns 0 when at least one
 * was; otherwise the first error met, ENOTFOUND when none has a name, or
 * EINVAL (READER NULL, NAME_SIZE < 2, THREADS or NAMES NULL with COUNT). */
JITUNWIND_API int jitunwind_pyreader_thread_names(jitunwind_pyreader *reader,
                                                  const struct jitunwind_py_thread *threads,
                                                  size_t count, char *names, size_t name_size,
                                                  size_t *named);

/* Keep the target memory the value functions above read (128 KiB of it,
 * in READER) from one call to the next while HOLD is non-zero; every call
 * (0 too) forgets what was kept. Only for a target that does not run
 * meanwhile (a stop, a core): rendering every frame's arguments
 * (py-bt-full) then reads each shared object, name and code object once.
 * Returns 0 or EINVAL (READER NULL). */
JITUNWIND_API int jitunwind_pyreader_hold_reads(jitunwind_pyreader *reader, int hold);

#ifdef __cplusplus
}
#endif

#endif
