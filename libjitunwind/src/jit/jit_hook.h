/* A listener for in-process registrations (jit_inprocess.c), for the code
 * that republishes them elsewhere (gdb_jit_publish.c). Registration does
 * not call it directly: it needs only base/ and ranges/, so that a JIT can
 * link it without the ELF image writer (tests/aarch64/build_testbed.sh). */
#ifndef JITUNWIND_JIT_HOOK_H
#define JITUNWIND_JIT_HOOK_H

#include "internal.h"

enum ju_jit_change {
    JU_JIT_ADDED = 1,   /* range: the registered range (name borrowed for the call) */
    JU_JIT_REMOVED = 2, /* range: only start is meaningful */
    JU_JIT_CLEARED = 3  /* range: NULL (jitunwind_jit_reset) */
};

typedef void (*ju_jit_change_fn)(int change, const struct jitunwind_range *range);

/* Install `fn` (NULL: none) and, when installing, call it with ADDED for
 * every range registered so far. The listener runs with the registration
 * lock held, so it sees changes one at a time and in order; it must not
 * register or unregister. */
JU_HIDDEN void ju_jit_set_change_hook(ju_jit_change_fn fn);

#endif
