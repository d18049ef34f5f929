/* The JIT view on synthetic targets laid out with the 3.13 and 3.14 tables
 * (GIL and free-threaded) and with the 3.15 layout, every offset of which
 * comes from the DWARF of 3.15-shaped declarations (shapes/py315_jit.c,
 * read as a libpython's): executors with traces, exits and vm_data, a
 * stencil table and uop names. Every uop boundary, a PC in the shim (3.13,
 * 3.14; 3.15 executors have none), in _FATAL_ERROR and past it; targets
 * found each way; and damaged data (garbage trace pointer, huge counts,
 * missing or implausible tables, a 3.15 executor array that lies, DWARF
 * without a field) giving the fallback with a one-line reason, never a
 * crash. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "py_image.h"
#include "python/pyreader.h"
#include "suite.h"

enum { OP_START, OP_SET_IP, OP_CALL, OP_DEOPT, OP_ERROR, OP_FATAL, OP_GUARD, OP_JUMP_TOP,
       OP_EXIT, N_OPS };
static const char *const NAMES[N_OPS] = {"_START_EXECUTOR", "_SET_IP", "_CALL_BUILTIN_FAST",
                                         "_DEOPT", "_ERROR_POP_N", "_FATAL_ERROR",
                                         "_GUARD_TYPE_VERSION", "_JUMP_TO_TOP", "_EXIT_TRACE"};
static const uint32_t SIZES[N_OPS] = {0, 10, 30, 20, 8, 6, 12, 5, 40};

#define JIT_CODE 0x7f0000100000ull
#define JIT_SIZE 4096u
#define SHIM 16u
#define N_UOPS 9
#define LIST_OFFSET 3000u /* where this synthetic build keeps executor_list_head */

/* The trace: opcode, format kind ('t' target, 'j' jump/error, 'x' 3.13 exit
 * index), target word or {jump, error}, operand0. */
struct spec {
    int op;
    char kind;
    uint32_t target, jump, error;
    uint64_t operand0;
};
static const struct spec TRACE[N_UOPS] = {
    {OP_START, 't', 0, 0, 0, 0},
    {OP_SET_IP, 't', 1, 0, 0, 0},
    {OP_GUARD, 'j', 0, 6, 0, 0},      /* deopts at uop 6 (target 2); 3.13: exit 0 */
    {OP_CALL, 'j', 0, 0, 7, 0},       /* error stub uop 7 (operand 3) */
    {OP_GUARD, 'j', 0, 8, 0, 0},      /* side exit to elsewhere (5): as before (3); 3.13: exit 0 */
    {OP_JUMP_TOP, 'j', 0, 1, 0, 0},   /* no target of its own: as before (3) */
    {OP_DEOPT, 't', 2, 0, 0, 0},
    {OP_ERROR, 't', 0, 0, 0, 3},
    {OP_EXIT, 't', 5, 0, 0, 0},
};
static const int32_t WANT_TARGET[N_UOPS] = {0, 1, 2, 3, 3, 3, 2, 3, 5};
static const uint8_t WANT_SOURCE[N_UOPS] = {
    JITUNWIND_UOP_TARGET_OWN,      JITUNWIND_UOP_TARGET_OWN,      JITUNWIND_UOP_TARGET_EXIT,
    JITUNWIND_UOP_TARGET_ERROR,    JITUNWIND_UOP_TARGET_PREVIOUS, JITUNWIND_UOP_TARGET_PREVIOUS,
    JITUNWIND_UOP_TARGET_OWN,      JITUNWIND_UOP_TARGET_OWN,      JITUNWIND_UOP_TARGET_OWN};

struct target {
    struct py_image p;
    struct ju_py_layout dwarf_layout; /* 3.15: the table completed from DWARF */
    const struct ju_py_layout *L;     /* the layout the target is written with */
    const struct ju_py_jit_layout *J;
    uint64_t interp, code, ex, other, trace, stencils, names;
};

/* dwarf: the module whose DWARF places the executors (3.15: all of their
 * layout), or NULL for the table alone with the list offset set. 3.15 has
 * no free-threaded JIT build (configure refuses it). */
static const struct {
    uint32_t version;
    int free_threaded;
    const char *dwarf;
} BUILDS[] = {{0x030d00f0, 0, NULL},
              {0x030d00f0, 1, NULL},
              {0x030e07f0, 0, NULL},
              {0x030e07f0, 1, NULL},
              {0x030f00f0, 0, PY315_DWARF}};
#define V315 4 /* BUILDS[V315] */

/* The shim's bytes before the first uop: none where the layout has no
 * side entry (3.15). Set by build(). */
static uint32_t shim_bytes = SHIM;

static void put_bits(struct target *t, uint64_t ex, const struct ju_py_jit_bits *b, uint32_t v)
{
    uint64_t at = ex + b->offset;
    uint8_t byte = 0;
    struct jitunwind_memory mem = ju_builder_memory(t->p.b);
    if (b->width == 0)
        return;
    mem.read(mem.arg, at, &byte, 1);
    byte = (uint8_t)(byte | (v & ((1u << b->width) - 1)) << b->bit);
    ju_builder_u8(t->p.b, at, byte);
}

static uint64_t make_executor(struct target *t, uint64_t next, uint64_t code, uint64_t jit_code,
                              uint64_t trace, uint32_t uops, uint32_t exits)
{
    const struct ju_py_layout *L = t->L;
    const struct ju_py_jit_layout *J = t->J;
    uint64_t ex = pyi_alloc(&t->p, J->ex_exits + 16 * 4);
    ju_builder_u64(t->p.b, ex + L->ex_links_next, next);
    ju_builder_u64(t->p.b, ex + L->ex_code, code);
    ju_builder_u64(t->p.b, ex + L->ex_jit_code, jit_code);
    ju_builder_u64(t->p.b, ex + L->ex_jit_size, jit_code ? JIT_SIZE : 0);
    if (J->ex_side_entry != JU_PY_NONE)
        ju_builder_u64(t->p.b, ex + J->ex_side_entry, jit_code ? jit_code + SHIM : 0);
    ju_builder_u64(t->p.b, ex + J->ex_trace, trace);
    ju_builder_u32(t->p.b, ex + J->ex_code_size, uops);
    ju_builder_u32(t->p.b, ex + J->ex_exit_count, exits);
    ju_builder_u32(t->p.b, ex + J->vm_index, 4);
    put_bits(t, ex, &J->vm_valid, 1);
    put_bits(t, ex, &J->vm_linked, 1);
    put_bits(t, ex, &J->vm_chain_depth, 2);
    put_bits(t, ex, &J->vm_warm, 1);
    return ex;
}

