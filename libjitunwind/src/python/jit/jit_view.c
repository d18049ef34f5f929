/* The JIT developer view (3.13 and later): an executor's trace, exits and
 * vm_data, where each uop's stencil sits in its machine code, and from a
 * PC the uop, bytecode instruction and line it runs (python_jit.h).
 *
 * The code layout follows CPython's Python/jit.c (_PyJIT_Compile):
 * [shim: jit_side_entry - jit_code (3.13, 3.14; none in 3.15+, whose
 * layout has no side entry)][stencil_groups[trace[i].opcode].code_size for
 * each uop][stencil_groups[_FATAL_ERROR]][trampolines, data]. The tables are the interpreter's own static arrays, found by
 * symbol (runtime.c) and read once per reader. A uop's bytecode target:
 * uops of format "target" carry it; after the trace is prepared, uops that
 * can exit or fail carry {jump, error} indices of stubs instead, whose own
 * target (or _ERROR_POP_N's operand) is the instruction's when the stub
 * re-executes it; 3.13's exit format indexes exits[]. */
#include <stdio.h>
#include <stdlib.h>

#include "python/pyreader.h"

#define MAX_STENCIL_CODE (1u << 20) /* one stencil's code; real ones are < 4 KiB */

/* _ERROR_POP_N: its operand is the bytecode target of the uops failing into it. */
static const char *const ERROR_POP[] = {"_ERROR_POP_N", NULL};
/* Uops whose target field is not the bytecode instruction they came from
 * (_START_EXECUTOR's is: the instruction the executor was entered at). */
static const char *const NO_OWN_TARGET[] = {"_MAKE_WARM", "_JUMP_TO_TOP", NULL};
/* Exit stubs that resume at the instruction their uop came from (deopt:
 * the interpreter re-executes it). A side exit (_EXIT_TRACE) may resume
 * elsewhere (a branch guard's other arm, the end of a for loop), so a uop
 * exiting through one takes the target of the uop before it. */
static const char *const REEXECUTES[] = {"_DEOPT", "_HANDLE_PENDING_AND_DEOPT", NULL};
/* Uops after which the trace runs in a callee's frame, or back in its caller. */
static const char *const PUSHES_FRAME[] = {"_PUSH_FRAME", NULL};
static const char *const POPS_FRAME[] = {"_RETURN_VALUE", "_RETURN_GENERATOR", "_YIELD_VALUE",
                                         NULL};

/* The length of uop `name` without 3.15's register-cache suffix: its
 * variants NAME_rIO (I inputs and O outputs kept in registers) share NAME's
 * target and frame behaviour. */
static size_t base_length(const char *name)
{
    size_t n = strlen(name);
    if (n > 4 && name[n - 4] == '_' && name[n - 3] == 'r' && name[n - 2] >= '0' &&
        name[n - 2] <= '9' && name[n - 1] >= '0' && name[n - 1] <= '9')
        return n - 4;
    return n;
}

/* Whether uop `name`, or the uop it is a register-cache variant of, is on `list`. */
static int named(const char *name, const char *const *list)
{
    size_t n = base_length(name);
    for (; *list; list++)
        if (strlen(*list) == n && strncmp(name, *list, n) == 0)
            return 1;
    return 0;
}

static void set_missing(char *buf, const char *text)
{
    if (!buf[0])
        ju_strlcpy(buf, text, JITUNWIND_PY_MISSING_MAX);
}

/* Whether the view may read with the reader's JIT layout: it has one and
 * it passed ju_py_jit_layout_check, run once per reader (the layout is
 * fixed once the reader is open). Else jit.missing says why. No field of
 * r->layout->jit is read before this says yes. */
static int layout_ok(jitunwind_pyreader *r)
{
    struct ju_py_jit_tables *T = &r->jit;
    char why[JITUNWIND_ERROR_MESSAGE_MAX];
    if (T->layout_ok)
        return T->layout_ok > 0;
    T->layout_ok = -1;
    if (!r->layout->jit.known && r->report.jit_missing[0])
        snprintf(T->missing, sizeof T->missing, "%.32s: executor layout only from DWARF, %s "
                 "%.64s", r->layout->name, r->report.frames.source[0] ? "which has no" :
                 "none found; needed first:", r->report.jit_missing);
    else if (!r->layout->jit.known)
        snprintf(T->missing, sizeof T->missing,
                 "%s has no executor traces to read (3.13 and later have)", r->layout->name);
    else if (ju_py_jit_layout_check(r->layout, why, sizeof why) < 0)
        ju_strlcpy(T->missing, why, sizeof T->missing);
    else
        T->layout_ok = 1;
    return T->layout_ok > 0;
}

