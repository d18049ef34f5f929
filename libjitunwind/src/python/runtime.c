/* The decoder handle, and the interpreters and thread states of a runtime. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sized.h"
#include "python/sampling/code_cache.h"
#include "python/pyreader.h"
#include "base/cycle.h"
#include "elf/elf.h"

JITUNWIND_API int jitunwind_py_version_supported(uint32_t version_hex)
{
    return ju_py_layout_for(version_hex, jitunwind_host_arch()) != NULL;
}

/* A layout that does not fit the build (a debug or otherwise non-default
 * build of 3.11/3.12, whose structs differ) would be misread silently; the
 * first thread state must point back at its interpreter. */
static int check_layout(jitunwind_pyreader *r, uint64_t interp)
{
    const struct ju_py_layout *L = r->layout;
    uint64_t ts, back;
    if (ju_py_fetch(&r->mem, L, interp, JU_PYF_interp_threads_head, &ts) < 0)
        return ju_fail(&r->err, JITUNWIND_EREAD, interp, "interpreter %#llx is unreadable",
                       (unsigned long long)interp);
    if (ts == 0)
        return 0; /* no thread yet: nothing to check against */
    if (ju_py_fetch(&r->mem, L, ts, JU_PYF_ts_interp, &back) < 0 || back != interp)
        return ju_fail(&r->err, JITUNWIND_EVERSION, interp,
                       "this build does not match the %s layout (thread state %#llx does not "
                       "point back at interpreter %#llx): a debug or non-default build?",
                       L->name, (unsigned long long)ts, (unsigned long long)interp);
    return 0;
}

/* A build whose object header differs from the layout (--with-trace-refs
 * puts two pointers first) passes the thread-state check but would misread
 * every object: PyType_Type, found by symbol, must be its own type and be
 * named "type" at the layout's offsets. Only a complete, contrary reading
 * refuses the target (a core may lack the read-only name). `type` is
 * PyType_Type's address in the target. */
static int check_object_header(jitunwind_pyreader *r, uint64_t type, uint64_t type_in_file)
{
    const struct ju_py_layout *L = r->layout;
    uint64_t ob_type, name_addr;
    char name[5];
    if (ju_py_fetch(&r->mem, L, type, JU_PYF_ob_type, &ob_type) < 0 ||
        ju_py_fetch(&r->mem, L, type, JU_PYF_tp_name, &name_addr) < 0)
        return 0;
    if (ob_type == type && (ju_read(&r->mem, name_addr, name, sizeof name) < 0 ||
                            memcmp(name, "type", sizeof name) == 0))
        return 0;
    /* A process the dynamic loader is still relocating (a process read
     * in its first milliseconds) holds the file's own value there. */
    if (type != type_in_file && ob_type == type_in_file)
        return ju_fail(&r->err, JITUNWIND_EBUSY, type,
                       "the process is still starting (its loader has not relocated "
                       "PyType_Type yet): read it again in a moment");
    return ju_fail(&r->err, JITUNWIND_EVERSION, type,
                   "objects do not match the %s layout (PyType_Type is not a type named "
                   "\"type\" at offsets %u/%u): a --with-trace-refs build? %s",
                   L->name, L->ob_type, L->tp_name,
                   r->report.frames.source[0] ? "Its DWARF does not describe it either"
                                      : "No DWARF found (a -g build or -dbg package lets the "
                                        "reader adapt)");
}

/* DWARF and symbols of the interpreter's file (see python.h). Not finding
 * DWARF is not an error. *type gets PyType_Type's address in the target
 * when the file has it (checked once the layout is), else stays 0, and
 * *type_in_file its address in the file. */
