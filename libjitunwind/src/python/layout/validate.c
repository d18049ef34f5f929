/* The one field rule (validate.h). The same shape as CPython's own
 * remote-debugging check of _Py_DebugOffsets: offset + width inside the
 * struct's size; here also inside the decoder's copy. */
#include "python/layout/layout.h"
#include "python/layout/validate.h"

enum ju_py_misfit ju_py_field_misfit(const struct ju_py_placed *f)
{
    uint64_t end;
    if (f->width > 8 || (f->width & (f->width - 1)))
        return JU_PY_BAD_WIDTH;
    if (f->offset > JU_PY_MAX_STRUCT || f->width > JU_PY_MAX_STRUCT - f->offset)
        return JU_PY_PAST_ANY;
    end = f->offset + f->width;
    if (end > f->holder_size)
        return JU_PY_PAST_HOLDER;
    if (end > f->copy)
        return JU_PY_PAST_COPY;
    return JU_PY_FITS;
}
