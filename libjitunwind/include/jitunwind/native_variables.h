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

/* struct jitunwind_dwarf_regs, a frame's registers by DWARF number: unwind.h. */

/* One CFI step on ARCH with the CFI of MODS (as jitunwind_step_cfi, INNERMOST
 * too) from IN to the caller's registers in *OUT: its pc, its sp (the
 * frame's CFA) and each register a call preserves, restored from where the
 * frame's CFI saved it, or else (CFI does not name it, or marks it
 * undefined) kept from IN. A preserved register IN lacks and CFI does not
 * restore, one whose rule cannot be evaluated, and any register a call may
 * change are not valid in OUT. Returns 0, EINVAL (MODS, MEM, IN or OUT
 * NULL, IN without sp), EUNSUPPORTED (an unknown ARCH), ENOTFOUND (no
 * module or FDE covers the pc, or CFI says the frame is the outermost), or
 * another negative status when the CFA or the return address cannot be
 * evaluated. */
JITUNWIND_API int jitunwind_step_cfi_registers(int arch, jitunwind_modules *mods,
                                               const struct jitunwind_memory *mem,
                                               const struct jitunwind_dwarf_regs *in,
                                               int innermost, struct jitunwind_dwarf_regs *out);

/* Into *VALUE the value of the pointer-sized variable or parameter NAME of
 * the innermost function running at REGS->pc (a function inlined there,
 * else the concrete one, then the scopes outside it) on ARCH, from the
 * DWARF of its module in MODS (its own .debug_info or its separate debug
 * file under the debug roots) and REGS, reading memory through MEM; REGS->pc
 * is looked up as jitunwind_lookup_address does with INNERMOST. CFA is the
 * frame's canonical frame address (its caller's sp), for a location
 * relative to the frame base. Returns 0, or EINVAL (MODS, MEM, REGS, NAME
 * or VALUE NULL), EUNSUPPORTED (an unknown ARCH, or a location this
 * evaluator does not follow: an entry value, a piece, a register REGS
 * lacks), ENOTFOUND (no module or DWARF for the pc, no variable by that
 * name, or none with a location at that pc), EREAD. */
JITUNWIND_API int jitunwind_native_variable(int arch, jitunwind_modules *mods,
                                            const struct jitunwind_memory *mem,
                                            const struct jitunwind_dwarf_regs *regs,
                                            int innermost, uint64_t cfa, const char *name,
                                            uint64_t *value);

#ifdef __cplusplus
}
#endif

#endif
