/* One thread's mixed stack: its native frames unwound by the library
 * (ranges' rules, CFI, frame pointers), each named (symbol, range, or a
 * CPython executor's uop), its Python frames decoded, and the two
 * interleaved by the library's mixer (roles, groups, exact lines in JIT
 * code, hidden interpreter frames). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const struct jitunwind_py_thread *listed; /* what by_native_id compares */

static int by_native_id(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    uint64_t tx = listed[x].native_thread_id, ty = listed[y].native_thread_id;
    if (tx != ty)
        return tx < ty ? -1 : 1;
    return (x > y) - (x < y); /* a thread's states in interpreter-list order */
}

void cli_list_python_threads(struct cli_target *t)
{
    size_t i;
    t->n_py_threads = 0;
    t->n_py_names = 0; /* the names of the last listing's states */
    t->py_list_error[0] = '\0';
    if (!t->py_threads) {
        t->py_threads = calloc(JITUNWIND_PY_MAX_THREADS, sizeof *t->py_threads);
        t->py_order = calloc(JITUNWIND_PY_MAX_THREADS, sizeof *t->py_order);
        if (!t->py_threads || !t->py_order) {
            snprintf(t->py_list_error, sizeof t->py_list_error, "out of memory");
            return;
        }
    }
    if (jitunwind_pyreader_threads(t->py, t->py_threads, JITUNWIND_PY_MAX_THREADS,
                                   &t->n_py_threads) < 0)
        snprintf(t->py_list_error, sizeof t->py_list_error, "%s",
                 jitunwind_pyreader_last_error(t->py)->message);
    for (i = 0; i < t->n_py_threads; i++)
        t->py_order[i] = i;
    listed = t->py_threads;
    qsort(t->py_order, t->n_py_threads, sizeof *t->py_order, by_native_id);
}

