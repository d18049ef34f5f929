/* Brent's cycle check over a linked list of target addresses, in constant
 * memory. Not installed. */
#ifndef JITUNWIND_BASE_CYCLE_H
#define JITUNWIND_BASE_CYCLE_H

#include <stddef.h>
#include <stdint.h>

/* Start with {0, 1, 0}; ju_cycle_seen() is 1 once an address repeats. */
struct ju_cycle {
    uint64_t tortoise;
    size_t power, lam;
};

static inline int ju_cycle_seen(struct ju_cycle *c, uint64_t addr)
{
    if (addr == c->tortoise)
        return 1;
    if (++c->lam == c->power) {
        c->tortoise = addr;
        c->power *= 2;
        c->lam = 0;
    }
    return 0;
}

#endif
