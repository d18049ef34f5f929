/* How a range is named in frames, tables and the symbols of its image;
 * the Python layer (jitunwind.ui.labels.range_label) prints the same. */
#include <stdio.h>

#include "internal.h"

JITUNWIND_API int jitunwind_range_label(const struct jitunwind_range *range, char *buf,
                                        size_t size)
{
    if (!range || (!buf && size))
        return JITUNWIND_EINVAL;
    if (range->rule == JITUNWIND_RULE_FP_PRESERVING && range->frame_size != 0 &&
        range->frame_size != 16)
        return snprintf(buf, size, "%s [%s %s/%u]", range->name ? range->name : "??",
                        jitunwind_range_kind_string(range->kind),
                        jitunwind_range_rule_string(range->rule), range->frame_size);
    return snprintf(buf, size, "%s [%s %s]", range->name ? range->name : "??",
                    jitunwind_range_kind_string(range->kind),
                    jitunwind_range_rule_string(range->rule));
}