/* The stencil table's code sizes, read once. 0, or -1 with jit.missing set. */
static int load_tables(jitunwind_pyreader *r)
{
    struct ju_py_jit_tables *T = &r->jit;
    const struct ju_py_layout *L = r->layout;
    uint64_t elem, i, code_size_end;
    if (T->loaded)
        return T->loaded > 0 ? 0 : -1;
    T->loaded = -1;
    if (!layout_ok(r))
        return -1;
    if (!T->stencils || !T->names) {
        snprintf(T->missing, sizeof T->missing,
                 "no stencil_groups/_PyOpcode_uop_name symbols in the interpreter (stripped, or "
                 "not a JIT build)");
        return -1;
    }
    T->entries = (uint32_t)(T->names_size / 8);
    if (T->names_size % 8 || T->entries == 0 || T->entries > JU_PY_MAX_UOP_IDS) {
        snprintf(T->missing, sizeof T->missing, "_PyOpcode_uop_name is %llu bytes: not a table",
                 (unsigned long long)T->names_size);
        return -1;
    }
    /* sizeof(StencilGroup) from the layout when the symbol agrees, else the
     * symbol's size per entry: then held here to the code size's end. */
    elem = L->jit.stencil_size;
    if (elem == JU_PY_NONE || elem * T->entries != T->stencils_size)
        elem = T->stencils_size % T->entries ? 0 : T->stencils_size / T->entries;
    code_size_end = (uint64_t)ju_py_offset(L, JU_PYF_jit_stencil_code_size) +
                    ju_py_fields[JU_PYF_jit_stencil_code_size].width;
    if (elem < code_size_end || elem > 4096) {
        snprintf(T->missing, sizeof T->missing,
                 "stencil_groups (%llu bytes for %u uops) does not fit the StencilGroup layout",
                 (unsigned long long)T->stencils_size, T->entries);
        return -1;
    }
    for (i = 0; i < T->entries; i++) {
        uint64_t size;
        if (ju_py_fetch(&r->mem, L, T->stencils + i * elem, JU_PYF_jit_stencil_code_size,
                        &size) < 0) {
            snprintf(T->missing, sizeof T->missing, "stencil_groups[%llu] is unreadable",
                     (unsigned long long)i);
            return -1;
        }
        if (size > MAX_STENCIL_CODE) {
            snprintf(T->missing, sizeof T->missing,
                     "stencil_groups[%llu].code_size is %llu: not a stencil table",
                     (unsigned long long)i, (unsigned long long)size);
            return -1;
        }
        T->code_size[i] = (uint32_t)size;
    }
    T->loaded = 1;
    return 0;
}

/* _PyOpcode_uop_name[op], cached; "" when unreadable. */
static const char *uop_name(jitunwind_pyreader *r, uint32_t op)
{
    struct ju_py_jit_tables *T = &r->jit;
    uint64_t ptr;
    char *name;
    size_t i;
    if (op >= T->entries || op >= JU_PY_MAX_UOP_IDS)
        return "";
    name = T->name[op];
    if (T->name_state[op])
        return name;
    T->name_state[op] = 2;
    name[0] = 0;
    if (ju_read_u64(&r->mem, T->names + 8ull * op, &ptr) < 0 || ptr == 0)
        return name;
    /* Eight bytes at a time: a name may end just before unmapped memory. */
    for (i = 0; i + 8 < JU_PY_UOP_NAME_MAX; i += 8) {
        size_t k;
        if (ju_read(&r->mem, ptr + i, name + i, 8) < 0) {
            name[0] = 0;
            return name;
        }
        for (k = i; k < i + 8; k++) {
            char c = name[k];
            if (c == 0) {
                T->name_state[op] = 1;
                return name;
            }
            if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == '_')) {
                name[0] = 0;
                return name;
            }
        }
    }
    name[0] = 0; /* too long for a uop name */
    return name;
}

