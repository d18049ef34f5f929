/* The grouping rule shared by jitunwind_mix and the incremental mixer. */
#ifndef JU_MIXED_INTERNAL_H
#define JU_MIXED_INTERNAL_H

#include "internal.h"

/* How many Python frames, from `next` on, the eval-loop activation that
 * comes next runs: up to and including the first one flagged
 * JITUNWIND_PYFRAME_ENTRY (all that are left when none is). */
JU_HIDDEN size_t ju_mix_group_size(const struct jitunwind_py_frame *py, size_t n_py, size_t next);

/* Item flags of the innermost Python frame of a group: LINE_MAY_LAG when
 * the eval-loop frame's direct callee (`callee_role`) is JIT code. */
static inline uint32_t ju_mix_lag(uint32_t callee_role)
{
    return callee_role == JITUNWIND_ROLE_JIT ? JITUNWIND_MIXED_LINE_MAY_LAG : 0;
}

#endif
