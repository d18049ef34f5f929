/* Operations over a whole registry in one call: a digest of its content,
 * a count by rule, and a bulk copy. A debugger that holds up to the caps'
 * ranges (about 1,000,000) calls these at each stop instead of copying
 * every range out into its own language. */
#include <limits.h>

#include "ranges/registry_internal.h"

#define DIGEST_SEED 0x6a09e667f3bcc908ull
#define DIGEST_PRIME 0x100000001b3ull /* FNV-1a 64 */

/* One word into the state: xor, multiply, and fold the high bits down so
 * that every input bit reaches every output bit after a few words. */
static uint64_t mix(uint64_t h, uint64_t word)
{
    h ^= word;
    h *= 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

static uint64_t mix_name(uint64_t h, const char *name)
{
    uint64_t fnv = 0xcbf29ce484222325ull;
    size_t n = 0;
    if (!name)
        return mix(h, 0);
    for (; name[n]; n++) /* names are capped at JITUNWIND_NAME_MAX on add */
        fnv = (fnv ^ (unsigned char)name[n]) * DIGEST_PRIME;
    return mix(mix(h, fnv), n + 1); /* + 1: "" differs from no name */
}

JITUNWIND_API uint64_t jitunwind_registry_digest(const jitunwind_registry *reg)
{
    uint64_t h = DIGEST_SEED;
    if (!reg)
        return 0;
    h = mix(h, reg->count);
    for (size_t i = 0; i < reg->count; i++) {
        const struct jitunwind_range *r = &reg->ranges[i];
        h = mix(h, r->start);
        h = mix(h, r->end);
        h = mix(h, (uint64_t)r->kind << 32 | r->rule);
        h = mix(h, (uint64_t)r->stride << 32 | r->origin);
        h = mix(h, r->cookie);
        h = mix(h, r->scan_start);
        h = mix(h, r->scan_end);
        h = mix(h, (uint64_t)r->frame_size << 32 | r->reserved);
        h = mix_name(h, r->name);
    }
    return h;
}

JITUNWIND_API size_t jitunwind_registry_count_rule(const jitunwind_registry *reg, uint32_t rule)
{
    size_t n = 0;
    if (!reg)
        return 0;
    for (size_t i = 0; i < reg->count; i++)
        n += reg->ranges[i].rule == rule;
    return n;
}

JITUNWIND_API int jitunwind_registry_add_all(jitunwind_registry *reg,
                                             const jitunwind_registry *from, size_t *skipped)
{
    size_t added = 0, left = 0;
    if (skipped)
        *skipped = 0;
    if (!reg || !from || reg == from || from->count > INT_MAX)
        return JITUNWIND_EINVAL;
    for (size_t i = 0; i < from->count; i++) {
        int rc = jitunwind_registry_add(reg, &from->ranges[i]);
        if (rc == JITUNWIND_ENOMEM)
            return rc;
        if (rc < 0)
            left++;
        else
            added++;
    }
    if (skipped)
        *skipped = left;
    return (int)added;
}
