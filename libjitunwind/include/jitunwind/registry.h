/* The range registry: non-overlapping code ranges, each with an unwind rule.
 *
 * A debugger-side registry is filled from the target (the in-process
 * descriptor, a perf map, ...) and consulted by the unwinder for every PC.
 * Lookup is O(1) expected (a bucket index over the sorted array, built once
 * enough lookups follow a change; a binary search until then); add/remove
 * are O(n) in the worst case (a memmove) and O(1) when ranges arrive in
 * address order. A registry is not thread-safe: one thread at a time, for
 * lookups too (they may build the index). */
#ifndef JITUNWIND_REGISTRY_H
#define JITUNWIND_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "jitunwind/export.h"
#include "jitunwind/memory.h"
#include "jitunwind/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the caller of a frame whose PC lies in a range is found. W is the word
 * size (8). "fp" is RBP on x86-64 and x29 on AArch64.
 *
 * FP_PRESERVING: frameless code that never writes the frame pointer (CPython
 *   3.15 JIT executors, our test-bed stencils). The frame pointer still
 *   points at the frame record of the code that entered the range, so:
 *   caller pc = [fp + W], caller fp = [fp], caller sp = fp + frame_size
 *   (0: 2W, the record alone). The entering function (the shim) is thereby
 *   skipped, as with CPython's own CFI for executors; its frame_size is the
 *   CFA offset of that CFI (x86-64: 16; AArch64: the shim's whole frame,
 *   e.g. CFA = x29 + 96, whose record sits at the bottom).
 * TRAMPOLINE_FRAMED: x86-64 `[endbr64] push %rbp; mov %rsp,%rbp; call *%rcx;
 *   pop %rbp; ret` (CPython 3.14+), AArch64 `stp x29,x30,[sp,#-16]!;
 *   mov x29,sp; blr x3; ldp x29,x30,[sp],#16; ret` (all versions). The rule
 *   depends on the PC's offset inside the trampoline, including the
 *   instructions before the frame exists and after it is torn down.
 * TRAMPOLINE_SUB8: x86-64 `sub $8,%rsp; call *%rcx; add $8,%rsp; ret`
 *   (CPython 3.12, 3.13): no frame; the return address is at [sp + 8] while
 *   the callee runs, and the frame pointer is the caller's.
 * SCAN (x86-64): frameless code that may or may not keep the frame pointer
 *   (unknown JIT code; CPython 3.13/3.14 executors clobber it). Two
 *   candidates: the frame record at fp, if its return address follows a
 *   call; and the first word above sp, within JITUNWIND_SCAN_BYTES, that
 *   points into [scan_start, scan_end) (the function that called into the
 *   code, e.g. the eval loop) just after a call instruction (caller sp =
 *   that slot + 8). The nearer caller wins: a record that lies beyond the
 *   scanned-for function would skip its frame. After a scan, the caller's
 *   frame pointer is recovered when the function at scan_start has a
 *   fixed-size frame-pointer prologue and the word above the computed
 *   frame pointer is a return address; otherwise fp is passed on as it was.
 *   A heuristic: used for CPython's executors and for guessed ranges. */
enum jitunwind_rule {
    JITUNWIND_RULE_FP_PRESERVING = 1,
    JITUNWIND_RULE_TRAMPOLINE_FRAMED = 2,
    JITUNWIND_RULE_TRAMPOLINE_SUB8 = 3,
    JITUNWIND_RULE_SCAN = 4
};

#define JITUNWIND_SCAN_BYTES 4096u
#define JITUNWIND_MAX_FRAME_SIZE 65536u /* FP_PRESERVING frame_size */

enum jitunwind_range_kind {
    JITUNWIND_KIND_JIT = 1,        /* JIT-compiled code (an executor) */
    JITUNWIND_KIND_TRAMPOLINE = 2, /* perf-style trampoline(s) */
    JITUNWIND_KIND_OTHER = 3
};

/* Where a range came from, so that output can say how sure it is. */
enum jitunwind_range_origin {
    JITUNWIND_ORIGIN_USER = 0,       /* added directly by the caller */
    JITUNWIND_ORIGIN_DESCRIPTOR = 1, /* the target's jitunwind descriptor */
    JITUNWIND_ORIGIN_PERF_MAP = 2,   /* /tmp/perf-PID.map */
    JITUNWIND_ORIGIN_INTERPRETER = 3,/* the interpreter's own structures */
    JITUNWIND_ORIGIN_GUESS = 4       /* classified from memory mappings: a guess */
};

/* The words outputs use for a range's KIND, RULE and ORIGIN ("jit",
 * "fp-preserving", "perf-map", ...; "?" for an unknown value): static
 * strings, never NULL. */
JITUNWIND_API const char *jitunwind_range_kind_string(uint32_t kind);
JITUNWIND_API const char *jitunwind_range_rule_string(uint32_t rule);
JITUNWIND_API const char *jitunwind_range_origin_string(uint32_t origin);

