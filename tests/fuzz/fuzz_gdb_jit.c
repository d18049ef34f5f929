/* Harness: the GDB JIT interface: __jit_debug_descriptor at aux0, its
 * entry list, and each in-memory ELF object (sections, symbols, CFI). */
#include "fuzz_target.h"
#include "jitunwind/jitunwind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_target t;
    jitunwind_registry *reg;
    size_t added, skipped;
    fuzz_target_parse(&t, data, size);
    if (jitunwind_registry_new(&reg) == 0) {
        jitunwind_registry_load_gdb_jit(reg, &t.mem, t.aux0,
                                        (t.flags & 2) ? JITUNWIND_ARCH_AARCH64
                                                      : JITUNWIND_ARCH_X86_64,
                                        &added, &skipped);
        jitunwind_registry_free(reg);
    }
    fuzz_target_free(&t);
    return 0;
}
