/* The unwinder's range rules written as CFI rows: the states of the
 * trampoline layouts (unwind/arch/rules.c) and the one state of an
 * FP_PRESERVING range, each row the state's formula. A copy's head (a
 * landing pad) shifts every state but the first, which holds during it.
 * A caller frame's pc is the return point after the call; debuggers look
 * its CFI up one byte lower, inside the call, whose row is the return
 * point's state: the unwinder's "not innermost" case. */
#include "image/image_internal.h"

static struct ju_cfi_row cfi_row(const struct ju_rule_row *s, uint32_t at)
{
    struct ju_cfi_row r = {at, s->cfa_on_fp, 0, s->cfa_offset, s->ra_at, s->fp_at};
    return r;
}

int ju_cfi_plan_for(const struct ju_arch_facts *a, uint32_t rule, uint32_t frame_size,
                    int head, struct ju_cfi_plan *out)
{
    const struct ju_rule_layout *l;
    uint32_t i, head_len = ju_rule_head_len(a, head);
    *out = (struct ju_cfi_plan){0};
    if (rule == JITUNWIND_RULE_FP_PRESERVING) {
        struct ju_rule_row s = ju_rule_fp_preserving(a, frame_size);
        out->rows[out->nrows++] = cfi_row(&s, 0);
        return 0;
    }
    if (!(l = ju_rule_layout(a->arch, rule, head)))
        return JITUNWIND_EUNSUPPORTED;
    out->len = ju_rule_copy_len(a, l, head);
    for (i = 0; i < l->nrows; i++)
        out->rows[out->nrows++] = cfi_row(&l->rows[i], i == 0 ? 0 : head_len + l->rows[i].at);
    return 0;
}
