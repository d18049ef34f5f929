/* A small read cache for one value rendering or frame-variable listing:
 * objects are read a few bytes at a time, and a live process pays a system
 * call per read. Reads that fall inside one aligned block are served from
 * cached blocks; a block is never cached across
 * a page boundary, and when a block cannot be read whole, the read goes to
 * the target as asked (so what is readable stays readable, and failures
 * are the target's). Lives on the caller's stack and is forgotten after
 * the call, unless the caller asked the reader to hold its reads (a
 * stopped target, many values: py-bt-full). */
#ifndef JITUNWIND_PY_READ_CACHE_H
#define JITUNWIND_PY_READ_CACHE_H

#include "python/pyreader.h"

#define JU_READ_CACHE_BLOCKS 32u /* per call (direct-mapped) */

struct ju_read_cache {
    struct jitunwind_memory inner;
    unsigned count;       /* blocks: JU_READ_CACHE_BLOCKS, or JU_PY_HELD_BLOCKS held */
    uint64_t *base;       /* block address + 1; 0: empty */
    uint8_t (*data)[JU_PY_HELD_BLOCK];
    uint64_t own_base[JU_READ_CACHE_BLOCKS];
    uint8_t own_data[JU_READ_CACHE_BLOCKS][JU_PY_HELD_BLOCK];
};

/* Route the reader's reads through `c` until ju_read_cache_remove; with
 * jitunwind_pyreader_hold_reads on, through the reader's held blocks. */
JU_HIDDEN void ju_read_cache_install(struct ju_read_cache *c, struct jitunwind_pyreader *r);
JU_HIDDEN void ju_read_cache_remove(struct ju_read_cache *c, struct jitunwind_pyreader *r);

#endif
