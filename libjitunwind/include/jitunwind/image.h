/* ELF images that let a stock debugger unwind through registered ranges.
 *
 * gdb and LLDB (19 and later) unwind through code they have an ELF image
 * for: its sections at the run-time addresses, .eh_frame for the caller's
 * registers and .symtab for names. This writes such an image for a set of
 * ranges, with no program headers and no code bytes: ET_EXEC, one
 * SHT_NOBITS executable section per run of adjacent ranges (so that images
 * of different ranges never overlap), one function symbol per range named
 * by jitunwind_range_label(), and CFI rows that say what the range's rule
 * says (unwind.h, jitunwind_step_range):
 *   FP_PRESERVING    CFA = fp + frame_size (16 when 0), the return address
 *                    and the caller's fp in the frame record at the CFA's
 *                    bottom;
 *   TRAMPOLINE_SUB8  (x86-64) one row per state of `sub $8; call; add $8;
 *                    ret`; TRAMPOLINE_FRAMED: per state of the push/stp,
 *                    mov, call, pop/ldp and ret; one FDE per copy of a
 *                    multi-copy range (its stride), after a landing pad
 *                    when the copy starts with one (read through `mem`; no
 *                    reader or an unreadable head: none, as the unwinder
 *                    takes it).
 *   SCAN             no static CFI can say it (the caller's slot depends
 *                    on the stack): the range gets its symbol and no FDE.
 * Such an image can be registered through the GDB JIT interface (gdb_jit.h
 * side: jitunwind_jit_set_gdb_jit) or written to a file for
 * `target modules add F` + `target modules load --file F --slide 0` (LLDB)
 * or `add-symbol-file F` (gdb). */
#ifndef JITUNWIND_IMAGE_H
#define JITUNWIND_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "jitunwind/export.h"
#include "jitunwind/memory.h"
#include "jitunwind/registry.h"
#include "jitunwind/status.h"
#include "jitunwind/unwind.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a JIT or trampoline frame is shown: "<name> [<kind> <rule>]", e.g.
 * "py::jit:hot [jit fp-preserving]", "py::f4:app.py [trampoline sub8]";
 * an FP_PRESERVING rule whose frame size is not 16 shows it
 * ("fp-preserving/96"); no name: "??". Writes at most `size` bytes
 * (NUL-terminated when size > 0) and returns the full length, as
 * snprintf. */
JITUNWIND_API int jitunwind_range_label(const struct jitunwind_range *range, char *buf,
                                        size_t size);

/* What went into an image. */
struct jitunwind_elf_image_info {
    uint64_t ranges;      /* symbols written */
    uint64_t with_cfi;    /* ranges described by FDEs */
    uint64_t without_cfi; /* ranges whose rule has no static CFI (SCAN) */
    uint64_t fdes;        /* FDEs written (one per trampoline copy) */
    uint64_t sections;    /* code sections (runs of adjacent ranges) */
    uint64_t stop_rows;   /* FDEs of one pc at one stop (write_file_at_stop) */
    uint64_t left_out;    /* ranges not written: past the FDE or section cap (below) */
};

#define JITUNWIND_ELF_IMAGE_MAX_FDES (1u << 22)

/* An empty section of that name marks the images this library writes;
 * jitunwind_registry_load_gdb_jit (jit.h) passes over them (their ranges
 * are in the writer's jitunwind descriptor, with their rules). */
#define JITUNWIND_IMAGE_MARKER ".jitunwind"

/* Write the image of `ranges` (n of them, in address order, not
 * overlapping) for `arch` (enum jitunwind_arch) into a new buffer; free
 * it with jitunwind_elf_image_free(). `mem` (may be NULL) reads the first
 * bytes of trampoline copies. `info` may be NULL. An image holds at most
 * JITUNWIND_ELF_IMAGE_MAX_FDES FDEs and 65,272 code sections (one per run
 * of adjacent ranges; ELF numbers sections in 16 bits): the ranges past
 * either cap, in address order, are left out and counted in
 * info->left_out, the image holding those before. Errors: EINVAL
 * (unsorted or overlapping ranges, unknown arch), ELIMIT (this stop's SCAN
 * rows past the FDE cap), ENOMEM, EELF, EIO. */
JITUNWIND_API int jitunwind_elf_image_write(int arch, const struct jitunwind_range *ranges,
                                            size_t n, const struct jitunwind_memory *mem,
                                            void **image, size_t *size,
                                            struct jitunwind_elf_image_info *info);
/* The same for every range of a registry. */
JITUNWIND_API int jitunwind_elf_image_write_registry(int arch, const jitunwind_registry *reg,
                                                     const struct jitunwind_memory *mem,
                                                     void **image, size_t *size,
                                                     struct jitunwind_elf_image_info *info);
/* The same into the file `path`, replaced atomically (a reader never sees
 * half an image). */
JITUNWIND_API int jitunwind_elf_image_write_file(int arch, const jitunwind_registry *reg,
                                                 const struct jitunwind_memory *mem,
                                                 const char *path,
                                                 struct jitunwind_elf_image_info *info);
JITUNWIND_API void jitunwind_elf_image_free(void *image); /* NULL ok */

