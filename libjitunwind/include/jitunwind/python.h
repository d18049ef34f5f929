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

/* Find _PyRuntime and Py_Version of a live process from /proc/PID/maps and
 * the mapped ELF files (symbol tables only; no debuginfo needed). The
 * version is read from the file's Py_Version (3.11+). ENOTFOUND when no
 * mapped file defines _PyRuntime. */
JITUNWIND_API int jitunwind_py_locate_live(int pid, struct jitunwind_py_location *loc);

/* The same for a core file, using its NT_FILE note for the mapped files
 * (which must still exist at their recorded paths). */
JITUNWIND_API int jitunwind_py_locate_core(const char *core_path,
                                           struct jitunwind_py_location *loc);

/* Versions the decoder has a layout for (major.minor): returns 1 or 0.
 * 3.15 pre-releases before rc1 and 3.16 have a provisional one, used only
 * when the interpreter's DWARF confirms it (jitunwind_pyreader_new_for_module). */
JITUNWIND_API int jitunwind_py_version_supported(uint32_t version_hex);

typedef struct jitunwind_pyreader jitunwind_pyreader;

/* Open a decoder over `mem` for the runtime at `runtime_addr`. Fails with
 * EVERSION for versions without a layout, EREAD/ECORRUPT when the runtime
 * does not look like one, ENOTFOUND when it has no interpreter yet (stopped
 * before Py_Initialize*, or after finalisation). */
JITUNWIND_API int jitunwind_pyreader_new(jitunwind_pyreader **out,
                                         const struct jitunwind_memory *mem,
                                         uint64_t runtime_addr, uint32_t version_hex);
JITUNWIND_API void jitunwind_pyreader_free(jitunwind_pyreader *reader); /* NULL ok */
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

/* Thread states of every interpreter, in list order, at most `max`.
 * *count gets the number written. Returns 0, or a negative status with
 * *count threads still valid (truncated but honest: ELOOP, ELIMIT, EREAD). */
JITUNWIND_API int jitunwind_pyreader_threads(jitunwind_pyreader *reader,
                                             struct jitunwind_py_thread *out, size_t max,
                                             size_t *count);

/* Read thread state t->tstate (of interpreter t->interp, as listed by
 * jitunwind_pyreader_threads) again: its thread ids, current frame and GIL.
 * One thread's state costs what it costs, whatever the number of threads
 * (a caller that stops threads one at a time lists them once, then reads
 * each again while it is stopped). 0, or EREAD with `t` unchanged but
 * for what was read. The address is not checked to still be a thread
 * state: a caller compares the native thread id with the one it expects. */
JITUNWIND_API int jitunwind_pyreader_thread(jitunwind_pyreader *reader,
                                            struct jitunwind_py_thread *t);

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

/* Decode the frame chain starting at `frame_addr` (usually a thread's
 * current_frame), innermost first, into `out` (at most `max`). Interpreter-
 * internal sentinel frames are not emitted; the frame before one gets
 * JITUNWIND_PYFRAME_ENTRY. Returns 0 with *count frames, or a negative status
 * (ELOOP, ELIMIT, EREAD, ECORRUPT) with the *count frames before the problem
 * still valid; the reader's last error says where. */
JITUNWIND_API int jitunwind_pyreader_frames(jitunwind_pyreader *reader, uint64_t frame_addr,
                                            struct jitunwind_py_frame *out, size_t max,
                                            size_t *count);

/* Add the perf-trampoline arenas of the runtime (3.12+, `-X perf`) to
 * `registry`, found from the interpreter's own state rather than a perf map
 * (so cores work without /tmp/perf-PID.map). Each arena's used part becomes
 * one range (kind TRAMPOLINE, origin INTERPRETER, stride = the copy size)
 * whose layout is read from its machine code; ranges overlapping existing
 * ones (e.g. from the perf map) are skipped. *added (may be NULL) gets the
 * count. ENOTFOUND when trampolines were never activated; EUNSUPPORTED for
 * versions whose arena location is not known. Bounded, cycle-checked. */
#include "jitunwind/registry.h"
JITUNWIND_API int jitunwind_pyreader_trampoline_ranges(jitunwind_pyreader *reader,
                                                       jitunwind_registry *registry, int arch,
                                                       size_t *added);