static int use_module(jitunwind_pyreader *r, const char *module, jitunwind_dwarf_types *given,
                      int open_types, uint64_t *type, uint64_t *type_in_file)
{
    struct ju_py_file_symbols s;
    uint64_t bias;
    jitunwind_dwarf_types *types = given;
    if (open_types && jitunwind_dwarf_types_open(&types, module) < 0)
        types = NULL;
    if (types) {
        int rc = ju_py_resolve_dwarf(r, types);
        if (types != given)
            jitunwind_dwarf_types_free(types);
        if (rc < 0)
            return rc;
    }
    if (ju_py_file_symbols(module, r->arch, r->layout->cold_exits_symbol, &s) < 0 ||
        !s.found[JU_PY_SYM_RUNTIME])
        return 0; /* not the file that holds the runtime: no symbols to go by */
    bias = r->runtime - s.values[JU_PY_SYM_RUNTIME]; /* the file's load bias */
    ju_py_set_eval_parts(r, s.eval, s.n_eval, bias);
    if (s.found[JU_PY_SYM_STENCILS] && s.found[JU_PY_SYM_UOP_NAMES]) { /* JIT builds (jit_view.c) */
        r->jit.stencils = s.values[JU_PY_SYM_STENCILS] + bias;
        r->jit.stencils_size = s.sizes[JU_PY_SYM_STENCILS];
        r->jit.names = s.values[JU_PY_SYM_UOP_NAMES] + bias;
        r->jit.names_size = s.sizes[JU_PY_SYM_UOP_NAMES];
    }
    if (r->layout->cold_exits_symbol && s.found[JU_PY_SYM_COLD_EXITS] &&
        r->layout->ex_size != JU_PY_NONE && r->layout->ex_size > 0 &&
        s.sizes[JU_PY_SYM_COLD_EXITS] / r->layout->ex_size <= JITUNWIND_PY_MAX_EXECUTORS) {
        r->cold_exits = s.values[JU_PY_SYM_COLD_EXITS] + bias;
        r->cold_exit_count = (uint32_t)(s.sizes[JU_PY_SYM_COLD_EXITS] / r->layout->ex_size);
    }
    if (s.found[JU_PY_SYM_TYPE]) {
        *type = s.values[JU_PY_SYM_TYPE] + bias;
        *type_in_file = s.values[JU_PY_SYM_TYPE];
    }
    return 0;
}

/* JITUNWIND_PYREADER_ASSUME_LAYOUT, for a version without a table or with
 * a provisional debug-offsets list: the version's table, or else the newest
 * of the build's kind, every offset to come from DWARF (checked strictly by
 * use_module). */
static int assume_layout(jitunwind_pyreader *r, const char *module)
{
    const struct ju_py_layout *base;
    int free_threaded;
    if (!module || !*module)
        return ju_fail(&r->err, JITUNWIND_EVERSION, 0,
                       "CPython %u.%u has no layout table; assuming one needs the interpreter's "
                       "DWARF", r->version_hex >> 24, (r->version_hex >> 16) & 0xff);
    if ((free_threaded = ju_py_debug_offsets_header(r)) < 0)
        return free_threaded;
    base = ju_py_layout_for_build(r->version_hex, free_threaded, r->arch);
    r->from_target = base ? *base : *ju_py_layout_newest(free_threaded);
    snprintf(r->assumed_name, sizeof r->assumed_name,
             "CPython %u.%u%s (assumed: offsets from DWARF, %s semantics)", r->version_hex >> 24,
             (r->version_hex >> 16) & 0xff, free_threaded ? " (free-threaded)" : "",
             r->from_target.name);
    r->from_target.name = r->assumed_name;
    r->from_target.interp_executor_list = r->from_target.interp_executor_deleted = JU_PY_NONE;
    r->layout = &r->from_target;
    r->assumed = 1;
    return 0;
}

/* Set up *r (zeroed) for the runtime at runtime_addr; failures leave their
 * detail in r->err. */
