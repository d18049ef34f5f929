/* This process's own registrations read into a registry
 * (jitunwind_jit_read_self): the descriptor jit_inprocess.c publishes, read
 * as a debugger reads a target's (ranges/jit_descriptor.c). */
#include "internal.h"

/* Reads of this process's own memory with acquire loads, so that reading
 * the descriptor races with no writer (jit_inprocess.c publishes with
 * release stores) and the seq read after a copy is not hoisted above it.
 * Only for the descriptor and what it points at, which stay mapped until
 * jitunwind_jit_reset(). */
static int self_read(void *arg, uint64_t addr, void *dst, size_t len)
{
    const unsigned char *src = (const unsigned char *)(uintptr_t)addr;
    unsigned char *out = dst;
    size_t i = 0;
    (void)arg;
    if (!addr)
        return JITUNWIND_EREAD;
    for (; i < len && ((uintptr_t)(src + i) & 7); i++)
        out[i] = __atomic_load_n(src + i, __ATOMIC_ACQUIRE);
    for (; i + 8 <= len; i += 8) {
        uint64_t v = __atomic_load_n((const uint64_t *)(const void *)(src + i), __ATOMIC_ACQUIRE);
        memcpy(out + i, &v, 8);
    }
    for (; i < len; i++)
        out[i] = __atomic_load_n(src + i, __ATOMIC_ACQUIRE);
    return 0;
}

JITUNWIND_API int jitunwind_jit_read_self(jitunwind_registry *reg,
                                          struct jitunwind_jit_read_info *info)
{
    static const struct jitunwind_memory self = {sizeof(struct jitunwind_memory), self_read, NULL};
    return jitunwind_jit_read_descriptor(reg, &self,
                                         (uint64_t)(uintptr_t)&jitunwind_jit_descriptor, info);
}
