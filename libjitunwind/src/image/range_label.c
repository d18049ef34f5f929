/* How a range is named in frames, tables and the symbols of its image;
 * the Python layer (jitunwind.ui.labels.range_label) prints the same. */
#include <stdio.h>

#include "internal.h"

static const char *kind_name(uint32_t kind)
{
    switch (kind) {
    case JITUNWIND_KIND_JIT: return "jit";
    case JITUNWIND_KIND_TRAMPOLINE: return "trampoline";
    case JITUNWIND_KIND_OTHER: return "other";
    default: return "?";
    }
}

static const char *rule_name(uint32_t rule)
{
    switch (rule) {
    case JITUNWIND_RULE_FP_PRESERVING: return "fp-preserving";
    case JITUNWIND_RULE_TRAMPOLINE_FRAMED: return "framed";
    case JITUNWIND_RULE_TRAMPOLINE_SUB8: return "sub8";
    case JITUNWIND_RULE_SCAN: return "fp-or-scan";
    default: return "?";
    }
}

JITUNWIND_API int jitunwind_range_label(const struct jitunwind_range *range, char *buf,
                                        size_t size)
{
    if (!range || (!buf && size))
        return JITUNWIND_EINVAL;
    if (range->rule == JITUNWIND_RULE_FP_PRESERVING && range->frame_size != 0 &&
        range->frame_size != 16)
        return snprintf(buf, size, "%s [%s %s/%u]", range->name ? range->name : "??",
                        kind_name(range->kind), rule_name(range->rule), range->frame_size);
    return snprintf(buf, size, "%s [%s %s]", range->name ? range->name : "??",
                    kind_name(range->kind), rule_name(range->rule));
}
