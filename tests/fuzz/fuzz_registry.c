/* Harness: the registry and in-process registration APIs called with
 * hostile arguments: each operation is a byte of the tail followed by its
 * arguments; a walk through the result over the input's memory ends it. */
#include "fuzz_target.h"
#include "jitunwind/jitunwind.h"

static const char NAMES[] = "py::jit:a\0py::x\0\0guess:zzz";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_target t;
    jitunwind_registry *reg;
    jitunwind_jit_id ids[16] = {0};
    static struct jitunwind_frame frames[32];
    struct jitunwind_regs regs = {0}, out;
    int ops = 0, stop;
    fuzz_target_parse(&t, data, size);
    if (jitunwind_registry_new(&reg) != 0) {
        fuzz_target_free(&t);
        return 0;
    }
    while (t.tail_len && ops++ < 256) {
        struct jitunwind_range r = {0};
        const struct jitunwind_range *found;
        uint8_t op = (uint8_t)fuzz_take(&t, 1);
        switch (op % 10) {
        case 0:
        case 1:
            r.start = fuzz_take(&t, 8);
            r.end = r.start + fuzz_take(&t, 4);
            r.kind = (uint32_t)fuzz_take(&t, 1) % 5;
            r.rule = (uint32_t)fuzz_take(&t, 1) % 6;
            r.stride = (uint32_t)fuzz_take(&t, 2);
            r.origin = (uint32_t)fuzz_take(&t, 1) % 6;
            r.frame_size = (uint32_t)fuzz_take(&t, 4);
            r.scan_start = fuzz_take(&t, 8);
            r.scan_end = r.scan_start + fuzz_take(&t, 2);
            r.name = NAMES + fuzz_take(&t, 1) % sizeof NAMES;
            jitunwind_registry_add(reg, &r);
            break;
        case 2:
            jitunwind_registry_remove(reg, fuzz_take(&t, 8));
            break;
        case 3:
            found = jitunwind_registry_lookup(reg, fuzz_take(&t, 8));
            if (found) {
                regs.pc = found->start;
                regs.sp = fuzz_take(&t, 8);
                regs.fp = fuzz_take(&t, 8);
                regs.lr = fuzz_take(&t, 8);
                regs.valid = (uint32_t)fuzz_take(&t, 1);
                jitunwind_step_range((t.flags & 2) ? JITUNWIND_ARCH_AARCH64 : JITUNWIND_ARCH_X86_64,
                                     found, &t.mem, &regs, (int)fuzz_take(&t, 1) & 1, &out, &stop);
            }
            break;
        case 4:
            jitunwind_registry_at(reg, (size_t)fuzz_take(&t, 2));
            break;
        case 5:
            jitunwind_registry_scan_guesses(reg, fuzz_take(&t, 8), fuzz_take(&t, 8));
            break;
        case 6: {
            /* In-process registration: the library never touches `start`. */
            uint64_t start = fuzz_take(&t, 8);
            size_t slot = (size_t)fuzz_take(&t, 1) % 16;
            jitunwind_jit_register((const void *)(uintptr_t)start, (size_t)fuzz_take(&t, 4),
                                   (int)fuzz_take(&t, 1) % 5, (int)fuzz_take(&t, 1) % 6,
                                   NAMES + fuzz_take(&t, 1) % sizeof NAMES, start, &ids[slot]);
            break;
        }
        case 7:
            jitunwind_jit_unregister(ids[fuzz_take(&t, 1) % 16] ^ (fuzz_take(&t, 1) & 3));
            break;
        case 8:
            jitunwind_registry_clear(reg);
            break;
        default:
            jitunwind_jit_read_self(reg, NULL);
            break;
        }
    }
    regs.pc = t.aux0;
    regs.sp = t.aux1;
    regs.fp = t.runtime;
    regs.valid = JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP;
    jitunwind_unwind((t.flags & 2) ? JITUNWIND_ARCH_AARCH64 : JITUNWIND_ARCH_X86_64, reg, NULL,
                     &t.mem, &regs, frames, 32, t.flags >> 8, &stop);
    jitunwind_registry_free(reg);
    jitunwind_jit_reset();
    fuzz_target_free(&t);
    return 0;
}
