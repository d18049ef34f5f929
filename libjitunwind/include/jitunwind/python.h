/* The CPython decoder: threads, frames, code objects, names and line numbers
 * of another process, read through a jitunwind_memory.
 *
 * Everything the decoders need about a CPython version comes from one
 * layout table chosen by the version (see docs/design.md); the decoders read
 * a version-independent view. Every list walk is bounded and checked for
 * cycles; strings are truncated at the buffer size and say so. */
#ifndef JITUNWIND_PYTHON_H
#define JITUNWIND_PYTHON_H

#include <stddef.h>
#include <stdint.h>

#include "jitunwind/export.h"
#include "jitunwind/memory.h"
#include "jitunwind/registry.h"
#include "jitunwind/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the runtime of a target lives. */
struct jitunwind_py_location {
    uint64_t runtime_addr; /* address of _PyRuntime in the target */
    uint32_t version_hex;  /* PY_VERSION_HEX, e.g. 0x030b02f0 for 3.11.2 */
    uint32_t reserved;
    char module[512];      /* the ELF file that holds _PyRuntime */
};

/* Find _PyRuntime and Py_Version of live process PID into *LOC from
 * /proc/PID/maps and the mapped ELF files (symbol tables only; no
 * debuginfo needed). The version is read from the file's Py_Version
 * (3.11+). Returns 0, or EINVAL (LOC NULL, PID <= 0), ENOTFOUND when no
 * mapped file defines _PyRuntime, EVERSION when the file has no readable
 * Py_Version (*LOC then holds the runtime and the module, version 0), or
 * the failure of reading the maps (EIO, ENOMEM). */
JITUNWIND_API int jitunwind_py_locate_live(int pid, struct jitunwind_py_location *loc);

struct jitunwind_modules; /* modules.h */
/* The same into *LOC from the files of MODS (modules.h), already filled
 * from a process's maps or a core (a tool that keeps a process's module
 * set spares reading them again): 0, or EINVAL (MODS or LOC NULL),
 * ENOTFOUND, EVERSION as above. */
JITUNWIND_API int jitunwind_py_locate_modules(const struct jitunwind_modules *mods,
                                              struct jitunwind_py_location *loc);

/* The same into *LOC for the core file at CORE_PATH (EINVAL when either is
 * NULL), using its NT_FILE note for the mapped files (which must still
 * exist at their recorded paths); the same returns, and EIO, EELF for the
 * core itself, ENOTFOUND also when it has no NT_FILE note. */
JITUNWIND_API int jitunwind_py_locate_core(const char *core_path,
                                           struct jitunwind_py_location *loc);

/* Whether the decoder has a layout for VERSION_HEX's major.minor on the
 * host's architecture: returns 1 or 0.
 * 3.15 pre-releases before rc1 and 3.16 have a provisional one, used only
 * when the interpreter's DWARF confirms it (jitunwind_pyreader_opts.module). */
JITUNWIND_API int jitunwind_py_version_supported(uint32_t version_hex);

/* Threads: one thread at a time, every query included: a reader keeps
 * read caches and its last error (jitunwind.h). */
typedef struct jitunwind_pyreader jitunwind_pyreader;
typedef struct jitunwind_dwarf_types jitunwind_dwarf_types; /* dwarf.h */

/* Free READER (NULL is ignored); what it returned is invalid after. */
JITUNWIND_API void jitunwind_pyreader_free(jitunwind_pyreader *reader);
/* The last failure recorded in READER (code, address, message), never
 * NULL; for a NULL READER, jitunwind_last_error(). Valid until the next call
 * on READER. */
JITUNWIND_API const struct jitunwind_error *
jitunwind_pyreader_last_error(const jitunwind_pyreader *reader);