/* --- A sampler's cache ---
 *
 * Keep up to `entries` code objects decoded (qualname, filename, first
 * line and, up to 4 KiB, the line table) by address between calls of
 * jitunwind_pyreader_frames, so that a frame whose code was seen before
 * costs one read of the code object's head instead of six or more. The
 * head is read at every use (at the first use in a sample with
 * jitunwind_pyreader_cache_next_sample): an entry is used only while the
 * code object there still has the same name, file and line-table pointers
 * and first line (a code object never changes them; a new one at a freed
 * address holds new strings), so a stale entry is refilled, never shown. 0 turns the
 * cache off (the default). EINVAL above JITUNWIND_PY_MAX_CODE_CACHE,
 * ENOMEM. */
#define JITUNWIND_PY_MAX_CODE_CACHE 65536u
JITUNWIND_API int jitunwind_pyreader_cache_code(jitunwind_pyreader *reader, size_t entries);

/* A sampler's unit of time: after this call, a code object whose head was
 * checked once in the sample is trusted for the rest of it (its head is not
 * read again for each frame that runs it), until the next call. Without
 * calls every use is checked. EINVAL when the cache is off. */
JITUNWIND_API int jitunwind_pyreader_cache_next_sample(jitunwind_pyreader *reader);

struct jitunwind_py_cache_stats {
    uint64_t hits;        /* frames whose code came from the cache */
    uint64_t misses;      /* frames whose code was read (first time, or stale) */
    uint64_t invalidated; /* of the misses, entries whose code object had changed */
    uint64_t reads_saved; /* target reads the hits did not make */
};
JITUNWIND_API int jitunwind_pyreader_cache_stats(const jitunwind_pyreader *reader,
                                                 struct jitunwind_py_cache_stats *out);

/* --- A sampler's frame chains ---
 *
 * Between two samples of a thread, the outer part of its frame chain is
 * usually unchanged. A chain cache keeps each thread's last complete chain
 * (its outermost `frames` frames, decoded) for `threads` threads; the
 * caller owns it and names a thread by any key (its tstate address).
 * jitunwind_pyreader_frames_reusing walks like jitunwind_pyreader_frames,
 * but reads the memory the cached chain spans (up to 64 KiB) in one read,
 * and a frame whose address, code object, instruction pointer, owner and
 * previous pointer are those cached is not decoded again (no code-object,
 * name or line-table reads): its qualname, file and line come from the
 * cache. Every frame is still visited: an inner frame cannot vouch for the
 * outer ones (a helper called from two callers of the same size has the
 * same address, code, instruction and previous pointer under both).
 * CPython 3.15's last_profiled_frame marker lets a walk stop early, but
 * the profiler must write it into the target: that is opt-in
 * (jitunwind_py_chains_mark_frames below). Only chains walked to the end
 * without error are kept. All memory is allocated by jitunwind_py_chains_new;
 * a walk allocates nothing. */
typedef struct jitunwind_py_chains jitunwind_py_chains;
#define JITUNWIND_PY_MAX_CHAIN_THREADS 4096u
/* NULL on ENOMEM or sizes of 0 or above the maxima (JITUNWIND_PY_MAX_FRAMES). */
JITUNWIND_API jitunwind_py_chains *jitunwind_py_chains_new(size_t threads, size_t frames);
JITUNWIND_API void jitunwind_py_chains_free(jitunwind_py_chains *chains);
/* As jitunwind_pyreader_frames, reusing `thread_key`'s cached chain (the
 * least recently used thread's slot is taken for a new key). */
JITUNWIND_API int jitunwind_pyreader_frames_reusing(jitunwind_pyreader *reader,
                                                    jitunwind_py_chains *chains,
                                                    uint64_t thread_key, uint64_t frame_addr,
                                                    struct jitunwind_py_frame *out, size_t max,
                                                    size_t *count);
struct jitunwind_py_chain_stats {
    uint64_t walks;         /* calls of jitunwind_pyreader_frames_reusing */
    uint64_t reused_walks;  /* of those, walks that took a frame from the cache */
    uint64_t frames_reused; /* frames found unchanged in the cache (their code
                             * is still checked, through the code cache) */
    uint64_t reads_saved;   /* frame reads the one batch read of each walk, or a
                             * stop at the marker, replaced */
    /* With frame markers (jitunwind_py_chains_mark_frames): */
    uint64_t marker_stops;   /* walks that stopped at the marker */
    uint64_t marker_frames;  /* frames beyond it taken from the cache unread */
    uint64_t marker_misses;  /* walks that reached the marker but walked on
                              * (the frame there was not the one cached) */
    uint64_t marker_writes;  /* pointers written into the target (clears included) */
};
JITUNWIND_API int jitunwind_py_chains_stats(const jitunwind_py_chains *chains,
                                            struct jitunwind_py_chain_stats *out);

