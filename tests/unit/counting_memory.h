/* A target memory that counts its reads: wrap a memory in `inner`, hand
 * out counting_memory(&c), read c.reads. */
#ifndef JU_TEST_COUNTING_MEMORY_H
#define JU_TEST_COUNTING_MEMORY_H

#include "jitunwind/memory.h"

struct counting {
    struct jitunwind_memory inner;
    unsigned long reads;
};

static inline int counting_read(void *arg, uint64_t addr, void *dst, size_t len)
{
    struct counting *c = arg;
    c->reads++;
    return c->inner.read(c->inner.arg, addr, dst, len);
}

/* `c`'s memory: the inner one's, reading through counting_read. */
static inline struct jitunwind_memory counting_memory(struct counting *c)
{
    struct jitunwind_memory m = c->inner;
    m.read = counting_read;
    m.arg = c;
    return m;
}

#endif
