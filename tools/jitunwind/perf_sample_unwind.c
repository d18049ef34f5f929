/* A perf sample's mixed stack. The native frames come from the sample
 * alone (its registers, its stack copy, the code); the Python frames can
 * only be read afterwards, from the running process, so they are merged
 * only when they fit the sample: as many eval-loop activations among the
 * native frames as groups in the Python chain (jitunwind_mix pairs the
 * k-th of each), every group placed. Otherwise the sample stays native,
 * its eval-loop frames shown as native frames. A JIT frame whose executor
 * is not known to have existed when the sample was taken keeps the sample
 * native-only too (perf_executors.c). */
#include <string.h>

#include "perf_events.h"

/* The groups of a chain, innermost first: each ends at an ENTRY frame; a
 * last group without one still counts. */
static size_t python_groups(const struct cli_stack *s)
{
    size_t i, groups = 0;
    for (i = 0; i < s->pyread.n_py; i++)
        if ((s->py[i].flags & JITUNWIND_PYFRAME_ENTRY) || i + 1 == s->pyread.n_py)
            groups++;
    return groups;
}

/* Whether the code object `code` is among the Python frames the eval-loop
 * frame `anchor` runs. */
static int group_runs(const struct cli_stack *s, uint32_t anchor, uint64_t code)
{
    size_t i;
    for (i = 0; i < s->n_items; i++)
        if (s->items[i].kind == JITUNWIND_MIXED_PYTHON && s->items[i].anchor == anchor &&
            s->py[s->items[i].index].code == code)
            return 1;
    return 0;
}

/* The sample's JIT executor frames against its executors' history: 0 when
 * one ran in code not known to exist when the sample was taken (it is
 * named so, never by the executor there now), else 1; `jit_code[i]` is
 * the code object of native frame i's executor, or 0. */
static int executors_existed(struct cli_stack *s, const struct cli_exec_history *h,
                             double sampled, int arch, uint64_t *jit_code)
{
    size_t i;
    int ok = 1;
    for (i = 0; i < s->n_native; i++) {
        struct cli_native *nf = &s->native[i];
        uint64_t code = 0;
        jit_code[i] = 0;
        /* In no range and no module of a process running a JIT: an
         * executor freed (its memory unmapped) since the sample. */
        int freed = !nf->has_range && !nf->module && !nf->symbol[0] && cli_exec_history_jit(h);
        if (!freed && (!nf->has_range || nf->range.kind != JITUNWIND_KIND_JIT ||
                       nf->range.origin != JITUNWIND_ORIGIN_INTERPRETER))
            continue;
        switch (freed ? 0
                      : cli_exec_history_trusted(
                            h, jitunwind_lookup_address(arch, nf->f.regs.pc, i == 0), sampled,
                            &code)) {
        case 1:
            jit_code[i] = code;
            break;
        case 0:
            nf->has_range = 0;
            nf->module = NULL;
            nf->jit_label[0] = nf->jit_name[0] = '\0';
            snprintf(nf->symbol, sizeof nf->symbol, "%s", CLI_PERF_REPLACED_JIT);
            ok = 0;
            break;
        default:
            break;
        }
    }
    return ok;
}

/* Each JIT frame's code object among the Python frames of the eval loop
 * that runs it (the nearest outer eval-loop frame): a Python chain read
 * after the thread moved to another function fails this. */
static int executors_match(const struct cli_stack *s, const uint64_t *jit_code)
{
    size_t i, e;
    for (i = 0; i < s->n_native; i++) {
        if (!jit_code[i])
            continue;
        for (e = i + 1; e < s->n_native && s->native[e].role != JITUNWIND_ROLE_EVAL; e++)
            continue;
        if (e < s->n_native && !group_runs(s, (uint32_t)e, jit_code[i]))
            return 0;
    }
    return 1;
}

static int consistent(const struct cli_stack *s)
{
    size_t i, evals = 0;
    if (s->pyread.py_status < 0 || s->stop_reason != JITUNWIND_STOP_END)
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
    s->pyread.n_py = 0;
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
                   const struct cli_options *opt, const struct cli_exec_history *h,
                   struct cli_stack *s)
{
    static uint64_t jit_code[CLI_MAX_NATIVE];
    struct cli_thread th;
    struct cli_stack_copy copy;
    struct jitunwind_memory live = t->mem;
    size_t i, evals = 0;
    memset(&th, 0, sizeof th);
    th.tid = (int)ps->tid;
    th.regs = ps->regs;
    th.all = ps->all;
    th.have_regs = (ps->regs.valid & (JITUNWIND_REG_PC | JITUNWIND_REG_SP)) ==
                   (JITUNWIND_REG_PC | JITUNWIND_REG_SP);
    memset(&copy, 0, sizeof copy);
    copy.start = ps->regs.sp;
    copy.bytes = ps->stack;
    copy.len = ps->stack ? ps->stack_len : 0;
    copy.code = live.read ? &live : NULL; /* a process known from its records has none */
    copy.reg = t->reg;
    copy.mods = t->mods;
    /* The unwinder reads t->mem; the Python reader keeps its own (live). */
    t->mem = cli_stack_copy_memory(&copy);
    cli_stack_build(t, &th, opt, s);
    t->mem = live;
    for (i = 0; i < s->n_native; i++)
        evals += s->native[i].role == JITUNWIND_ROLE_EVAL;
    if (!executors_existed(s, h, (double)ps->time / 1e9, t->arch, jit_code)) {
        native_only(s);
        return CLI_PERF_REPLACED;
    }
    if (s->pyread.n_py == 0 && evals == 0)
        return CLI_PERF_NATIVE_ONLY;
    if (consistent(s) && executors_match(s, jit_code))
        return CLI_PERF_MERGED;
    native_only(s);
    return CLI_PERF_INCONSISTENT;
}