/* Opt-in: use CPython 3.15's frame marker, as CPython's own sampling
 * profiler does. This WRITES INTO THE TARGET: one pointer per thread per
 * sample (tstate->last_profiled_frame), through the write operation of the
 * reader's memory, which must have one (a live process's writable memory;
 * never a core). The interpreter keeps the marker on a live frame (it moves
 * it to the caller when that frame returns, and bumps
 * last_profiled_frame_seq). From then on, jitunwind_pyreader_frames_reusing
 * with `reader` must be given the thread state's address as `thread_key`;
 * it reads the marker, walks from the current frame until it reaches the
 * marker, and, when the frame there is the cached one (same key as today,
 * and the same marker sequence), takes the frames beyond it from the cache
 * without reading them; otherwise it walks on (never a short stack). After a
 * complete walk it writes the walked top frame as the new marker (not when
 * unchanged). Turning it on first clears every thread's marker (a marker
 * left by another profiler would name a frame this cache never saw).
 * Returns the number of threads cleared, or EVERSION (the layout has no
 * last_profiled_frame), EUNSUPPORTED (the memory has no write operation),
 * EINVAL, EREAD/ELOOP/ELIMIT (the thread list), or the write's status. */
JITUNWIND_API int jitunwind_py_chains_mark_frames(jitunwind_py_chains *chains,
                                                  jitunwind_pyreader *reader);

/* --- Build-specific facts from the interpreter's own file --- */

/* What the DWARF of the interpreter's file contributed. */
struct jitunwind_py_dwarf_report {
    char source[1024];        /* the file the DWARF was read from; "" if none was found */
    uint32_t checked;         /* layout fields compared with DWARF */
    uint32_t mismatches;      /* of those, how many differed */
    uint32_t adopted;         /* differences resolved in DWARF's favour (3.11, 3.12 tables) */
    uint32_t derived;         /* build-specific fields taken from DWARF */
    char first_mismatch[192]; /* "struct.member: layout N, DWARF M", or "" */
};

/* jitunwind_pyreader_new, given also the ELF file that holds _PyRuntime
 * (jitunwind_py_location.module). Its ELF header picks the layout tables'
 * architecture (jitunwind_pyreader_new: the host's); its symbols let the
 * reader check the object header (PyType_Type must be its own type: a
 * --with-trace-refs build without DWARF is refused, not misread) and find
 * 3.13's cold-exit executors. When its DWARF is found (the file's own,
 * or a separate debug file: see dwarf.h), the layout is cross-checked
 * against it, a 3.11/3.12 build whose structs differ from the table (debug
 * or non-default builds) is read with DWARF's offsets, a provisional
 * _Py_DebugOffsets field list (3.15 pre-releases before rc1, 3.16) is used
 * only when DWARF agrees with it (EVERSION naming the first disagreement, or
 * saying no DWARF was found, otherwise), and build-specific offsets are
 * taken from it: the executor lists (3.13, 3.14) and the trampoline arenas.
 * A file without DWARF is not an error; the decoder then keeps its tables
 * (see jitunwind_pyreader_dwarf_report). */
JITUNWIND_API int jitunwind_pyreader_new_for_module(jitunwind_pyreader **out,
                                                    const struct jitunwind_memory *mem,
                                                    uint64_t runtime_addr, uint32_t version_hex,
                                                    const char *module);
/* The same with type information the caller already opened (dwarf.h), so
 * that a debugger opening a reader at every stop parses the DWARF once.
 * `types` may be NULL (no DWARF); it is only read during this call. */
typedef struct jitunwind_dwarf_types jitunwind_dwarf_types;
JITUNWIND_API int jitunwind_pyreader_new_with_dwarf(jitunwind_pyreader **out,
                                                    const struct jitunwind_memory *mem,
                                                    uint64_t runtime_addr, uint32_t version_hex,
                                                    const char *module,
                                                    jitunwind_dwarf_types *types);
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