static int init_reader(jitunwind_pyreader *r, const struct jitunwind_memory *mem,
                       uint64_t runtime_addr, uint32_t version_hex, const char *module,
                       jitunwind_dwarf_types *types, int open_types, uint32_t flags)
{
    uint64_t head, type = 0, type_in_file = 0;
    int provisional, rc;
    ju_memory_copy(&r->mem, mem);
    r->runtime = runtime_addr;
    r->version_hex = version_hex;
    r->arch = module && *module ? ju_elf_arch(module) : 0;
    if (!r->arch)
        r->arch = jitunwind_host_arch();
    r->layout = ju_py_layout_for(version_hex, r->arch);
    provisional = r->layout && ju_py_debug_offsets_supported(version_hex) &&
                  !ju_py_debug_offsets_confirmed(version_hex);
    if ((!r->layout || provisional) && (flags & JITUNWIND_PYREADER_ASSUME_LAYOUT) &&
        (rc = assume_layout(r, module)) < 0)
        return rc;
    if (!r->layout) {
        char range[32];
        ju_py_supported_range(range, sizeof range);
        return ju_fail(&r->err, JITUNWIND_EVERSION, 0,
                       "CPython %u.%u is not supported (supported: %s, GIL and free-threaded)",
                       version_hex >> 24, (version_hex >> 16) & 0xff, range);
    }
    if ((rc = ju_py_resolve_target(r)) < 0)
        return rc;
    if (module && *module &&
        (rc = use_module(r, module, types, open_types, &type, &type_in_file)) < 0)
        return rc;
    if ((rc = ju_py_resolve_finish(r, module)) < 0)
        return rc;
    if (type && (rc = check_object_header(r, type, type_in_file)) < 0)
        return rc;
    if (ju_py_fetch(&r->mem, r->layout, runtime_addr, JU_PYF_rt_interpreters_head, &head) < 0)
        return ju_fail(&r->err, JITUNWIND_EREAD, runtime_addr,
                       "the runtime at %#llx is unreadable", (unsigned long long)runtime_addr);
    if (head == 0) /* the runtime is static data: zero until Py_Initialize* runs */
        return ju_fail(&r->err, JITUNWIND_ENOTFOUND, runtime_addr,
                       "Python is not initialised yet (or already finalised, or not %s): the "
                       "runtime at %#llx has no interpreter",
                       r->layout->name, (unsigned long long)runtime_addr);
    if (head & 7)
        return ju_fail(&r->err, JITUNWIND_ECORRUPT, runtime_addr,
                       "the runtime at %#llx has no interpreter (not initialised or not %s)",
                       (unsigned long long)runtime_addr, r->layout->name);
    return check_layout(r, head);
}

static int open_reader(jitunwind_pyreader **out, const struct jitunwind_memory *mem,
                       uint64_t runtime_addr, uint32_t version_hex, const char *module,
                       jitunwind_dwarf_types *types, int open_types, uint32_t flags)
{
    jitunwind_pyreader *r;
    int rc;
    if (!out)
        return JITUNWIND_EINVAL;
    if (!ju_memory_valid(mem) || !runtime_addr)
        return ju_constructed((void **)out, NULL, JITUNWIND_EINVAL, NULL);
    r = calloc(1, sizeof *r);
    if (!r)
        return ju_constructed((void **)out, NULL, JITUNWIND_ENOMEM, NULL);
    rc = init_reader(r, mem, runtime_addr, version_hex, module, types, open_types, flags);
    if (rc < 0) {
        rc = ju_constructed((void **)out, NULL, rc, &r->err);
        free(r);
        return rc;
    }
    return ju_constructed((void **)out, r, rc, NULL);
}

