/* Steps shared by the architectures: frame records and stacked return
 * addresses. */
#include "unwind/arch/arch.h"

static int fail_read(struct ju_step *s)
{
    s->stop = JITUNWIND_STOP_UNREADABLE;
    return JITUNWIND_EREAD;
}

int ju_step_frame_record(struct ju_step *s, uint64_t fp)
{
    uint64_t record[2];
    uint8_t buf[16];
    if (fp == 0) {
        s->stop = JITUNWIND_STOP_END;
        return JITUNWIND_ENOTFOUND;
    }
    if ((fp & 7) != 0 || ((s->in->valid & JITUNWIND_REG_SP) && fp < s->in->sp) ||
        fp > UINT64_MAX - 16) {
        s->stop = JITUNWIND_STOP_BAD_FRAME;
        return JITUNWIND_ECORRUPT;
    }
    if (ju_read(s->mem, fp, buf, sizeof buf) < 0)
        return fail_read(s);
    record[0] = ju_load_u64(buf);
    record[1] = ju_load_u64(buf + 8);
    *s->out = (struct jitunwind_regs){0};
    s->out->fp = record[0];
    s->out->pc = record[1];
    s->out->sp = fp + 16;
    s->out->valid = JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP;
    return 0;
}

int ju_step_return_address_at(struct ju_step *s, uint64_t addr, uint64_t new_sp)
{
    uint64_t pc;
    if (ju_read_u64(s->mem, addr, &pc) < 0)
        return fail_read(s);
    *s->out = (struct jitunwind_regs){0};
    s->out->pc = pc;
    s->out->sp = new_sp;
    s->out->fp = s->in->fp;
    s->out->valid = JITUNWIND_REG_PC | JITUNWIND_REG_SP | (s->in->valid & JITUNWIND_REG_FP);
    return 0;
}

uint64_t ju_trampoline_offset(const struct jitunwind_range *r, uint64_t pc, uint64_t *copy_start)
{
    uint64_t off = pc - r->start;
    if (r->stride)
        off %= r->stride;
    *copy_start = pc - off;
    return off;
}
