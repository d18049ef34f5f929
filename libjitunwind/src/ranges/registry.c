/* The range registry: a sorted array of non-overlapping ranges.
 * Inserting at the end (ranges in address order) is amortised O(1),
 * elsewhere a memmove. Names are owned copies.
 *
 * Lookup is a binary search until enough lookups have followed the last
 * change to pay for building the bucket index (range_index.h, O(1) per
 * lookup): a registry that changes between a few lookups never builds it,
 * one that a sampler reads for every frame builds it once. */
#include <stdlib.h>

#include "ranges/registry_internal.h"
#include "ranges/registry_loaders.h"

/* Binary-search lookups after a change before the index is built. A build
 * costs 20-30 ns per range, a binary search 100-200 ns at 100k-1M ranges
 * (the 2-CPU x86-64 development machine), so the searches done before a
 * build cost about as much as the build: whatever the mix of changes and
 * lookups, lookups never cost more than about twice what an always-fresh
 * index would. */
#define INDEX_AFTER_LOOKUPS(count) (32u + (count) / 4u)

JITUNWIND_API int jitunwind_registry_new(jitunwind_registry **out)
{
    jitunwind_registry *reg;
    if (!out)
        return JITUNWIND_EINVAL;
    reg = calloc(1, sizeof *reg);
    return ju_constructed((void **)out, reg, reg ? 0 : JITUNWIND_ENOMEM, NULL);
}

static void free_names(jitunwind_registry *reg)
{
    size_t i;
    for (i = 0; i < reg->count; i++)
        free((char *)reg->ranges[i].name);
}

JITUNWIND_API void jitunwind_registry_free(jitunwind_registry *reg)
{
    if (!reg)
        return;
    free_names(reg);
    free(reg->ranges);
    ju_range_index_free(&reg->index);
    free(reg);
}

JITUNWIND_API void jitunwind_registry_clear(jitunwind_registry *reg)
{
    if (!reg)
        return;
    free_names(reg);
    reg->count = 0;
    reg->generation++;
}

/* Index of the first range whose end is above pc (count if none). */
static size_t first_ending_above(const jitunwind_registry *reg, uint64_t pc)
{
    return ju_range_index_search(reg->ranges, 0, reg->count, pc);
}

int ju_range_validate(const struct jitunwind_range *r)
{
    if (r->end <= r->start)
        return JITUNWIND_EINVAL;
    if (r->kind < JITUNWIND_KIND_JIT || r->kind > JITUNWIND_KIND_OTHER)
        return JITUNWIND_EINVAL;
    if (r->rule < JITUNWIND_RULE_FP_PRESERVING || r->rule > JITUNWIND_RULE_SCAN)
        return JITUNWIND_EINVAL;
    if (r->rule == JITUNWIND_RULE_SCAN && r->scan_end <= r->scan_start)
        return JITUNWIND_EINVAL;
    if (r->rule == JITUNWIND_RULE_FP_PRESERVING && r->frame_size &&
        (r->frame_size < 16 || r->frame_size > JITUNWIND_MAX_FRAME_SIZE || (r->frame_size & 7)))
        return JITUNWIND_EINVAL;
    if (r->origin > JITUNWIND_ORIGIN_GUESS)
        return JITUNWIND_EINVAL;
    if (r->origin != JITUNWIND_ORIGIN_USER && r->end - r->start > JITUNWIND_MAX_TARGET_RANGE)
        return JITUNWIND_EINVAL;
    return 0;
}

static char *copy_name(const char *name)
{
    size_t n;
    char *copy;
    if (!name)
        return NULL;
    n = strnlen(name, JITUNWIND_NAME_MAX - 1);
    copy = malloc(n + 1);
    if (copy) {
        memcpy(copy, name, n);
        copy[n] = '\0';
    }
    return copy;
}

static int invalid(jitunwind_registry *reg, const struct jitunwind_range *range)
{
    return ju_fail(&reg->err, JITUNWIND_EINVAL, range->start,
                   "invalid range [%#llx, %#llx) kind %u rule %u",
                   (unsigned long long)range->start, (unsigned long long)range->end,
                   range->kind, range->rule);
}

static int overlaps(jitunwind_registry *reg, const struct jitunwind_range *range,
                    const struct jitunwind_range *other)
{
    return ju_fail(&reg->err, JITUNWIND_EOVERLAP, range->start,
                   "range [%#llx, %#llx) overlaps [%#llx, %#llx)",
                   (unsigned long long)range->start, (unsigned long long)range->end,
                   (unsigned long long)other->start, (unsigned long long)other->end);
}