static void build(struct target *t, int which)
{
    const struct ju_py_jit_layout *J;
    uint64_t at;
    int i;
    memset(t, 0, sizeof *t);
    pyi_init_build(&t->p, BUILDS[which].version, BUILDS[which].free_threaded);
    t->interp = pyi_interp(&t->p, 0, 0);
    pyi_set_interpreters(&t->p, t->interp);
    t->L = t->p.L;
    if (BUILDS[which].dwarf) { /* the layout the reader will have: write the target with it */
        struct jitunwind_memory mem = ju_builder_memory(t->p.b);
        jitunwind_pyreader *r;
        int rc = jitunwind_pyreader_open(&r, &mem, t->p.runtime, BUILDS[which].version,
                                         JITUNWIND_PYREADER_OPTS(.module = BUILDS[which].dwarf));
        ck_assert_msg(rc == 0, "open: %s", jitunwind_pyreader_last_error(r)->message);
        t->dwarf_layout = *r->layout;
        t->L = &t->dwarf_layout;
        jitunwind_pyreader_free(r);
    }
    t->J = J = &t->L->jit;
    ck_assert_int_eq(J->known, 1);
    shim_bytes = J->ex_side_entry == JU_PY_NONE ? 0 : SHIM;
    t->code = pyi_code(&t->p, "hot", "/app.py", 10, 8); /* unit i: line 10 + i */
    /* The interpreter's tables. */
    t->stencils = pyi_alloc(&t->p, (size_t)J->stencil_size * N_OPS);
    t->names = pyi_alloc(&t->p, 8 * N_OPS);
    for (i = 0; i < N_OPS; i++) {
        uint64_t name = pyi_alloc(&t->p, 64);
        ju_builder_write(t->p.b, name, NAMES[i], strlen(NAMES[i]) + 1);
        ju_builder_u64(t->p.b, t->names + 8ull * i, name);
        ju_builder_u64(t->p.b, t->stencils + (uint64_t)i * J->stencil_size + J->stencil_code_size,
                       SIZES[i]);
    }
    /* The trace. */
    t->trace = pyi_alloc(&t->p, (size_t)J->uop_size * N_UOPS);
    for (i = 0, at = t->trace; i < N_UOPS; i++, at += J->uop_size) {
        const struct spec *s = &TRACE[i];
        uint32_t format = 0, word = s->target;
        if (s->kind == 'j' && J->format_exit != 0xff && s->op == OP_GUARD) {
            format = J->format_exit; /* 3.13: the guard names its exit (0, then 1) */
            word = i == 2 ? 0 : 1;
        } else if (s->kind == 'j') {
            format = J->format_jump;
            word = s->jump | s->error << 16;
        }
        ju_builder_u16(t->p.b, at, (uint16_t)(s->op | format << J->opcode_bits));
        ju_builder_u16(t->p.b, at + J->uop_oparg, (uint16_t)(i + 100));
        ju_builder_u32(t->p.b, at + J->uop_target, word);
        ju_builder_u64(t->p.b, at + J->uop_operand0, s->operand0);
    }
    t->other = make_executor(t, 0, t->code, JIT_CODE + 0x10000, t->trace, N_UOPS, 0);
    t->ex = make_executor(t, t->other, t->code, JIT_CODE, t->trace, N_UOPS, 2);
    ju_builder_u32(t->p.b, t->ex + J->ex_exits + J->exit_target, 2);
    ju_builder_u64(t->p.b, t->ex + J->ex_exits + J->exit_executor, t->other);
    ju_builder_u32(t->p.b, t->ex + J->ex_exits + J->exit_size + J->exit_target, 3);
    if (t->L->interp_executor_array != JU_PY_NONE) { /* 3.15: executor_ptrs[], count */
        uint64_t array = pyi_alloc(&t->p, 16);
        ju_builder_u64(t->p.b, array, t->ex);
        ju_builder_u64(t->p.b, array + 8, t->other);
        ju_builder_u64(t->p.b, t->interp + t->L->interp_executor_array, array);
        ju_builder_u64(t->p.b, t->interp + t->L->interp_executor_count, 2);
        ju_builder_u64(t->p.b, t->other + t->L->ex_links_next, 0);
    } else {
        ju_builder_u64(t->p.b, t->interp + LIST_OFFSET, t->ex);
    }
}

/* A reader with the tables a JIT build's symbols would give (set as
 * runtime.c does) and the list offset its DWARF would give, or (3.15) the
 * layout the build's DWARF gives. */
static jitunwind_pyreader *open_reader(struct target *t, int which, int with_tables)
{
    struct jitunwind_memory mem = ju_builder_memory(t->p.b);
    jitunwind_pyreader *r;
    int rc = BUILDS[which].dwarf
                 ? jitunwind_pyreader_open(&r, &mem, t->p.runtime, BUILDS[which].version,
                                           JITUNWIND_PYREADER_OPTS(.module = BUILDS[which].dwarf))
                 : jitunwind_pyreader_open(&r, &mem, t->p.runtime, BUILDS[which].version, NULL);
    ck_assert_msg(rc == 0, "open: %s", jitunwind_pyreader_last_error(r)->message);
    if (!BUILDS[which].dwarf)
        r->from_target.interp_executor_list = LIST_OFFSET;
    ck_assert_ptr_eq(r->layout, &r->from_target);
    if (with_tables) {
        r->jit.stencils = t->stencils;
        r->jit.stencils_size = (uint64_t)t->J->stencil_size * N_OPS;
        r->jit.names = t->names;
        r->jit.names_size = 8 * N_OPS;
    }
    return r;
}

static uint32_t stencil_offset(int uop)
{
    uint32_t off = shim_bytes;
    int i;
    for (i = 0; i < uop; i++)
        off += SIZES[TRACE[i].op];
    return off;
}

