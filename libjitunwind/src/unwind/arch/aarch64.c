/* AArch64 rules. The trampoline layouts are data (rules.c): a copy's state
 * at its pc's offset is executed, and a caller pc read from the stack or
 * taken from x30 loses its pointer-authentication signature. Whether a
 * copy is the branch-protected template (paciasp first) or starts with
 * `bti c` is read from its first bytes. */
#include "base/arch_facts.h"
#include "unwind/arch/arch.h"

static const struct ju_arch_facts *aarch64(void)
{
    return ju_arch_facts(JITUNWIND_ARCH_AARCH64);
}

/* With pointer authentication the top bits of a saved x30 hold a signature;
 * which bits is the target's mask when the caller gave it with the memory
 * (jitunwind_memory.pac_mask), else the architecture's default (48-bit user
 * addresses). */
static int strip(struct ju_step *s, int rc)
{
    if (rc == 0)
        s->out->pc = ju_arch_strip_pac(aarch64(), ju_memory_pac_mask(s->mem), s->out->pc);
    return rc;
}

int ju_aarch64_step_range(struct ju_step *s, const struct jitunwind_range *r)
{
    if (r->rule == JITUNWIND_RULE_FP_PRESERVING)
        return strip(s, ju_step_fp_preserving(s, aarch64(), r));
    /* SUB8 and SCAN are x86-64 only: no layout */
    return strip(s, ju_step_trampoline(s, aarch64(), r));
}