struct jitunwind_py_thread {
    uint64_t tstate;           /* PyThreadState address */
    uint64_t interp;           /* PyInterpreterState address */
    int64_t interp_id;
    uint64_t thread_id;        /* pthread_t */
    uint64_t native_thread_id; /* OS thread id (matches a debugger's LWP) */
    uint64_t current_frame;    /* innermost _PyInterpreterFrame, or 0 */
    int32_t holds_gil;         /* 1, 0, or -1 when unknown */
    uint32_t reserved;
};

#define JITUNWIND_PY_MAX_THREADS 4096u
#define JITUNWIND_PY_MAX_INTERPRETERS 256u

/* The thread states of every interpreter of READER's target, in list order,
 * into OUT (at most MAX; OUT may be NULL when MAX is 0); *COUNT gets the
 * number written. Returns 0, or EINVAL (READER or COUNT NULL), or another
 * negative status with the *COUNT threads before the problem still valid
 * (truncated but honest: ELOOP, ELIMIT, EREAD). */
JITUNWIND_API int jitunwind_pyreader_threads(jitunwind_pyreader *reader,
                                             struct jitunwind_py_thread *out, size_t max,
                                             size_t *count);

/* Read thread state T->tstate (of interpreter T->interp, as listed by
 * jitunwind_pyreader_threads) again into *T: its thread ids, current frame
 * and GIL. One thread's state costs what it costs, whatever the number of
 * threads (a caller that stops threads one at a time lists them once, then
 * reads each again while it is stopped). Returns 0, EINVAL (READER or T
 * NULL, tstate 0), or EREAD with *T unchanged but for what was read. The
 * address is not checked to still be a thread state: a caller compares the
 * native thread id with the one it expects. */
JITUNWIND_API int jitunwind_pyreader_thread(jitunwind_pyreader *reader,
                                            struct jitunwind_py_thread *t);

/* Read the N thread states THREADS holds (as jitunwind_pyreader_threads
 * listed them, in order) again in place, without the runtime's and the
 * interpreters' lists: each one's thread ids, current frame and GIL, and
 * its list links. Returns 1 when every one is still linked as listed (the
 * first of each interpreter's with no previous one, each to the next one
 * listed, the last to none) and has the same thread ids; then no thread
 * state was added to or taken from those lists in between (CPython adds a
 * thread state at its list's head, linking the old head back to it, and
 * taking one out relinks its neighbours). Returns 0 otherwise, THREADS
 * then partly read again: list them anew. Not seen: a new interpreter (the
 * runtime's list is not read), and the last thread state of an
 * interpreter taken out while its memory still reads as it was (a caller
 * lists anew now and then). EINVAL for READER NULL, THREADS NULL with N
 * > 0, or a tstate 0. */
JITUNWIND_API int jitunwind_pyreader_threads_again(jitunwind_pyreader *reader,
                                                   struct jitunwind_py_thread *threads, size_t n);

/* Frame flags. */
#define JITUNWIND_PYFRAME_ENTRY (1u << 0)       /* outermost frame of its eval-loop activation */
#define JITUNWIND_PYFRAME_GENERATOR (1u << 1)   /* owned by a generator/coroutine */
#define JITUNWIND_PYFRAME_SHIM (1u << 2)        /* interpreter shim, not user code */
#define JITUNWIND_PYFRAME_NAME_TRUNCATED (1u << 3)
#define JITUNWIND_PYFRAME_NO_LINE (1u << 4)     /* line unknown: `line` is -1 */
#define JITUNWIND_PYFRAME_LINE_MAY_LAG (1u << 5)/* innermost frame in JIT code */
#define JITUNWIND_PYFRAME_BAD_CODE (1u << 6)    /* code object unreadable: names empty */
/* The frame runs JIT code (set by the caller with LINE_MAY_LAG, from
 * jitunwind_mix's JITUNWIND_MIXED_LINE_MAY_LAG). It stays when the exact
 * line is found (and LINE_MAY_LAG is cleared): the line is then right, but
 * the frame's values may still be stale, kept by the JIT in registers and
 * stack slots not yet written back. */
#define JITUNWIND_PYFRAME_IN_JIT (1u << 7)