START_TEST(every_uop_boundary_and_region)
{
    struct target t;
    struct jitunwind_py_jit_pc w;
    jitunwind_pyreader *r;
    char label[128];
    uint32_t fatal;
    int i;
    build(&t, _i);
    fatal = stencil_offset(N_UOPS); /* after build(): it sets the shim's size */
    r = open_reader(&t, _i, 1);
    for (i = 0; i < N_UOPS; i++) {
        uint32_t off = stencil_offset(i), size = SIZES[TRACE[i].op];
        if (size == 0)
            continue; /* _START_EXECUTOR emits nothing: its offset is the next uop's */
        ck_assert_int_eq(jitunwind_pyreader_jit_pc(r, JIT_CODE + off, 0, &w), 0);
        ck_assert_msg(w.region == JITUNWIND_JIT_REGION_UOP && w.uop.index == (uint32_t)i,
                      "build %d: first byte of uop %d: region %u uop %u (%s)", _i, i, w.region,
                      w.uop.index, w.missing);
        ck_assert_int_eq(jitunwind_pyreader_jit_pc(r, JIT_CODE + off + size - 1, 0, &w), 0);
        ck_assert_uint_eq(w.uop.index, (uint32_t)i);
        ck_assert_str_eq(w.uop.name, NAMES[TRACE[i].op]);
        ck_assert_int_eq(w.uop.code_offset, (int32_t)off);
        ck_assert_uint_eq(w.uop.code_size, size);
        ck_assert_uint_eq(w.uop.oparg, (uint32_t)(i + 100));
        ck_assert_int_eq(w.uop.target, WANT_TARGET[i]);
        ck_assert_int_eq(w.uop.line, WANT_TARGET[i] < 0 ? -1 : 10 + WANT_TARGET[i]);
        ck_assert_uint_eq(w.executor, t.ex);
        ck_assert_str_eq(w.missing, "");
    }
    ck_assert_int_eq(jitunwind_pyreader_jit_pc(r, JIT_CODE + stencil_offset(3), 0, &w), 0);
    jitunwind_py_jit_pc_label(&w, label, sizeof label);
    ck_assert_str_eq(label, "[uop 3/9 _CALL_BUILTIN_FAST]");
    ck_assert_int_eq(jitunwind_pyreader_jit_pc(r, JIT_CODE + 5, 0, &w), 0);
    ck_assert_uint_eq(w.region, shim_bytes ? JITUNWIND_JIT_REGION_SHIM   /* 3.13, 3.14 */
                                           : JITUNWIND_JIT_REGION_UOP);  /* 3.15: _SET_IP */
    ck_assert_int_eq(jitunwind_pyreader_jit_pc(r, JIT_CODE, 0, &w), 0);
    ck_assert_uint_eq(w.region, shim_bytes ? JITUNWIND_JIT_REGION_SHIM : JITUNWIND_JIT_REGION_UOP);
    if (!shim_bytes) /* _START_EXECUTOR emits nothing: jit_code is _SET_IP's first byte */
        ck_assert_uint_eq(w.uop.index, 1);
    ck_assert_int_eq(jitunwind_pyreader_jit_pc(r, JIT_CODE + fatal, 0, &w), 0);
    ck_assert_uint_eq(w.region, JITUNWIND_JIT_REGION_FATAL);
    ck_assert_int_eq(jitunwind_pyreader_jit_pc(r, JIT_CODE + fatal + SIZES[OP_FATAL] - 1, 0, &w),
                     0);
    ck_assert_uint_eq(w.region, JITUNWIND_JIT_REGION_FATAL);
    ck_assert_int_eq(jitunwind_pyreader_jit_pc(r, JIT_CODE + fatal + SIZES[OP_FATAL], 0, &w), 0);
    ck_assert_uint_eq(w.region, JITUNWIND_JIT_REGION_TAIL);
    ck_assert_int_eq(jitunwind_pyreader_jit_pc(r, JIT_CODE + JIT_SIZE, 0, &w),
                     JITUNWIND_ENOTFOUND);
    /* The second executor's code, a page away. */
    ck_assert_int_eq(jitunwind_pyreader_jit_pc(r, JIT_CODE + 0x10000 + stencil_offset(1), 0, &w),
                     0);
    ck_assert_uint_eq(w.executor, t.other);
    ck_assert_uint_eq(w.uop.index, 1);
    jitunwind_pyreader_free(r);
    pyi_free(&t.p);
}
END_TEST

