/* Registry calls for the code that fills a registry from a source of
 * ranges (the descriptor, a perf map, the GDB JIT interface, CPython's
 * executors, in-process registration): registry.c. Not installed. */
#ifndef JITUNWIND_RANGES_REGISTRY_LOADERS_H
#define JITUNWIND_RANGES_REGISTRY_LOADERS_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

JU_HIDDEN int ju_range_validate(const struct jitunwind_range *r);
JU_HIDDEN struct jitunwind_error *ju_registry_error(jitunwind_registry *reg);
/* Add *range in place of the ranges it overlaps, which must all have
 * `origin` and be at most `max`: 0; EOVERLAP (another origin, or more),
 * EINVAL, ENOMEM leave the registry as it was. No overlap: a plain add. */
JU_HIDDEN int ju_registry_supersede(jitunwind_registry *reg, const struct jitunwind_range *range,
                                   uint32_t origin, size_t max);

#endif
