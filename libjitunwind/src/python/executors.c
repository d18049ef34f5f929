/* JIT executors of CPython 3.13 and 3.14, found from the interpreter's own
 * lists:
 *   interp->executor_list_head          live executors, through
 *                                        vm_data.links.next
 *   interp->executor_deletion_list_head (3.14) invalidated executors whose
 *                                        code a thread may still be running
 *   COLD_EXITS[]                         (3.13, tier-2 builds) a static array
 *                                        of executors, each JIT-compiled
 * Each compiled executor owns [jit_code, jit_code + jit_size). The offsets
 * of the lists are build-specific, so they come from DWARF (dwarf_layout.c).
 */
#include <stdio.h>
#include <stdlib.h>

#include "python/pyreader.h"

#define MAX_JIT_SIZE (64u << 20) /* one executor's mapping; real ones are pages */

struct walk {
    struct jitunwind_py_executor *out;
    size_t max;
    size_t *count;
    size_t total; /* executors visited, against JITUNWIND_PY_MAX_EXECUTORS */
};

/* Read executor `ex` into the next output slot. */
static int read_executor(jitunwind_pyreader *r, struct walk *w, uint64_t ex, uint64_t interp,
                         uint32_t flags, uint64_t *next)
{
    const struct ju_py_layout *L = r->layout;
    struct jitunwind_py_executor *e;
    uint64_t jit_code, jit_size, code = 0;
    if (++w->total > JITUNWIND_PY_MAX_EXECUTORS)
        return ju_fail(&r->err, JITUNWIND_ELIMIT, ex, "more than %u executors",
                       JITUNWIND_PY_MAX_EXECUTORS);
    if ((next && ju_read_u64(&r->mem, ex + L->ex_links_next, next) < 0) ||
        ju_read_u64(&r->mem, ex + L->ex_jit_code, &jit_code) < 0 ||
        ju_read_u64(&r->mem, ex + L->ex_jit_size, &jit_size) < 0)
        return ju_fail(&r->err, JITUNWIND_EREAD, ex, "executor %#llx is unreadable",
                       (unsigned long long)ex);
    if (!(flags & JITUNWIND_PYEXEC_COLD_EXIT) && L->ex_code != JU_PY_NONE &&
        ju_read_u64(&r->mem, ex + L->ex_code, &code) < 0)
        code = 0;
    if (jit_size > MAX_JIT_SIZE || jit_code + jit_size < jit_code)
        return ju_fail(&r->err, JITUNWIND_ECORRUPT, ex,
                       "executor %#llx claims %llu bytes of code at %#llx",
                       (unsigned long long)ex, (unsigned long long)jit_size,
                       (unsigned long long)jit_code);
    if (*w->count >= w->max)
        return ju_fail(&r->err, JITUNWIND_ELIMIT, ex, "more executors than the %zu asked for",
                       w->max);
    e = &w->out[*w->count];
    memset(e, 0, sizeof *e);
    e->address = ex;
    e->interp = interp;
    e->jit_code = jit_size ? jit_code : 0;
    e->jit_size = jit_code ? jit_size : 0;
    e->code = code;
    e->flags = flags;
    e->first_line = -1;
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
    ++*w->count;
    return 0;
}

static int walk_list(jitunwind_pyreader *r, struct walk *w, uint64_t interp, uint32_t head_off,
                     uint32_t flags)
{
    struct ju_cycle seen = {0, 1, 0};
    uint64_t ex;
    int rc;
    if (head_off == JU_PY_NONE)
        return 0;
    if (ju_read_u64(&r->mem, interp + head_off, &ex) < 0)
        return ju_fail(&r->err, JITUNWIND_EREAD, interp,
                       "the executor list of interpreter %#llx is unreadable",
                       (unsigned long long)interp);
    while (ex) {
        if (ex & 7)
            return ju_fail(&r->err, JITUNWIND_ECORRUPT, ex, "misaligned executor %#llx",
                           (unsigned long long)ex);
        if (ju_cycle_seen(&seen, ex))
            return ju_fail(&r->err, JITUNWIND_ELOOP, ex, "the executor list loops");
        if ((rc = read_executor(r, w, ex, interp, flags, &ex)) < 0)
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
        if (ju_read_u64(&r->mem, ex + r->layout->ex_jit_code, &jit_code) < 0)
            return ju_fail(&r->err, JITUNWIND_EREAD, ex, "cold exit %u is unreadable", i);
        if (jit_code == 0)
            continue; /* not compiled (no JIT, or never initialised) */
        if ((rc = read_executor(r, w, ex, 0, JITUNWIND_PYEXEC_COLD_EXIT, NULL)) < 0)
            return rc;
    }
    return 0;
}