START_TEST(trace_exits_and_vm_data)
{
    struct target t;
    struct jitunwind_py_uop u[16];
    struct jitunwind_py_jit_exit x[4];
    struct jitunwind_py_executor_detail d;
    jitunwind_pyreader *r;
    size_t n;
    int i;
    build(&t, _i);
    r = open_reader(&t, _i, 1);
    ck_assert_int_eq(jitunwind_pyreader_executor_trace(r, t.ex, 0, u, 16, &n, &d), 0);
    ck_assert_uint_eq(n, N_UOPS);
    for (i = 0; i < N_UOPS; i++) {
        uint8_t source = WANT_SOURCE[i];
        if (i == 4 && t.J->format_exit != 0xff)
            source = JITUNWIND_UOP_TARGET_EXIT; /* 3.13: exits[1].target, also 3 */
        ck_assert_msg(u[i].target == WANT_TARGET[i] && u[i].target_source == source,
                      "build %d uop %d: target %d via %u", _i, i, u[i].target,
                      u[i].target_source);
        ck_assert_uint_eq(u[i].depth, 0);
    }
    ck_assert_uint_eq(u[7].operand0, 3);
    ck_assert_int_eq(d.fatal_offset, (int32_t)stencil_offset(N_UOPS));
    ck_assert_uint_eq(d.fatal_size, SIZES[OP_FATAL]);
    ck_assert_uint_eq(d.shim_size, shim_bytes);
    ck_assert_uint_eq(d.jit_side_entry, JIT_CODE + shim_bytes);
    ck_assert_uint_eq(d.uop_count, N_UOPS);
    ck_assert_uint_eq(d.exit_count, 2);
    ck_assert_uint_eq(d.have_stencils, 1);
    ck_assert_int_eq(d.enter_index, 4);
    ck_assert_int_eq(d.enter_line, 14);
    ck_assert_int_eq(d.valid, 1);
    ck_assert_int_eq(d.linked, t.J->vm_linked.width ? 1 : -1); /* 3.15 has no `linked` */
    ck_assert_int_eq(d.chain_depth, t.J->vm_chain_depth.width ? 2 : -1); /* not in 3.13 */
    ck_assert_int_eq(d.warm, t.J->vm_warm.width ? 1 : -1); /* 3.14 only */
    ck_assert_int_eq(jitunwind_pyreader_executor_exits(r, t.ex, x, 4, &n), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_int_eq(x[0].target, 2);
    ck_assert_int_eq(x[0].line, 12);
    ck_assert_uint_eq(x[0].executor, t.other);
    ck_assert_int_eq(x[1].target, 3);
    ck_assert_uint_eq(x[1].executor, 0); /* cold: not linked yet */
    ck_assert_int_eq(jitunwind_pyreader_executor_exits(r, t.ex, x, 1, &n), JITUNWIND_ELIMIT);
    ck_assert_uint_eq(n, 1);
    /* Not an executor on the lists. */
    ck_assert_int_eq(jitunwind_pyreader_executor_detail(r, t.code, &d), JITUNWIND_ENOTFOUND);
    jitunwind_pyreader_free(r);
    pyi_free(&t.p);
}
END_TEST

/* Each kind of damage: jit_pc still answers (executor found, no uop) and
 * says what was missing; trace reads fail cleanly. */
static void expect_fallback(struct target *t, jitunwind_pyreader *r, const char *why, int which)
{
    struct jitunwind_py_jit_pc w;
    int rc = jitunwind_pyreader_jit_pc(r, JIT_CODE + stencil_offset(3), 0, &w);
    ck_assert_msg(rc == 0, "build %d, %s: %s", which, why, jitunwind_strerror(rc));
    ck_assert_uint_eq(w.executor, t->ex);
    ck_assert_msg(w.region == JITUNWIND_JIT_REGION_UNKNOWN, "build %d, %s: region %u claimed",
                  which, why, w.region);
    ck_assert_msg(w.missing[0] != 0, "build %d, %s: nothing said missing", which, why);
    if (shim_bytes) {
        ck_assert_int_eq(jitunwind_pyreader_jit_pc(r, JIT_CODE + 3, 0, &w), 0);
        ck_assert_uint_eq(w.region, JITUNWIND_JIT_REGION_SHIM);
    }
}

START_TEST(damaged_data_falls_back)
{
    struct target t;
    struct jitunwind_py_uop u[16];
    jitunwind_pyreader *r;
    size_t n;
    int how;
    for (how = 0; how < 6; how++) {
        build(&t, _i);
        switch (how) {
        case 0: /* the trace pointer points at garbage */
            ju_builder_u64(t.p.b, t.ex + t.J->ex_trace, 0x5a5a5a5a5a5a5a58ull);
            break;
        case 1: /* a huge uop count */
            ju_builder_u32(t.p.b, t.ex + t.J->ex_code_size, 0x7fffffff);
            break;
        case 2: /* an implausible stencil size */
            ju_builder_u64(t.p.b, t.stencils + OP_CALL * (uint64_t)t.J->stencil_size +
                                      t.J->stencil_code_size, 1ull << 40);
            break;
        case 3: /* sizes that overflow the executor's code */
            ju_builder_u64(t.p.b, t.stencils + OP_SET_IP * (uint64_t)t.J->stencil_size +
                                      t.J->stencil_code_size, 5000);
            break;
        case 4: /* an opcode past the tables */
            ju_builder_u16(t.p.b, t.trace + t.J->uop_size, 900);
            break;
        default:
            break;
        }
        r = open_reader(&t, _i, how != 5); /* 5: no stencil_groups symbol */
        expect_fallback(&t, r, "damage", _i * 10 + how);
        if (how == 0)
            ck_assert_int_eq(jitunwind_pyreader_executor_trace(r, t.ex, 0, u, 16, &n, NULL),
                             JITUNWIND_EREAD);
        if (how == 5) { /* the trace is still read: names say "uop N" */
            ck_assert_int_eq(jitunwind_pyreader_executor_trace(r, t.ex, 0, u, 16, &n, NULL), 0);
            ck_assert_str_eq(u[3].name, "uop 2");
            ck_assert_int_eq(u[3].code_offset, -1);
        }
        jitunwind_pyreader_free(r);
        pyi_free(&t.p);
    }
}
END_TEST

/* A JIT layout whose field does not fit the object holding it (as an
 * unexpected DWARF would make it, see check_py_layout_check.c) is refused
 * once, by name: the view then reads nothing with it (no detail, trace or
 * exits; jit_pc names the executor and says what is missing), where
 * before it loaded the field past its stack copy of a trace entry or off
 * in the executor. 3.14 GIL build: uop_size 24, stencil_size 40,
 * exit_size 16, ex_size 144; with the table's values the same target
 * decodes (trace_exits_and_vm_data). */
static const struct {
    enum ju_py_field_id field;
    uint32_t value;
    const char *missing;
} REFUSED[] = {
    {JU_PYF_jit_uop_target, 22,
     "CPython 3.14: _PyUOpInstruction.uop_target (offset 22, 4 bytes) ends past the 24 bytes "
     "of _PyUOpInstruction that uop_size gives"},
    {JU_PYF_jit_uop_operand1, 20,
     "CPython 3.14: _PyUOpInstruction.uop_operand1 (offset 20, 8 bytes) ends past the 24 bytes "
     "of _PyUOpInstruction that uop_size gives"},
    {JU_PYF_jit_uop_size, 72,
     "CPython 3.14: uop_size is 72 bytes, more than the 64 the decoder copies"},
    {JU_PYF_jit_stencil_code_size, 36,
     "CPython 3.14: StencilGroup.stencil_code_size (offset 36, 8 bytes) ends past the 40 bytes "
     "of StencilGroup that stencil_size gives"},
    {JU_PYF_jit_exit_executor, 12,
     "CPython 3.14: _PyExitData.exit_executor (offset 12, 8 bytes) ends past the 16 bytes of "
     "_PyExitData that exit_size gives"},
    {JU_PYF_jit_vm_index, 142,
     "CPython 3.14: _PyExecutorObject.vm_index (offset 142, 4 bytes) ends past the 144 bytes of "
     "_PyExecutorObject that ex_size gives"},
    {JU_PYF_jit_ex_trace, 0xfffffff0u,
     "CPython 3.14: _PyExecutorObject.ex_trace (offset 4294967280) lies past any plausible "
     "_PyExecutorObject"},
};

/* A JIT view that reads nothing with its layout: jit_pc names the executor
 * but no uop, detail and trace say `want` and read no trace. *d gets the
 * detail. */
static void expect_view_refused(struct target *t, jitunwind_pyreader *r, const char *want,
                                struct jitunwind_py_executor_detail *d)
{
    struct jitunwind_py_jit_pc w;
    struct jitunwind_py_uop u[16];
    size_t n = 99;
    ck_assert_int_eq(jitunwind_pyreader_jit_pc(r, JIT_CODE + stencil_offset(3), 0, &w), 0);
    ck_assert_uint_eq(w.executor, t->ex);
    ck_assert_uint_eq(w.region, JITUNWIND_JIT_REGION_UNKNOWN);
    ck_assert_str_eq(w.missing, want);
    ck_assert_int_eq(jitunwind_pyreader_executor_detail(r, t->ex, d), 0);
    ck_assert_str_eq(d->missing, want);
    ck_assert_uint_eq(d->uop_count, 0);
    ck_assert_uint_eq(d->trace, 0);
    ck_assert_int_eq(jitunwind_pyreader_executor_trace(r, t->ex, 0, u, 16, &n, NULL),
                     JITUNWIND_EUNSUPPORTED);
    ck_assert_uint_eq(n, 0);
    ck_assert_str_eq(jitunwind_pyreader_last_error(r)->message, want);
}

START_TEST(a_layout_field_past_its_object_takes_the_view_away)
{
    const int which = 2; /* 3.14, GIL */
    const char *want = REFUSED[_i].missing;
    struct target t;
    struct jitunwind_py_executor_detail d;
    struct jitunwind_py_jit_exit x[4];
    jitunwind_pyreader *r;
    size_t n = 99;
    build(&t, which);
    r = open_reader(&t, which, 1);
    memcpy((char *)&r->from_target + ju_py_fields[REFUSED[_i].field].slot, &REFUSED[_i].value,
           sizeof REFUSED[_i].value);
    expect_view_refused(&t, r, want, &d);
    d.exit_count = 2; /* a caller's own detail: still nothing read with the layout */
    ck_assert_int_eq(jitunwind_pyreader_detail_exits(r, &d, x, 4, &n), JITUNWIND_EUNSUPPORTED);
    ck_assert_uint_eq(n, 0);
    ck_assert_str_eq(jitunwind_pyreader_last_error(r)->message, want);
    jitunwind_pyreader_free(r);
    pyi_free(&t.p);
}
END_TEST

START_TEST(versions_without_traces_say_so)
{
    struct py_image p;
    struct jitunwind_memory mem;
    struct jitunwind_py_jit_pc w;
    jitunwind_pyreader *r;
    pyi_init(&p, 0x030c01f0);
    pyi_set_interpreters(&p, pyi_interp(&p, 0, 0));
    mem = ju_builder_memory(p.b);
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, 0x030c01f0, NULL), 0);
    ck_assert_int_eq(jitunwind_pyreader_jit_pc(r, JIT_CODE, 0, &w), JITUNWIND_EUNSUPPORTED);
    ck_assert_str_ne(jitunwind_pyreader_last_error(r)->message, "");
    jitunwind_pyreader_free(r);
    pyi_free(&p);
}
END_TEST