#define JITUNWIND_PY_NAME_MAX 256
#define JITUNWIND_PY_FILENAME_MAX 1024

struct jitunwind_py_frame {
    uint64_t address;  /* _PyInterpreterFrame address */
    uint64_t code;     /* code object address */
    int32_t line;      /* current line, -1 if unknown */
    int32_t first_line;
    int32_t lasti;     /* instruction offset in code units, -1 if not started */
    int32_t owner;     /* the frame's owner field as stored */
    uint32_t flags;    /* JITUNWIND_PYFRAME_* */
    uint32_t reserved;
    char qualname[JITUNWIND_PY_NAME_MAX];
    char filename[JITUNWIND_PY_FILENAME_MAX];
};

#define JITUNWIND_PY_MAX_FRAMES 65536u

/* Decode the frame chain starting at FRAME_ADDR (usually a thread's
 * current_frame), innermost first, into OUT (at most MAX; OUT may be NULL
 * when MAX is 0; ELIMIT when the chain is longer). Interpreter-
 * internal sentinel frames are not emitted; the frame before one gets
 * JITUNWIND_PYFRAME_ENTRY. Returns 0 with *COUNT frames, EINVAL (READER or
 * COUNT NULL), or a negative status (ELOOP, ELIMIT, EREAD, ECORRUPT) with
 * the *COUNT frames before the problem still valid; the reader's last error
 * says where. Names and files are the target's text, unescaped. */
JITUNWIND_API int jitunwind_pyreader_frames(jitunwind_pyreader *reader, uint64_t frame_addr,
                                            struct jitunwind_py_frame *out, size_t max,
                                            size_t *count);

/* Decode with READER the one frame at FRAME_ADDR into *OUT (the first
 * frame from there that is not a sentinel), without following its link:
 * 0, ENOTFOUND when the chain ends before one (FRAME_ADDR 0), or as
 * jitunwind_pyreader_frames (EINVAL for NULL arguments). A sampler that
 * wants only the innermost frame's line again asks this. */
JITUNWIND_API int jitunwind_pyreader_frame(jitunwind_pyreader *reader, uint64_t frame_addr,
                                           struct jitunwind_py_frame *out);

/* Add the perf-trampoline arenas of READER's runtime (3.12+, `-X perf`) to
 * REGISTRY, found from the interpreter's own state rather than a perf map
 * (so cores work without /tmp/perf-PID.map). Each arena's used part becomes
 * one range (kind TRAMPOLINE, origin INTERPRETER, stride = the copy size)
 * whose layout is read from its machine code; ranges overlapping existing
 * ones (e.g. from the perf map) are skipped. ARCH: enum jitunwind_arch.
 * *ADDED (may be NULL) gets the count. Returns 0, or EINVAL (READER or
 * REGISTRY NULL), ENOTFOUND when trampolines were never activated,
 * EUNSUPPORTED for versions whose arena location is not known, EREAD,
 * ELOOP, ELIMIT (bounded, cycle-checked; the arenas added before the
 * problem stay and *ADDED counts them); the reason in READER's last error.
 * Threads: READER and REGISTRY are in use. */
JITUNWIND_API int jitunwind_pyreader_trampoline_ranges(jitunwind_pyreader *reader,
                                                       jitunwind_registry *registry, int arch,
                                                       size_t *added);

/* --- Build-specific facts from the interpreter's own file --- */

/* What the DWARF of the interpreter's file contributed. */
struct jitunwind_py_dwarf_report {
    char source[1024];        /* the file the DWARF was read from; "" if none was found */
    uint32_t checked;         /* layout fields compared with DWARF */
    uint32_t mismatches;      /* of those, how many differed */
    uint32_t adopted;         /* differences resolved in DWARF's favour (3.11, 3.12 tables) */
    uint32_t derived;         /* build-specific fields taken from DWARF */
    char first_mismatch[192]; /* "struct.member: table N, DWARF M", or "" */
};