/* The general form of the constructors above; flags: JITUNWIND_PYREADER_*. */
JITUNWIND_API int jitunwind_pyreader_open(jitunwind_pyreader **out,
                                          const struct jitunwind_memory *mem,
                                          uint64_t runtime_addr, uint32_t version_hex,
                                          const char *module, jitunwind_dwarf_types *types,
                                          uint32_t flags);

/* What the reader reads the target as, e.g. "CPython 3.14 (free-threaded)";
 * assumed layouts say "assumed". Valid while the reader lives. */
JITUNWIND_API const char *jitunwind_pyreader_layout_name(const jitunwind_pyreader *reader);

JITUNWIND_API int jitunwind_pyreader_dwarf_report(const jitunwind_pyreader *reader,
                                                  struct jitunwind_py_dwarf_report *out);
/* The same for the layout of the objects the value functions read (ints,
 * containers, types, code variables, frame globals): the fields DWARF
 * checked, how many differed, how many of those took DWARF's offset (all
 * but those the target's own _Py_DebugOffsets give, 3.13+), the first
 * difference; *status (may be NULL): 0 when that layout passed its check,
 * else the status every value function returns (its message, naming the
 * field, is the reader's last error after such a call). */
JITUNWIND_API int jitunwind_pyreader_values_report(const jitunwind_pyreader *reader,
                                                   struct jitunwind_py_dwarf_report *out,
                                                   int *status);

/* --- JIT executors (3.13, 3.14) --- */

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

/* Every executor of every interpreter: the executor list, then the
 * deletion list (3.14: invalidated executors whose code may still be
 * running), then 3.13's cold exits. At most `max`; *count gets the number.
 * EUNSUPPORTED for versions without executor lists (3.11, 3.12; 3.15+ is
 * read through the GDB JIT interface), ENOTFOUND when where this build
 * keeps them is unknown (no DWARF: open with
 * jitunwind_pyreader_new_for_module). Lists are bounded and cycle-checked;
 * a negative status leaves the *count executors before the problem valid. */
JITUNWIND_API int jitunwind_pyreader_executors(jitunwind_pyreader *reader,
                                               struct jitunwind_py_executor *out, size_t max,
                                               size_t *count);

/* Add a range for the machine code of each compiled executor: kind JIT,
 * origin INTERPRETER, cookie = the code object, name "py::jit:<qualname>
 * (<file>:<first line>)" (cold exits "py::jit:<cold exit>"), rule from the
 * version's layout (x86-64 3.13/3.14: SCAN towards [eval_start, eval_end),
 * the eval loop's code; (0, 0): the reader's own, the `main` one of
 * jitunwind_pyreader_eval_ranges). Ranges that overlap registered ones are skipped.
 * *added (may be NULL) gets the count. When the rule is SCAN and the eval
 * loop's range is unknown (0, 0), those ranges cannot be unwound and are
 * not registered: the others are, and the call returns ENOTFOUND with a
 * message saying how many were left out and why. */
JITUNWIND_API int jitunwind_pyreader_executor_ranges(jitunwind_pyreader *reader,
                                                     jitunwind_registry *registry, int arch,
                                                     uint64_t eval_start, uint64_t eval_end,
                                                     size_t *added);

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
 * at most `max`, by start address; *count gets how many there are. */
JITUNWIND_API int jitunwind_pyreader_eval_ranges(const jitunwind_pyreader *reader,
                                                 struct jitunwind_py_code_range *out, size_t max,
                                                 size_t *count);
/* 1 when `addr` (a lookup address: jitunwind_lookup_address) lies in one of
 * them, else 0 (also for a NULL reader). */
JITUNWIND_API int jitunwind_pyreader_in_eval_loop(const jitunwind_pyreader *reader, uint64_t addr);

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

/* The executor at `executor` (which must be on one of the interpreter's
 * lists: anything else is ENOTFOUND) with its header, vm_data and the
 * layout of its code. */
JITUNWIND_API int jitunwind_pyreader_executor_detail(jitunwind_pyreader *reader,
                                                     uint64_t executor,
                                                     struct jitunwind_py_executor_detail *out);

