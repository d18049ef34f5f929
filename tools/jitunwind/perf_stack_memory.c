/* The memory of a perf sample: the copy of its stack, nothing else. A
 * sample's stack is gone by the time it is read, so only the copy tells
 * what the return addresses and saved registers were; reading the live
 * process instead would mix two moments. */
#include <string.h>

#include "perf_events.h"

/* Whether [addr, addr + len) lies in one module or one range: code. */
static int in_code(const struct cli_stack_copy *c, uint64_t addr, size_t len)
{
    uint64_t last = addr + len - 1;
    long m;
    const struct jitunwind_range *r;
    if (len == 0 || last < addr)
        return 0;
    if (c->mods && (m = jitunwind_modules_find(c->mods, addr)) >= 0)
        return jitunwind_modules_find(c->mods, last) == m;
    if (c->reg && (r = jitunwind_registry_lookup(c->reg, addr)) != NULL)
        return last < r->end;
    return 0;
}

static int copy_read(void *arg, uint64_t addr, void *dst, size_t len)
{
    struct cli_stack_copy *c = arg;
    if (addr >= c->start && addr - c->start <= c->len && len <= c->len - (addr - c->start)) {
        memcpy(dst, c->bytes + (addr - c->start), len);
        return 0;
    }
    if (c->code && in_code(c, addr, len) && c->code->read(c->code->arg, addr, dst, len) == 0)
        return 0;
    c->misses++;
    return JITUNWIND_EREAD;
}

struct jitunwind_memory cli_stack_copy_memory(struct cli_stack_copy *copy)
{
    struct jitunwind_memory m;
    memset(&m, 0, sizeof m);
    m.size = sizeof m;
    m.read = copy_read;
    m.arg = copy;
    return m;
}