/* Options of jitunwind_pyreader_open. Zero it, set `size`, then the members
 * wanted; a member left 0 or NULL takes its default. */
struct jitunwind_pyreader_opts {
    size_t size; /* sizeof(struct jitunwind_pyreader_opts), checked as jitunwind_memory's */
    /* The ELF file that holds _PyRuntime (jitunwind_py_location.module), or
     * NULL. Its ELF header picks the layout tables' architecture (without
     * it: the host's); its symbols let the reader check the object header
     * (PyType_Type must be its own type: a --with-trace-refs build without
     * DWARF is refused, not misread) and find 3.13's cold-exit executors.
     * When its DWARF is found (the file's own, or a separate debug file: see
     * dwarf.h), the layout is cross-checked against it, a 3.11/3.12 build
     * whose structs differ from the table (debug or non-default builds) is
     * read with DWARF's offsets, a provisional _Py_DebugOffsets field list
     * (3.15 pre-releases before rc1, 3.16) is used only when DWARF agrees
     * with it (EVERSION naming the first disagreement, or saying no DWARF
     * was found, otherwise), and build-specific offsets are taken from it:
     * the executor lists (3.13, 3.14) and the trampoline arenas. A file
     * without DWARF is not an error; the decoder then keeps its tables (see
     * jitunwind_pyreader_dwarf_report). */
    const char *module;
    /* The module's DWARF already opened (dwarf.h), so that a debugger opening
     * a reader at every stop parses it once; only read during the call. NULL:
     * the reader opens the module's DWARF itself (unless
     * JITUNWIND_PYREADER_NO_DWARF). */
    jitunwind_dwarf_types *types;
    uint32_t flags; /* JITUNWIND_PYREADER_* */
};

/* Options with their size set, as a pointer to a temporary (C99 compound
 * literal): JITUNWIND_PYREADER_OPTS(.module = path, .types = types). */
#define JITUNWIND_PYREADER_OPTS(...)                                                  \
    (&(const struct jitunwind_pyreader_opts){sizeof(struct jitunwind_pyreader_opts), __VA_ARGS__})

/* Opt-in for a CPython newer than any table (3.17+), or a pre-release whose
 * _Py_DebugOffsets field list is provisional (3.15 before rc1, 3.16; without
 * the flag those are read only when the build's DWARF confirms the list):
 * read it with its own table's semantics, or else the newest's (owner
 * values, tag bits, line tables, string state; GIL or free-threaded as the
 * target's _Py_DebugOffsets header says), and every offset from the
 * build's DWARF. Strict: DWARF is required (EVERSION without it) and must
 * name every member the decoder reads (EVERSION naming the first one
 * missing). The result is an assumption: jitunwind_pyreader_layout_name
 * says so, and callers should tell their users. Ignored for versions whose
 * field list is confirmed. */
#define JITUNWIND_PYREADER_ASSUME_LAYOUT (1u << 0)
/* Use the module's symbols but not its DWARF (the tables alone). */
#define JITUNWIND_PYREADER_NO_DWARF (1u << 1)

/* Open a decoder in *OUT over MEM for the runtime at RUNTIME_ADDR of
 * CPython VERSION_HEX (jitunwind_py_location), with OPTS (NULL: every
 * default: no module, the host's layout tables). Returns 0, or EINVAL (OUT
 * or MEM NULL, RUNTIME_ADDR 0, OPTS with an unknown flag or refused by its
 * size), EVERSION for versions without a layout, EREAD/ECORRUPT when the
 * runtime does not look like one, ENOTFOUND when it has no interpreter yet
 * (stopped before Py_Initialize*, or after finalisation), EBUSY when the
 * dynamic loader has not relocated the interpreter yet (a process in its
 * first milliseconds: open it again later); *OUT is NULL on
 * failure, and jitunwind_last_error() says why. Free with
 * jitunwind_pyreader_free. */
