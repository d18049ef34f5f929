/* The unwinder: steps from a frame's registers to its caller's.
 *
 * For a PC inside a registered range the range's rule is applied; otherwise
 * (unless disabled) a guarded frame-pointer step. Every frame records how it
 * was found, and a walk records why it stopped. Stepping never allocates:
 * the cursor is a plain caller-owned struct.
 *
 * Guards: the caller's sp must not be below the callee's (and may equal it
 * only for a step that used the link register); a repeated (pc, sp) pair is a
 * loop; the depth is capped; a zero or unreadable return address ends or
 * stops the walk with a reason. */
#ifndef JITUNWIND_UNWIND_H
#define JITUNWIND_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "jitunwind/export.h"
#include "jitunwind/memory.h"
#include "jitunwind/registry.h"
#include "jitunwind/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct jitunwind_modules; /* modules.h */

enum jitunwind_arch {
    JITUNWIND_ARCH_X86_64 = 1,
    JITUNWIND_ARCH_AARCH64 = 2
};

/* Returns the architecture this library was compiled for (enum
 * jitunwind_arch), 0 if neither. */
JITUNWIND_API int jitunwind_host_arch(void);

/* Returns the address to look a frame's PC up at (ranges, symbols, CFI,
 * lines) on ARCH: PC itself when INNERMOST is non-zero, else the
 * architecture's return address adjusted back into the call that returns
 * to it, so that a call ending a function or a range is attributed to it.
 * Debugger plugins ask this rather than subtracting themselves. PC
 * unchanged for an unknown ARCH. */
JITUNWIND_API uint64_t jitunwind_lookup_address(int arch, uint64_t pc, int innermost);

/* Register validity bits. */
#define JITUNWIND_REG_PC (1u << 0)
#define JITUNWIND_REG_SP (1u << 1)
#define JITUNWIND_REG_FP (1u << 2)
#define JITUNWIND_REG_LR (1u << 3) /* AArch64 x30; only meaningful in the innermost frame */

struct jitunwind_regs {
    uint64_t pc;
    uint64_t sp;
    uint64_t fp;
    uint64_t lr;
    uint32_t valid; /* JITUNWIND_REG_* */
    uint32_t reserved;
};

#define JITUNWIND_DWARF_REGS 32u

/* A frame's registers by DWARF number (x86-64: rax 0 ... r15 15; AArch64:
 * x0 0 ... x30 30, sp 31), `value[n]` known when bit n of `valid` is set,
 * and its pc (the return address in every frame but the innermost). */
struct jitunwind_dwarf_regs {
    uint64_t pc;
    uint64_t value[JITUNWIND_DWARF_REGS];
    uint64_t valid;
};

/* How a frame was found. */
enum jitunwind_frame_source {
    JITUNWIND_SOURCE_INITIAL = 1, /* the registers the walk started from */
    JITUNWIND_SOURCE_RULE = 2,    /* the callee's PC was in a registered range */
    JITUNWIND_SOURCE_FP = 3,      /* guarded frame-pointer step */
    JITUNWIND_SOURCE_LR = 4,      /* AArch64 link register of the innermost frame */
    JITUNWIND_SOURCE_CFI = 5      /* DWARF CFI of the callee's module */
};

/* Why a walk stopped. */
enum jitunwind_stop_reason {
    JITUNWIND_STOP_NONE = 0,        /* not stopped yet */
    JITUNWIND_STOP_END = 1,         /* clean end: return address or fp is 0 */
    JITUNWIND_STOP_UNREADABLE = 2,  /* a needed word of target memory was unreadable */
    JITUNWIND_STOP_LOOP = 3,        /* (pc, sp) repeated */
    JITUNWIND_STOP_SP_ORDER = 4,    /* the caller's sp is below the callee's */
    JITUNWIND_STOP_DEPTH = 5,       /* the depth cap was reached */
    JITUNWIND_STOP_NO_RULE = 6,     /* no rule and the FP fallback is disabled */
    JITUNWIND_STOP_NEED_REGISTER = 7,/* the rule needs a register that is not valid */
    JITUNWIND_STOP_BAD_FRAME = 8    /* misaligned fp/sp or another implausible value */
};

/* REASON (enum jitunwind_stop_reason) and SOURCE (enum
 * jitunwind_frame_source) in words: static strings, never NULL ("unknown
 * ..." for an unknown value). */
