/* See read_cache.h. */
#include "python/values/read_cache.h"

#define BLOCK JU_PY_HELD_BLOCK

static int cached_read(void *arg, uint64_t addr, void *dst, size_t len)
{
    struct ju_read_cache *c = arg;
    uint64_t block = addr & ~(uint64_t)(BLOCK - 1);
    unsigned i;
    if (len == 0 || len > BLOCK || addr + len - 1 < addr ||
        ((addr + len - 1) & ~(uint64_t)(BLOCK - 1)) != block)
        return c->inner.read(c->inner.arg, addr, dst, len);
    i = (unsigned)((block / BLOCK) % c->count);
    if (c->base[i] == block + 1) {
        memcpy(dst, c->data[i] + (addr - block), len);
        return 0;
    }
    c->base[i] = 0;
    if (c->inner.read(c->inner.arg, block, c->data[i], BLOCK) < 0)
        return c->inner.read(c->inner.arg, addr, dst, len); /* part of the block is not mapped */
    c->base[i] = block + 1;
    memcpy(dst, c->data[i] + (addr - block), len);
    return 0;
}

void ju_read_cache_install(struct ju_read_cache *c, struct jitunwind_pyreader *r)
{
    c->inner = r->mem;
    if (r->hold_reads) {
        c->count = JU_PY_HELD_BLOCKS;
        c->base = r->held_base;
        c->data = r->held_data;
    } else {
        c->count = JU_READ_CACHE_BLOCKS;
        c->base = c->own_base;
        c->data = c->own_data;
        memset(c->own_base, 0, sizeof c->own_base);
    }
    r->mem.read = cached_read;
    r->mem.arg = c;
    r->mem.write = NULL; /* its arg is no longer what the writer expects: no writes meanwhile */
}

void ju_read_cache_remove(struct ju_read_cache *c, struct jitunwind_pyreader *r)
{
    r->mem = c->inner;
}

JITUNWIND_API int jitunwind_pyreader_hold_reads(jitunwind_pyreader *reader, int hold)
{
    if (!reader)
        return JITUNWIND_EINVAL;
    memset(reader->held_base, 0, sizeof reader->held_base); /* on or off: start afresh */
    reader->hold_reads = hold != 0;
    return 0;
}