JITUNWIND_API int jitunwind_pyreader_open(jitunwind_pyreader **out,
                                          const struct jitunwind_memory *mem,
                                          uint64_t runtime_addr, uint32_t version_hex,
                                          const struct jitunwind_pyreader_opts *opts);

/* What READER reads the target as, e.g. "CPython 3.14 (free-threaded)";
 * assumed layouts say "assumed". Valid while READER lives; NULL for a
 * NULL READER. */
JITUNWIND_API const char *jitunwind_pyreader_layout_name(const jitunwind_pyreader *reader);

/* What the interpreter's DWARF contributed to READER's frame layout, into
 * *OUT: 0, or EINVAL (READER or OUT NULL). */
JITUNWIND_API int jitunwind_pyreader_dwarf_report(const jitunwind_pyreader *reader,
                                                  struct jitunwind_py_dwarf_report *out);
/* The same into *OUT (EINVAL when READER or OUT is NULL) for the layout of the
 * objects the value functions read (ints, containers, types, code variables,
 * frame globals): the fields DWARF checked, how many differed, how many of
 * those took DWARF's offset (all but those the target's own _Py_DebugOffsets
 * give, 3.13+), the first difference; *STATUS (may be NULL): 0 when that
 * layout passed its check, else the status every value function returns (its
 * message, naming the field, is the reader's last error after such a call). */
JITUNWIND_API int jitunwind_pyreader_values_report(const jitunwind_pyreader *reader,
                                                   struct jitunwind_py_dwarf_report *out,
                                                   int *status);

/* --- The eval loop's code --- */

/* One part of the eval loop's machine code, at runtime addresses. */
struct jitunwind_py_code_range {
    uint64_t start, end; /* [start, end) */
    uint32_t main;       /* 1: the function _PyEval_EvalFrameDefault itself (its entry is
                          * `start`); 0: a part a compiler split off or cloned from it */
    uint32_t reserved;
};
#define JITUNWIND_PY_MAX_EVAL_RANGES 16u

/* The eval loop's code: _PyEval_EvalFrameDefault and every part a compiler
 * split off or cloned from it (GCC's `.cold`, `.part.N`, `.constprop.N`,
 * ...; jitunwind_native_role_from_symbol names the same), from the symbol
 * tables of the reader's module and, when it is stripped, of its separate
 * debug file (debug_files.h), found once when the reader was made (a
 * reader made without a module has none). A native frame whose code lies
 * in one of them is an eval-loop activation (JITUNWIND_ROLE_EVAL). Writes
 * at most MAX to OUT (may be NULL when MAX is 0), by start address;
 * *COUNT gets how many there are (more than MAX is not an error). 0, or
 * EINVAL (READER or COUNT NULL). Reads nothing from the target. */
JITUNWIND_API int jitunwind_pyreader_eval_ranges(const jitunwind_pyreader *reader,
                                                 struct jitunwind_py_code_range *out, size_t max,
                                                 size_t *count);
/* Returns 1 when ADDR (a lookup address: jitunwind_lookup_address) lies in
 * one of READER's eval-loop ranges, else 0 (also for a NULL READER). */
JITUNWIND_API int jitunwind_pyreader_in_eval_loop(const jitunwind_pyreader *reader, uint64_t addr);

/* --- Pure decoders, exposed for tests and tools --- */

/* Line for instruction offset LASTI_UNITS (code units) in a 3.11+
 * location table TABLE of LEN bytes (never read past), whose code starts
 * at FIRST_LINE. Returns the line, or -1 (no location, not covered, a
 * malformed table, TABLE NULL, LASTI_UNITS negative). */
JITUNWIND_API int jitunwind_py_linetable_line(const uint8_t *table, size_t len,
                                              int first_line, int lasti_units);

#ifdef __cplusplus
}
#endif

/* The decoder's other concerns, each in a header of its own; included here
 * so that python.h keeps declaring the whole decoder. */
#include "jitunwind/python_jit.h"
#include "jitunwind/python_sampling.h"
#include "jitunwind/python_values.h"

#endif
