/* The CFI step through libdw (cfi.c), for the cursor. Not installed. */
#ifndef JITUNWIND_UNWIND_CFI_H
#define JITUNWIND_UNWIND_CFI_H

#include <elfutils/libdw.h>

#include "base/arch_facts.h"
#include "base/status.h"

struct jitunwind_dwarf_regs;

/* What a DWARF expression is evaluated against: the registers (`regs`'
 * pc, sp, fp and lr, then `carried` and `all` when not NULL), the memory,
 * the CFA and,
 * for a variable's location, the frame base. With `locations`, a register
 * location (DW_OP_reg*) evaluates to the register's value, as a value. */
struct ju_dwarf_eval {
    const struct ju_arch_facts *dr; /* its DWARF register numbers */
    const struct jitunwind_regs *regs;
    const struct ju_carried *carried;
    const struct jitunwind_dwarf_regs *all;
    const struct jitunwind_memory *mem;
    uint64_t cfa, frame_base;
    int have_cfa, have_frame_base, locations;
};

/* Evaluate OPS into *RESULT; *IS_VALUE says whether it is a value
 * (DW_OP_stack_value, a register location) rather than an address. Bounded
 * in stack and steps; branches and operations CFI and simple locations do
 * not use are refused (ECORRUPT); a register C lacks is EUNSUPPORTED, a
 * dereference that cannot be read EREAD. */
JU_HIDDEN int ju_dwarf_eval_ops(const struct ju_dwarf_eval *c, const Dwarf_Op *ops, size_t nops,
                                uint64_t *result, int *is_value);

/* jitunwind_step_cfi that also says (*used_lr, may be NULL) whether the
 * caller's pc is the link register's current value, which lets the caller
 * keep this frame's sp (a function stopped before it saved x30), and
 * carries the other registers a call preserves: from *CARRIED_IN (may be
 * NULL: none known), which the frame's rules may use, into *CARRIED_OUT
 * (may be NULL) as the row says (cfi_row_cache.h); one it saved that cannot
 * be read is not known in the caller. */
struct jitunwind_modules;
JU_HIDDEN int ju_step_cfi(int arch, struct jitunwind_modules *mods,
                          const struct jitunwind_memory *mem, const struct jitunwind_regs *in,
                          int innermost, struct jitunwind_regs *out, int *stop_reason,
                          int *used_lr, const struct ju_carried *carried_in,
                          struct ju_carried *carried_out);

#endif