JITUNWIND_API int jitunwind_pyreader_open(jitunwind_pyreader **out,
                                          const struct jitunwind_memory *mem,
                                          uint64_t runtime_addr, uint32_t version_hex,
                                          const struct jitunwind_pyreader_opts *opts)
{
    const uint32_t known = JITUNWIND_PYREADER_ASSUME_LAYOUT | JITUNWIND_PYREADER_NO_DWARF;
    const char *module = JU_SIZED_GET(opts, struct jitunwind_pyreader_opts, module, NULL);
    jitunwind_dwarf_types *types = JU_SIZED_GET(opts, struct jitunwind_pyreader_opts, types, NULL);
    uint32_t flags = JU_SIZED_GET(opts, struct jitunwind_pyreader_opts, flags, 0);
    if (out && (!JU_OPTS_VALID(opts, struct jitunwind_pyreader_opts) || (flags & ~known)))
        return ju_constructed((void **)out, NULL, JITUNWIND_EINVAL, NULL);
    return open_reader(out, mem, runtime_addr, version_hex, module, types,
                       !types && !(flags & JITUNWIND_PYREADER_NO_DWARF), flags);
}

JITUNWIND_API const char *jitunwind_pyreader_layout_name(const jitunwind_pyreader *r)
{
    return r && r->layout ? r->layout->name : NULL;
}

JITUNWIND_API int jitunwind_pyreader_dwarf_report(const jitunwind_pyreader *r,
                                                  struct jitunwind_py_dwarf_report *out)
{
    if (!r || !out)
        return JITUNWIND_EINVAL;
    *out = r->report.frames;
    return 0;
}

JITUNWIND_API int jitunwind_pyreader_values_report(const jitunwind_pyreader *r,
                                                   struct jitunwind_py_dwarf_report *out,
                                                   int *status)
{
    if (!r || !out)
        return JITUNWIND_EINVAL;
    *out = r->report.values;
    if (status)
        *status = r->values.status;
    return 0;
}

JITUNWIND_API int jitunwind_pyreader_gc_collecting(jitunwind_pyreader *r, uint64_t interp,
                                                   int *collecting)
{
    uint32_t offset, value;
    int rc;
    if (!r || !collecting || !interp)
        return JITUNWIND_EINVAL;
    offset = r->values.status == 0 ? r->values.V.interp_gc_collecting : JU_PY_NONE;
    if (offset == JU_PY_NONE)
        return ju_fail(&r->err, JITUNWIND_EUNSUPPORTED, interp,
                       "where %s keeps its GC state is not known", r->layout->name);
    if ((rc = ju_read_u32(&r->mem, interp + offset, &value)) < 0)
        return ju_fail(&r->err, rc, interp + offset, "the interpreter's GC state is unreadable");
    *collecting = value != 0;
    return 0;
}

JITUNWIND_API void jitunwind_pyreader_free(jitunwind_pyreader *r)
{
    if (r)
        ju_code_cache_free(r->code_cache);
    free(r);
}

JITUNWIND_API const struct jitunwind_error *
jitunwind_pyreader_last_error(const jitunwind_pyreader *r)
{
    return r ? &r->err : jitunwind_last_error();
}

uint64_t ju_py_current_frame(jitunwind_pyreader *r, uint64_t ts)
{
    const struct ju_py_layout *L = r->layout;
    uint64_t frame = 0, cframe = 0;
    if (L->ts_current_frame != JU_PY_NONE) {
        if (ju_py_fetch(&r->mem, L, ts, JU_PYF_ts_current_frame, &frame) < 0)
            return 0;
    } else if (ju_py_fetch(&r->mem, L, ts, JU_PYF_ts_cframe, &cframe) < 0 || cframe == 0 ||
               ju_py_fetch(&r->mem, L, cframe, JU_PYF_cframe_current_frame, &frame) < 0) {
        return 0;
    }
    return frame;
}

