/* ELF images that let a stock debugger (gdb, LLDB 19+) unwind through
 * registered ranges and name them: sections at run-time addresses, CFI
 * rows that say what each range's rule says, one symbol per range; and
 * the opt-in publishing of in-process registrations through the GDB JIT
 * interface. docs/jit.md ("ELF images for stock debuggers") explains the
 * image, the rows per rule, batching and another owner of the interface. */
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

/* How the frame of RANGE is shown: "<name> [<kind> <rule>]", e.g.
 * "py::jit:hot [jit fp-preserving]", "py::f4:app.py [trampoline sub8]";
 * an FP_PRESERVING rule whose frame size is not 16 shows it
 * ("fp-preserving/96"); no name: "??"; the name escaped
 * (jitunwind_text_escape). Writes at most SIZE bytes to BUF (NUL-terminated
 * when SIZE > 0; BUF may be NULL when SIZE is 0) and returns the full
 * length, as snprintf, or EINVAL (RANGE NULL). */
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

/* Write the image of RANGES (N of them, in address order, not overlapping;
 * NULL when N is 0) for ARCH (enum jitunwind_arch) into a new buffer: *IMAGE
 * and *SIZE, owned by the caller, freed with jitunwind_elf_image_free. MEM
 * (may be NULL) reads the first bytes of trampoline copies. INFO (may be NULL)
 * gets what went in. Returns 0, or a negative status below. An image holds at
 * most JITUNWIND_ELF_IMAGE_MAX_FDES FDEs and 65,272 code sections (one per run
 * of adjacent ranges; ELF numbers sections in 16 bits): the ranges past either
 * cap, in address order, are left out and counted in info->left_out, the image
 * holding those before. Errors: EINVAL (IMAGE or SIZE NULL, unsorted or
 * overlapping ranges, unknown ARCH), ELIMIT (this stop's SCAN rows past the
 * FDE cap), ENOMEM, EELF, EIO. */
JITUNWIND_API int jitunwind_elf_image_write(int arch, const struct jitunwind_range *ranges,
                                            size_t n, const struct jitunwind_memory *mem,
                                            void **image, size_t *size,
                                            struct jitunwind_elf_image_info *info);
/* The same (ARCH, MEM, IMAGE, SIZE and INFO as above; free *IMAGE with
 * jitunwind_elf_image_free) for every range of REG (EINVAL when NULL), and
 * the same returns. Threads: REG is in use during the call (jitunwind.h). */
JITUNWIND_API int jitunwind_elf_image_write_registry(int arch, const jitunwind_registry *reg,
                                                     const struct jitunwind_memory *mem,
                                                     void **image, size_t *size,
                                                     struct jitunwind_elf_image_info *info);
/* The same (ARCH, REG, MEM and INFO as above) into the file PATH (EINVAL
 * when NULL or too long for a temporary name beside it), replaced
 * atomically (a reader never sees half an image); nothing to free. Returns
 * as above, or EIO when the file cannot be written. */
JITUNWIND_API int jitunwind_elf_image_write_file(int arch, const jitunwind_registry *reg,
                                                 const struct jitunwind_memory *mem,
                                                 const char *path,
                                                 struct jitunwind_elf_image_info *info);
/* Free an IMAGE written above (NULL is ignored). */
JITUNWIND_API void jitunwind_elf_image_free(void *image);

/* jitunwind_elf_image_write_file (ARCH, REG, PATH, INFO and the returns as
 * there), and for the ranges whose rule has no static CFI (SCAN): the rows of
 * this stop. Each of the NTHREADS threads is walked
 * from its registers in THREADS (NULL when NTHREADS is 0) through MEM
 * (required here), with the CFI of MODS (may be NULL); every frame whose pc
 * lies in such a range and whose caller was found gets a one-byte FDE at the
 * address debuggers look that frame up at (the pc of the innermost frame, else
 * just inside the call), saying where this stop's caller is: CFA = sp + the
 * distance to the caller's sp, the return address below it, the caller's frame
 * pointer kept, saved or given as CFA + k. Valid for this stop only: the image
 * must be rewritten at the next one (the LLDB plugin's stop hook does). Two
 * threads stopped at the same pc with different stacks: one of their rows is
 * kept, the other thread's frame there unwinds by it (wrongly). EINVAL when
 * PATH, REG or MEM is NULL, or THREADS NULL with NTHREADS > 0. Threads: REG
 * and MODS are in use. */
JITUNWIND_API int jitunwind_elf_image_write_file_at_stop(
    int arch, const jitunwind_registry *reg, struct jitunwind_modules *mods,
    const struct jitunwind_memory *mem, const struct jitunwind_regs *threads, size_t nthreads,
    const char *path, struct jitunwind_elf_image_info *info);

/* --- Publishing in-process registrations through the GDB JIT interface ---
 *
 * Opt-in (jitunwind_jit_set_gdb_jit, or JITUNWIND_GDB_JIT=1 / =batched in
 * the environment when the library is loaded): every range registered
 * with jitunwind_jit_register goes into images linked into this library's
 * own `__jit_debug_descriptor`. EACH announces every new range at once;
 * BATCHED when an image is full and at jitunwind_jit_gdb_jit_flush;
 * SHARE_FOREIGN uses an earlier definition's list instead (the caller
 * must keep its owner from writing it meanwhile). docs/jit.md says how,
 * and what each costs. */
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

/* Turn publishing on (MODE EACH, BATCHED, either | SHARE_FOREIGN: anything
 * registered so far is announced now) or off (OFF: every image is
 * unregistered), or change between EACH and BATCHED. Returns 0, EINVAL for
 * an unknown mode or a change of SHARE_FOREIGN while on, or EUNSUPPORTED
 * when the library does not know the host's architecture. Thread-safe. */
JITUNWIND_API int jitunwind_jit_set_gdb_jit(int mode);
/* BATCHED: announce the ranges registered since the last announcement
 * (nothing to do otherwise). Thread-safe. */
JITUNWIND_API void jitunwind_jit_gdb_jit_flush(void);
/* The state of publishing into *OUT (NULL is ignored). Thread-safe. */
JITUNWIND_API void jitunwind_jit_gdb_jit_status(struct jitunwind_gdb_jit_status *out);

#ifdef __cplusplus
}
#endif

#endif
