/* The rules' states (rules.h) executed on a frame's registers: framehop's
 * shape, one function for every state, with checked arithmetic. */
#include "unwind/arch/arch.h"

static int bad_frame(struct ju_step *s)
{
    s->stop = JITUNWIND_STOP_BAD_FRAME;
    return JITUNWIND_ECORRUPT;
}

static int need_register(struct ju_step *s)
{
    s->stop = JITUNWIND_STOP_NEED_REGISTER;
    return JITUNWIND_EINVAL;
}

int ju_rule_exec(struct ju_step *s, const struct ju_rule_row *row)
{
    uint64_t base, cfa;
    if (row->ra_at == 0) { /* pc = lr: only a stopped (innermost) frame still has it */
        if (!s->innermost || !(s->in->valid & JITUNWIND_REG_LR))
            return need_register(s);
        *s->out = *s->in;
        s->out->pc = s->in->lr;
        s->out->valid &= ~JITUNWIND_REG_LR;
        s->used_lr = 1;
        return 0;
    }
    if (!row->cfa_on_fp && !(s->in->valid & JITUNWIND_REG_SP))
        return need_register(s);
    base = row->cfa_on_fp ? s->in->fp : s->in->sp;
    if (base > UINT64_MAX - row->cfa_offset)
        return bad_frame(s);
    cfa = base + row->cfa_offset;
    if (cfa < (uint64_t)-(int64_t)row->ra_at)
        return bad_frame(s);
    if (row->fp_at) { /* a frame record {fp, pc} at CFA + fp_at */
        int rc;
        if (cfa < (uint64_t)-(int64_t)row->fp_at)
            return bad_frame(s);
        if ((rc = ju_step_frame_record(s, cfa + (uint64_t)(int64_t)row->fp_at)) == 0)
            s->out->sp = cfa;
        return rc;
    }
    return ju_step_return_address_at(s, cfa + (uint64_t)(int64_t)row->ra_at, cfa);
}

int ju_step_fp_preserving(struct ju_step *s, const struct ju_arch_facts *a,
                          const struct jitunwind_range *r)
{
    struct ju_rule_row row = ju_rule_fp_preserving(a, r->frame_size);
    return ju_rule_exec(s, &row);
}

int ju_step_trampoline(struct ju_step *s, const struct ju_arch_facts *a,
                       const struct jitunwind_range *r)
{
    const struct ju_rule_layout *l = ju_rule_layout(a->arch, r->rule, JU_COPY_PLAIN), *of_copy;
    const struct ju_rule_row *row = NULL;
    uint64_t copy_start, off;
    int head;
    if (!l) { /* no layout of this rule on this architecture */
        s->stop = JITUNWIND_STOP_BAD_FRAME;
        return JITUNWIND_EUNSUPPORTED;
    }
    /* A caller frame's pc is the return point, whatever offset it seems to
     * have, and that state is the same for every head a copy may have. */
    if (!s->innermost)
        return ju_rule_exec(s, ju_rule_return_state(l));
    off = ju_trampoline_offset(r, s->in->pc, &copy_start);
    head = ju_copy_head(a, s->mem, copy_start);
    if ((of_copy = ju_rule_layout(a->arch, r->rule, head)))
        row = ju_rule_state(of_copy, ju_rule_head_len(a, head), off);
    if (!row) /* not an instruction boundary, or in the padding after the template */
        return bad_frame(s);
    return ju_rule_exec(s, row);
}
