/* Harness: the jitunwind descriptor of a hostile target at aux0 (header,
 * slot array, names), and a walk over the ranges it gave. */
#include "fuzz_target.h"
#include "jitunwind/jitunwind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_target t;
    jitunwind_registry *reg;
    struct jitunwind_jit_read_info info;
    static struct jitunwind_frame frames[32];
    struct jitunwind_regs regs = {0};
    int stop;
    fuzz_target_parse(&t, data, size);
    if (jitunwind_registry_new(&reg) == 0) {
        jitunwind_jit_read_descriptor(reg, &t.mem, t.aux0, &info);
        regs.pc = t.aux1;
        regs.sp = fuzz_take(&t, 8);
        regs.fp = fuzz_take(&t, 8);
        regs.valid = JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP;
        jitunwind_unwind(jitunwind_host_arch(), reg, NULL, &t.mem, &regs, frames, 32, 0, &stop);
        jitunwind_registry_free(reg);
    }
    fuzz_target_free(&t);
    return 0;
}