/* One range [start, end). `stride` applies to trampoline rules: a range may
 * hold several copies of the trampoline at that stride (0 = one copy at
 * `start`). `frame_size` applies to FP_PRESERVING: 0, or a multiple of 8
 * from 16 to JITUNWIND_MAX_FRAME_SIZE. `name` is copied by add() and may be
 * NULL. `cookie` is the caller's (e.g. the address of the code object the
 * range runs). */
struct jitunwind_range {
    uint64_t start;
    uint64_t end;
    uint32_t kind;   /* enum jitunwind_range_kind */
    uint32_t rule;   /* enum jitunwind_rule */
    uint32_t stride;
    uint32_t origin; /* enum jitunwind_range_origin */
    uint64_t cookie;
    const char *name;
    uint64_t scan_start; /* RULE_SCAN only: where the caller's return address points */
    uint64_t scan_end;
    uint32_t frame_size; /* FP_PRESERVING only: caller sp = fp + frame_size (0: 2W) */
    uint32_t reserved;
};

#define JITUNWIND_NAME_MAX 512 /* longer names are truncated on add */

/* The largest range read from a target (every origin but USER): a size
 * from the target's descriptor, perf map, GDB JIT objects, executors or
 * trampoline arenas above this is corrupt and the range is refused (EINVAL
 * on add, counted as skipped by the loaders); the guesser skips mappings
 * larger than this. */
#define JITUNWIND_MAX_TARGET_RANGE (1ull << 30)

/* Threads: one thread at a time, lookups included (jitunwind.h). */
typedef struct jitunwind_registry jitunwind_registry;

/* A new, empty registry in *OUT: 0, or EINVAL (OUT NULL), ENOMEM, with
 * *OUT NULL (status.h's constructor contract). Free it with
 * jitunwind_registry_free. */
JITUNWIND_API int jitunwind_registry_new(jitunwind_registry **out);
/* Free REG (NULL is ignored); every range and name it returned with it. */
JITUNWIND_API void jitunwind_registry_free(jitunwind_registry *reg);

/* Add a copy of *RANGE to REG (its name copied). Returns 0, or EINVAL (REG
 * or RANGE NULL, an empty or wrapping range, an unknown kind or rule, a
 * bad frame_size, a target range over JITUNWIND_MAX_TARGET_RANGE),
 * EOVERLAP (it overlaps a registered range), ENOMEM. */
JITUNWIND_API int jitunwind_registry_add(jitunwind_registry *reg,
                                         const struct jitunwind_range *range);
/* Remove the range of REG that starts exactly at START: 0, ENOTFOUND
 * (none does), EINVAL (REG NULL). */
JITUNWIND_API int jitunwind_registry_remove(jitunwind_registry *reg, uint64_t start);
/* Remove every range of REG (NULL is ignored). */
JITUNWIND_API void jitunwind_registry_clear(jitunwind_registry *reg);

/* The range of REG containing PC, or NULL (also for REG NULL). The pointer
 * (and its name) stays valid until the next mutation of REG. */
JITUNWIND_API const struct jitunwind_range *
jitunwind_registry_lookup(const jitunwind_registry *reg, uint64_t pc);

/* Returns the number of ranges in REG (0 for NULL). */
JITUNWIND_API size_t jitunwind_registry_count(const jitunwind_registry *reg);
/* Range INDEX of REG in address order, or NULL (REG NULL, INDEX >= count);
 * valid until the next mutation of REG. */
JITUNWIND_API const struct jitunwind_range *
jitunwind_registry_at(const jitunwind_registry *reg, size_t index);

/* Returns a number that changes on every successful mutation of REG (add,
 * remove, clear, a load or guess that changed it), so a caller can tell
 * that its pointers went stale; 0 for NULL. */
JITUNWIND_API uint64_t jitunwind_registry_generation(const jitunwind_registry *reg);

/* Returns a 64-bit digest of REG's ranges: every field of every range, in
 * address order (names by their bytes). Equal registries give equal
 * digests; a caller may take an equal digest for "nothing changed" (a
 * target that forges a collision only keeps its own stale answer). 0 for
 * NULL; O(count), no allocation, so a caller can tell that 1,000,000
 * ranges are unchanged without copying them out. */
JITUNWIND_API uint64_t jitunwind_registry_digest(const jitunwind_registry *reg);
/* Returns how many ranges of REG have RULE (0 for NULL). */
JITUNWIND_API size_t jitunwind_registry_count_rule(const jitunwind_registry *reg, uint32_t rule);
/* Add a copy of every range of FROM to REG, as jitunwind_registry_add
 * would, in one call. Ranges that overlap REG's are left out and counted in
 * *SKIPPED (may be NULL; 0 on failure). Returns the number added, or EINVAL
 * (REG or FROM NULL, or the same registry), ENOMEM (REG then holds the
 * ranges added before). */
JITUNWIND_API int jitunwind_registry_add_all(jitunwind_registry *reg,
                                             const jitunwind_registry *from, size_t *skipped);

/* The last failure recorded in REG, never NULL; for a NULL REG,
 * jitunwind_last_error(). Valid until the next call on REG. */
JITUNWIND_API const struct jitunwind_error *
jitunwind_registry_last_error(const jitunwind_registry *reg);

