/* The incremental mixer: the mixed-stack policy applied frame by frame as
 * a consumer unwinds (jitunwind/mixed.h). */
#include <stdlib.h>

#include "base/sized.h"
#include "internal.h"
#include "mixed/mixed_internal.h"

#define MARK_HIDEABLE 1u /* an OTHER frame in the interpreter's own module */

struct jitunwind_mixer {
    struct jitunwind_mixer_options opt;
    struct jitunwind_py_frame *py; /* borrowed: jitunwind_mixer_python */
    size_t n_py, next_py;
    int have_py;
    size_t fed;                    /* native frames taken so far */
    uint32_t previous_role;        /* of the last frame taken */
    int concrete_seen;             /* a frame not inlined was taken: pcs are return addresses */
    uint64_t jit_run;              /* lookup address of the innermost frame of the JIT run
                                    * just above, when previous_role is JIT */
    size_t first_eval, last_eval;  /* eval-loop frames taken; SIZE_MAX: none yet */
    uint8_t *marks;                /* HIDE_INTERPRETER: MARK_* per frame taken */
    size_t marks_cap;
    struct jitunwind_py_jit_pc where; /* scratch for exact lines (large: kept off the stack) */
};

JITUNWIND_API int jitunwind_mixer_new(const struct jitunwind_mixer_options *options,
                                      jitunwind_mixer **out)
{
    jitunwind_mixer *m;
    if (!out)
        return JITUNWIND_EINVAL;
    if (!options || !JU_OPTS_VALID(options, struct jitunwind_mixer_options) ||
        options->size < JU_OFFSETOFEND(struct jitunwind_mixer_options, flags))
        return ju_constructed((void **)out, NULL, JITUNWIND_EINVAL, NULL);
    m = calloc(1, sizeof *m);
    if (m) {
        memcpy(&m->opt, options, options->size < sizeof m->opt ? options->size : sizeof m->opt);
        m->opt.size = sizeof m->opt;
        m->previous_role = JITUNWIND_ROLE_OTHER;
        m->first_eval = m->last_eval = SIZE_MAX;
    }
    return ju_constructed((void **)out, m, m ? 0 : JITUNWIND_ENOMEM, NULL);
}

JITUNWIND_API void jitunwind_mixer_free(jitunwind_mixer *m)
{
    if (!m)
        return;
    free(m->marks);
    free(m);
}

JITUNWIND_API int jitunwind_mixer_python(jitunwind_mixer *m, struct jitunwind_py_frame *py,
                                         size_t n_py)
{
    if (!m || m->have_py || (!py && n_py) || n_py > UINT32_MAX)
        return JITUNWIND_EINVAL;
    m->py = py;
    m->n_py = n_py;
    m->have_py = 1;
    return 0;
}

JITUNWIND_API size_t jitunwind_mixer_next_python(const jitunwind_mixer *m)
{
    return m ? m->next_py : 0;
}

/* A registered range makes a frame JIT or trampoline code; the eval loop
 * is known by address (every part the reader found) or by name; anything
 * else is OTHER (a "py::" symbol outside every range included). */
static uint32_t classify(const jitunwind_mixer *m, const struct jitunwind_mixer_native *nat,
                         uint64_t addr)
{
    const struct jitunwind_range *r;
    if (nat->flags & JITUNWIND_MIXER_ROLE_GIVEN)
        return nat->role;
    if (m->opt.registry && (r = jitunwind_registry_lookup(m->opt.registry, addr)) != NULL)
        return r->kind == JITUNWIND_KIND_JIT ? JITUNWIND_ROLE_JIT : JITUNWIND_ROLE_TRAMPOLINE;
    if (jitunwind_pyreader_in_eval_loop(m->opt.reader, addr) == 1 ||
        jitunwind_native_role_from_symbol(nat->symbol) == JITUNWIND_ROLE_EVAL)
        return JITUNWIND_ROLE_EVAL;
    return JITUNWIND_ROLE_OTHER;
}

/* The innermost Python frame of an eval loop that called straight into
 * JIT code: JIT code updates the frame's instruction pointer only at some
 * points, so its line may lag and its values be stale. The uop at the
 * innermost frame of the JIT run, looked up in the frame's code, gives the
 * exact line; the values stay as they are. */
