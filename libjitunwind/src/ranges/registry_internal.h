/* The registry's layout, for the unwinder's per-frame lookup: inline when
 * the index is fresh, so that a frame costs no call into the registry. */
#ifndef JU_REGISTRY_INTERNAL_H
#define JU_REGISTRY_INTERNAL_H

#include "ranges/range_index.h"

struct jitunwind_registry {
    struct jitunwind_range *ranges;
    size_t count;
    size_t cap;
    uint64_t generation;
    struct jitunwind_error err;
    /* Derived state that lookups (const) maintain: one thread at a time. */
    struct ju_range_index index;
    uint64_t index_generation; /* generation the index was built for */
    int index_built;
    size_t stale_lookups; /* binary searches since the index went stale */
};

/* jitunwind_registry_lookup when the index is stale (registry.c). */
JU_HIDDEN const struct jitunwind_range *ju_registry_lookup_stale(jitunwind_registry *reg,
                                                                 uint64_t pc);

/* jitunwind_registry_lookup for a non-NULL registry. */
static inline const struct jitunwind_range *ju_registry_lookup(const jitunwind_registry *reg,
                                                               uint64_t pc)
{
    size_t at;
    if (!reg->index_built || reg->index_generation != reg->generation)
        return ju_registry_lookup_stale((jitunwind_registry *)reg, pc); /* allocated mutable */
    at = ju_range_index_find(&reg->index, reg->ranges, reg->count, pc);
    return at < reg->count ? &reg->ranges[at] : NULL;
}

#endif
