/* How a range is named in frames, tables and the symbols of its image;
 * the Python layer (jitunwind.ui.labels.range_label) prints the same. */
#include <stdio.h>

#include "internal.h"
#include "jitunwind/text.h"

JITUNWIND_API int jitunwind_range_label(const struct jitunwind_range *range, char *buf,
                                        size_t size)
{
    /* the name comes from the target (a perf map, a descriptor): escaped */
    char name[4 * JITUNWIND_NAME_MAX];
    if (!range || (!buf && size))
        return JITUNWIND_EINVAL;
    jitunwind_text_escape(range->name ? range->name : "??", name, sizeof name);
    if (range->rule == JITUNWIND_RULE_FP_PRESERVING && range->frame_size != 0 &&
        range->frame_size != 16)
        return snprintf(buf, size, "%s [%s %s/%u]", name,
                        jitunwind_range_kind_string(range->kind),
                        jitunwind_range_rule_string(range->rule), range->frame_size);
    return snprintf(buf, size, "%s [%s %s]", name,
                    jitunwind_range_kind_string(range->kind),
                    jitunwind_range_rule_string(range->rule));
}