/* The same, and for the ranges whose rule has no static CFI (SCAN): the
 * rows of this stop. Each thread is walked from its registers in
 * `threads` (with the CFI of `mods`, may be NULL); every frame whose pc
 * lies in such a range and whose caller was found gets a one-byte FDE at
 * the address debuggers look that frame up at (the pc of the innermost
 * frame, else just inside the call), saying where this stop's caller is:
 * CFA = sp + the distance to the caller's sp, the return address below
 * it, the caller's frame pointer kept, saved or given as CFA + k. Valid
 * for this stop only: the image must be rewritten at the next one (the
 * LLDB plugin's stop hook does). Two threads stopped at the same pc with
 * different stacks: one of their rows is kept, the other thread's frame
 * there unwinds by it (wrongly). */
JITUNWIND_API int jitunwind_elf_image_write_file_at_stop(
    int arch, const jitunwind_registry *reg, struct jitunwind_modules *mods,
    const struct jitunwind_memory *mem, const struct jitunwind_regs *threads, size_t nthreads,
    const char *path, struct jitunwind_elf_image_info *info);

/* --- Publishing in-process registrations through the GDB JIT interface ---
 *
 * Opt-in: jitunwind_jit_set_gdb_jit(mode), or JITUNWIND_GDB_JIT=1 (EACH)
 * or =batched (BATCHED) in the environment when the library is loaded.
 * From then on every range registered with jitunwind_jit_register
 * (jit.h), including those registered before, goes into an ELF image of
 * the above kind that is linked into `__jit_debug_descriptor` and
 * announced by calling `__jit_debug_register_code`, both defined and
 * exported by this library. gdb and LLDB (JITLoaderGDB, on by default on
 * Linux) read those images when they attach and whenever the function is
 * called, so their own `bt` unwinds through the ranges and names them,
 * with no plugin.
 *
 * Batching: gdb's reader grows quadratically with the number of entries,
 * so ranges are grouped, JITUNWIND_GDB_JIT_RANGES_PER_OBJECT per image. A
 * new range goes into the newest image; a full image is kept as it is
 * until one of its ranges is unregistered, which rebuilds that image
 * alone, at once (a stale image would name memory that may be reused).
 *   EACH     the newest image is rebuilt and re-announced (unregister,
 *            register) for every new range: always current, but each
 *            registration costs an image of up to that many ranges and
 *            two stops of an attached debugger (tests/bench/
 *            bench_gdb_jit_publish.py measures it).
 *   BATCHED  the newest image is announced when it is full and by
 *            jitunwind_jit_gdb_jit_flush() (e.g. once per compilation
 *            batch); ranges registered since are not yet visible to a
 *            debugger, but a debugger attaching later sees everything
 *            flushed.
 *
 * Another owner of the interface: a process whose executable or an
 * earlier library defines the two symbols too (CPython 3.15 does) has its
 * own list. This library writes its own definitions, bound locally, never
 * through the interposable names, so the two writers never share a list
 * or a lock; but debuggers read only the first definition (gdb 13 reads
 * the first `__jit_debug_descriptor` even when the breakpoint in this
 * library is hit, LLDB 19 sets one breakpoint, on the first), so such
 * images are not seen: `foreign` in the status says so. With
 * JITUNWIND_GDB_JIT_SHARE_FOREIGN added to the mode, the images are linked
 * into the first definition's list and announced through its function
 * instead, and debuggers see them beside the owner's objects. The
 * interface has no locking protocol: the caller must make sure the owner
 * never writes the list at the same time (CPython 3.15 writes it with its
 * JIT's lock; register and unregister with that held, or while the owner
 * is known not to compile). A library loaded later that binds to this
 * library's definitions (its own interposed away) shares this list
 * without sharing its lock, the same race. */
enum jitunwind_gdb_jit_mode {
    JITUNWIND_GDB_JIT_OFF = 0,
    JITUNWIND_GDB_JIT_EACH = 1,
    JITUNWIND_GDB_JIT_BATCHED = 2,
    JITUNWIND_GDB_JIT_SHARE_FOREIGN = 0x100 /* added to EACH or BATCHED; see above */
};
#define JITUNWIND_GDB_JIT_RANGES_PER_OBJECT 256u

struct jitunwind_gdb_jit_status {
    uint32_t enabled;   /* enum jitunwind_gdb_jit_mode */
    uint32_t foreign;   /* another definition of __jit_debug_descriptor comes first */
    uint64_t objects;   /* images linked now */
    uint64_t ranges;    /* ranges in them */
    uint64_t publishes; /* images registered so far */
    uint64_t failures;  /* images that could not be written (the old one stays) */
    uint32_t shared;    /* the images are in the foreign list (SHARE_FOREIGN) */
    uint32_t reserved;
};

/* Turn publishing on (EACH, BATCHED, either | SHARE_FOREIGN: anything
 * registered so far is announced now) or off (OFF: every image is
 * unregistered), or change between EACH and BATCHED. Returns 0, EINVAL for
 * an unknown mode or a change of SHARE_FOREIGN while on, or EUNSUPPORTED
 * when the library does not know the host's architecture. Thread-safe. */
JITUNWIND_API int jitunwind_jit_set_gdb_jit(int mode);
/* BATCHED: announce the ranges registered since the last announcement. */
JITUNWIND_API void jitunwind_jit_gdb_jit_flush(void);
JITUNWIND_API void jitunwind_jit_gdb_jit_status(struct jitunwind_gdb_jit_status *out);

#ifdef __cplusplus
}
#endif

#endif