static int find_opcode(jitunwind_pyreader *r, const char *want)
{
    uint32_t op;
    for (op = 0; op < r->jit.entries; op++)
        if (strcmp(uop_name(r, op), want) == 0)
            return (int)op;
    return -1;
}

/* A vm_data flag (field `id`, a struct ju_py_jit_bits) of executor ex, or
 * -1 when this version has none or it is unreadable. */
static int8_t read_bits(jitunwind_pyreader *r, uint64_t ex, enum ju_py_field_id id)
{
    const struct ju_py_jit_bits *b =
        (const struct ju_py_jit_bits *)((const char *)r->layout + ju_py_fields[id].slot);
    uint64_t word;
    if (b->width == 0 || ju_py_fetch(&r->mem, r->layout, ex, id, &word) < 0)
        return -1;
    return (int8_t)((word >> b->bit) & ((1u << b->width) - 1) & 0x7f);
}

/* The line of bytecode offset `target` in `code`, or -1. */
static int32_t target_line(jitunwind_pyreader *r, uint64_t code, int32_t target)
{
    struct jitunwind_py_frame f;
    if (!code || target < 0)
        return -1;
    memset(&f, 0, sizeof f);
    ju_py_decode_code(r, code, code + r->layout->co_code_adaptive + 2ull * (uint64_t)target, -1,
                      &f);
    return f.line;
}

/* The detail of executor `e`, found on a list (no walk here). */
static int fill_detail(jitunwind_pyreader *r, const struct jitunwind_py_executor *e,
                       struct jitunwind_py_executor_detail *d)
{
    const struct ju_py_layout *L = r->layout;
    uint64_t executor = e->address;
    uint64_t side, uops, exits, opcode, oparg, index;
    memset(d, 0, sizeof *d);
    d->fatal_offset = d->enter_index = d->enter_line = -1;
    d->valid = d->linked = d->warm = d->chain_depth = -1;
    d->ex = *e;
    if (load_tables(r) < 0)
        set_missing(d->missing, r->jit.missing);
    if (!layout_ok(r))
        return 0;
    side = e->jit_code; /* no shim of its own (3.15+): the first uop starts at jit_code */
    if (ju_py_fetch(&r->mem, L, executor, JU_PYF_jit_ex_trace, &d->trace) < 0 ||
        ju_py_fetch(&r->mem, L, executor, JU_PYF_jit_ex_code_size, &uops) < 0 ||
        ju_py_fetch(&r->mem, L, executor, JU_PYF_jit_ex_exit_count, &exits) < 0 ||
        (ju_py_offset(L, JU_PYF_jit_ex_side_entry) != JU_PY_NONE &&
         ju_py_fetch(&r->mem, L, executor, JU_PYF_jit_ex_side_entry, &side) < 0))
        return ju_fail(&r->err, JITUNWIND_EREAD, executor, "executor %#llx is unreadable",
                       (unsigned long long)executor);
    d->uop_count = (uint32_t)uops; /* 4-byte fields */
    d->exit_count = (uint32_t)exits;
    d->valid = read_bits(r, executor, JU_PYF_jit_vm_valid);
    d->linked = read_bits(r, executor, JU_PYF_jit_vm_linked);
    d->warm = read_bits(r, executor, JU_PYF_jit_vm_warm);
    d->chain_depth = read_bits(r, executor, JU_PYF_jit_vm_chain_depth);
    if (ju_py_fetch(&r->mem, L, executor, JU_PYF_jit_vm_opcode, &opcode) == 0 &&
        ju_py_fetch(&r->mem, L, executor, JU_PYF_jit_vm_oparg, &oparg) == 0) {
        d->vm_opcode = (uint8_t)opcode; /* 1-byte fields */
        d->vm_oparg = (uint8_t)oparg;
    }
    if (d->ex.code && ju_py_fetch(&r->mem, L, executor, JU_PYF_jit_vm_index, &index) == 0 &&
        (int32_t)index >= 0) {
        d->enter_index = (int32_t)index;
        d->enter_line = target_line(r, d->ex.code, d->enter_index);
    }
    if (d->ex.jit_code && side >= d->ex.jit_code && side - d->ex.jit_code <= d->ex.jit_size) {
        d->jit_side_entry = side;
        d->shim_size = (uint32_t)(side - d->ex.jit_code);
    } else if (d->ex.jit_code) {
        set_missing(d->missing, "jit_side_entry lies outside the executor's code");
    }
    if (d->uop_count > JITUNWIND_PY_MAX_UOPS || d->exit_count > JITUNWIND_PY_MAX_UOPS) {
        snprintf(d->missing, sizeof d->missing, "executor claims %u uops and %u exits",
                 d->uop_count, d->exit_count);
        d->uop_count = d->exit_count = 0;
    }
    d->have_names = r->jit.loaded > 0;
    return 0;
}

