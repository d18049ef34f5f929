/* How far apart CPython places the copies of its trampoline template. */
#include "internal.h"
#include "base/trampoline_stride.h"

#define MAX_TEMPLATE 256u

uint64_t ju_trampoline_stride(const struct jitunwind_memory *mem, uint64_t start, uint64_t end,
                              const uint8_t *first, uint64_t size)
{
    static const uint64_t aligns[] = {1, 16, 32};
    uint8_t second[MAX_TEMPLATE];
    size_t i;
    if (size == 0 || size > MAX_TEMPLATE)
        return 0;
    for (i = 0; i < sizeof aligns / sizeof aligns[0]; i++) {
        uint64_t stride = (size + aligns[i] - 1) / aligns[i] * aligns[i];
        if (end < start || stride + size > end - start) /* no wrap near 2^64 */
            return size; /* room for one copy only: any stride will do */
        if (ju_read(mem, start + stride, second, (size_t)size) == 0 &&
            memcmp(first, second, (size_t)size) == 0)
            return stride;
    }
    return 0;
}
