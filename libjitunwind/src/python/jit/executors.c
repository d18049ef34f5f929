/* JIT executors of CPython 3.13 and later, found from the interpreter's own
 * structures (which of them a version has is its layout's business):
 *   interp->executor_list_head          (3.13, 3.14) live executors, through
 *                                        vm_data.links.next
 *   interp->executor_ptrs[0..executor_count)
 *                                        (3.15+) live executors, an array
 *   interp->executor_deletion_list_head (3.14+) invalidated executors whose
 *                                        code a thread may still be running
 *   interp->cold_executor, cold_dynamic_executor
 *                                        (3.15+) the shared cold exits
 *   COLD_EXITS[]                         (3.13, tier-2 builds) a static array
 *                                        of executors, each JIT-compiled
 * Each compiled executor owns [jit_code, jit_code + jit_size). Where the
 * interpreter keeps them is build-specific, so it comes from DWARF
 * (dwarf_layout.c); so does all of 3.15's executor layout.
 */
#include <stdio.h>

#include "base/arch_facts.h"
#include "python/pyreader.h"
#include "base/cycle.h"
#include "ranges/registry_loaders.h"

#define MAX_JIT_SIZE (64u << 20) /* one executor's mapping; real ones are pages */

/* One walk over every executor; `each` gets each one in turn and may stop
 * the walk with a negative status. */
struct walk {
    int (*each)(jitunwind_pyreader *r, struct walk *w, const struct jitunwind_py_executor *e);
    size_t total; /* executors visited, against JITUNWIND_PY_MAX_EXECUTORS */
    /* for collect() */
    struct jitunwind_py_executor *out;
    size_t max;
    size_t *count;
    /* for find(): a search, which decodes the names of the executor it
     * looks for only (see wanted()) */
    int search;
    uint64_t want_address, want_pc;
    struct jitunwind_py_executor *found;
    /* for add_range() */
    jitunwind_registry *reg;
    int arch;
    uint64_t eval_start, eval_end;
    size_t added;
    size_t unscannable; /* SCAN ranges left out: the eval loop's code is unknown */
};

/* Whether `e` is the executor a search looks for: the one at want_address,
 * or else the one whose code holds want_pc. */
static int wanted(const struct walk *w, const struct jitunwind_py_executor *e)
{
    if (w->want_address)
        return e->address == w->want_address;
    return e->jit_code && w->want_pc >= e->jit_code && w->want_pc - e->jit_code < e->jit_size;
}

/* Read executor `ex` and hand it to the walk's callback. */
static int read_executor(jitunwind_pyreader *r, struct walk *w, uint64_t ex, uint64_t interp,
                         uint32_t flags, uint64_t *next)
{
    const struct ju_py_layout *L = r->layout;
    struct jitunwind_py_executor exec, *e = &exec;
    uint64_t jit_code, jit_size, code = 0;
    if (++w->total > JITUNWIND_PY_MAX_EXECUTORS)
        return ju_fail(&r->err, JITUNWIND_ELIMIT, ex, "more than %u executors",
                       JITUNWIND_PY_MAX_EXECUTORS);
    if ((next && ju_py_fetch(&r->mem, L, ex, JU_PYF_ex_links_next, next) < 0) ||
        ju_py_fetch(&r->mem, L, ex, JU_PYF_ex_jit_code, &jit_code) < 0 ||
        ju_py_fetch(&r->mem, L, ex, JU_PYF_ex_jit_size, &jit_size) < 0)
        return ju_fail(&r->err, JITUNWIND_EREAD, ex, "executor %#llx is unreadable",
                       (unsigned long long)ex);
    if (jit_size > MAX_JIT_SIZE || jit_code + jit_size < jit_code)
        return ju_fail(&r->err, JITUNWIND_ECORRUPT, ex,
                       "executor %#llx claims %llu bytes of code at %#llx",
                       (unsigned long long)ex, (unsigned long long)jit_size,
                       (unsigned long long)jit_code);
    memset(e, 0, sizeof *e);
    e->address = ex;
    e->interp = interp;
    e->jit_code = jit_size ? jit_code : 0;
    e->jit_size = jit_code ? jit_size : 0;
    e->flags = flags;
    e->first_line = -1;
    if (w->search && !wanted(w, e))
        return 0; /* its code object and names would be read for nothing */
    if (!(flags & JITUNWIND_PYEXEC_COLD_EXIT) && L->ex_code != JU_PY_NONE &&
        ju_py_fetch(&r->mem, L, ex, JU_PYF_ex_code, &code) < 0)
        code = 0;
    e->code = code;
    if (code) {
        struct jitunwind_py_frame f;
        memset(&f, 0, sizeof f);
        ju_py_decode_code(r, code, 0, -1, &f);
        memcpy(e->qualname, f.qualname, sizeof e->qualname);
        memcpy(e->filename, f.filename, sizeof e->filename);
        e->first_line = f.first_line;
        e->flags |= f.flags & JITUNWIND_PYFRAME_NAME_TRUNCATED;
    } else {
        e->flags |= JITUNWIND_PYEXEC_NO_CODE;
    }
    return w->each(r, w, e);
}

