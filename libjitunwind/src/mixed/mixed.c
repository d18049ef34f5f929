/* Interleaving native and Python frames: the k-th eval-loop native frame
 * from the top runs the k-th group of Python frames. */
#include "internal.h"
#include "mixed/mixed_internal.h"
#include "python/pyreader.h"

JITUNWIND_API int jitunwind_native_role_from_symbol(const char *symbol)
{
    if (!symbol)
        return JITUNWIND_ROLE_OTHER;
    if (ju_py_is_eval_symbol(symbol))
        return JITUNWIND_ROLE_EVAL;
    if (strncmp(symbol, "py::", 4) == 0)
        return JITUNWIND_ROLE_TRAMPOLINE;
    return JITUNWIND_ROLE_OTHER;
}

size_t ju_mix_group_size(const struct jitunwind_py_frame *py, size_t n_py, size_t next)
{
    size_t k;
    for (k = next; k < n_py; k++)
        if (py[k].flags & JITUNWIND_PYFRAME_ENTRY)
            return k + 1 - next;
    return n_py - next;
}

static int put(struct jitunwind_mixed_item *out, size_t max, size_t *n, uint32_t kind,
               size_t index, uint32_t anchor, uint32_t flags)
{
    if (*n >= max)
        return JITUNWIND_ELIMIT;
    out[*n].kind = kind;
    out[*n].index = (uint32_t)index;
    out[*n].anchor = anchor;
    out[*n].flags = flags;
    (*n)++;
    return 0;
}

JITUNWIND_API int jitunwind_mix(const uint32_t *roles, size_t n_native,
                                const struct jitunwind_py_frame *py, size_t n_py,
                                struct jitunwind_mixed_item *out, size_t max, size_t *count)
{
    size_t i, k, group, next_py = 0, n = 0;
    int rc;
    if (!count || (!roles && n_native) || (!py && n_py) || (!out && max) ||
        n_native > UINT32_MAX - 1 || n_py > UINT32_MAX)
        return JITUNWIND_EINVAL;
    *count = 0;
    for (i = 0; i < n_native; i++) {
        if ((rc = put(out, max, &n, JITUNWIND_MIXED_NATIVE, i, JITUNWIND_MIXED_NO_ANCHOR, 0)) < 0)
            goto done;
        if (roles[i] != JITUNWIND_ROLE_EVAL)
            continue;
        group = ju_mix_group_size(py, n_py, next_py);
        for (k = 0; k < group; k++, next_py++)
            if ((rc = put(out, max, &n, JITUNWIND_MIXED_PYTHON, next_py, (uint32_t)i,
                          k == 0 && i > 0 ? ju_mix_lag(roles[i - 1]) : 0)) < 0)
                goto done;
    }
    for (; next_py < n_py; next_py++) /* no native frame left to anchor them */
        if ((rc = put(out, max, &n, JITUNWIND_MIXED_PYTHON, next_py, JITUNWIND_MIXED_NO_ANCHOR, 0)) < 0)
            goto done;
    rc = 0;
done:
    *count = n;
    return rc;
}