/* Its trace, a uop per entry, at most `max` (and JITUNWIND_PY_MAX_UOPS).
 * Lines are computed in `code` (a code object whose frame runs the trace:
 * every uop's line is computed in it), or with 0 in the executor's own,
 * for uops at depth 0 only. `detail` (may be NULL) gets the executor's
 * detail with the stencil layout filled in (fatal_offset, have_stencils).
 * Returns 0, or a negative status with the *count uops read before the
 * problem still valid. */
JITUNWIND_API int jitunwind_pyreader_executor_trace(jitunwind_pyreader *reader,
                                                    uint64_t executor, uint64_t code,
                                                    struct jitunwind_py_uop *out, size_t max,
                                                    size_t *count,
                                                    struct jitunwind_py_executor_detail *detail);

/* The detail of every executor, in jitunwind_pyreader_executors' order,
 * with one walk over the lists (not one per executor). */
JITUNWIND_API int jitunwind_pyreader_executor_details(jitunwind_pyreader *reader,
                                                      struct jitunwind_py_executor_detail *out,
                                                      size_t max, size_t *count);

/* The exits of an executor whose detail was read (no walk). */
JITUNWIND_API int jitunwind_pyreader_detail_exits(jitunwind_pyreader *reader,
                                                  const struct jitunwind_py_executor_detail *d,
                                                  struct jitunwind_py_jit_exit *out, size_t max,
                                                  size_t *count);

/* Its exits: target, line and the executor each is linked to. */
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

/* Which executor, region and uop hold `pc` (a return address is looked up
 * as pc - 1 by the caller's choice: pass the address to look up). `code`:
 * the code object the line is computed in (the innermost Python frame's,
 * which is the code running at pc); 0: the executor's own. ENOTFOUND when
 * no executor's code holds pc; otherwise 0 with what was found, and
 * `missing` saying what was not. */
JITUNWIND_API int jitunwind_pyreader_jit_pc(jitunwind_pyreader *reader, uint64_t pc,
                                            uint64_t code, struct jitunwind_py_jit_pc *out);

/* "[uop 17/42 _CALL_BUILTIN_FAST]", "[shim]", "[_FATAL_ERROR]", or "" when
 * the region is unknown. Returns snprintf's count. */
JITUNWIND_API int jitunwind_py_jit_pc_label(const struct jitunwind_py_jit_pc *where, char *buf,
                                            size_t size);

/* --- Pure decoders, exposed for tests and tools --- */

/* Line for instruction offset `lasti_units` (code units) in a 3.11+
 * location table. Returns the line, or -1 (no location / not covered).
 * `table` is bounded by `len`; never reads past it. */
JITUNWIND_API int jitunwind_py_linetable_line(const uint8_t *table, size_t len,
                                              int first_line, int lasti_units);

/* --- Values and frame variables (3.11-3.14) --- */

/* Limits of jitunwind_pyreader_repr; a 0 field takes the default. */
struct jitunwind_py_repr_options {
    uint32_t max_depth; /* containers nested deeper show as [...], {...}: default 2 */
    uint32_t max_items; /* items shown per container, then "...": default 10 */
    uint32_t max_chars; /* characters of a str or bytes, digits of an int: default 200 */
    uint32_t style;     /* JITUNWIND_PYREPR_STYLE_* bits; 0: as repr() */
};

/* Builtin functions and methods as CPython's libpython.py shows them:
 * `<built-in method NAME of TYPE object at remote 0x...>` whenever the
 * builtin has a `self` (a module too), so that output read by tools made for
 * libpython matches. */
#define JITUNWIND_PYREPR_STYLE_LIBPYTHON (1u << 0)

#define JITUNWIND_PYREPR_TRUNCATED (1u << 0)  /* a limit cut something ("..." marks where) */
#define JITUNWIND_PYREPR_UNREADABLE (1u << 1) /* some pointer could not be read */

