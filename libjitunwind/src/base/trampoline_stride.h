/* How far apart CPython places the copies of its trampoline template
 * (trampoline_stride.c). Not installed. */
#ifndef JITUNWIND_BASE_TRAMPOLINE_STRIDE_H
#define JITUNWIND_BASE_TRAMPOLINE_STRIDE_H

#include <stdint.h>

#include "base/status.h"

/* The stride between copies of a trampoline template of `size` bytes whose
 * first copy, `first`, is at `start` in [start, end): the template size
 * itself (3.12.1 packs copies back to back) or it rounded up to 16 or 32
 * (later versions), whichever makes the second copy equal the first; the
 * size when only one copy fits; 0 when none matches. */
JU_HIDDEN uint64_t ju_trampoline_stride(const struct jitunwind_memory *mem, uint64_t start,
                                        uint64_t end, const uint8_t *first, uint64_t size);

#endif