static int read_thread(jitunwind_pyreader *r, uint64_t ts, uint64_t interp, int64_t interp_id,
                       uint64_t gil_holder, struct jitunwind_py_thread *t, uint64_t *next)
{
    const struct ju_py_layout *L = r->layout;
    if (ju_py_fetch(&r->mem, L, ts, JU_PYF_ts_next, next) < 0 ||
        ju_py_fetch(&r->mem, L, ts, JU_PYF_ts_thread_id, &t->thread_id) < 0 ||
        ju_py_fetch(&r->mem, L, ts, JU_PYF_ts_native_thread_id, &t->native_thread_id) < 0)
        return ju_fail(&r->err, JITUNWIND_EREAD, ts, "thread state %#llx is unreadable",
                       (unsigned long long)ts);
    t->tstate = ts;
    t->interp = interp;
    t->interp_id = interp_id;
    t->current_frame = ju_py_current_frame(r, ts);
    if (L->ts_holds_gil != JU_PY_NONE) {
        uint64_t holds;
        t->holds_gil =
            ju_py_fetch(&r->mem, L, ts, JU_PYF_ts_holds_gil, &holds) < 0 ? -1 : holds != 0;
    } else {
        t->holds_gil = (L->rt_gil_holder == JU_PY_NONE && L->interp_gil_ptr == JU_PY_NONE)
                           ? -1
                           : gil_holder == ts;
    }
    return 0;
}

int ju_py_next_interp(jitunwind_pyreader *r, struct ju_interp_walk *w, uint64_t *interp)
{
    uint64_t next;
    if (!w->started) {
        w->started = 1;
        if (ju_py_fetch(&r->mem, r->layout, r->runtime, JU_PYF_rt_interpreters_head, &next) < 0)
            return ju_fail(&r->err, JITUNWIND_EREAD, r->runtime, "the runtime is unreadable");
    } else if (ju_py_fetch(&r->mem, r->layout, w->current, JU_PYF_interp_next, &next) < 0) {
        return ju_fail(&r->err, JITUNWIND_EREAD, w->current, "interpreter %#llx is unreadable",
                       (unsigned long long)w->current);
    }
    if (next == 0)
        return 0;
    if (ju_cycle_seen(&w->seen, next))
        return ju_fail(&r->err, JITUNWIND_ELOOP, next, "the interpreter list loops");
    if (++w->count > JITUNWIND_PY_MAX_INTERPRETERS)
        return ju_fail(&r->err, JITUNWIND_ELIMIT, next, "more than %u interpreters",
                       JITUNWIND_PY_MAX_INTERPRETERS);
    w->current = next;
    *interp = next;
    return 1;
}

/* Who holds the GIL `interp` runs under (3.12+: each interpreter's own;
 * before: the runtime's), 0 when nobody or unknown. Not read where each
 * thread state says whether it holds its GIL (3.15+: read_thread reads
 * that instead), so a sampler's listing reads no GIL there. */
static uint64_t gil_holder_of(jitunwind_pyreader *r, uint64_t interp)
{
    const struct ju_py_layout *L = r->layout;
    const struct ju_py_value_layout *V = r->values.status == 0 ? &r->values.V : NULL;
    uint64_t holder = 0, gil = 0;
    uint32_t locked = 1;
    if (L->ts_holds_gil != JU_PY_NONE)
        return 0;
    if (L->interp_gil_ptr == JU_PY_NONE) {
        if (L->rt_gil_holder != JU_PY_NONE &&
            ju_py_fetch(&r->mem, L, r->runtime, JU_PYF_rt_gil_holder, &holder) < 0)
            holder = 0;
        return holder;
    }
    if (ju_py_fetch(&r->mem, L, interp, JU_PYF_interp_gil_ptr, &gil) < 0 || gil == 0 ||
        ju_py_fetch(&r->mem, L, gil, JU_PYF_gil_last_holder, &holder) < 0)
        return 0;
    /* a released GIL keeps its last holder: nobody holds it */
    if (V && V->gil_locked != JU_PY_NONE && ju_read_u32(&r->mem, gil + V->gil_locked, &locked) == 0 &&
        locked == 0)
        return 0;
    return holder;
}

