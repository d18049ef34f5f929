/* A native frame's variables without the debugger's own unwinding: every
 * register a call preserves carried outward by CFI (jitunwind_step_cfi
 * tracks only pc, sp, fp and lr), and a variable's DWARF location read at
 * a frame's pc with those registers. A debugger whose frames miss a frame
 * (an unwinder confused by a function split into hot and cold parts), or
 * lists frames without variables (LLDB's scripted frames), reads the
 * frame's arguments this way. */
#ifndef JITUNWIND_NATIVE_VARIABLES_H
#define JITUNWIND_NATIVE_VARIABLES_H

#include <stdint.h>

#include "jitunwind/export.h"
#include "jitunwind/memory.h"
#include "jitunwind/modules.h"
#include "jitunwind/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JITUNWIND_DWARF_REGS 32u

/* A frame's registers by DWARF number (x86-64: rax 0 ... r15 15; AArch64:
 * x0 0 ... x30 30, sp 31), `value[n]` known when bit n of `valid` is set,
 * and its pc (the return address in every frame but the innermost). */
struct jitunwind_dwarf_regs {
    uint64_t pc;
    uint64_t value[JITUNWIND_DWARF_REGS];
    uint64_t valid;
};

/* One CFI step on ARCH (as jitunwind_step_cfi) from IN to the caller's
 * registers in *OUT: its pc, its sp (the frame's CFA) and each register a
 * call preserves, restored from where the frame's CFI saved it or else
 * kept; a register IN lacks, or that CFI marks undefined, is not valid in
 * OUT, nor is any register a call may change. Returns 0, EINVAL (MODS, MEM,
 * IN or OUT NULL, IN without sp), ENOTFOUND (no module or FDE covers the
 * pc, or CFI says the frame is the outermost), or another negative
 * status when a rule cannot be evaluated. */
JITUNWIND_API int jitunwind_step_cfi_registers(int arch, jitunwind_modules *mods,
                                               const struct jitunwind_memory *mem,
                                               const struct jitunwind_dwarf_regs *in,
                                               int innermost, struct jitunwind_dwarf_regs *out);

/* Into *VALUE the value of the pointer-sized variable or parameter NAME of
 * the innermost function running at REGS->pc (a function inlined there,
 * else the concrete one, then the scopes outside it), from the DWARF of
 * its module (its own .debug_info or its separate debug file under the
 * debug roots) and REGS, reading memory through MEM; CFA is the frame's
 * canonical frame address (its caller's sp), for a location relative to
 * the frame base. A location this evaluator does not follow (an entry
 * value, a piece, a register REGS lacks) is EUNSUPPORTED; no variable by
 * that name, or none with a location at that pc, is ENOTFOUND. Returns 0,
 * EINVAL (a NULL argument), EREAD. */
JITUNWIND_API int jitunwind_native_variable(int arch, jitunwind_modules *mods,
                                            const struct jitunwind_memory *mem,
                                            const struct jitunwind_dwarf_regs *regs,
                                            int innermost, uint64_t cfa, const char *name,
                                            uint64_t *value);

#ifdef __cplusplus
}
#endif

#endif
