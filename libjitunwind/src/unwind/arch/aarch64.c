/* AArch64 rules. The trampoline (CPython's Python/asm_trampoline.S):
 *   0 stp x29,x30,[sp,#-16]! | 4 mov x29,sp | 8 blr x3 | 12 ldp x29,x30,[sp],#16
 *   | 16 ret
 * A leading `bti c` shifts it by 4. A branch-protected CPython build starts
 * it with `paciasp` (which shifts it the same way) and puts `autiasp` before
 * `ret`: x30 holds the (signed) caller there too. */
#include "base/arch_facts.h"
#include "unwind/arch/arch.h"

/* The template, `bti c` and the instruction size are the architecture
 * table's; the offsets below count instructions into the template. */
static const struct ju_arch_facts *aarch64(void)
{
    return ju_arch_facts(JITUNWIND_ARCH_AARCH64);
}

/* With pointer authentication the top bits of a saved x30 hold a signature;
 * which bits is the target's mask when the caller gave it with the memory
 * (jitunwind_memory.pac_mask), else the architecture's default (48-bit user
 * addresses). */
static uint64_t strip_pac(const struct ju_step *s, uint64_t pc)
{
    return ju_arch_strip_pac(aarch64(), ju_memory_pac_mask(s->mem), pc);
}

static int from_lr(struct ju_step *s)
{
    if (!s->innermost || !(s->in->valid & JITUNWIND_REG_LR)) {
        s->stop = JITUNWIND_STOP_NEED_REGISTER;
        return JITUNWIND_EINVAL;
    }
    *s->out = *s->in;
    s->out->pc = strip_pac(s, s->in->lr);
    s->out->valid &= ~JITUNWIND_REG_LR;
    s->used_lr = 1;
    return 0;
}

static int strip(struct ju_step *s, int rc)
{
    if (rc == 0)
        s->out->pc = strip_pac(s, s->out->pc);
    return rc;
}

int ju_aarch64_step_range(struct ju_step *s, const struct jitunwind_range *r)
{
    const struct ju_arch_facts *a = aarch64();
    const uint64_t insn = a->insn_align;
    uint64_t copy_start, off, base = 0, last_lr;
    uint8_t head[JU_MAX_TEMPLATE];
    if (r->rule == JITUNWIND_RULE_FP_PRESERVING)
        return strip(s, ju_step_fp_preserving(s, r));
    if (r->rule != JITUNWIND_RULE_TRAMPOLINE_FRAMED) { /* SUB8 and SCAN are x86-64 only */
        s->stop = JITUNWIND_STOP_BAD_FRAME;
        return JITUNWIND_EUNSUPPORTED;
    }
    /* Only the innermost frame can be stopped at any instruction; any other
     * frame's pc is a return address, i.e. the return point after `blr`,
     * where the frame record is complete. */
    if (!s->innermost)
        return strip(s, ju_step_frame_record(s, s->in->fp));
    off = ju_trampoline_offset(r, s->in->pc, &copy_start);
    if (off % insn)
        goto bad;
    last_lr = 4 * insn; /* ret */
    if (ju_read(s->mem, copy_start, head, a->trampoline_framed_pac.len) == 0 &&
        ju_code_starts_with(head, a->trampoline_framed_pac.len, &a->trampoline_framed_pac)) {
        base = insn;            /* paciasp */
        last_lr = 5 * insn;     /* autiasp, ret */
    } else if (ju_read(s->mem, copy_start, head, a->landing_pad.len) == 0 &&
               ju_code_starts_with(head, a->landing_pad.len, &a->landing_pad)) {
        base = a->landing_pad.len;
    }
    /* before stp / after ldp: x30 holds the caller (signed or not) */
    if (off == 0 || off == base || (off >= base + 4 * insn && off <= base + last_lr))
        return from_lr(s);
    if (off == base + insn) { /* after stp, before mov: the record is at sp */
        if (!(s->in->valid & JITUNWIND_REG_SP)) {
            s->stop = JITUNWIND_STOP_NEED_REGISTER;
            return JITUNWIND_EINVAL;
        }
        return strip(s, ju_step_frame_record(s, s->in->sp));
    }
    if (off == base + 2 * insn || off == base + 3 * insn) /* at blr, or at ldp (return point) */
        return strip(s, ju_step_frame_record(s, s->in->fp));
bad: /* not an instruction boundary, or in the padding after the template */
    s->stop = JITUNWIND_STOP_BAD_FRAME;
    return JITUNWIND_ECORRUPT;
}