int ju_registry_supersede(jitunwind_registry *reg, const struct jitunwind_range *range,
                          uint32_t origin, size_t max)
{
    struct jitunwind_range copy;
    size_t at, end, i;
    if (ju_range_validate(range) < 0)
        return invalid(reg, range);
    at = first_ending_above(reg, range->start);
    for (end = at; end < reg->count && reg->ranges[end].start < range->end; end++)
        if (reg->ranges[end].origin != origin || end - at == max)
            return overlaps(reg, range, &reg->ranges[end]);
    if (end == at)
        return jitunwind_registry_add(reg, range);
    copy = *range; /* before anything changes: a failure leaves the registry as it was */
    copy.name = copy_name(range->name);
    if (range->name && !copy.name)
        return ju_fail(&reg->err, JITUNWIND_ENOMEM, range->start, "out of memory");
    for (i = at; i < end; i++)
        free((char *)reg->ranges[i].name);
    reg->ranges[at] = copy;
    memmove(&reg->ranges[at + 1], &reg->ranges[end], (reg->count - end) * sizeof copy);
    reg->count -= end - at - 1;
    reg->generation++;
    return 0;
}

JITUNWIND_API int jitunwind_registry_add(jitunwind_registry *reg,
                                         const struct jitunwind_range *range)
{
    struct jitunwind_range copy, *grown;
    size_t at;
    if (!reg || !range)
        return JITUNWIND_EINVAL;
    if (ju_range_validate(range) < 0)
        return invalid(reg, range);
    at = (reg->count == 0 || reg->ranges[reg->count - 1].end <= range->start)
             ? reg->count
             : first_ending_above(reg, range->start);
    if (at < reg->count && reg->ranges[at].start < range->end)
        return overlaps(reg, range, &reg->ranges[at]);
    grown = ju_reserve_one(reg->ranges, &reg->cap, reg->count, sizeof *reg->ranges, 64);
    if (!grown)
        return ju_fail(&reg->err, JITUNWIND_ENOMEM, range->start, "out of memory");
    reg->ranges = grown;
    copy = *range;
    copy.name = copy_name(range->name);
    if (range->name && !copy.name)
        return ju_fail(&reg->err, JITUNWIND_ENOMEM, range->start, "out of memory");
    memmove(&reg->ranges[at + 1], &reg->ranges[at], (reg->count - at) * sizeof copy);
    reg->ranges[at] = copy;
    reg->count++;
    reg->generation++;
    return 0;
}

JITUNWIND_API int jitunwind_registry_remove(jitunwind_registry *reg, uint64_t start)
{
    size_t at;
    if (!reg)
        return JITUNWIND_EINVAL;
    at = first_ending_above(reg, start);
    if (at >= reg->count || reg->ranges[at].start != start)
        return ju_fail(&reg->err, JITUNWIND_ENOTFOUND, start, "no range starts at %#llx",
                       (unsigned long long)start);
    free((char *)reg->ranges[at].name);
    memmove(&reg->ranges[at], &reg->ranges[at + 1], (reg->count - at - 1) * sizeof *reg->ranges);
    reg->count--;
    reg->generation++;
    return 0;
}

/* A stale index is rebuilt once enough lookups have gone without it;
 * until then, a binary search. */
const struct jitunwind_range *ju_registry_lookup_stale(jitunwind_registry *reg, uint64_t pc)
{
    size_t at;
    if (++reg->stale_lookups >= INDEX_AFTER_LOOKUPS(reg->count)) {
        reg->stale_lookups = 0;
        ju_range_index_free(&reg->index);
        reg->index_built = ju_range_index_build(&reg->index, reg->ranges, reg->count) == 0;
        reg->index_generation = reg->generation;
        if (reg->index_built)
            return ju_registry_lookup(reg, pc);
    }
    at = first_ending_above(reg, pc);
    if (at < reg->count && reg->ranges[at].start <= pc)
        return &reg->ranges[at];
    return NULL;
}

JITUNWIND_API const struct jitunwind_range *
jitunwind_registry_lookup(const jitunwind_registry *reg, uint64_t pc)
{
    return reg ? ju_registry_lookup(reg, pc) : NULL;
}

JITUNWIND_API size_t jitunwind_registry_count(const jitunwind_registry *reg)
{
    return reg ? reg->count : 0;
}

JITUNWIND_API const struct jitunwind_range *
jitunwind_registry_at(const jitunwind_registry *reg, size_t index)
{
    return (reg && index < reg->count) ? &reg->ranges[index] : NULL;
}

JITUNWIND_API uint64_t jitunwind_registry_generation(const jitunwind_registry *reg)
{
    return reg ? reg->generation : 0;
}

JITUNWIND_API const struct jitunwind_error *
jitunwind_registry_last_error(const jitunwind_registry *reg)
{
    return reg ? &reg->err : jitunwind_last_error();
}

JITUNWIND_API size_t jitunwind_registry_scan_guesses(jitunwind_registry *reg, uint64_t start,
                                                     uint64_t end)
{
    size_t i, n = 0;
    if (!reg || end <= start)
        return 0;
    for (i = 0; i < reg->count; i++) {
        struct jitunwind_range *r = &reg->ranges[i];
        if (r->origin == JITUNWIND_ORIGIN_GUESS && r->kind == JITUNWIND_KIND_JIT) {
            r->rule = JITUNWIND_RULE_SCAN;
            r->scan_start = start;
            r->scan_end = end;
            n++;
        }
    }
    if (n)
        reg->generation++;
    return n;
}

struct jitunwind_error *ju_registry_error(jitunwind_registry *reg)
{
    return &reg->err;
}