/* x86-64 3.13/3.14: the shim calls the trace, so between the trace's frame
 * and the eval loop there is the shim's frame. With the registry at hand,
 * the scan stops at the return address into the shim (after a `call rel32`
 * into the same executor), not at stale helper return addresses into the
 * trace; without it, the scan finds the eval loop as before. */
START_TEST(shim_is_its_own_frame)
{
    struct ju_builder *b = ju_builder_new();
    struct jitunwind_memory mem = ju_builder_memory(b);
    jitunwind_registry *reg;
    struct jitunwind_range x = {0};
    const struct jitunwind_range *got;
    struct jitunwind_regs in = {0}, out;
    const uint64_t eval = 0x500000, eval_ra = eval + 0x100, sp = 0x7ffd0000;
    const uint8_t shim_call[5] = {0xe8, 0x0a, 0, 0, 0};  /* call +0x21 (the side entry) */
    const uint8_t helper_call[2] = {0xff, 0xd0};         /* call *%rax */
    const uint8_t eval_call[5] = {0xe8, 0, 0, 0, 0};
    int stop, i;
    ju_builder_write(b, JIT_CODE + 0x12, shim_call, sizeof shim_call);
    ju_builder_write(b, JIT_CODE + 0x1fe, helper_call, sizeof helper_call);
    ju_builder_write(b, eval_ra - 5, eval_call, sizeof eval_call);
    ju_builder_u64(b, sp + 8, JIT_CODE + 0x200);   /* stale: a helper called from the trace */
    ju_builder_u64(b, sp + 16, 0x1234);
    ju_builder_u64(b, sp + 24, JIT_CODE + 0x17);   /* the shim's call */
    for (i = 4; i < 9; i++)
        ju_builder_u64(b, sp + 8ull * i, 0x42);    /* registers the shim saved */
    ju_builder_u64(b, sp + 72, eval_ra);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    x.start = JIT_CODE;
    x.end = JIT_CODE + JIT_SIZE;
    x.kind = JITUNWIND_KIND_JIT;
    x.rule = JITUNWIND_RULE_SCAN;
    x.origin = JITUNWIND_ORIGIN_INTERPRETER;
    x.scan_start = eval;
    x.scan_end = eval + 0x1000;
    ck_assert_int_eq(jitunwind_registry_add(reg, &x), 0);
    got = jitunwind_registry_lookup(reg, JIT_CODE + 0x300);
    in.pc = JIT_CODE + 0x300;
    in.sp = sp;
    in.fp = 0x99;
    in.valid = JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP;
    ck_assert_int_eq(jitunwind_step_range_in(JITUNWIND_ARCH_X86_64, reg, got, &mem, &in, 1, &out,
                                             &stop), 0);
    ck_assert_uint_eq(out.pc, JIT_CODE + 0x17);
    ck_assert_uint_eq(out.sp, sp + 32);
    in = out;
    ck_assert_int_eq(jitunwind_step_range_in(JITUNWIND_ARCH_X86_64, reg, got, &mem, &in, 0, &out,
                                             &stop), 0);
    ck_assert_uint_eq(out.pc, eval_ra);
    ck_assert_uint_eq(out.sp, sp + 80);
    in.pc = JIT_CODE + 0x300;
    in.sp = sp;
    ck_assert_int_eq(jitunwind_step_range(JITUNWIND_ARCH_X86_64, got, &mem, &in, 1, &out, &stop),
                     0);
    ck_assert_uint_eq(out.pc, eval_ra); /* without the registry: the shim is skipped */
    jitunwind_registry_free(reg);
    ju_builder_free(b);
}
END_TEST

/* 3.15: the layout is the DWARF's, field by field (the offsets of
 * shapes/py315_jit.c on LP64), where 3.14's table would have put
 * vm_data.index at 36, vm_data.code at 88, jit_code at 112 and a side
 * entry at 120. */
static const struct {
    enum ju_py_field_id field;
    uint32_t value;
} WANT_315[] = {
    {JU_PYF_interp_executor_list, JU_PY_NONE},  {JU_PYF_interp_executor_array, 3072 + 8},
    {JU_PYF_interp_executor_count, 3072 + 16},  {JU_PYF_interp_executor_deleted, 3072 + 32},
    {JU_PYF_interp_cold_executor, 3072 + 40},   {JU_PYF_interp_cold_dynamic, 3072 + 48},
    {JU_PYF_ex_size, 112},                      {JU_PYF_ex_links_next, 48},
    {JU_PYF_ex_code, 64},                       {JU_PYF_ex_jit_size, 80},
    {JU_PYF_ex_jit_code, 88},                   {JU_PYF_jit_ex_trace, 24},
    {JU_PYF_jit_vm_opcode, 32},                 {JU_PYF_jit_vm_oparg, 33},
    {JU_PYF_jit_vm_valid, 34},                  {JU_PYF_jit_vm_chain_depth, 35},
    {JU_PYF_jit_vm_index, 40},                  {JU_PYF_jit_ex_exit_count, 72},
    {JU_PYF_jit_ex_code_size, 76},              {JU_PYF_jit_ex_exits, 96},
    {JU_PYF_jit_ex_side_entry, JU_PY_NONE},     {JU_PYF_jit_uop_size, 24},
    {JU_PYF_jit_uop_target, 4},                 {JU_PYF_jit_uop_operand1, 16},
    {JU_PYF_jit_exit_size, 16},                 {JU_PYF_jit_exit_executor, 8},
    {JU_PYF_jit_stencil_size, 40},              {JU_PYF_jit_stencil_code_size, 8},
};

START_TEST(py315_layout_comes_from_dwarf)
{
    struct target t;
    jitunwind_pyreader *r;
    const struct ju_py_layout *L;
    const struct ju_py_jit_layout *J;
    size_t i;
    build(&t, V315);
    r = open_reader(&t, V315, 1);
    L = r->layout;
    J = &L->jit;
    ck_assert_str_eq(r->report.executors_missing, "");
    ck_assert_str_eq(r->report.jit_missing, "");
    ck_assert_uint_eq(r->report.jit.adopted, 0);
    ck_assert_uint_ge(r->report.jit.derived, 19);
    for (i = 0; i < sizeof WANT_315 / sizeof WANT_315[0]; i++)
        ck_assert_msg(ju_py_offset(L, WANT_315[i].field) == WANT_315[i].value, "%s: %u, not %u",
                      ju_py_fields[WANT_315[i].field].name, ju_py_offset(L, WANT_315[i].field),
                      WANT_315[i].value);
    ck_assert_uint_eq(L->ex_rule_x86_64, JITUNWIND_RULE_FP_PRESERVING);
    ck_assert_uint_eq(J->vm_valid.width, 8);
    ck_assert_uint_eq(J->vm_chain_depth.width, 8);
    ck_assert_uint_eq(J->vm_linked.width, 0);
    ck_assert_uint_eq(J->vm_warm.width, 0);
    jitunwind_pyreader_free(r);
    pyi_free(&t.p);
}
END_TEST