static int walk_list(jitunwind_pyreader *r, struct walk *w, uint64_t interp,
                     enum ju_py_field_id head, uint32_t flags)
{
    struct ju_cycle seen = {0, 1, 0};
    uint64_t ex;
    int rc;
    if (ju_py_offset(r->layout, head) == JU_PY_NONE)
        return 0;
    if (ju_py_fetch(&r->mem, r->layout, interp, head, &ex) < 0)
        return ju_fail(&r->err, JITUNWIND_EREAD, interp,
                       "the executor list of interpreter %#llx is unreadable",
                       (unsigned long long)interp);
    while (ex) {
        if (ex & 7)
            return ju_fail(&r->err, JITUNWIND_ECORRUPT, ex, "misaligned executor %#llx",
                           (unsigned long long)ex);
        if (ju_cycle_seen(&seen, ex))
            return ju_fail(&r->err, JITUNWIND_ELOOP, ex, "the executor list loops");
        if ((rc = read_executor(r, w, ex, interp, flags, &ex)) != 0)
            return rc; /* an error, or a callback that found what it looked for */
    }
    return 0;
}

/* executor_ptrs[0..executor_count) of one interpreter, read in chunks. */
static int walk_array(jitunwind_pyreader *r, struct walk *w, uint64_t interp)
{
    const struct ju_py_layout *L = r->layout;
    uint64_t array, count, i, chunk[64];
    int rc;
    if (ju_py_fetch(&r->mem, L, interp, JU_PYF_interp_executor_array, &array) < 0 ||
        ju_py_fetch(&r->mem, L, interp, JU_PYF_interp_executor_count, &count) < 0)
        return ju_fail(&r->err, JITUNWIND_EREAD, interp,
                       "the executor array of interpreter %#llx is unreadable",
                       (unsigned long long)interp);
    if (count > JITUNWIND_PY_MAX_EXECUTORS)
        return ju_fail(&r->err, JITUNWIND_ECORRUPT, interp,
                       "interpreter %#llx claims %llu executors (at most %u are read): not an "
                       "executor count", (unsigned long long)interp, (unsigned long long)count,
                       JITUNWIND_PY_MAX_EXECUTORS);
    if (count && (array == 0 || array & 7))
        return ju_fail(&r->err, JITUNWIND_ECORRUPT, interp,
                       "interpreter %#llx has %llu executors in an array at %#llx",
                       (unsigned long long)interp, (unsigned long long)count,
                       (unsigned long long)array);
    for (i = 0; i < count; i++) {
        uint64_t k = i % 64, ex;
        if (k == 0) {
            uint64_t n = count - i < 64 ? count - i : 64;
            if (ju_read(&r->mem, array + 8 * i, chunk, 8 * n) < 0)
                return ju_fail(&r->err, JITUNWIND_EREAD, array + 8 * i,
                               "executor_ptrs[%llu] of interpreter %#llx is unreadable",
                               (unsigned long long)i, (unsigned long long)interp);
        }
        ex = chunk[k];
        if (ex == 0 || ex & 7)
            return ju_fail(&r->err, JITUNWIND_ECORRUPT, array + 8 * i,
                           "executor_ptrs[%llu] of interpreter %#llx is %#llx: not an executor",
                           (unsigned long long)i, (unsigned long long)interp,
                           (unsigned long long)ex);
        if ((rc = read_executor(r, w, ex, interp, 0, NULL)) != 0)
            return rc;
    }
    return 0;
}

