/* The CFI step through libdw (cfi.c), for the cursor. Not installed. */
#ifndef JITUNWIND_UNWIND_CFI_H
#define JITUNWIND_UNWIND_CFI_H

#include "base/status.h"

/* jitunwind_step_cfi that also says (*used_lr, may be NULL) whether the
 * caller's pc is the link register's current value, which lets the caller
 * keep this frame's sp (a function stopped before it saved x30). */
struct jitunwind_modules;
JU_HIDDEN int ju_step_cfi(int arch, struct jitunwind_modules *mods,
                          const struct jitunwind_memory *mem, const struct jitunwind_regs *in,
                          int innermost, struct jitunwind_regs *out, int *stop_reason,
                          int *used_lr);

#endif