JITUNWIND_API int jitunwind_pyreader_executor_detail(jitunwind_pyreader *r, uint64_t executor,
                                                     struct jitunwind_py_executor_detail *d)
{
    struct jitunwind_py_executor e;
    int rc;
    if (!r || !d || !executor)
        return JITUNWIND_EINVAL;
    memset(d, 0, sizeof *d);
    if ((rc = ju_py_find_executor(r, executor, 0, &e)) < 0)
        return rc;
    return fill_detail(r, &e, d);
}

JITUNWIND_API int jitunwind_pyreader_executor_details(jitunwind_pyreader *r,
                                                      struct jitunwind_py_executor_detail *out,
                                                      size_t max, size_t *count)
{
    struct jitunwind_py_executor *list;
    size_t n = 0, i;
    int rc, rc2 = 0;
    if (!r || (!out && max) || !count)
        return JITUNWIND_EINVAL;
    *count = 0;
    list = calloc(max ? max : 1, sizeof *list);
    if (!list)
        return JITUNWIND_ENOMEM;
    rc = jitunwind_pyreader_executors(r, list, max, &n);
    for (i = 0; i < n && rc2 == 0; i++)
        if ((rc2 = fill_detail(r, &list[i], &out[i])) == 0)
            *count = i + 1;
    free(list);
    return rc < 0 ? rc : rc2;
}

/* Where each uop's stencil lies: 0 and offsets in u[], or -1 with
 * d->missing set when the sizes do not fit the executor's code. */
static int place_stencils(jitunwind_pyreader *r, struct jitunwind_py_executor_detail *d,
                          struct jitunwind_py_uop *u, size_t n)
{
    uint64_t off = d->shim_size;
    size_t i;
    int fatal;
    if (r->jit.loaded <= 0 || !d->ex.jit_code || !d->jit_side_entry)
        return -1;
    for (i = 0; i < n; i++) {
        if (u[i].opcode >= r->jit.entries) {
            snprintf(d->missing, sizeof d->missing, "uop %zu has opcode %u, past the stencil table",
                     i, u[i].opcode);
            return -1;
        }
        u[i].code_offset = (int32_t)off;
        u[i].code_size = r->jit.code_size[u[i].opcode];
        off += u[i].code_size;
    }
    /* 3.15+ appends the register-cache variant with nothing cached: the
     * plain uop has no stencil code there. */
    if ((fatal = find_opcode(r, "_FATAL_ERROR_r00")) < 0)
        fatal = find_opcode(r, "_FATAL_ERROR");
    if (off > d->ex.jit_size ||
        (fatal >= 0 && off + r->jit.code_size[fatal] > d->ex.jit_size)) {
        snprintf(d->missing, sizeof d->missing,
                 "the stencils add up to %llu bytes, more than the executor's %llu (a stencil "
                 "table of another build?)", (unsigned long long)off,
                 (unsigned long long)d->ex.jit_size);
        for (i = 0; i < n; i++) {
            u[i].code_offset = -1;
            u[i].code_size = 0;
        }
        return -1;
    }
    if (fatal >= 0) {
        d->fatal_offset = (int32_t)off;
        d->fatal_size = r->jit.code_size[fatal];
    } else {
        set_missing(d->missing, "no _FATAL_ERROR in _PyOpcode_uop_name");
    }
    d->have_stencils = 1;
    return 0;
}

/* Trace entry `index`, the uop_size bytes at p (at least the opcode's 2:
 * ju_py_jit_layout_check). */