/* One interpreter's shared cold executors (3.15+), where the layout has them. */
static int walk_cold_executors(jitunwind_pyreader *r, struct walk *w, uint64_t interp)
{
    static const enum ju_py_field_id fields[] = {JU_PYF_interp_cold_executor,
                                                 JU_PYF_interp_cold_dynamic};
    size_t i;
    int rc;
    for (i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        uint64_t ex;
        if (ju_py_offset(r->layout, fields[i]) == JU_PY_NONE)
            continue;
        if (ju_py_fetch(&r->mem, r->layout, interp, fields[i], &ex) < 0)
            return ju_fail(&r->err, JITUNWIND_EREAD, interp,
                           "the cold executors of interpreter %#llx are unreadable",
                           (unsigned long long)interp);
        if (ex == 0)
            continue; /* not made yet */
        if (ex & 7)
            return ju_fail(&r->err, JITUNWIND_ECORRUPT, ex, "misaligned cold executor %#llx",
                           (unsigned long long)ex);
        if ((rc = read_executor(r, w, ex, interp, JITUNWIND_PYEXEC_COLD_EXIT, NULL)) != 0)
            return rc;
    }
    return 0;
}

static int walk_cold_exits(jitunwind_pyreader *r, struct walk *w)
{
    uint32_t i;
    for (i = 0; i < r->cold_exit_count; i++) {
        uint64_t ex = r->cold_exits + (uint64_t)i * r->layout->ex_size, jit_code;
        int rc;
        if (ju_py_fetch(&r->mem, r->layout, ex, JU_PYF_ex_jit_code, &jit_code) < 0)
            return ju_fail(&r->err, JITUNWIND_EREAD, ex, "cold exit %u is unreadable", i);
        if (jit_code == 0)
            continue; /* not compiled (no JIT, or never initialised) */
        if ((rc = read_executor(r, w, ex, 0, JITUNWIND_PYEXEC_COLD_EXIT, NULL)) != 0)
            return rc;
    }
    return 0;
}

