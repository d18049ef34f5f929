/* How far apart CPython places the copies of its trampoline template. */
#include "internal.h"
#include "base/trampoline_stride.h"

#define MAX_TEMPLATE 256u
/* CPython pads the copies: -X perf_jit leaves 80 bytes after each 12-byte
 * x86-64 copy and aligns to 32 (a stride of 96). */
#define MAX_STRIDE 1024u

/* The first offset past the template where it starts again, in one read of
 * the arena's head. */
uint64_t ju_trampoline_stride(const struct jitunwind_memory *mem, uint64_t start, uint64_t end,
                              const uint8_t *first, uint64_t size)
{
    uint8_t window[MAX_STRIDE + MAX_TEMPLATE];
    uint64_t stride;
    size_t have;
    if (size == 0 || size > MAX_TEMPLATE)
        return 0;
    if (end < start || 2 * size > end - start) /* no wrap near 2^64 */
        return size; /* room for one copy only: any stride will do */
    have = end - start < sizeof window ? (size_t)(end - start) : sizeof window;
    if (ju_read(mem, start, window, have) < 0)
        return 0;
    for (stride = size; stride + size <= have; stride++)
        if (memcmp(window + stride, first, (size_t)size) == 0)
            return stride;
    return 0;
}