static void decode_uop(jitunwind_pyreader *r, const uint8_t *p, uint32_t index,
                       struct jitunwind_py_uop *u)
{
    const struct ju_py_layout *L = r->layout;
    uint32_t size = L->jit.uop_size;
    uint16_t word = (uint16_t)(p[0] | p[1] << 8);
    const char *name;
    memset(u, 0, sizeof *u);
    u->index = index;
    u->opcode = (uint16_t)(word & ((1u << L->jit.opcode_bits) - 1));
    u->format = (uint8_t)(word >> L->jit.opcode_bits);
    u->oparg = (uint16_t)ju_py_get(L, JU_PYF_jit_uop_oparg, p, size);
    u->raw_target = (uint32_t)ju_py_get(L, JU_PYF_jit_uop_target, p, size);
    u->operand0 = ju_py_get(L, JU_PYF_jit_uop_operand0, p, size);
    u->operand1 = ju_py_get(L, JU_PYF_jit_uop_operand1, p, size); /* 0 when none (3.13) */
    u->target = u->line = u->code_offset = -1;
    name = r->jit.loaded > 0 ? uop_name(r, u->opcode) : "";
    if (name[0])
        ju_strlcpy(u->name, name, sizeof u->name);
    else
        snprintf(u->name, sizeof u->name, "uop %u", u->opcode);
}

/* Read n trace entries in chunks (one read per chunk, not per uop); their
 * size is 2 to JU_PY_UOP_COPY bytes (ju_py_jit_layout_check). */
static int read_trace(jitunwind_pyreader *r, uint64_t trace, struct jitunwind_py_uop *u, size_t n,
                      size_t *count)
{
    uint32_t size = r->layout->jit.uop_size;
    uint8_t buf[32 * JU_PY_UOP_COPY];
    size_t i = 0, chunk = sizeof buf / size;
    *count = 0;
    while (i < n) {
        size_t k, m = n - i < chunk ? n - i : chunk;
        if (ju_read(&r->mem, trace + (uint64_t)i * size, buf, m * size) < 0)
            return ju_fail(&r->err, JITUNWIND_EREAD, trace + (uint64_t)i * size,
                           "the trace at %#llx is unreadable from uop %zu",
                           (unsigned long long)trace, i);
        for (k = 0; k < m; k++)
            decode_uop(r, buf + k * size, (uint32_t)(i + k), &u[i + k]);
        i += m;
        *count = i;
    }
    return 0;
}

/* Where exit i of executor ex lies in target memory. */
static uint64_t exit_at(const struct ju_py_layout *L, uint64_t ex, uint64_t i)
{
    return ex + ju_py_offset(L, JU_PYF_jit_ex_exits) + i * L->jit.exit_size;
}

/* Targets, call depth and lines of u[0..n), which is the whole trace. */
static void resolve_targets(jitunwind_pyreader *r, uint64_t executor, uint64_t code,
                            int code_is_frames, struct jitunwind_py_uop *u, size_t n)
{
    const struct ju_py_jit_layout *J = &r->layout->jit;
    uint16_t depth = 0;
    int32_t last_target = -1, last_line = -1;
    size_t i;
    for (i = 0; i < n; i++) {
        struct jitunwind_py_uop *x = &u[i];
        uint32_t jump = x->raw_target & 0xffff, error = x->raw_target >> 16;
        x->depth = depth;
        if (named(x->name, ERROR_POP) && x->operand0 < (1u << 30)) {
            x->target = (int32_t)x->operand0;
            x->target_source = JITUNWIND_UOP_TARGET_OWN;
        } else if (x->format == J->format_jump) {
            if (error > i && error < n && named(u[error].name, ERROR_POP) &&
                u[error].operand0 < (1u << 30)) {
                x->target = (int32_t)u[error].operand0;
                x->target_source = JITUNWIND_UOP_TARGET_ERROR;
            } else if (jump > i && jump < n && u[jump].format == 0 &&
                       named(u[jump].name, REEXECUTES)) {
                x->target = (int32_t)u[jump].raw_target;
                x->target_source = JITUNWIND_UOP_TARGET_EXIT;
            }
        } else if (x->format == J->format_exit) {
            uint64_t exit_target;
            if (jump < JITUNWIND_PY_MAX_UOPS &&
                ju_py_fetch(&r->mem, r->layout, exit_at(r->layout, executor, jump),
                            JU_PYF_jit_exit_target, &exit_target) == 0 &&
                exit_target < (1u << 30)) {
                x->target = (int32_t)exit_target;
                x->target_source = JITUNWIND_UOP_TARGET_EXIT;
            }
        } else if (x->format == 0 && !named(x->name, NO_OWN_TARGET)) {
            x->target = (int32_t)x->raw_target;
            x->target_source = JITUNWIND_UOP_TARGET_OWN;
        }
        if (x->target_source == JITUNWIND_UOP_TARGET_NONE && last_target >= 0 && i > 0 &&
            u[i - 1].depth == depth) {
            x->target = last_target;
            x->target_source = JITUNWIND_UOP_TARGET_PREVIOUS;
        }
        if (x->target >= 0 && (depth == 0 || code_is_frames)) {
            x->line = x->target == last_target ? last_line : target_line(r, code, x->target);
            last_line = x->line;
        }
        if (x->target >= 0)
            last_target = x->target;
        if (named(x->name, PUSHES_FRAME) && depth < UINT16_MAX)
            depth++;
        else if (named(x->name, POPS_FRAME) && depth > 0)
            depth--;
        if (x->depth != depth)
            last_target = -1; /* the next uop runs in another code object */
    }
}