JITUNWIND_API const char *jitunwind_stop_reason_string(int reason);
JITUNWIND_API const char *jitunwind_frame_source_string(int source);

struct jitunwind_frame {
    struct jitunwind_regs regs;
    uint32_t source; /* enum jitunwind_frame_source */
    uint32_t depth;  /* 0 = innermost */
    /* The registered range containing regs.pc, or NULL. Valid while the
     * registry is not mutated. */
    const struct jitunwind_range *range;
};

#define JITUNWIND_DEFAULT_MAX_DEPTH 1024u

#define JITUNWIND_UNWIND_NO_FP_FALLBACK (1u << 0)

/* A walk in progress, in storage the caller allocates (on the stack, say):
 * its contents are private to the library, their layout may change between
 * releases, and only its size is part of the ABI. Safe to copy: a copy
 * continues the walk from the same frame independently of the original.
 * Threads: one thread at a time, and its registry and modules are in use
 * while it steps (jitunwind.h). */
#define JITUNWIND_CURSOR_WORDS 64
struct jitunwind_cursor {
    uint64_t opaque[JITUNWIND_CURSOR_WORDS];
};

/* Start a walk in CURSOR on ARCH (enum jitunwind_arch) at INITIAL (pc and
 * sp required; fp needed by most steps). REGISTRY may be NULL (a pure
 * frame-pointer walk); MEM is copied, its `arg` must outlive the walk, and
 * REGISTRY must not change while the walk goes on. MAX_DEPTH 0 means
 * JITUNWIND_DEFAULT_MAX_DEPTH; FLAGS: JITUNWIND_UNWIND_*. Returns 0, or
 * EINVAL (CURSOR, MEM or INITIAL NULL, MEM refused by its size, an unknown
 * ARCH, pc or sp not valid). Nothing to free. */
JITUNWIND_API int jitunwind_cursor_init(struct jitunwind_cursor *cursor, int arch,
                                        const jitunwind_registry *registry,
                                        const struct jitunwind_memory *mem,
                                        const struct jitunwind_regs *initial,
                                        uint32_t max_depth, uint32_t flags);

/* The next frame of CURSOR's walk into *OUT: the first call gives the
 * initial frame. Returns 1 when *OUT holds a frame, 0 when the walk has
 * ended (jitunwind_cursor_stop_reason says why; later calls return 0 too),
 * or EINVAL when CURSOR or OUT is NULL. OUT->range points into the
 * registry: valid while it does not change. */
JITUNWIND_API int jitunwind_cursor_step(struct jitunwind_cursor *cursor,
                                        struct jitunwind_frame *out);

/* Returns why CURSOR's walk ended (enum jitunwind_stop_reason); STOP_NONE
 * while it goes on, or for a NULL CURSOR. */
JITUNWIND_API int jitunwind_cursor_stop_reason(const struct jitunwind_cursor *cursor);

/* Use the CFI of MODULES (modules.h) for native frames outside registered
 * ranges, before the frame-pointer fallback; NULL turns it off. MODULES must
 * outlive the walk. A NULL CURSOR is ignored. */
JITUNWIND_API void jitunwind_cursor_set_modules(struct jitunwind_cursor *cursor,
                                                struct jitunwind_modules *modules);

/* Give CURSOR's initial frame the other registers a call preserves, from
 * REGS (those valid in it of x86-64's rbx and r12-r15, AArch64's x19-x28;
 * its pc, sp, fp and lr are not used: the walk has them from its start).
 * CFI steps carry them outward, restoring each from where a frame saved
 * it, and a CFA or saved-register rule that needs one has it: a function
 * that realigns its stack defines its CFA from such a register (ld.so's
 * lazy-binding resolver from rbx), and a walk without them stops there
 * (NEED_REGISTER). A step by a range's rule or by the frame-pointer
 * fallback forgets them (where that frame saved them is unknown). Call
 * after jitunwind_cursor_init, before the first step. Returns 0, or EINVAL
 * (CURSOR or REGS NULL, or the walk has begun). */
JITUNWIND_API int jitunwind_cursor_set_registers(struct jitunwind_cursor *cursor,
                                                 const struct jitunwind_dwarf_regs *regs);