/* The range registered at pc, which must be there and be named `name`. */
static const struct jitunwind_range *range_named(jitunwind_registry *reg, uint64_t pc,
                                                 const char *name)
{
    const struct jitunwind_range *rg = jitunwind_registry_lookup(reg, pc);
    ck_assert_msg(rg != NULL, "no range at %#llx", (unsigned long long)pc);
    ck_assert_str_eq(rg->name, name);
    return rg;
}

/* 3.15: the array, then the deletion list, then the interpreter's shared
 * cold executors; each executor's code is registered with the
 * frame-pointer rule (3.15's stencils never write it), so no eval-loop
 * range is needed to scan for. */
START_TEST(py315_array_deleted_and_cold_executors)
{
    struct target t;
    struct jitunwind_py_executor e[8];
    struct jitunwind_py_jit_pc w;
    jitunwind_pyreader *r;
    jitunwind_registry *reg;
    const struct jitunwind_range *rg;
    uint64_t deleted, cold;
    size_t n, added;
    build(&t, V315);
    deleted = make_executor(&t, 0, t.code, JIT_CODE + 0x20000, t.trace, N_UOPS, 0);
    cold = make_executor(&t, 0, 0, JIT_CODE + 0x30000, t.trace, 1, 0);
    ju_builder_u64(t.p.b, t.interp + t.L->interp_executor_deleted, deleted);
    ju_builder_u64(t.p.b, t.interp + t.L->interp_cold_executor, cold);
    r = open_reader(&t, V315, 1);
    ck_assert_int_eq(jitunwind_pyreader_executors(r, e, 8, &n), 0);
    ck_assert_uint_eq(n, 4);
    ck_assert_uint_eq(e[0].address, t.ex);
    ck_assert_uint_eq(e[0].jit_code, JIT_CODE);
    ck_assert_uint_eq(e[0].jit_size, JIT_SIZE);
    ck_assert_str_eq(e[0].qualname, "hot");
    ck_assert_uint_eq(e[0].interp, t.interp);
    ck_assert_uint_eq(e[1].address, t.other);
    ck_assert_uint_eq(e[2].address, deleted);
    ck_assert_uint_ne(e[2].flags & JITUNWIND_PYEXEC_DELETED, 0);
    ck_assert_uint_eq(e[3].address, cold);
    ck_assert_uint_ne(e[3].flags & JITUNWIND_PYEXEC_COLD_EXIT, 0);
    ck_assert_int_eq(jitunwind_pyreader_executors(r, e, 3, &n), JITUNWIND_ELIMIT);
    ck_assert_uint_eq(n, 3);
    /* A PC in the deleted executor's code: found, and its uop named. */
    ck_assert_int_eq(jitunwind_pyreader_jit_pc(r, JIT_CODE + 0x20000 + stencil_offset(3), 0, &w),
                     0);
    ck_assert_uint_eq(w.executor, deleted);
    ck_assert_uint_eq(w.region, JITUNWIND_JIT_REGION_UOP);
    ck_assert_uint_eq(w.uop.index, 3);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_pyreader_executor_ranges(r, reg, JITUNWIND_ARCH_X86_64, 0, 0,
                                                        &added), 0);
    ck_assert_uint_eq(added, 4);
    rg = range_named(reg, JIT_CODE + 0x10, "py::jit:hot (/app.py:10)");
    ck_assert_uint_eq(rg->rule, JITUNWIND_RULE_FP_PRESERVING);
    range_named(reg, JIT_CODE + 0x30000, "py::jit:<cold exit>");
    /* AArch64: the frame is the shim's 96 bytes, as CPython's CFI says. */
    jitunwind_registry_clear(reg);
    ck_assert_int_eq(jitunwind_pyreader_executor_ranges(r, reg, JITUNWIND_ARCH_AARCH64, 0, 0,
                                                        &added), 0);
    rg = range_named(reg, JIT_CODE + 0x10, "py::jit:hot (/app.py:10)");
    ck_assert_uint_eq(rg->rule, JITUNWIND_RULE_FP_PRESERVING);
    ck_assert_uint_eq(rg->frame_size, 96);
    jitunwind_registry_free(reg);
    jitunwind_pyreader_free(r);
    pyi_free(&t.p);
}
END_TEST

/* An executor array that lies: the walk ends with a clear status, keeping
 * the executors before the damage; a PC in the intact first executor is
 * still found. */
static const struct {
    int rc;
    size_t kept;
    const char *says;
} ARRAY_DAMAGE[] = {
    {JITUNWIND_ECORRUPT, 0, "claims 1099511627776 executors"}, /* a huge count */
    {JITUNWIND_ECORRUPT, 0, "executors in an array at 0"},     /* no array, a count */
    {JITUNWIND_EREAD, 0, "executor_ptrs[0] of interpreter"},   /* the array unmapped */
    {JITUNWIND_ECORRUPT, 1, "not an executor"},                /* a misaligned element */
    {JITUNWIND_EREAD, 1, "is unreadable"},                     /* an element unmapped */
};

START_TEST(py315_a_lying_executor_array)
{
    struct target t;
    struct jitunwind_py_executor e[4];
    jitunwind_pyreader *r;
    uint64_t array;
    size_t n = 99;
    int rc;
    build(&t, V315);
    array = 0;
    {
        struct jitunwind_memory mem = ju_builder_memory(t.p.b);
        ck_assert_int_eq(ju_read(&mem, t.interp + t.L->interp_executor_array, &array, 8), 0);
    }
    switch (_i) {
    case 0:
        ju_builder_u64(t.p.b, t.interp + t.L->interp_executor_count, 1ull << 40);
        break;
    case 1:
        ju_builder_u64(t.p.b, t.interp + t.L->interp_executor_array, 0);
        break;
    case 2:
        ju_builder_u64(t.p.b, t.interp + t.L->interp_executor_array, 0x5a5a5a5a5a58ull);
        break;
    case 3:
        ju_builder_u64(t.p.b, array + 8, 0x5a5a5a5a5a5a5a5bull);
        break;
    default:
        ju_builder_u64(t.p.b, array + 8, 0x5a5a5a5a5a58ull);
        break;
    }
    r = open_reader(&t, V315, 1);
    rc = jitunwind_pyreader_executors(r, e, 4, &n);
    ck_assert_msg(rc == ARRAY_DAMAGE[_i].rc, "case %d: %s (%s)", _i, jitunwind_strerror(rc),
                  jitunwind_pyreader_last_error(r)->message);
    ck_assert_uint_eq(n, ARRAY_DAMAGE[_i].kept);
    ck_assert_msg(strstr(jitunwind_pyreader_last_error(r)->message, ARRAY_DAMAGE[_i].says),
                  "case %d: %s", _i, jitunwind_pyreader_last_error(r)->message);
    if (ARRAY_DAMAGE[_i].kept) {
        struct jitunwind_py_jit_pc w;
        ck_assert_int_eq(jitunwind_pyreader_jit_pc(r, JIT_CODE + stencil_offset(3), 0, &w), 0);
        ck_assert_uint_eq(w.uop.index, 3);
    }
    jitunwind_pyreader_free(r);
    pyi_free(&t.p);
}
END_TEST