/* The whole trace of an executor whose detail is `d`, into a buffer the
 * caller frees. */
static int whole_trace(jitunwind_pyreader *r, struct jitunwind_py_executor_detail *d,
                       uint64_t code, struct jitunwind_py_uop **out, size_t *count)
{
    struct jitunwind_py_uop *u;
    int rc;
    *out = NULL;
    *count = 0;
    if (!layout_ok(r))
        return ju_fail(&r->err, JITUNWIND_EUNSUPPORTED, d->ex.address, "%s",
                       d->missing[0] ? d->missing : r->jit.missing);
    if (d->uop_count == 0)
        return 0;
    if (!d->trace)
        return ju_fail(&r->err, JITUNWIND_ECORRUPT, d->ex.address, "executor %#llx has no trace",
                       (unsigned long long)d->ex.address);
    u = calloc(d->uop_count, sizeof *u);
    if (!u)
        return JITUNWIND_ENOMEM;
    rc = read_trace(r, d->trace, u, d->uop_count, count);
    if (rc == 0) /* offsets need every uop: a partial trace would misplace _FATAL_ERROR */
        place_stencils(r, d, u, *count);
    resolve_targets(r, d->ex.address, code ? code : d->ex.code, code != 0, u, *count);
    *out = u;
    return rc;
}

JITUNWIND_API int jitunwind_pyreader_executor_trace(jitunwind_pyreader *r, uint64_t executor,
                                                    uint64_t code, struct jitunwind_py_uop *out,
                                                    size_t max, size_t *count,
                                                    struct jitunwind_py_executor_detail *detail)
{
    struct jitunwind_py_executor_detail d;
    struct jitunwind_py_uop *u;
    size_t n;
    int rc;
    if (!r || (!out && max) || !count)
        return JITUNWIND_EINVAL;
    *count = 0;
    if ((rc = jitunwind_pyreader_executor_detail(r, executor, &d)) < 0)
        return rc;
    rc = whole_trace(r, &d, code, &u, &n);
    if (n > max) {
        n = max;
        if (rc == 0)
            rc = ju_fail(&r->err, JITUNWIND_ELIMIT, executor,
                         "the trace has %u uops, more than the %zu asked for", d.uop_count, max);
    }
    if (n)
        memcpy(out, u, n * sizeof *u);
    free(u);
    if (detail)
        *detail = d;
    *count = n;
    return rc;
}

JITUNWIND_API int jitunwind_pyreader_detail_exits(jitunwind_pyreader *r,
                                                  const struct jitunwind_py_executor_detail *d,
                                                  struct jitunwind_py_jit_exit *out, size_t max,
                                                  size_t *count)
{
    uint32_t i;
    if (!r || !d || (!out && max) || !count)
        return JITUNWIND_EINVAL;
    *count = 0;
    if (!layout_ok(r))
        return ju_fail(&r->err, JITUNWIND_EUNSUPPORTED, d->ex.address, "%s", r->jit.missing);
    for (i = 0; i < d->exit_count; i++) {
        uint64_t at = exit_at(r->layout, d->ex.address, i);
        struct jitunwind_py_jit_exit *e = &out[*count];
        uint64_t target;
        if (*count >= max)
            return ju_fail(&r->err, JITUNWIND_ELIMIT, d->ex.address,
                           "%u exits, more than the %zu asked for", d->exit_count, max);
        memset(e, 0, sizeof *e);
        if (ju_py_fetch(&r->mem, r->layout, at, JU_PYF_jit_exit_target, &target) < 0 ||
            ju_py_fetch(&r->mem, r->layout, at, JU_PYF_jit_exit_executor, &e->executor) < 0)
            return ju_fail(&r->err, JITUNWIND_EREAD, at, "exit %u of executor %#llx is unreadable",
                           i, (unsigned long long)d->ex.address);
        e->index = i;
        e->target = target < (1u << 30) ? (int32_t)target : -1;
        e->line = target_line(r, d->ex.code, e->target);
        (*count)++;
    }
    return 0;
}