/* Render the object at `object` as Python's repr() would, bounded: None,
 * bool, int, float, str, bytes, tuple, list, dict (combined and split
 * tables), set, frozenset, type, function, builtin function or method,
 * bound method, module, code, cell, Ellipsis, NotImplemented; any other
 * object (and subclasses of the builtins) as Python's default
 * `<module.Class object at 0x...>`. Cut parts end in "..."; a reference
 * cycle shows as Python shows it ([...], {...}); a pointer that cannot be
 * read as `<unreadable 0x...>`, with nothing read past a failed page. No
 * recursion, no allocation: the text goes to buf (NUL-terminated, cut with
 * "..." at `size`, which must be >= 32). *flags (may be NULL) gets
 * JITUNWIND_PYREPR_*. Returns 0, EINVAL, or EUNSUPPORTED for versions whose
 * objects are not described (3.15+). docs/values.md lists what differs
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

/* The variables of a frame decoded by jitunwind_pyreader_frames, from its
 * localsplus and its code's co_localsplusnames/co_localspluskinds:
 * arguments first, then locals, cells and free variables; hidden
 * (inlined-comprehension) slots only when bound. Frames flagged
 * JITUNWIND_PYFRAME_IN_JIT or JITUNWIND_PYFRAME_LINE_MAY_LAG (running JIT
 * code) give every variable JITUNWIND_PYVAR_MAY_BE_STALE. At most `max`; *count gets the number.
 * Returns 0, or a negative status (EREAD, ECORRUPT, ELIMIT) with the
 * *count variables before the problem valid. */
JITUNWIND_API int jitunwind_pyreader_frame_variables(jitunwind_pyreader *reader,
                                                     const struct jitunwind_py_frame *frame,
                                                     struct jitunwind_py_variable *out,
                                                     size_t max, size_t *count);

#define JITUNWIND_PYSCOPE_LOCAL 1
#define JITUNWIND_PYSCOPE_GLOBAL 2
#define JITUNWIND_PYSCOPE_BUILTIN 3
#define JITUNWIND_PYSCOPE_UNBOUND_LOCAL 4 /* a variable of the frame, not bound: *value 0 */

/* Find `name` as Python would from that frame: its variables, then its
 * globals, then its builtins. 0 with *value and *scope (JITUNWIND_PYSCOPE_*)
 * set, ENOTFOUND, or another negative status. A variable of the frame
 * that is not bound is JITUNWIND_PYSCOPE_UNBOUND_LOCAL: Python would raise
 * for it rather than look further, so a global of the same name is not it. */
JITUNWIND_API int jitunwind_pyreader_frame_lookup(jitunwind_pyreader *reader,
                                                  const struct jitunwind_py_frame *frame,
                                                  const char *name, uint64_t *value, int *scope);

/* A builtin function or method object (PyCFunctionObject) and the C
 * function it calls (its PyMethodDef's ml_meth). */
struct jitunwind_py_cfunction {
    uint64_t object;
    uint64_t function;
};

#define JITUNWIND_PY_STACK_SLOTS 64u /* value-stack slots frame_cfunctions reads */

/* The builtin function and method objects on `frame`'s value stack (the
 * first JITUNWIND_PY_STACK_SLOTS slots past its locals, live or left over
 * from earlier calls): the builtin a frame is calling is among them. A
 * specialized CALL (CALL_BUILTIN_O and kin, in the eval loop and in JIT
 * code) calls the C function directly, with no cfunction_* frame between
 * to name it: a caller matches `function` with that native frame's. At most
 * `max`, in slot order; *count gets the number. Returns 0, ECORRUPT
 * (no readable code object) or EINVAL. */
JITUNWIND_API int jitunwind_pyreader_frame_cfunctions(jitunwind_pyreader *reader,
                                                      const struct jitunwind_py_frame *frame,
                                                      struct jitunwind_py_cfunction *out,
                                                      size_t max, size_t *count);

/* Whether the interpreter `interp` (jitunwind_py_thread.interp) is running
 * a garbage collection: 0 with *collecting 0 or 1; EUNSUPPORTED where its
 * place is not known (free-threaded builds, 3.15+), EREAD. */
JITUNWIND_API int jitunwind_pyreader_gc_collecting(jitunwind_pyreader *reader, uint64_t interp,
                                                   int *collecting);

/* Keep the target memory the value functions above read (128 KiB of it,
 * in the reader) from one call to the next while `hold` is 1; 0 forgets
 * it. Only for a target that does not run meanwhile (a stop, a core):
 * rendering every frame's arguments (py-bt-full) then reads each shared
 * object, name and code object once. Returns 0 or EINVAL. */
JITUNWIND_API int jitunwind_pyreader_hold_reads(jitunwind_pyreader *reader, int hold);

#ifdef __cplusplus
}
#endif

#endif
