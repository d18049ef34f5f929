/* The one rule every layout field is held to, whatever table it is in
 * (frames, JIT view, values) and wherever its offset came from (a static
 * table, the target's _Py_DebugOffsets, DWARF): loaded with its width, it
 * lies inside the struct that holds it as far as that struct's size is
 * known, inside the decoder's copy of that struct, and below any plausible
 * struct size. The callers name the field in their own messages. */
#ifndef JITUNWIND_PY_VALIDATE_H
#define JITUNWIND_PY_VALIDATE_H

#include <stdint.h>

#include "internal.h"

#define JU_PY_UNBOUNDED UINT64_MAX /* a size not known, or a holder not copied */

/* A field placed in its holder. */
struct ju_py_placed {
    uint64_t offset;      /* from the holder's start */
    unsigned width;       /* bytes loaded: 1, 2, 4 or 8; 0: a size or an address, not loaded */
    uint64_t holder_size; /* sizeof(holder) as the target or DWARF gives it, or UNBOUNDED */
    uint64_t copy;        /* bytes of the holder the decoder copies, or UNBOUNDED */
};

enum ju_py_misfit {
    JU_PY_FITS,
    JU_PY_BAD_WIDTH,   /* not a width a decoder loads */
    JU_PY_PAST_ANY,    /* ends past any plausible struct (JU_PY_MAX_STRUCT) */
    JU_PY_PAST_HOLDER, /* ends past sizeof(holder) */
    JU_PY_PAST_COPY    /* ends past the decoder's copy */
};

/* The first rule f breaks, in the order above, or JU_PY_FITS
 * (layout_fields.c, beside the check that applies it to every table). */
JU_HIDDEN enum ju_py_misfit ju_py_field_misfit(const struct ju_py_placed *f);

#endif