JITUNWIND_API int jitunwind_pyreader_executor_exits(jitunwind_pyreader *r, uint64_t executor,
                                                    struct jitunwind_py_jit_exit *out, size_t max,
                                                    size_t *count)
{
    struct jitunwind_py_executor_detail d;
    int rc;
    if (!r || (!out && max) || !count)
        return JITUNWIND_EINVAL;
    *count = 0;
    if ((rc = jitunwind_pyreader_executor_detail(r, executor, &d)) < 0)
        return rc;
    return jitunwind_pyreader_detail_exits(r, &d, out, max, count);
}

JITUNWIND_API int jitunwind_pyreader_jit_pc(jitunwind_pyreader *r, uint64_t pc, uint64_t code,
                                            struct jitunwind_py_jit_pc *out)
{
    struct jitunwind_py_executor_detail d;
    struct jitunwind_py_executor ex;
    struct jitunwind_py_uop *u = NULL;
    size_t n = 0, i;
    int rc;
    if (!r || !out)
        return JITUNWIND_EINVAL;
    memset(out, 0, sizeof *out);
    out->pc = pc;
    if ((rc = ju_py_find_executor(r, 0, pc, &ex)) < 0)
        return rc;
    memset(&d, 0, sizeof d);
    if ((rc = fill_detail(r, &ex, &d)) < 0) /* the executor just found: no second search */
        return rc;
    out->executor = ex.address;
    out->jit_code = ex.jit_code;
    out->offset = (uint32_t)(pc - ex.jit_code);
    out->ex = d.ex;
    out->uop_count = d.uop_count;
    if (whole_trace(r, &d, code, &u, &n) < 0 && !d.missing[0])
        ju_strlcpy(d.missing, r->err.message, sizeof d.missing);
    ju_strlcpy(out->missing, d.missing, sizeof out->missing);
    if (d.jit_side_entry && pc < d.jit_side_entry) {
        out->region = JITUNWIND_JIT_REGION_SHIM;
    } else if (d.have_stencils) {
        for (i = 0; i < n; i++)
            if (pc - ex.jit_code >= (uint64_t)u[i].code_offset &&
                pc - ex.jit_code < (uint64_t)u[i].code_offset + u[i].code_size) {
                out->region = JITUNWIND_JIT_REGION_UOP;
                out->uop = u[i];
                break;
            }
        if (i == n && d.fatal_offset >= 0 && out->offset >= (uint32_t)d.fatal_offset)
            out->region = out->offset < (uint32_t)d.fatal_offset + d.fatal_size
                              ? JITUNWIND_JIT_REGION_FATAL
                              : JITUNWIND_JIT_REGION_TAIL;
    }
    free(u);
    return 0;
}

JITUNWIND_API int jitunwind_py_jit_pc_label(const struct jitunwind_py_jit_pc *w, char *buf,
                                            size_t size)
{
    if (!w || !buf || !size)
        return JITUNWIND_EINVAL;
    switch (w->region) {
    case JITUNWIND_JIT_REGION_SHIM:
        return snprintf(buf, size, "[shim]");
    case JITUNWIND_JIT_REGION_UOP:
        return snprintf(buf, size, "[uop %u/%u %s]", w->uop.index, w->uop_count, w->uop.name);
    case JITUNWIND_JIT_REGION_FATAL:
        return snprintf(buf, size, "[_FATAL_ERROR]");
    case JITUNWIND_JIT_REGION_TAIL:
        return snprintf(buf, size, "[past _FATAL_ERROR: trampolines/data]");
    default:
        buf[0] = 0;
        return 0;
    }
}
