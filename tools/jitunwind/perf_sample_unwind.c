/* A perf sample's mixed stack. The native frames come from the sample
 * alone (its registers, its stack copy, the code); the Python frames can
 * only be read afterwards, from the running process, so they are merged
 * only when they fit the sample: as many eval-loop activations among the
 * native frames as groups in the Python chain (jitunwind_mix pairs the
 * k-th of each), every group placed. Otherwise the sample stays native,
 * its eval-loop frames shown as native frames. */
#include <string.h>

#include "perf_events.h"

/* The groups of a chain, innermost first: each ends at an ENTRY frame; a
 * last group without one still counts. */
static size_t python_groups(const struct cli_stack *s)
{
    size_t i, groups = 0;
    for (i = 0; i < s->n_py; i++)
        if ((s->py[i].flags & JITUNWIND_PYFRAME_ENTRY) || i + 1 == s->n_py)
            groups++;
    return groups;
}

static int consistent(const struct cli_stack *s)
{
    size_t i, evals = 0;
    if (s->py_status < 0 || s->stop_reason != JITUNWIND_STOP_END)
        return 0;
    for (i = 0; i < s->n_native; i++)
        evals += s->native[i].role == JITUNWIND_ROLE_EVAL;
    if (evals != python_groups(s))
        return 0;
    for (i = 0; i < s->n_items; i++)
        if (s->items[i].kind == JITUNWIND_MIXED_PYTHON &&
            s->items[i].anchor == JITUNWIND_MIXED_NO_ANCHOR)
            return 0;
    return 1;
}

/* Keep the native frames only, every one of them shown. */
static void native_only(struct cli_stack *s)
{
    static uint32_t roles[CLI_MAX_NATIVE];
    size_t i;
    s->n_py = 0;
    s->hidden = 0;
    for (i = 0; i < s->n_native; i++) {
        s->native[i].hidden = 0;
        if (s->native[i].role == JITUNWIND_ROLE_EVAL)
            s->native[i].role = JITUNWIND_ROLE_OTHER;
        roles[i] = s->native[i].role;
    }
    jitunwind_mix(roles, s->n_native, NULL, 0, s->items, CLI_MAX_NATIVE + s->py_cap, &s->n_items);
}

int cli_perf_stack(struct cli_target *t, const struct cli_perf_sample *ps,
                   const struct cli_options *opt, struct cli_stack *s)
{
    struct cli_thread th;
    struct cli_stack_copy copy;
    struct jitunwind_memory live = t->mem;
    size_t i, evals = 0;
    memset(&th, 0, sizeof th);
    th.tid = (int)ps->tid;
    th.regs = ps->regs;
    th.have_regs = (ps->regs.valid & (JITUNWIND_REG_PC | JITUNWIND_REG_SP)) ==
                   (JITUNWIND_REG_PC | JITUNWIND_REG_SP);
    memset(&copy, 0, sizeof copy);
    copy.start = ps->regs.sp;
    copy.bytes = ps->stack;
    copy.len = ps->stack ? ps->stack_len : 0;
    copy.code = &live;
    copy.reg = t->reg;
    copy.mods = t->mods;
    /* The unwinder reads t->mem; the Python reader keeps its own (live). */
    t->mem = cli_stack_copy_memory(&copy);
    cli_stack_build(t, &th, opt, s);
    t->mem = live;
    for (i = 0; i < s->n_native; i++)
        evals += s->native[i].role == JITUNWIND_ROLE_EVAL;
    if (s->n_py == 0 && evals == 0)
        return CLI_PERF_NATIVE_ONLY;
    if (consistent(s))
        return CLI_PERF_MERGED;
    native_only(s);
    return CLI_PERF_INCONSISTENT;
}