/* Add to REG every line of the perf map file at PATH ("<hex start> <hex size>
 * <name>"). A line that overlaps ranges loaded from a perf map replaces them
 * (the later line wins: the code there was replaced, or an earlier process
 * with the same PID wrote the first lines); lines that do not parse or overlap
 * a range of another origin are skipped and counted in *SKIPPED (may be NULL);
 * *ADDED (may be NULL) counts the lines added, replaced later or not. Each
 * range gets kind TRAMPOLINE and a rule read from its machine code through MEM
 * (see jitunwind_classify_trampoline); ranges whose code is unreadable or not
 * a known trampoline layout are skipped, and so are lines over 4 KiB; reading
 * stops after 4 Mi lines (one more skipped, a warning logged). ARCH is enum
 * jitunwind_arch. Returns 0, or EINVAL (REG, PATH or MEM NULL, an unknown
 * ARCH), a negative status when PATH cannot be opened safely, EIO (a read
 * error, the ranges added before it kept); the reason in
 * jitunwind_registry_last_error. */
JITUNWIND_API int jitunwind_registry_load_perf_map(jitunwind_registry *reg,
                                                   const char *path, int arch,
                                                   const struct jitunwind_memory *mem,
                                                   size_t *added, size_t *skipped);

/* The same from the jitdump file at PATH (/tmp/jit-PID.dump, perf's format,
 * which CPython writes under `-X perf_jit` instead of a perf map) into REG:
 * each JIT_CODE_LOAD record's code becomes a range as a perf-map line does
 * (origin PERF_MAP, its name, a rule for ARCH read from its code through
 * MEM); other records are stepped over. A record cut short (the process
 * still writing it) ends the file; *ADDED and *SKIPPED (each may be NULL)
 * as above. Returns 0, or EINVAL (REG, PATH or MEM NULL, an unknown ARCH),
 * EUNSUPPORTED when the file is not a version 1 jitdump of the host's byte
 * order, or the failure to open PATH; the reason in
 * jitunwind_registry_last_error. */
JITUNWIND_API int jitunwind_registry_load_jitdump(jitunwind_registry *reg, const char *path,
                                                  int arch, const struct jitunwind_memory *mem,
                                                  size_t *added, size_t *skipped);

/* Switch every GUESS range of kind JIT in REG to RULE_SCAN towards [START,
 * END) (the eval loop's code): for interpreters whose JIT code does not
 * keep the frame pointer. Returns the number of ranges changed (0 for REG
 * NULL or an empty [START, END)). */
JITUNWIND_API size_t jitunwind_registry_scan_guesses(jitunwind_registry *reg, uint64_t start,
                                                     uint64_t end);

/* --- Last resort: guesses from anonymous executable mappings ---
 *
 * A mapping of a process with no file behind it and execute permission. */
struct jitunwind_mapping {
    uint64_t start;
    uint64_t end;
};

#define JITUNWIND_MAX_MAPPINGS 65536u

/* The anonymous r-x mappings of live process PID (/proc/PID/maps) into OUT
 * (at most MAX; OUT may be NULL when MAX is 0); *COUNT gets the number.
 * Returns 0, or EINVAL (COUNT NULL, OUT NULL with MAX > 0, PID <= 0), EIO
 * (no maps file), ELIMIT (more than MAX: the first MAX are written). */
JITUNWIND_API int jitunwind_anonymous_exec_mappings(int pid, struct jitunwind_mapping *out,
                                                    size_t max, size_t *count);

/* The same for the core file at CORE_PATH, into OUT (at most MAX; may be
 * NULL when MAX is 0) and *COUNT: executable PT_LOAD segments whose
 * contents were dumped, that no file of the NT_FILE note covers and that
 * are not an ELF image (the vDSO). Returns 0, or EINVAL (CORE_PATH or
 * COUNT NULL, OUT NULL with MAX > 0), EIO, EELF, ELIMIT. */
JITUNWIND_API int jitunwind_core_anonymous_exec_mappings(const char *core_path,
                                                         struct jitunwind_mapping *out,
                                                         size_t max, size_t *count);

/* Add to REG a GUESS range for each of the N mappings at MAPS (NULL when N is
 * 0; N at most JITUNWIND_MAX_MAPPINGS) that overlaps no registered range,
 * reading their first bytes through MEM: a trampoline arena (kind TRAMPOLINE,
 * stride found from the copies) when its first bytes are a known trampoline,
 * otherwise JIT code assumed to be frameless and frame-pointer preserving
 * (kind JIT, rule FP_PRESERVING). Names start with "guess:" so output can say
 * so. *ADDED (may be NULL) gets the count. Returns 0 (a mapping that cannot
 * be added is passed over), or EINVAL (REG or MEM NULL, an unknown ARCH, too
 * many mappings). */
JITUNWIND_API int jitunwind_registry_add_guesses(jitunwind_registry *reg,
                                                 const struct jitunwind_memory *mem, int arch,
                                                 const struct jitunwind_mapping *maps, size_t n,
                                                 size_t *added);

#ifdef __cplusplus
}
#endif

#endif