JITUNWIND_API int jitunwind_pyreader_threads(jitunwind_pyreader *r,
                                             struct jitunwind_py_thread *out, size_t max,
                                             size_t *count)
{
    const struct ju_py_layout *L;
    struct ju_interp_walk interps = JU_INTERP_WALK_INIT;
    uint64_t interp;
    size_t n = 0;
    int rc;
    if (!r || (!out && max) || !count)
        return JITUNWIND_EINVAL;
    L = r->layout;
    *count = 0;
    ju_clear_error(&r->err);
    while ((rc = ju_py_next_interp(r, &interps, &interp)) > 0) {
        struct ju_cycle threads = {0, 1, 0};
        uint64_t ts, gil_holder = gil_holder_of(r, interp);
        int64_t id = -1;
        size_t n_threads = 0;
        if (ju_py_fetch(&r->mem, L, interp, JU_PYF_interp_threads_head, &ts) < 0)
            return ju_fail(&r->err, JITUNWIND_EREAD, interp, "interpreter %#llx is unreadable",
                           (unsigned long long)interp);
        if (ju_py_fetch(&r->mem, L, interp, JU_PYF_interp_id, (uint64_t *)&id) < 0)
            id = -1;
        while (ts) {
            uint64_t next_ts;
            if (ju_cycle_seen(&threads, ts))
                return ju_fail(&r->err, JITUNWIND_ELOOP, ts, "the thread list loops");
            if (++n_threads > JITUNWIND_PY_MAX_THREADS)
                return ju_fail(&r->err, JITUNWIND_ELIMIT, ts, "more than %u threads",
                               JITUNWIND_PY_MAX_THREADS);
            if (n >= max)
                return ju_fail(&r->err, JITUNWIND_ELIMIT, ts,
                               "more threads than the %zu asked for", max);
            if ((rc = read_thread(r, ts, interp, id, gil_holder, &out[n], &next_ts)) < 0)
                return rc;
            *count = ++n;
            ts = next_ts;
        }
    }
    return rc;
}

JITUNWIND_API int jitunwind_pyreader_thread(jitunwind_pyreader *r, struct jitunwind_py_thread *t)
{
    uint64_t next;
    if (!r || !t || !t->tstate)
        return JITUNWIND_EINVAL;
    ju_clear_error(&r->err);
    return read_thread(r, t->tstate, t->interp, t->interp_id, gil_holder_of(r, t->interp), t,
                       &next);
}

/* Whether thread state t's previous link is `want_prev`; 0 when the
 * layout has no such field (the caller then lists anew). */
static int linked_as_listed(jitunwind_pyreader *r, const struct jitunwind_py_thread *t,
                            uint64_t want_prev)
{
    uint64_t prev;
    if (r->layout->ts_prev == JU_PY_NONE ||
        ju_py_fetch(&r->mem, r->layout, t->tstate, JU_PYF_ts_prev, &prev) < 0)
        return 0;
    return prev == want_prev;
}

JITUNWIND_API int jitunwind_pyreader_threads_again(jitunwind_pyreader *r,
                                                   struct jitunwind_py_thread *threads, size_t n)
{
    size_t i;
    uint64_t gil_holder = 0;
    if (!r || (!threads && n))
        return JITUNWIND_EINVAL;
    ju_clear_error(&r->err);
    for (i = 0; i < n; i++) {
        struct jitunwind_py_thread was = threads[i];
        int first = i == 0 || threads[i - 1].interp != was.interp;
        int last = i + 1 == n || threads[i + 1].interp != was.interp;
        uint64_t next;
        if (!was.tstate)
            return JITUNWIND_EINVAL;
        if (first)
            gil_holder = gil_holder_of(r, was.interp);
        if (!linked_as_listed(r, &was, first ? 0 : threads[i - 1].tstate) ||
            read_thread(r, was.tstate, was.interp, was.interp_id, gil_holder, &threads[i],
                        &next) < 0 ||
            next != (last ? 0 : threads[i + 1].tstate) ||
            threads[i].thread_id != was.thread_id ||
            threads[i].native_thread_id != was.native_thread_id) {
            ju_clear_error(&r->err);
            return 0;
        }
    }
    return 1;
}
