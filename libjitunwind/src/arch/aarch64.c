/* AArch64 rules. The trampoline (CPython's Python/asm_trampoline.S):
 *   0 stp x29,x30,[sp,#-16]! | 4 mov x29,sp | 8 blr x3 | 12 ldp x29,x30,[sp],#16
 *   | 16 ret
 * An optional leading `bti c` shifts it by 4. */
#include "arch/arch.h"

#define INSN_STP_FP_LR 0xa9bf7bfdu
#define INSN_MOV_FP_SP 0x910003fdu
#define INSN_BLR_X3 0xd63f0060u
#define INSN_LDP_FP_LR 0xa8c17bfdu
#define INSN_RET 0xd65f03c0u
#define INSN_BTI_C 0xd503245fu

static const uint32_t FRAMED[] = {INSN_STP_FP_LR, INSN_MOV_FP_SP, INSN_BLR_X3,
                                  INSN_LDP_FP_LR, INSN_RET};

/* With pointer authentication the top bits of a saved x30 hold a signature.
 * User-space addresses (48-bit VA) have them clear, so a value whose top 16
 * bits are neither all zero nor all one is taken as signed and masked to 48
 * bits. Kept simple on purpose: targets with 52-bit user VAs or top-byte
 * tags would need the target's PAC mask (NT_ARM_PAC_MASK), not handled. */
uint64_t ju_aarch64_strip_pac(uint64_t pc)
{
    uint64_t top = pc >> 48;
    return (top != 0 && top != 0xffff) ? (pc & 0x0000ffffffffffffull) : pc;
}

static int from_lr(struct ju_step *s)
{
    if (!s->innermost || !(s->in->valid & JITUNWIND_REG_LR)) {
        s->stop = JITUNWIND_STOP_NEED_REGISTER;
        return JITUNWIND_EINVAL;
    }
    *s->out = *s->in;
    s->out->pc = ju_aarch64_strip_pac(s->in->lr);
    s->out->valid &= ~JITUNWIND_REG_LR;
    s->used_lr = 1;
    return 0;
}

static int strip(struct ju_step *s, int rc)
{
    if (rc == 0)
        s->out->pc = ju_aarch64_strip_pac(s->out->pc);
    return rc;
}

int ju_aarch64_step_range(struct ju_step *s, const struct jitunwind_range *r)
{
    uint64_t copy_start, off, base = 0;
    uint8_t head[4];
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
    if (off & 3)
        goto bad;
    if (ju_read(s->mem, copy_start, head, sizeof head) == 0 && ju_load_u32(head) == INSN_BTI_C)
        base = 4;
    if (off == 0 || off == base || off == base + 16) /* before stp / at ret: x30 holds the caller */
        return from_lr(s);
    if (off == base + 4) { /* after stp, before mov: the record is at sp */
        if (!(s->in->valid & JITUNWIND_REG_SP)) {
            s->stop = JITUNWIND_STOP_NEED_REGISTER;
            return JITUNWIND_EINVAL;
        }
        return strip(s, ju_step_frame_record(s, s->in->sp));
    }
    if (off == base + 8 || off == base + 12) /* at blr, or at ldp (return point) */
        return strip(s, ju_step_frame_record(s, s->in->fp));
bad: /* not an instruction boundary, or in the padding after the template */
    s->stop = JITUNWIND_STOP_BAD_FRAME;
    return JITUNWIND_ECORRUPT;
}

int ju_aarch64_classify(const uint8_t *code, size_t len)
{
    size_t i;
    if (len >= 4 && ju_load_u32(code) == INSN_BTI_C) {
        code += 4;
        len -= 4;
    }
    if (len < sizeof FRAMED)
        return JITUNWIND_ENOTFOUND;
    for (i = 0; i < sizeof FRAMED / sizeof FRAMED[0]; i++)
        if (ju_load_u32(code + 4 * i) != FRAMED[i])
            return JITUNWIND_ENOTFOUND;
    return JITUNWIND_RULE_TRAMPOLINE_FRAMED;
}
