/* The cursor's private state, kept in the caller's struct jitunwind_cursor
 * (unwind.h: opaque storage whose size is part of the ABI, its layout not).
 * No member points into the cursor itself, so a copy is a second,
 * independent walk from the same frame. */
#ifndef JU_UNWIND_CURSOR_H
#define JU_UNWIND_CURSOR_H

#include "base/arch_facts.h"
#include "jitunwind/unwind.h"

#define JU_CURSOR_SEEN 8 /* (pc, sp) pairs kept for the loop check */

struct ju_cursor {
    int arch;
    uint32_t flags;
    uint32_t max_depth;
    uint32_t depth;
    int stop_reason;
    int started;        /* the initial frame has been delivered */
    int equal_sp_steps; /* consecutive steps that kept sp (LR steps) */
    const jitunwind_registry *registry;
    struct jitunwind_modules *modules; /* optional: CFI for native frames */
    struct jitunwind_memory mem;
    struct jitunwind_frame current;
    struct ju_carried carried; /* current's other preserved registers (set_registers) */
    uint64_t seen_pc[JU_CURSOR_SEEN];
    uint64_t seen_sp[JU_CURSOR_SEEN];
};

_Static_assert(sizeof(struct ju_cursor) <= sizeof(struct jitunwind_cursor),
               "struct ju_cursor must fit the public cursor's storage");
_Static_assert(_Alignof(struct ju_cursor) <= _Alignof(struct jitunwind_cursor),
               "struct ju_cursor must be aligned as the public cursor's storage");

static inline struct ju_cursor *ju_cursor_of(struct jitunwind_cursor *c)
{
    return (struct ju_cursor *)(void *)c->opaque;
}

static inline const struct ju_cursor *ju_cursor_of_const(const struct jitunwind_cursor *c)
{
    return (const struct ju_cursor *)(const void *)c->opaque;
}

#endif
