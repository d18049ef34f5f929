/* x86-64 rules. Trampoline layouts (CPython's Python/asm_trampoline.S):
 *   SUB8:   0 sub $8,%rsp (4) | 4 call *%rcx (2) | 6 add $8,%rsp (4) | 10 ret
 *   FRAMED: [endbr64 (4)] | push %rbp (1) | mov %rsp,%rbp (3) | call *%rcx (2)
 *           | pop %rbp (1) | ret (1)                                          */
#include "arch/arch.h"

static const uint8_t SUB8[] = {0x48, 0x83, 0xec, 0x08, 0xff, 0xd1,
                               0x48, 0x83, 0xc4, 0x08, 0xc3};
static const uint8_t FRAMED[] = {0x55, 0x48, 0x89, 0xe5, 0xff, 0xd1, 0x5d, 0xc3};
static const uint8_t ENDBR64[] = {0xf3, 0x0f, 0x1e, 0xfa};

static int bad(struct ju_step *s)
{
    s->stop = JITUNWIND_STOP_BAD_FRAME;
    return JITUNWIND_ECORRUPT;
}

static int step_sub8(struct ju_step *s, uint64_t off)
{
    uint64_t sp = s->in->sp;
    /* Not innermost: the pc is the return address after the call, where the
     * trampoline's own return address sits above the 8-byte pad. */
    if (!s->innermost || (off >= 4 && off < 10))
        return ju_step_return_address_at(s, sp + 8, sp + 16);
    if (off == 0 || off == 10) /* before `sub` / at `ret`: nothing pushed */
        return ju_step_return_address_at(s, sp, sp + 8);
    return bad(s); /* mid-instruction or past the template */
}

static int step_framed(struct ju_step *s, uint64_t off, uint64_t copy_start)
{
    uint8_t head[4];
    uint64_t base = 0, sp = s->in->sp;
    if (ju_read(s->mem, copy_start, head, sizeof head) == 0 &&
        memcmp(head, ENDBR64, sizeof head) == 0)
        base = 4;
    if (!s->innermost)
        return ju_step_frame_record(s, s->in->fp);
    if (off < base + 1) /* at endbr64 or push: nothing pushed yet */
        return ju_step_return_address_at(s, sp, sp + 8);
    if (off == base + 1) /* at mov: rbp pushed but still the caller's */
        return ju_step_return_address_at(s, sp + 8, sp + 16);
    if (off >= base + 4 && off <= base + 6) /* at call, or at pop after it */
        return ju_step_frame_record(s, s->in->fp);
    if (off == base + 7) /* at ret: rbp restored */
        return ju_step_return_address_at(s, sp, sp + 8);
    return bad(s);
}

int ju_x86_64_step_range(struct ju_step *s, const struct jitunwind_range *r)
{
    uint64_t copy_start, off;
    if (r->rule == JITUNWIND_RULE_FP_PRESERVING)
        return ju_step_frame_record(s, s->in->fp);
    if (!(s->in->valid & JITUNWIND_REG_SP)) {
        s->stop = JITUNWIND_STOP_NEED_REGISTER;
        return JITUNWIND_EINVAL;
    }
    off = ju_trampoline_offset(r, s->in->pc, &copy_start);
    if (r->rule == JITUNWIND_RULE_TRAMPOLINE_SUB8)
        return step_sub8(s, off);
    return step_framed(s, off, copy_start);
}

int ju_x86_64_classify(const uint8_t *code, size_t len)
{
    if (len >= sizeof SUB8 && memcmp(code, SUB8, sizeof SUB8) == 0)
        return JITUNWIND_RULE_TRAMPOLINE_SUB8;
    if (len >= sizeof ENDBR64 && memcmp(code, ENDBR64, sizeof ENDBR64) == 0) {
        code += sizeof ENDBR64;
        len -= sizeof ENDBR64;
    }
    if (len >= sizeof FRAMED && memcmp(code, FRAMED, sizeof FRAMED) == 0)
        return JITUNWIND_RULE_TRAMPOLINE_FRAMED;
    return JITUNWIND_ENOTFOUND;
}