/* DWARF without a field the JIT view needs (_PyExecutorObject.trace): the
 * executors are still listed and found (their own fields are there); the
 * view gives them no uop and says, in one line, what was missing. */
START_TEST(py315_dwarf_without_a_field_falls_back)
{
    static const char want[] =
        "CPython 3.15: executor layout only from DWARF, which has no _PyExecutorObject.ex_trace";
    struct target t;
    struct jitunwind_memory mem;
    struct jitunwind_py_executor e[4];
    struct jitunwind_py_executor_detail d;
    jitunwind_pyreader *r;
    size_t n = 99;
    build(&t, V315);
    mem = ju_builder_memory(t.p.b);
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, t.p.runtime, 0x030f00f0,
                                             JITUNWIND_PYREADER_OPTS(.module = PY315_DWARF_NO_TRACE)), 0);
    ck_assert_str_eq(r->report.jit_missing, "_PyExecutorObject.ex_trace");
    ck_assert_int_eq(r->layout->jit.known, 0);
    ck_assert_int_eq(jitunwind_pyreader_executors(r, e, 4, &n), 0);
    ck_assert_uint_eq(n, 2);
    expect_view_refused(&t, r, want, &d);
    jitunwind_pyreader_free(r);
    pyi_free(&t.p);
}
END_TEST

/* 3.15 without the interpreter's DWARF: executors are known only as GDB
 * JIT interface ranges; each call says so in one line, naming the first
 * thing only DWARF could have given. */
START_TEST(py315_without_dwarf_only_gdb_jit_ranges)
{
    static const char want[] =
        "CPython 3.15: executors are placed only by the interpreter's DWARF, and none was found "
        "(needed first: PyInterpreterState.interp_executor_array): they are known only as GDB "
        "JIT interface ranges";
    struct target t;
    struct jitunwind_memory mem;
    struct jitunwind_py_executor e[4];
    struct jitunwind_py_jit_pc w;
    jitunwind_pyreader *r;
    jitunwind_registry *reg;
    size_t n = 99, added = 99;
    build(&t, V315);
    mem = ju_builder_memory(t.p.b);
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, t.p.runtime, 0x030f00f0, NULL), 0);
    ck_assert_int_eq(jitunwind_pyreader_executors(r, e, 4, &n), JITUNWIND_EUNSUPPORTED);
    ck_assert_uint_eq(n, 0);
    ck_assert_str_eq(jitunwind_pyreader_last_error(r)->message, want);
    ck_assert_int_eq(jitunwind_pyreader_jit_pc(r, JIT_CODE + stencil_offset(3), 0, &w),
                     JITUNWIND_EUNSUPPORTED);
    ck_assert_str_eq(jitunwind_pyreader_last_error(r)->message, want);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_pyreader_executor_ranges(r, reg, JITUNWIND_ARCH_X86_64, 0, 0,
                                                        &added), JITUNWIND_EUNSUPPORTED);
    ck_assert_uint_eq(added, 0);
    jitunwind_registry_free(reg);
    jitunwind_pyreader_free(r);
    pyi_free(&t.p);
}
END_TEST

/* 3.15: the GDB JIT interface registered the executor's code first, as
 * `py::jit:executor`; the interpreter's own ranges add only what it did not
 * cover, the GDB JIT range keeps its span and rule and takes the executor's
 * name, and a PC in it is matched to its executor by code address (what the
 * frame labels do, jitview.range_frame_label). */
START_TEST(py315_gdb_jit_ranges_matched_by_code_address)
{
    struct target t;
    const struct jitunwind_range gdb = {.start = JIT_CODE, .end = JIT_CODE + JIT_SIZE,
                                        .kind = JITUNWIND_KIND_JIT,
                                        .rule = JITUNWIND_RULE_FP_PRESERVING,
                                        .origin = JITUNWIND_ORIGIN_INTERPRETER,
                                        .name = "py::jit:executor"};
    struct jitunwind_py_jit_pc w;
    const struct jitunwind_range *rg;
    jitunwind_pyreader *r;
    jitunwind_registry *reg;
    size_t added;
    char name[256];
    build(&t, V315);
    r = open_reader(&t, V315, 1);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_registry_add(reg, &gdb), 0);
    ck_assert_int_eq(jitunwind_pyreader_executor_ranges(r, reg, JITUNWIND_ARCH_X86_64, 0, 0,
                                                        &added), 0);
    ck_assert_uint_eq(added, 1); /* the second executor: the first one's code overlaps */
    rg = range_named(reg, JIT_CODE + stencil_offset(3), "py::jit:hot (/app.py:10)");
    ck_assert_uint_eq(rg->start, gdb.start);
    ck_assert_uint_eq(rg->end, gdb.end);
    ck_assert_uint_eq(rg->rule, JITUNWIND_RULE_FP_PRESERVING);

    ck_assert_int_eq(jitunwind_pyreader_jit_pc(r, JIT_CODE + stencil_offset(3), 0, &w), 0);
    ck_assert_uint_eq(w.executor, t.ex);
    ck_assert_uint_eq(w.jit_code, rg->start);
    ck_assert_uint_eq(w.region, JITUNWIND_JIT_REGION_UOP);
    ck_assert_str_eq(w.uop.name, "_CALL_BUILTIN_FAST");
    ck_assert_int_eq(w.uop.line, 13);
    range_named(reg, JIT_CODE + 0x10000, "py::jit:hot (/app.py:10)");
    /* The frame is shown with the uop's line, not the executor's first. */
    jitunwind_py_jit_frame_name(&w, name, sizeof name);
    ck_assert_str_eq(name, "py::jit:hot [uop 3/9 _CALL_BUILTIN_FAST] (/app.py:13)");
    w.uop.line = -1; /* a uop without a line (an inlined callee's): none shown */
    jitunwind_py_jit_frame_name(&w, name, sizeof name);
    ck_assert_str_eq(name, "py::jit:hot [uop 3/9 _CALL_BUILTIN_FAST] (/app.py)");
    w.region = JITUNWIND_JIT_REGION_SHIM; /* outside the uops: the executor's first line */
    jitunwind_py_jit_frame_name(&w, name, sizeof name);
    ck_assert_str_eq(name, "py::jit:hot [shim] (/app.py:10)");
    w.ex.qualname[0] = '\0';
    w.executor = 0x1000;
    jitunwind_py_jit_frame_name(&w, name, sizeof name);
    ck_assert_str_eq(name, "py::jit:<executor 0x1000> [shim] (/app.py:10)");

    jitunwind_registry_free(reg);
    jitunwind_pyreader_free(r);
    pyi_free(&t.p);
}
END_TEST

