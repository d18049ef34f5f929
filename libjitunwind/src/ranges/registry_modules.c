/* Ranges read from a target that claim the code of a mapped module. */
#include <stdlib.h>

#include "internal.h"

struct span {
    uint64_t start, end;
};

static int by_start(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Whether [start, end) overlaps one of the n spans (sorted by start, and
 * merged so that their ends increase too). */
static int overlaps(const struct span *s, size_t n, uint64_t start, uint64_t end)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* first span ending above start */
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid].end <= start)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && s[lo].start < end;
}

JITUNWIND_API size_t jitunwind_registry_drop_over_modules(jitunwind_registry *reg,
                                                         const jitunwind_modules *mods)
{
    size_t n_mods, n = 0, i, dropped = 0;
    struct span *spans;
    if (!reg || !mods || !(n_mods = jitunwind_modules_count(mods)))
        return 0;
    if (!(spans = calloc(n_mods, sizeof *spans)))
        return 0;
    for (i = 0; i < n_mods; i++) {
        struct jitunwind_module_info info;
        if (jitunwind_modules_info(mods, i, &info) == 0 && info.end > info.start)
            spans[n++] = (struct span){info.start, info.end};
    }
    qsort(spans, n, sizeof *spans, by_start);
    for (i = 1; n && i < n; i++) /* merge, so that ends increase with starts */
        if (spans[i].start < spans[i - 1].end && spans[i].end < spans[i - 1].end)
            spans[i].end = spans[i - 1].end;
    for (i = jitunwind_registry_count(reg); i-- > 0;) {
        const struct jitunwind_range *r = jitunwind_registry_at(reg, i);
        if (r->origin != JITUNWIND_ORIGIN_USER && overlaps(spans, n, r->start, r->end)) {
            ju_log(JITUNWIND_LOG_WARNING,
                   "dropped range [%#llx, %#llx) %s: it overlaps a mapped module",
                   (unsigned long long)r->start, (unsigned long long)r->end,
                   r->name ? r->name : "");
            jitunwind_registry_remove(reg, r->start);
            dropped++;
        }
    }
    free(spans);
    return dropped;
}