/* Every list or array of every interpreter, then the cold exits. */
static int walk_all(jitunwind_pyreader *r, struct walk *w)
{
    const struct ju_py_layout *L = r->layout;
    struct ju_interp_walk interps = JU_INTERP_WALK_INIT;
    uint64_t interp;
    int rc;
    ju_clear_error(&r->err);
    if (r->report.executors_missing[0] && r->report.frames.source[0])
        return ju_fail(&r->err, JITUNWIND_EUNSUPPORTED, 0,
                       "%s: executors are placed only by the interpreter's DWARF, and that of "
                       "%s has no %s: they are known only as GDB JIT interface ranges",
                       L->name, r->report.frames.source, r->report.executors_missing);
    if (r->report.executors_missing[0])
        return ju_fail(&r->err, JITUNWIND_EUNSUPPORTED, 0,
                       "%s: executors are placed only by the interpreter's DWARF, and none was "
                       "found (needed first: %s): they are known only as GDB JIT interface "
                       "ranges", L->name, r->report.executors_missing);
    if (L->ex_jit_code == JU_PY_NONE || L->ex_jit_size == JU_PY_NONE)
        return ju_fail(&r->err, JITUNWIND_EUNSUPPORTED, 0,
                       "%s has no JIT executors to walk (3.13 and later have)", L->name);
    if (L->interp_executor_list == JU_PY_NONE && L->interp_executor_array == JU_PY_NONE)
        return ju_fail(&r->err, JITUNWIND_ENOTFOUND, 0,
                       "where this %s build keeps its executors is build-specific and was not "
                       "found: it needs the interpreter's DWARF", L->name);
    while ((rc = ju_py_next_interp(r, &interps, &interp)) > 0) {
        if ((L->interp_executor_list != JU_PY_NONE &&
             (rc = walk_list(r, w, interp, JU_PYF_interp_executor_list, 0)) != 0) ||
            (L->interp_executor_array != JU_PY_NONE && (rc = walk_array(r, w, interp)) != 0) ||
            (L->ex_links_next != JU_PY_NONE &&
             (rc = walk_list(r, w, interp, JU_PYF_interp_executor_deleted,
                             JITUNWIND_PYEXEC_DELETED)) != 0) ||
            (rc = walk_cold_executors(r, w, interp)) != 0)
            return rc;
    }
    return rc < 0 ? rc : walk_cold_exits(r, w);
}

static int collect(jitunwind_pyreader *r, struct walk *w, const struct jitunwind_py_executor *e)
{
    if (*w->count >= w->max)
        return ju_fail(&r->err, JITUNWIND_ELIMIT, e->address,
                       "more executors than the %zu asked for", w->max);
    w->out[(*w->count)++] = *e;
    return 0;
}

JITUNWIND_API int jitunwind_pyreader_executors(jitunwind_pyreader *r,
                                               struct jitunwind_py_executor *out, size_t max,
                                               size_t *count)
{
    struct walk w = {0};
    if (!r || (!out && max) || !count)
        return JITUNWIND_EINVAL;
    *count = 0;
    w.each = collect;
    w.out = out;
    w.max = max;
    w.count = count;
    return walk_all(r, &w);
}

/* "py::jit:<qualname> (<file>:<line>)", or the cold-exit name. */
/* Returns snprintf's count: a long file name is cut, as registry names are. */
static int executor_name(const struct jitunwind_py_executor *e, char *buf, size_t size)
{
    if (e->flags & JITUNWIND_PYEXEC_COLD_EXIT)
        return snprintf(buf, size, "py::jit:<cold exit>");
    if (!e->code)
        return snprintf(buf, size, "py::jit:<executor %#llx>", (unsigned long long)e->address);
    return snprintf(buf, size, "py::jit:%s (%s:%d)%s", e->qualname, e->filename, e->first_line,
                    (e->flags & JITUNWIND_PYEXEC_DELETED) ? " [invalidated]" : "");
}

/* The executor `range` whose code is already registered as one JIT range
 * of the interpreter starting where it starts (3.15+ registers each
 * executor's code, without the page's slack, through the GDB JIT interface
 * too, as "py::jit:executor"): that range keeps its span and unwind rule,
 * which the build's own ELF and CFI gave it, and takes the executor's
 * name, which says what code it runs. */
static void name_registered(jitunwind_pyreader *r, jitunwind_registry *reg,
                            const struct jitunwind_range *range)
{
    const struct jitunwind_range *had = jitunwind_registry_lookup(reg, range->start);
    struct jitunwind_range named;
    if (!had || had->start != range->start || had->end > range->end ||
        had->kind != JITUNWIND_KIND_JIT || had->origin != JITUNWIND_ORIGIN_INTERPRETER ||
        (had->name && strcmp(had->name, range->name) == 0))
        return;
    ju_py_note_gdb_jit_name(r, had->name);
    named = *had;
    named.name = range->name;
    named.cookie = range->cookie;
    (void)ju_registry_supersede(reg, &named, JITUNWIND_ORIGIN_INTERPRETER, 1);
}