size_t cli_first_python_state(const struct cli_target *t, int tid)
{
    size_t lo = 0, hi = t->n_py_threads;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->py_threads[t->py_order[mid]].native_thread_id < (uint64_t)(unsigned)tid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

struct cli_stack *cli_stack_new(size_t py_limit)
{
    struct cli_stack *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->py_limit = py_limit < JITUNWIND_PY_MAX_FRAMES ? py_limit : JITUNWIND_PY_MAX_FRAMES;
    s->py_cap = s->py_limit < CLI_MAX_PY ? s->py_limit : CLI_MAX_PY;
    s->py = calloc(s->py_cap, sizeof *s->py);
    s->items = calloc(CLI_MAX_NATIVE + s->py_cap, sizeof *s->items);
    if (!s->py || !s->items) {
        cli_stack_free(s);
        return NULL;
    }
    return s;
}

void cli_stack_free(struct cli_stack *s)
{
    if (!s)
        return;
    free(s->py);
    free(s->items);
    free(s);
}

int cli_stack_grow_py(struct cli_stack *s)
{
    size_t cap = s->py_cap * 2 < s->py_limit ? s->py_cap * 2 : s->py_limit;
    struct jitunwind_py_frame *py;
    struct jitunwind_mixed_item *items;
    if (cap <= s->py_cap)
        return -1;
    if (!(py = realloc(s->py, cap * sizeof *py)))
        return -1;
    s->py = py;
    if (!(items = realloc(s->items, (CLI_MAX_NATIVE + cap) * sizeof *items)))
        return -1;
    s->items = items;
    s->py_cap = cap;
    return 0;
}

/* One reading of the chains of `tid`'s thread states into s->py: 1 when
 * they did not fit in s->py_cap, else 0. */
static int read_python_frames(struct cli_target *t, int tid, struct cli_stack *s)
{
    size_t k;
    int rc, full = 0;
    s->py_fills++;
    s->pyread.n_py = 0;
    s->pyread.py_status = 0;
    s->pyread.py_error[0] = '\0';
    s->pyread.holds_gil = -1;
    /* A thread that entered subinterpreters has a thread state in each:
     * their chains are joined in interpreter-list order. Each state is
     * read again: the thread ran since the listing. */
    for (k = cli_first_python_state(t, tid); k < t->n_py_threads &&
         t->py_threads[t->py_order[k]].native_thread_id == (uint64_t)(unsigned)tid; k++) {
        struct jitunwind_py_thread th = t->py_threads[t->py_order[k]];
        size_t got = 0;
        int torn = 0;
        char why[JITUNWIND_ERROR_MESSAGE_MAX];
        if (jitunwind_pyreader_thread(t->py, &th) < 0 ||
            th.native_thread_id != (uint64_t)(unsigned)tid)
            continue; /* the state was freed since the listing */
        s->pyread.python_thread = 1;
        if (th.holds_gil >= 0)
            s->pyread.holds_gil = th.holds_gil;
        if (!th.current_frame)
            continue;
        if (s->pyread.n_py >= s->py_cap) {
            full = 1;
            continue;
        }
        if (t->threads_run)
            rc = cli_read_running_chain(t, &th, s->py + s->pyread.n_py, s->py_cap - s->pyread.n_py, &got,
                                        &torn, why, sizeof why, NULL);
        else if (t->chains)
            rc = jitunwind_pyreader_frames_reusing(t->py, t->chains, th.tstate, th.current_frame,
                                                   s->py + s->pyread.n_py,
                                                   s->py_cap - s->pyread.n_py, &got);
        else
            rc = jitunwind_pyreader_frames(t->py, th.current_frame, s->py + s->pyread.n_py,
                                           s->py_cap - s->pyread.n_py, &got);
        s->pyread.n_py += got;
        if (rc == JITUNWIND_ELIMIT && s->pyread.n_py == s->py_cap)
            full = 1;
        if (torn && !s->pyread.py_status) {
            s->pyread.py_status = JITUNWIND_EBUSY;
            snprintf(s->pyread.py_error, sizeof s->pyread.py_error,
                     "the chain changed while it was read (the thread runs): the frames may "
                     "mix moments");
        } else if (rc < 0 && !s->pyread.py_status) {
            s->pyread.py_status = rc;
            snprintf(s->pyread.py_error, sizeof s->pyread.py_error, "%s",
                     t->threads_run ? why : jitunwind_pyreader_last_error(t->py)->message);
        }
    }
    return full;
}

void cli_python_frames(struct cli_target *t, int tid, struct cli_stack *s)
{
    int full;
    if (t->py_memo && cli_py_memo_take(t->py_memo, tid, s))
        return;
    while ((full = read_python_frames(t, tid, s)) && cli_stack_grow_py(s) == 0)
        continue;
    if (full && !s->pyread.py_status) { /* a later thread state's chain had no room */
        s->pyread.py_status = JITUNWIND_ELIMIT;
        snprintf(s->pyread.py_error, sizeof s->pyread.py_error, "more than %zu Python frames",
                 s->py_cap);
    }
    if (t->py_memo)
        cli_py_memo_keep(t->py_memo, tid, s);
}

/* Native names by address: a sampler meets the same return addresses at
 * every sample, and each answer is kept rather than searched again. One cache serves one
 * target's modules at a time, as of one modules_epoch (range_watch.c adds
 * the modules a process loads later). */
#define SYMBOL_CACHE 4096u
struct symbol_entry {
    const jitunwind_modules *mods;
    unsigned epoch; /* the target's modules_epoch then */
    uint64_t at;    /* lookup address + 1; 0: empty */
    uint64_t offset;
    int found;
    char symbol[CLI_SYMBOL_MAX];
};
static struct symbol_entry symbol_cache[SYMBOL_CACHE];

static int symbolize(struct cli_target *t, uint64_t at, char *buf, size_t len, uint64_t *off)
{
    struct symbol_entry *e = &symbol_cache[(at >> 2) % SYMBOL_CACHE];
    if (e->at != at + 1 || e->mods != t->mods || e->epoch != t->modules_epoch) {
        e->mods = t->mods;
        e->epoch = t->modules_epoch;
        e->at = at + 1;
        e->offset = 0;
        e->found = jitunwind_modules_symbolize(t->mods, at, e->symbol, sizeof e->symbol,
                                               &e->offset) == 0;
    }
    if (!e->found)
        return -1;
    snprintf(buf, len, "%s", e->symbol);
    *off = e->offset;
    return 0;
}

static void name_native(struct cli_target *t, struct cli_native *nf, int innermost)
{
    uint64_t pc = nf->f.regs.pc, at = jitunwind_lookup_address(t->arch, pc, innermost), off = 0;
    const struct jitunwind_range *r = jitunwind_registry_lookup(t->reg, at);
    long m;
    nf->symbol[0] = nf->jit_label[0] = nf->jit_name[0] = '\0';
    nf->has_range = r != NULL;
    nf->module = NULL;
    if (r) {
        nf->range = *r;
        snprintf(nf->range_name, sizeof nf->range_name, "%s", r->name ? r->name : "??");
        nf->range.name = nf->range_name;
        if (r->kind == JITUNWIND_KIND_JIT && r->origin == JITUNWIND_ORIGIN_INTERPRETER && t->py) {
            static struct jitunwind_py_jit_pc where;
            if (jitunwind_pyreader_jit_pc(t->py, at, 0, &where) == 0 &&
                jitunwind_py_jit_pc_label(&where, nf->jit_label, sizeof nf->jit_label) > 0)
                jitunwind_py_jit_frame_name(&where, nf->jit_name, sizeof nf->jit_name);
        }
        return;
    }
    m = jitunwind_modules_find(t->mods, at); /* only frames outside every range */
    if (m >= 0) {
        struct jitunwind_module_info info;
        if (jitunwind_modules_info(t->mods, (size_t)m, &info) == 0)
            nf->module = info.path;
    } else {
        t->pc_outside = at; /* code no range describes yet: range_watch.c */
    }
    if (symbolize(t, at, nf->symbol, sizeof nf->symbol, &off) == 0)
        nf->offset = off + (pc - at);
}

static void unwind_native(struct cli_target *t, const struct cli_thread *th, struct cli_stack *s)
{
    static struct jitunwind_frame frames[CLI_MAX_NATIVE];
    struct jitunwind_cursor cursor;
    size_t i, n = 0;
    if (jitunwind_cursor_init(&cursor, t->arch, t->reg, &t->mem, &th->regs, CLI_MAX_NATIVE,
                              0) == 0) {
        jitunwind_cursor_set_modules(&cursor, t->mods);
        if (th->all.valid)
            jitunwind_cursor_set_registers(&cursor, &th->all);
        while (n < CLI_MAX_NATIVE && jitunwind_cursor_step(&cursor, &frames[n]) == 1)
            n++;
        s->stop_reason = n >= CLI_MAX_NATIVE ? JITUNWIND_STOP_DEPTH
                                             : jitunwind_cursor_stop_reason(&cursor);
    }
    s->n_native = n;
    for (i = 0; i < s->n_native; i++) {
        memset(&s->native[i], 0, sizeof s->native[i]);
        s->native[i].f = frames[i];
        s->native[i].f.range = NULL; /* the registry may change: kept as a copy */
        name_native(t, &s->native[i], i == 0);
    }
}

/* An eval-loop part no symbol names is the one found from the code of a
 * stripped interpreter (jitunwind_pyreader_eval_ranges): the part GCC split
 * off, which its symbol, in the debug file, calls so. */
static void name_outlined_eval(struct cli_target *t, struct cli_native *nf, int innermost)
{
    struct jitunwind_py_code_range parts[JITUNWIND_PY_MAX_EVAL_RANGES];
    uint64_t pc = nf->f.regs.pc, at = jitunwind_lookup_address(t->arch, pc, innermost);
    size_t n = 0, i;
    jitunwind_pyreader_eval_ranges(t->py, parts, JITUNWIND_PY_MAX_EVAL_RANGES, &n);
    for (i = 0; i < n && i < JITUNWIND_PY_MAX_EVAL_RANGES; i++)
        if (at >= parts[i].start && at < parts[i].end)
            nf->offset = pc - parts[i].start;
    snprintf(nf->symbol, sizeof nf->symbol, "_PyEval_EvalFrameDefault.cold");
}

/* Roles, the Python frames each eval loop runs, their exact lines in JIT
 * code, and (without --native-all) the interpreter's own native frames
 * between the innermost and the outermost eval loop hidden: the Python
 * frames say the same. Python frames no native frame runs come last. */
static void mix(struct cli_target *t, const struct cli_options *opt, struct cli_stack *s)
{
    static struct jitunwind_mixer_native natives[CLI_MAX_NATIVE];
    struct jitunwind_mixer_options mo = {.size = sizeof mo, .arch = (uint32_t)t->arch,
                                         .registry = t->reg, .reader = t->py,
                                         .flags = opt->native_all ? 0u
                                                                  : JITUNWIND_MIXER_HIDE_INTERPRETER};
    size_t i, fed = 0, max = CLI_MAX_NATIVE + s->py_cap;
    jitunwind_mixer *m;
    for (i = 0; i < s->n_native; i++) {
        const struct cli_native *nf = &s->native[i];
        natives[i].pc = nf->f.regs.pc;
        natives[i].symbol = nf->has_range ? NULL : nf->symbol;
        natives[i].flags = nf->module && strcmp(nf->module, t->loc.module) == 0
                               ? JITUNWIND_MIXER_INTERPRETER : 0;
        natives[i].role = JITUNWIND_ROLE_OTHER;
    }
    if (jitunwind_mixer_new(&mo, &m) < 0) {
        s->partial = 1;
        return;
    }
    if (jitunwind_mixer_python(m, s->py, s->pyread.n_py) < 0 ||
        jitunwind_mixer_feed(m, natives, s->n_native, &fed, s->items, max, &s->n_items) < 0)
        s->partial = 1;
    for (i = 0; i < s->n_native; i++) {
        s->native[i].role = natives[i].role;
        if (!s->native[i].symbol[0] && !s->native[i].has_range &&
            s->native[i].role == JITUNWIND_ROLE_EVAL && t->py)
            name_outlined_eval(t, &s->native[i], i == 0);
        s->native[i].hidden = jitunwind_mixer_hidden(m, i);
        s->hidden += (size_t)s->native[i].hidden;
    }
    for (i = jitunwind_mixer_next_python(m); i < s->pyread.n_py && s->n_items < max; i++) {
        struct jitunwind_mixed_item *it = &s->items[s->n_items++];
        it->kind = JITUNWIND_MIXED_PYTHON;
        it->index = (uint32_t)i;
        it->anchor = JITUNWIND_MIXED_NO_ANCHOR;
        it->flags = 0;
    }
    jitunwind_mixer_free(m);
}

static int shown_item(const struct cli_stack *s, size_t i)
{
    return s->items[i].kind != JITUNWIND_MIXED_NATIVE || !s->native[s->items[i].index].hidden;
}

/* --max-frames: when more than `max` frames would be shown, the innermost
 * max - max/2 and the outermost max/2 are kept and the ones between cut. */
static void cut_frames(struct cli_stack *s, size_t max)
{
    size_t i, shown = 0, kept;
    s->cut_from = s->cut_to = s->left_out = 0;
    if (!max)
        return;
    for (i = 0; i < s->n_items; i++)
        shown += shown_item(s, i);
    if (shown <= max)
        return;
    for (i = 0, kept = 0; i < s->n_items && kept < max - max / 2; i++)
        kept += shown_item(s, i);
    s->cut_from = i;
    for (i = s->n_items, kept = 0; i > s->cut_from && kept < max / 2; i--)
        kept += shown_item(s, i - 1);
    s->cut_to = i;
    s->left_out = shown - max;
}

void cli_stack_build(struct cli_target *t, const struct cli_thread *th,
                     const struct cli_options *opt, struct cli_stack *s)
{
    size_t i;
    s->thread = *th;
    s->n_native = s->n_items = s->hidden = 0;
    s->stop_reason = JITUNWIND_STOP_NONE;
    s->pyread.python_thread = 0;
    s->partial = 0;
    if (th->have_regs && !opt->python_only)
        unwind_native(t, th, s);
    else if (!opt->python_only)
        s->partial = 1;
    cli_python_frames(t, th->tid, s);
    mix(t, opt, s);
    if (s->pyread.py_status < 0)
        s->partial = 1;
    for (i = 0; i < s->n_items && s->n_native; i++)
        if (s->items[i].kind == JITUNWIND_MIXED_PYTHON &&
            s->items[i].anchor == JITUNWIND_MIXED_NO_ANCHOR)
            s->partial = 1; /* Python frames no native frame was found to run */
    if (s->n_native && s->stop_reason != JITUNWIND_STOP_END)
        s->partial = 1;
    cut_frames(s, opt->max_frames);
}