/* A whole walk, as jitunwind_cursor_init and _step give it from ARCH,
 * REGISTRY, MEM, INITIAL and FLAGS, into FRAMES (at most MAX; NULL when MAX
 * is 0), with CFI from MODULES (may be NULL). Returns the number of frames
 * (>= 0), or EINVAL as jitunwind_cursor_init or for FRAMES NULL with MAX >
 * 0 (*STOP_REASON then untouched); *STOP_REASON (may be NULL) gets why the
 * walk ended (DEPTH when MAX was reached first). FRAMES[i].range points
 * into REGISTRY, valid while it does not change. Threads: REGISTRY and
 * MODULES are in use during the call. */
JITUNWIND_API int jitunwind_unwind(int arch, const jitunwind_registry *registry,
                                   struct jitunwind_modules *modules,
                                   const struct jitunwind_memory *mem,
                                   const struct jitunwind_regs *initial,
                                   struct jitunwind_frame *frames, size_t max,
                                   uint32_t flags, int *stop_reason);

/* Apply RANGE's rule on ARCH: into *OUT the caller's registers of a frame
 * whose registers are IN and whose pc lies in RANGE, reading the stack through
 * MEM. INNERMOST says whether IN is the innermost frame (only then are LR and
 * the instruction-level trampoline states trusted; any other frame's pc is a
 * return address and may equal RANGE's end). Returns 0, EINVAL (RANGE, MEM,
 * IN or OUT NULL, an unknown ARCH, no pc in IN or one outside RANGE;
 * *STOP_REASON untouched), or another negative status (EINVAL with
 * NEED_REGISTER for an FP_PRESERVING range and no fp in IN); *STOP_REASON
 * (may be NULL) gets STOP_NONE on success, else why (UNREADABLE,
 * NEED_REGISTER, BAD_FRAME, END). */
JITUNWIND_API int jitunwind_step_range(int arch, const struct jitunwind_range *range,
                                       const struct jitunwind_memory *mem,
                                       const struct jitunwind_regs *in, int innermost,
                                       struct jitunwind_regs *out, int *stop_reason);

/* jitunwind_step_range (ARCH, RANGE, MEM, IN, INNERMOST, OUT and STOP_REASON
 * as there, and the same returns) with the ranges of REGISTRY at hand (NULL:
 * the same as jitunwind_step_range): a SCAN step then also stops at the
 * nearest return address into a CPython executor's code (kind JIT, origin
 * INTERPRETER, rule SCAN) before the scanned-for function, so the executor's
 * shim, which called the trace, is its own frame (x86-64 3.13/3.14).
 * jitunwind_unwind does this with its registry. */
JITUNWIND_API int jitunwind_step_range_in(int arch, const jitunwind_registry *registry,
                                          const struct jitunwind_range *range,
                                          const struct jitunwind_memory *mem,
                                          const struct jitunwind_regs *in, int innermost,
                                          struct jitunwind_regs *out, int *stop_reason);

/* The guarded frame-pointer step used outside registered ranges: the
 * caller of the frame IN from the frame record at its fp, into *OUT. 0,
 * EINVAL (MEM, IN or OUT NULL, an unknown ARCH, no fp in IN: STOP
 * NEED_REGISTER), ECORRUPT (a misaligned sp on AArch64), or the record's
 * failure; *STOP_REASON (may be NULL) as for jitunwind_step_range. */
JITUNWIND_API int jitunwind_step_fp(int arch, const struct jitunwind_memory *mem,
                                    const struct jitunwind_regs *in,
                                    struct jitunwind_regs *out, int *stop_reason);

/* Recognise a trampoline on ARCH from its first LEN bytes at CODE (give at
 * least 16 on x86-64 and 24 on AArch64, or the whole copy if shorter; fewer
 * bytes than the layout gives ENOTFOUND). An x86-64 endbr64 or AArch64 `bti c`
 * prefix is accepted. Returns JITUNWIND_RULE_TRAMPOLINE_FRAMED or
 * JITUNWIND_RULE_TRAMPOLINE_SUB8, or ENOTFOUND, or EINVAL (CODE NULL, an
 * unknown ARCH). Reads nothing but CODE. */
JITUNWIND_API int jitunwind_classify_trampoline(int arch, const uint8_t *code, size_t len);

#ifdef __cplusplus
}
#endif

#endif
