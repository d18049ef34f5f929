/* Harness: a code object's location table decoded on its own (the bytes a
 * hostile target puts in co_linetable), at every instruction offset. */
#include <stdint.h>
#include <string.h>

#include "fuzz_target.h"
#include "jitunwind/jitunwind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int32_t first_line = 0, lasti;
    if (size < 4)
        return 0;
    memcpy(&first_line, data, 4);
    for (lasti = -2; lasti < 70; lasti += 3)
        jitunwind_py_linetable_line(data + 4, size - 4, first_line, lasti);
    jitunwind_py_linetable_line(data + 4, size - 4, first_line, INT32_MAX);
    return 0;
}