/* Register the code of a compiled executor. */
static int add_range(jitunwind_pyreader *r, struct walk *w, const struct jitunwind_py_executor *e)
{
    struct jitunwind_range range = {0};
    char name[JITUNWIND_NAME_MAX];
    if (!e->jit_code)
        return 0;
    if (executor_name(e, name, sizeof name) < 0)
        name[0] = '\0';
    range.start = e->jit_code;
    range.end = e->jit_code + e->jit_size;
    range.kind = JITUNWIND_KIND_JIT;
    range.rule = w->arch == JITUNWIND_ARCH_X86_64 ? r->layout->ex_rule_x86_64
                                                  : r->layout->ex_rule_aarch64;
    if (w->arch == JITUNWIND_ARCH_AARCH64 && range.rule == JITUNWIND_RULE_FP_PRESERVING)
        range.frame_size = r->layout->ex_frame_aarch64;
    range.origin = JITUNWIND_ORIGIN_INTERPRETER;
    range.cookie = e->code;
    range.name = name;
    range.scan_start = w->eval_start;
    range.scan_end = w->eval_end;
    if (range.rule == JITUNWIND_RULE_SCAN && range.scan_end <= range.scan_start) {
        w->unscannable++;
        return 0;
    }
    if (jitunwind_registry_add(w->reg, &range) == 0)
        w->added++;
    else
        name_registered(r, w->reg, &range);
    return 0;
}

JITUNWIND_API int jitunwind_pyreader_executor_ranges(jitunwind_pyreader *r,
                                                     jitunwind_registry *reg, int arch,
                                                     uint64_t eval_start, uint64_t eval_end,
                                                     size_t *added)
{
    struct walk w = {0};
    int rc;
    if (!r || !reg || !ju_arch_facts(arch))
        return JITUNWIND_EINVAL;
    if (!eval_start && !eval_end)
        ju_py_eval_main(r, &eval_start, &eval_end);
    r->gdb_jit_note[0] = '\0';
    w.each = add_range;
    w.reg = reg;
    w.arch = arch;
    w.eval_start = eval_start;
    w.eval_end = eval_end;
    rc = walk_all(r, &w);
    if (added)
        *added = w.added;
    if (rc == 0 && w.unscannable)
        return ju_fail(&r->err, JITUNWIND_ENOTFOUND, 0,
                       "%zu JIT executor range%s not registered: %s executor code on this "
                       "architecture is unwound by scanning for a return address into the eval "
                       "loop, whose code range (_PyEval_EvalFrameDefault) is unknown",
                       w.unscannable, w.unscannable == 1 ? " was" : "s were", r->layout->name);
    return rc; /* executors read before a problem were still added */
}

/* find(): stops the walk (returning 1) at the executor wanted. */
static int find(jitunwind_pyreader *r, struct walk *w, const struct jitunwind_py_executor *e)
{
    (void)r;
    if (!wanted(w, e))
        return 0;
    *w->found = *e;
    return 1;
}

int ju_py_find_executor(jitunwind_pyreader *r, uint64_t address, uint64_t pc,
                        struct jitunwind_py_executor *out)
{
    struct walk w = {0};
    int rc;
    w.each = find;
    w.search = 1;
    w.want_address = address;
    w.want_pc = pc;
    w.found = out;
    rc = walk_all(r, &w);
    if (rc == 1)
        return 0;
    if (rc < 0)
        return rc;
    if (address)
        return ju_fail(&r->err, JITUNWIND_ENOTFOUND, address,
                       "%#llx is not an executor on the interpreter's lists",
                       (unsigned long long)address);
    return ju_fail(&r->err, JITUNWIND_ENOTFOUND, pc, "no executor's code holds %#llx",
                   (unsigned long long)pc);
}
