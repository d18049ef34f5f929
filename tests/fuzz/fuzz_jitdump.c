/* Harness: a jitdump file (the input's tail, written to a private file)
 * whose code-load records' machine code is in the input's memory. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_target.h"
#include "jitunwind/jitunwind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    struct fuzz_target t;
    jitunwind_registry *reg;
    size_t added, skipped;
    fuzz_target_parse(&t, data, size);
    if (fuzz_tail_to_file(&t, "jit.dump", path, sizeof path) == 0 &&
        jitunwind_registry_new(&reg) == 0) {
        jitunwind_registry_load_jitdump(reg, path,
                                        (t.flags & 2) ? JITUNWIND_ARCH_AARCH64
                                                      : JITUNWIND_ARCH_X86_64,
                                        &t.mem, &added, &skipped);
        jitunwind_registry_free(reg);
    }
    unlink(path);
    fuzz_target_free(&t);
    return 0;
}