/* The executors' GDB JIT ranges of a version, registered under `name`,
 * then the interpreter's ranges added: the range takes the executor's
 * name, and the note is what the reader says of the GDB JIT name. */
static void gdb_jit_named(uint32_t version, const char *name, char *note, size_t size)
{
    struct target t;
    const struct jitunwind_range gdb = {.start = JIT_CODE, .end = JIT_CODE + JIT_SIZE,
                                        .kind = JITUNWIND_KIND_JIT,
                                        .rule = JITUNWIND_RULE_FP_PRESERVING,
                                        .origin = JITUNWIND_ORIGIN_INTERPRETER, .name = name};
    jitunwind_pyreader *r;
    jitunwind_registry *reg;
    build(&t, V315);
    r = open_reader(&t, V315, 1);
    /* 3.16's layout is 3.15's (layout_table.c); a synthetic 3.16 target
     * would need DWARF confirming its provisional debug offsets, which only
     * the version the GDB JIT names are checked against needs here. */
    r->version_hex = version;
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_registry_add(reg, &gdb), 0);
    ck_assert_int_eq(jitunwind_pyreader_executor_ranges(r, reg, JITUNWIND_ARCH_X86_64, 0, 0,
                                                        NULL), 0);
    range_named(reg, JIT_CODE + stencil_offset(3), "py::jit:hot (/app.py:10)");
    snprintf(note, size, "%s", jitunwind_pyreader_executor_ranges_note(r));
    jitunwind_registry_free(reg);
    jitunwind_pyreader_free(r);
    pyi_free(&t.p);
}

/* CPython's main branch (3.16 in development) names the executors' GDB JIT
 * objects "py::jit_entry:*": the provisional 3.16 layer expects that name,
 * matches the range to its executor and says the name is provisional; a
 * name the version does not give is said to be unexpected; 3.15's own name
 * on 3.15 is nothing to say. */
START_TEST(py316_gdb_jit_entry_ranges_are_expected_and_said_so)
{
    char note[JITUNWIND_ERROR_MESSAGE_MAX];
    gdb_jit_named(0x031000a2, "py::jit_entry:executor", note, sizeof note);
    ck_assert_msg(strstr(note, "3.16.0a2 (in development)") && strstr(note, "\"py::jit_entry:*\"")
                      && strstr(note, "provisional"), "note: %s", note);
    gdb_jit_named(0x031000a2, "py::jit:executor", note, sizeof note);
    ck_assert_msg(strstr(note, "named \"py::jit:executor\", where CPython 3.16.0a2 names them "
                               "\"py::jit_entry:*\""), "note: %s", note);
    gdb_jit_named(0x030f02f0, "py::jit:executor", note, sizeof note);
    ck_assert_str_eq(note, "");
    gdb_jit_named(0x030f02f0, "py::jit_entry:executor", note, sizeof note);
    ck_assert_msg(strstr(note, "where CPython 3.15.2 names them \"py::jit:executor\""),
                  "note: %s", note);
}
END_TEST

/* The library's mixer: the Python frame an eval loop runs straight into
 * JIT code takes its line from the uop at the innermost JIT frame, looked
 * up in its code object, and keeps only the JIT flag; where no uop holds
 * that pc (the shim) the line may still lag. */
START_TEST(the_mixer_makes_a_jit_frame_line_exact)
{
    struct target t;
    jitunwind_pyreader *r;
    int k;
    build(&t, _i);
    r = open_reader(&t, _i, 1);
    for (k = 0; k < 2; k++) {
        uint64_t pc = JIT_CODE + (k == 0 ? stencil_offset(3) : 0);
        struct jitunwind_mixer_options o = {sizeof o, JITUNWIND_ARCH_X86_64, 0, NULL, r};
        struct jitunwind_mixer_native n[] = {
            {pc, NULL, JITUNWIND_MIXER_ROLE_GIVEN, JITUNWIND_ROLE_JIT, 0},
            {0x1000, "_PyEval_EvalFrameDefault", 0, JITUNWIND_ROLE_OTHER, 0}};
        struct jitunwind_py_frame py;
        struct jitunwind_mixed_item out[4];
        jitunwind_mixer *m;
        size_t fed, count;
        memset(&py, 0, sizeof py);
        py.code = t.code;
        py.line = 1;
        py.flags = JITUNWIND_PYFRAME_ENTRY;
        ck_assert_int_eq(jitunwind_mixer_new(&o, &m), 0);
        ck_assert_int_eq(jitunwind_mixer_python(m, &py, 1), 0);
        ck_assert_int_eq(jitunwind_mixer_feed(m, n, 2, &fed, out, 4, &count), 0);
        ck_assert_uint_eq(count, 3);
        ck_assert_uint_eq(out[2].flags, JITUNWIND_MIXED_LINE_MAY_LAG);
        if (k == 1 && !shim_bytes) { /* 3.15: the code starts with a uop */
            jitunwind_mixer_free(m);
            continue;
        }
        if (k == 0) {
            ck_assert_int_eq(py.line, 10 + WANT_TARGET[3]);
            ck_assert_uint_eq(py.flags, JITUNWIND_PYFRAME_ENTRY | JITUNWIND_PYFRAME_IN_JIT);
        } else {
            ck_assert_int_eq(py.line, 1);
            ck_assert_uint_eq(py.flags, JITUNWIND_PYFRAME_ENTRY | JITUNWIND_PYFRAME_IN_JIT |
                                            JITUNWIND_PYFRAME_LINE_MAY_LAG);
        }
        jitunwind_mixer_free(m);
    }
    jitunwind_pyreader_free(r);
    pyi_free(&t.p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("py_jit_view");
    TCase *tc = tcase_create("builds");
    SRunner *sr;
    int failed;
    int n = (int)(sizeof BUILDS / sizeof BUILDS[0]);
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, every_uop_boundary_and_region, 0, n);
    tcase_add_loop_test(tc, trace_exits_and_vm_data, 0, n);
    tcase_add_loop_test(tc, damaged_data_falls_back, 0, n);
    tcase_add_loop_test(tc, a_layout_field_past_its_object_takes_the_view_away, 0,
                        (int)(sizeof REFUSED / sizeof REFUSED[0]));
    tcase_add_test(tc, versions_without_traces_say_so);
    tcase_add_test(tc, py315_layout_comes_from_dwarf);
    tcase_add_test(tc, py315_array_deleted_and_cold_executors);
    tcase_add_loop_test(tc, py315_a_lying_executor_array, 0,
                        (int)(sizeof ARRAY_DAMAGE / sizeof ARRAY_DAMAGE[0]));
    tcase_add_test(tc, py315_dwarf_without_a_field_falls_back);
    tcase_add_test(tc, py315_without_dwarf_only_gdb_jit_ranges);
    tcase_add_test(tc, py315_gdb_jit_ranges_matched_by_code_address);
    tcase_add_test(tc, py316_gdb_jit_entry_ranges_are_expected_and_said_so);
    tcase_add_test(tc, shim_is_its_own_frame);
    tcase_add_loop_test(tc, the_mixer_makes_a_jit_frame_line_exact, 0, n);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