static void runs_jit_code(jitunwind_mixer *m, struct jitunwind_py_frame *f)
{
    f->flags |= JITUNWIND_PYFRAME_LINE_MAY_LAG | JITUNWIND_PYFRAME_IN_JIT;
    if (!m->opt.reader)
        return;
    if (jitunwind_pyreader_jit_pc(m->opt.reader, m->jit_run, f->code, &m->where) == 0 &&
        m->where.region == JITUNWIND_JIT_REGION_UOP && m->where.uop.line > 0) {
        f->line = m->where.uop.line;
        f->flags &= ~(uint32_t)JITUNWIND_PYFRAME_LINE_MAY_LAG;
    }
}

static int mark(jitunwind_mixer *m, uint8_t value)
{
    if (!(m->opt.flags & JITUNWIND_MIXER_HIDE_INTERPRETER))
        return 0;
    if (m->fed >= m->marks_cap) {
        size_t cap = m->marks_cap ? m->marks_cap * 2 : 256;
        uint8_t *grown = realloc(m->marks, cap);
        if (!grown)
            return JITUNWIND_ENOMEM;
        m->marks = grown;
        m->marks_cap = cap;
    }
    m->marks[m->fed] = value;
    return 0;
}

static void put(struct jitunwind_mixed_item *it, uint32_t kind, size_t index, uint32_t anchor,
                uint32_t flags)
{
    it->kind = kind;
    it->index = (uint32_t)index;
    it->anchor = anchor;
    it->flags = flags;
}

JITUNWIND_API int jitunwind_mixer_feed(jitunwind_mixer *m,
                                       struct jitunwind_mixer_native *natives, size_t n,
                                       size_t *fed, struct jitunwind_mixed_item *out, size_t max,
                                       size_t *count)
{
    size_t i, k, group, placed = 0;
    int rc = 0;
    if (fed)
        *fed = 0;
    if (count)
        *count = 0;
    if (!m || !fed || !count || (!natives && n) || (!out && max))
        return JITUNWIND_EINVAL;
    for (i = 0; i < n; i++) {
        struct jitunwind_mixer_native *nat = &natives[i];
        int concrete = m->concrete_seen || (nat->flags & JITUNWIND_MIXER_NOT_INNERMOST);
        uint64_t addr = jitunwind_lookup_address((int)m->opt.arch, nat->pc, !concrete);
        uint32_t role = classify(m, nat, addr), anchor = (uint32_t)m->fed;
        if (role == JITUNWIND_ROLE_EVAL && !m->have_py) {
            rc = JITUNWIND_MIXER_WANTS_PYTHON;
            break;
        }
        group = role == JITUNWIND_ROLE_EVAL ? ju_mix_group_size(m->py, m->n_py, m->next_py) : 0;
        if (max - placed < 1 + group || m->fed >= UINT32_MAX - 1) {
            rc = JITUNWIND_ELIMIT;
            break;
        }
        if ((rc = mark(m, role == JITUNWIND_ROLE_OTHER &&
                                  (nat->flags & JITUNWIND_MIXER_INTERPRETER)
                              ? MARK_HIDEABLE : 0)) < 0)
            break;
        nat->role = role;
        nat->address = addr;
        put(&out[placed++], JITUNWIND_MIXED_NATIVE, m->fed, JITUNWIND_MIXED_NO_ANCHOR, 0);
        for (k = 0; k < group; k++, m->next_py++) {
            uint32_t lag = k == 0 ? ju_mix_lag(m->previous_role) : 0;
            if (lag)
                runs_jit_code(m, &m->py[m->next_py]);
            put(&out[placed++], JITUNWIND_MIXED_PYTHON, m->next_py, anchor, lag);
        }
        if (role == JITUNWIND_ROLE_EVAL) {
            if (m->first_eval == SIZE_MAX)
                m->first_eval = m->fed;
            m->last_eval = m->fed;
        }
        if (role == JITUNWIND_ROLE_JIT && m->previous_role != JITUNWIND_ROLE_JIT)
            m->jit_run = addr;
        m->previous_role = role;
        if (!(nat->flags & JITUNWIND_MIXER_INLINED))
            m->concrete_seen = 1;
        m->fed++;
    }
    *fed = i;
    *count = placed;
    return rc;
}

JITUNWIND_API int jitunwind_mixer_hidden(const jitunwind_mixer *m, size_t index)
{
    if (!m || !m->marks || m->first_eval == SIZE_MAX || index >= m->fed)
        return 0;
    return index > m->first_eval && index < m->last_eval && (m->marks[index] & MARK_HIDEABLE);
}