JITUNWIND_API int jitunwind_pyreader_executors(jitunwind_pyreader *r,
                                               struct jitunwind_py_executor *out, size_t max,
                                               size_t *count)
{
    const struct ju_py_layout *L;
    struct walk w;
    struct ju_interp_walk interps = JU_INTERP_WALK_INIT;
    uint64_t interp;
    int rc;
    if (!r || (!out && max) || !count)
        return JITUNWIND_EINVAL;
    L = r->layout;
    *count = 0;
    ju_clear_error(&r->err);
    if (L->ex_jit_code == JU_PY_NONE || L->ex_jit_size == JU_PY_NONE ||
        L->ex_links_next == JU_PY_NONE)
        return ju_fail(&r->err, JITUNWIND_EUNSUPPORTED, 0, "%s has no JIT executor lists",
                       L->name);
    if (L->interp_executor_list == JU_PY_NONE)
        return ju_fail(&r->err, JITUNWIND_ENOTFOUND, 0,
                       "where this %s build keeps its executor lists is build-specific and "
                       "was not found: it needs the interpreter's DWARF", L->name);
    w = (struct walk){out, max, count, 0};
    while ((rc = ju_py_next_interp(r, &interps, &interp)) > 0) {
        if ((rc = walk_list(r, &w, interp, L->interp_executor_list, 0)) < 0 ||
            (rc = walk_list(r, &w, interp, L->interp_executor_deleted,
                            JITUNWIND_PYEXEC_DELETED)) < 0)
            return rc;
    }
    return rc < 0 ? rc : walk_cold_exits(r, &w);
}

/* "py::jit:<qualname> (<file>:<line>)", or the cold-exit name. */
static void executor_name(const struct jitunwind_py_executor *e, char *buf, size_t size)
{
    if (e->flags & JITUNWIND_PYEXEC_COLD_EXIT)
        snprintf(buf, size, "py::jit:<cold exit>");
    else if (!e->code)
        snprintf(buf, size, "py::jit:<executor %#llx>", (unsigned long long)e->address);
    else
        snprintf(buf, size, "py::jit:%s (%s:%d)%s", e->qualname, e->filename, e->first_line,
                 (e->flags & JITUNWIND_PYEXEC_DELETED) ? " [invalidated]" : "");
}

JITUNWIND_API int jitunwind_pyreader_executor_ranges(jitunwind_pyreader *r,
                                                     jitunwind_registry *reg, int arch,
                                                     uint64_t eval_start, uint64_t eval_end,
                                                     size_t *added)
{
    enum { BATCH = 64 };
    struct jitunwind_py_executor *all;
    size_t n = 0, i, count = 0, cap = BATCH;
    int rc;
    if (!r || !reg || (arch != JITUNWIND_ARCH_X86_64 && arch != JITUNWIND_ARCH_AARCH64))
        return JITUNWIND_EINVAL;
    if (added)
        *added = 0;
    /* Grow until every executor fits (bounded by JITUNWIND_PY_MAX_EXECUTORS). */
    for (;;) {
        all = calloc(cap, sizeof *all);
        if (!all)
            return JITUNWIND_ENOMEM;
        rc = jitunwind_pyreader_executors(r, all, cap, &n);
        if (!(rc == JITUNWIND_ELIMIT && n == cap && cap < JITUNWIND_PY_MAX_EXECUTORS))
            break;
        free(all);
        cap *= 4;
    }
    for (i = 0; i < n; i++) {
        const struct jitunwind_py_executor *e = &all[i];
        struct jitunwind_range range = {0};
        char name[JITUNWIND_NAME_MAX];
        if (!e->jit_code)
            continue;
        executor_name(e, name, sizeof name);
        range.start = e->jit_code;
        range.end = e->jit_code + e->jit_size;
        range.kind = JITUNWIND_KIND_JIT;
        range.rule = arch == JITUNWIND_ARCH_X86_64 ? r->layout->ex_rule_x86_64
                                                   : r->layout->ex_rule_aarch64;
        range.origin = JITUNWIND_ORIGIN_INTERPRETER;
        range.cookie = e->code;
        range.name = name;
        range.scan_start = eval_start;
        range.scan_end = eval_end;
        if (jitunwind_registry_add(reg, &range) == 0)
            count++;
    }
    free(all);
    if (added)
        *added = count;
    return rc; /* executors read before a problem were still added */
}
