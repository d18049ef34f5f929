/* The cursor: sources, ranges, and every guard (loops, sp order, depth,
 * unreadable memory, clean end), on synthetic stacks. */
#include "builder.h"
#include "internal.h"
#include "suite.h"
#include "trampoline_code.h"

#define ALL3 (JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP)
#define JIT 0x600000ull
#define NATIVE 0x400000ull

/* A frame-pointer chain: record i at base + i*0x40 holds {next record, pc}. */
static void chain(struct ju_builder *b, uint64_t base, int n, const uint64_t *pcs)
{
    int i;
    for (i = 0; i < n; i++) {
        uint64_t rec = base + (uint64_t)i * 0x40;
        ju_builder_u64(b, rec, i + 1 < n ? rec + 0x40 : 0);
        ju_builder_u64(b, rec + 8, pcs[i]);
    }
}

static int walk(struct ju_builder *b, const jitunwind_registry *reg, struct jitunwind_regs start,
                struct jitunwind_frame *frames, size_t max, int *stop)
{
    struct jitunwind_memory mem = ju_builder_memory(b);
    return jitunwind_unwind(JITUNWIND_ARCH_X86_64, reg, NULL, &mem, &start, frames, max, 0, stop);
}

START_TEST(walks_through_jit_ranges_with_sources)
{
    struct ju_builder *b = ju_builder_new();
    jitunwind_registry *reg;
    struct jitunwind_range jit = {JIT, JIT + 0x1000, JITUNWIND_KIND_JIT,
                                  JITUNWIND_RULE_FP_PRESERVING, 0, 0, 0, "py::jit:f"};
    uint64_t pcs[4] = {JIT + 0x80, NATIVE + 0x10, NATIVE + 0x20, 0};
    struct jitunwind_frame f[16];
    struct jitunwind_regs start = {JIT + 0x10, 0x7f0000, 0x7f0100, 0, ALL3, 0};
    int n, stop;
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_registry_add(reg, &jit), 0);
    chain(b, 0x7f0100, 4, pcs);
    n = walk(b, reg, start, f, 16, &stop);
    ck_assert_int_eq(n, 4);
    ck_assert_int_eq(stop, JITUNWIND_STOP_END);
    ck_assert_int_eq(f[0].source, JITUNWIND_SOURCE_INITIAL);
    ck_assert_ptr_nonnull(f[0].range);
    ck_assert_str_eq(f[0].range->name, "py::jit:f");
    ck_assert_int_eq(f[1].source, JITUNWIND_SOURCE_RULE); /* found by the range's rule */
    ck_assert_uint_eq(f[1].regs.pc, JIT + 0x80);
    ck_assert_ptr_nonnull(f[1].range);                    /* and itself in JIT code */
    ck_assert_int_eq(f[2].source, JITUNWIND_SOURCE_RULE);
    ck_assert_ptr_null(f[2].range);
    ck_assert_int_eq(f[3].source, JITUNWIND_SOURCE_FP);
    ck_assert_uint_eq(f[3].regs.pc, NATIVE + 0x20);
    ck_assert_uint_eq(f[3].depth, 3);
    jitunwind_registry_free(reg);
    ju_builder_free(b);
}
END_TEST

START_TEST(return_address_at_range_end_belongs_to_the_range)
{
    /* A call that is the last instruction of a range returns to range.end. */
    struct ju_builder *b = ju_builder_new();
    jitunwind_registry *reg;
    struct jitunwind_range jit = {JIT, JIT + 0x100, JITUNWIND_KIND_JIT,
                                  JITUNWIND_RULE_FP_PRESERVING, 0, 0, 0, NULL};
    uint64_t pcs[2] = {JIT + 0x100, 0};
    struct jitunwind_frame f[8];
    struct jitunwind_regs start = {NATIVE, 0x7f0000, 0x7f0100, 0, ALL3, 0};
    int stop;
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_registry_add(reg, &jit), 0);
    chain(b, 0x7f0100, 2, pcs);
    ck_assert_int_ge(walk(b, reg, start, f, 8, &stop), 2);
    ck_assert_ptr_nonnull(f[1].range);
    jitunwind_registry_free(reg);
    ju_builder_free(b);
}
END_TEST

START_TEST(self_loop_and_cycle_stop_quickly)
{
    struct ju_builder *b = ju_builder_new();
    struct jitunwind_frame f[64];
    struct jitunwind_regs start = {NATIVE, 0x7f0000, 0x7f0100, 0, ALL3, 0};
    int n, stop;
    /* fp -> itself: the caller would have the same (pc, sp) forever. */
    ju_builder_u64(b, 0x7f0100, 0x7f0100);
    ju_builder_u64(b, 0x7f0108, NATIVE + 4);
    n = walk(b, NULL, start, f, 64, &stop);
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(stop, JITUNWIND_STOP_BAD_FRAME); /* the record lies below the new sp */
    /* Two records pointing at each other: sp would go back down. */
    ju_builder_u64(b, 0x7f0100, 0x7f0200);
    ju_builder_u64(b, 0x7f0200, 0x7f0100);
    ju_builder_u64(b, 0x7f0208, NATIVE + 8);
    n = walk(b, NULL, start, f, 64, &stop);
    ck_assert_int_le(n, 4);
    ck_assert_int_eq(stop, JITUNWIND_STOP_BAD_FRAME); /* fp below sp is refused first */
    ju_builder_free(b);
}
END_TEST

START_TEST(repeated_pc_sp_is_a_loop)
{
    /* sp only stays put across a link-register step, so that is where a
     * (pc, sp) pair can repeat: x30 pointing back at the trampoline's own
     * first instruction. */
    struct ju_builder *b = ju_builder_new();
    struct jitunwind_memory mem = ju_builder_memory(b);
    jitunwind_registry *reg;
    struct jitunwind_range t = {JIT, JIT + 20, JITUNWIND_KIND_TRAMPOLINE,
                                JITUNWIND_RULE_TRAMPOLINE_FRAMED, 0, 0, 0, NULL};
    struct jitunwind_regs start = {JIT, 0x7f0000, 0x7f0100, JIT, ALL3 | JITUNWIND_REG_LR, 0};
    struct jitunwind_frame f[8];
    int n, stop;
    ju_builder_write(b, JIT, JU_A64_FRAMED, sizeof JU_A64_FRAMED);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_registry_add(reg, &t), 0);
    n = jitunwind_unwind(JITUNWIND_ARCH_AARCH64, reg, NULL, &mem, &start, f, 8, 0, &stop);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(stop, JITUNWIND_STOP_LOOP);
    jitunwind_registry_free(reg);
    ju_builder_free(b);
}
END_TEST

/* A CPython-shaped stack on x86-64, innermost first:
 *   JIT code (FP_PRESERVING, frameless) -> eval loop -> perf trampoline ->
 *   py_trampoline_evaluator -> outer native code.
 * The trampoline's return point is offset 6 in both layouts. */
#define S0 0x7f0000ull
#define F1 0x7f0100ull
#define F2 0x7f0200ull
#define F3 0x7f0300ull
#define TRAMP 0x700000ull
#define EVAL_PC (NATIVE + 0x111)
#define EVALUATOR_PC (NATIVE + 0x222)
#define OUTER_PC (NATIVE + 0x333)

static void mixed_stack(uint32_t rule, const uint8_t *code, size_t len)
{
    struct ju_builder *b = ju_builder_new();
    jitunwind_registry *reg;
    struct jitunwind_range jit = {JIT, JIT + 0x1000, JITUNWIND_KIND_JIT,
                                  JITUNWIND_RULE_FP_PRESERVING, 0, 0, 0, "py::jit:f"};
    struct jitunwind_range tr = {TRAMP, TRAMP + len, JITUNWIND_KIND_TRAMPOLINE, rule, 0, 0, 0,
                                 "py::f:/x.py"};
    struct jitunwind_regs start = {JIT + 0x10, S0, F1, 0, ALL3, 0};
    struct jitunwind_frame f[16];
    uint64_t evaluator_sp;
    int n, stop;
    ju_builder_write(b, TRAMP, code, len);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_registry_add(reg, &jit), 0);
    ck_assert_int_eq(jitunwind_registry_add(reg, &tr), 0);
    ju_builder_u64(b, F1, F2); /* the eval loop's record, reached from the JIT frame */
    ju_builder_u64(b, F1 + 8, EVAL_PC);
    ju_builder_u64(b, F2 + 8, TRAMP + 6); /* the eval loop returns into the trampoline */
    if (rule == JITUNWIND_RULE_TRAMPOLINE_SUB8) {
        /* No frame: rbp passes through; the return address is above the pad. */
        ju_builder_u64(b, F2, F3);
        ju_builder_u64(b, F2 + 16 + 8, EVALUATOR_PC);
        evaluator_sp = F2 + 32;
    } else {
        /* The trampoline's own record sits right above the eval loop's. */
        ju_builder_u64(b, F2, F2 + 16);
        ju_builder_u64(b, F2 + 16, F3);
        ju_builder_u64(b, F2 + 24, EVALUATOR_PC);
        evaluator_sp = F2 + 32;
    }
    ju_builder_u64(b, F3, 0);
    ju_builder_u64(b, F3 + 8, OUTER_PC);
    {
        struct jitunwind_memory mem = ju_builder_memory(b);
        n = jitunwind_unwind(JITUNWIND_ARCH_X86_64, reg, NULL, &mem, &start, f, 16, 0, &stop);
    }
    ck_assert_int_eq(n, 5);
    ck_assert_int_eq(stop, JITUNWIND_STOP_END);
    ck_assert_uint_eq(f[1].regs.pc, EVAL_PC);
    ck_assert_int_eq(f[1].source, JITUNWIND_SOURCE_RULE);
    ck_assert_ptr_null(f[1].range);
    ck_assert_uint_eq(f[2].regs.pc, TRAMP + 6);
    ck_assert_int_eq(f[2].source, JITUNWIND_SOURCE_FP);
    ck_assert_ptr_nonnull(f[2].range);
    ck_assert_str_eq(f[2].range->name, "py::f:/x.py");
    ck_assert_uint_eq(f[3].regs.pc, EVALUATOR_PC); /* the trampoline's caller is not skipped */
    ck_assert_uint_eq(f[3].regs.sp, evaluator_sp);
    ck_assert_uint_eq(f[3].regs.fp, F3);
    ck_assert_int_eq(f[3].source, JITUNWIND_SOURCE_RULE);
    ck_assert_uint_eq(f[4].regs.pc, OUTER_PC);
    ck_assert_int_eq(f[4].source, JITUNWIND_SOURCE_FP);
    jitunwind_registry_free(reg);
    ju_builder_free(b);
}

START_TEST(cpython_stack_through_sub8_trampoline)
{
    mixed_stack(JITUNWIND_RULE_TRAMPOLINE_SUB8, JU_X86_SUB8, sizeof JU_X86_SUB8);
}
END_TEST

START_TEST(cpython_stack_through_framed_trampoline)
{
    mixed_stack(JITUNWIND_RULE_TRAMPOLINE_FRAMED, JU_X86_FRAMED, sizeof JU_X86_FRAMED);
}
END_TEST

static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* Walks over stacks of random words, some of them plausible stack or code
 * addresses: every walk ends with a reason, within the depth cap, with sp
 * rising, and within `reads_per_frame` reads per frame. */
static void garbage_walks(const jitunwind_registry *reg, int rounds, uint64_t code_span,
                          uint64_t reads_per_frame, int arches)
{
    struct jitunwind_frame f[64];
    uint64_t state = 0x9e3779b97f4a7c15ull;
    int round, i, n, stop;
    for (round = 0; round < rounds; round++) {
        struct ju_builder *b = ju_builder_new();
        struct jitunwind_memory mem = ju_builder_memory(b);
        struct jitunwind_regs start = {0x7f0000 + next_random(&state) % code_span, 0x7f0000,
                                       0x7f0000 + (next_random(&state) & 0x1ff8), 0, ALL3, 0};
        int arch = (arches == 2 && (round & 1)) ? JITUNWIND_ARCH_AARCH64 : JITUNWIND_ARCH_X86_64;
        for (i = 0; i < 1024; i++) {
            uint64_t r = next_random(&state), v;
            switch (r & 3) {
            case 0: v = 0x7f0000 + ((r >> 8) & 0x1ff8); break; /* a stack address */
            case 1: v = 0x7f0000 + (r >> 8) % code_span; break; /* a code address */
            case 2: v = 0; break;
            default: v = r; break;
            }
            ju_builder_u64(b, 0x7f0000 + (uint64_t)i * 8, v);
        }
        n = jitunwind_unwind(arch, reg, NULL, &mem, &start, f, 64, 0, &stop);
        ck_assert_int_ge(n, 1);
        ck_assert_int_le(n, 64);
        ck_assert_int_ne(stop, JITUNWIND_STOP_NONE);
        ck_assert_uint_le(ju_builder_reads(b), reads_per_frame * (uint64_t)n + 4);
        for (i = 1; i < n; i++)
            ck_assert_uint_gt(f[i].regs.sp, f[i - 1].regs.sp);
        ju_builder_free(b);
    }
}

START_TEST(garbage_stacks_stay_bounded)
{
    jitunwind_registry *reg;
    struct jitunwind_range jit = {0x7f0000, 0x7f0800, JITUNWIND_KIND_JIT,
                                  JITUNWIND_RULE_FP_PRESERVING, 0, 0, 0, NULL};
    struct jitunwind_range tr = {0x7f0800, 0x7f1000, JITUNWIND_KIND_TRAMPOLINE,
                                 JITUNWIND_RULE_TRAMPOLINE_SUB8, 16, 0, 0, NULL};
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_registry_add(reg, &jit), 0);
    ck_assert_int_eq(jitunwind_registry_add(reg, &tr), 0);
    garbage_walks(reg, 500, 0x1000, 4, 2); /* a record and a code head per frame at most */
    jitunwind_registry_free(reg);
}
END_TEST

START_TEST(garbage_stacks_stay_bounded_with_scan_ranges)
{
    /* The scan rule reads a window of stack and checks candidates for a call
     * before them: more reads per frame, still bounded. */
    jitunwind_registry *reg;
    struct jitunwind_range scan = {0x7f0000, 0x7f0800, JITUNWIND_KIND_JIT, JITUNWIND_RULE_SCAN,
                                   0, 0, 0, NULL};
    scan.scan_start = 0x7f0800;
    scan.scan_end = 0x7f1000;
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_registry_add(reg, &scan), 0);
    garbage_walks(reg, 300, 0x1000, 2 + 16 + JITUNWIND_SCAN_BYTES / 8, 1);
    jitunwind_registry_free(reg);
}
END_TEST

/* The cursor is opaque storage that is safe to copy: a copy taken mid-walk
 * goes on from the same frame, and stepping one leaves the other where it
 * was. */
START_TEST(cursor_copy_is_an_independent_walk)
{
    struct ju_builder *b = ju_builder_new();
    struct jitunwind_regs start = {NATIVE, 0x700000, 0x700100, 0, ALL3, 0};
    struct jitunwind_frame a[8], c2[8];
    struct jitunwind_cursor c, copy;
    struct jitunwind_memory mem = ju_builder_memory(b);
    uint64_t pcs[6];
    int i, na = 0, nc = 0;
    for (i = 0; i < 6; i++)
        pcs[i] = NATIVE + 0x10 * (uint64_t)(i + 1);
    chain(b, 0x700100, 6, pcs);
    ck_assert_int_eq(jitunwind_cursor_init(&c, JITUNWIND_ARCH_X86_64, NULL, &mem, &start, 0, 0), 0);
    for (i = 0; i < 3; i++)
        ck_assert_int_eq(jitunwind_cursor_step(&c, &a[na++]), 1);
    copy = c;
    while (na < 8 && jitunwind_cursor_step(&c, &a[na]) == 1)
        na++;
    while (nc < 8 && jitunwind_cursor_step(&copy, &c2[nc]) == 1)
        nc++;
    ck_assert_int_eq(na, 3 + nc);
    ck_assert_int_gt(nc, 1);
    for (i = 0; i < nc; i++) {
        ck_assert_uint_eq(c2[i].regs.pc, a[3 + i].regs.pc);
        ck_assert_uint_eq(c2[i].regs.sp, a[3 + i].regs.sp);
        ck_assert_uint_eq(c2[i].depth, a[3 + i].depth);
    }
    ck_assert_int_eq(jitunwind_cursor_stop_reason(&copy), jitunwind_cursor_stop_reason(&c));
    ck_assert_int_ne(jitunwind_cursor_stop_reason(&c), JITUNWIND_STOP_NONE);
    ju_builder_free(b);
}
END_TEST

START_TEST(depth_cap_unreadable_and_garbage)
{
    struct ju_builder *b = ju_builder_new();
    struct jitunwind_frame f[300];
    struct jitunwind_regs start = {NATIVE, 0x700000, 0x700100, 0, ALL3, 0};
    uint64_t pcs[300];
    struct jitunwind_cursor c;
    struct jitunwind_memory mem = ju_builder_memory(b);
    int i, n, stop;
    for (i = 0; i < 300; i++)
        pcs[i] = NATIVE + 0x10 * (uint64_t)(i + 1);
    chain(b, 0x700100, 300, pcs);
    n = walk(b, NULL, start, f, 100, &stop);
    ck_assert_int_eq(n, 100);
    ck_assert_int_eq(stop, JITUNWIND_STOP_DEPTH);
    ck_assert_int_eq(jitunwind_cursor_init(&c, JITUNWIND_ARCH_X86_64, NULL, &mem, &start, 10, 0), 0);
    for (i = 0; jitunwind_cursor_step(&c, &f[0]) == 1; i++)
        ;
    ck_assert_int_eq(i, 10);
    ck_assert_int_eq(jitunwind_cursor_stop_reason(&c), JITUNWIND_STOP_DEPTH);
    ck_assert_int_eq(jitunwind_cursor_step(&c, &f[0]), 0); /* stays stopped */
    /* Unreadable: records 60..123 share a page, which is dropped; record k
     * gives frame k + 1, so frames 0..60 are produced. */
    ju_builder_unmap(b, 0x700100 + 60 * 0x40);
    n = walk(b, NULL, start, f, 300, &stop);
    ck_assert_int_eq(n, 61);
    ck_assert_int_eq(stop, JITUNWIND_STOP_UNREADABLE);
    /* Garbage registers. */
    start.fp = 0xdeadbeefdeadbeefull;
    n = walk(b, NULL, start, f, 300, &stop);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(stop, JITUNWIND_STOP_BAD_FRAME);
    start.sp = UINT64_MAX - 15; /* a record there would wrap */
    start.fp = UINT64_MAX - 7;
    n = walk(b, NULL, start, f, 300, &stop);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(stop, JITUNWIND_STOP_BAD_FRAME);
    start.sp = 0x700000;
    start.fp = 0;
    n = walk(b, NULL, start, f, 300, &stop);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(stop, JITUNWIND_STOP_END);
    ju_builder_free(b);
}
END_TEST

START_TEST(no_fp_fallback_and_bad_arguments)
{
    struct ju_builder *b = ju_builder_new();
    struct jitunwind_memory mem = ju_builder_memory(b);
    struct jitunwind_frame f[4];
    struct jitunwind_regs start = {NATIVE, 0x7f0000, 0x7f0100, 0, ALL3, 0};
    struct jitunwind_cursor c;
    int stop, n;
    uint64_t pcs[2] = {NATIVE + 4, 0};
    chain(b, 0x7f0100, 2, pcs);
    n = jitunwind_unwind(JITUNWIND_ARCH_X86_64, NULL, NULL, &mem, &start, f, 4,
                         JITUNWIND_UNWIND_NO_FP_FALLBACK, &stop);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(stop, JITUNWIND_STOP_NO_RULE);
    start.valid = JITUNWIND_REG_PC;
    ck_assert_int_eq(jitunwind_cursor_init(&c, JITUNWIND_ARCH_X86_64, NULL, &mem, &start, 0, 0),
                     JITUNWIND_EINVAL);
    start.valid = ALL3;
    ck_assert_int_eq(jitunwind_cursor_init(&c, 42, NULL, &mem, &start, 0, 0), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_cursor_step(NULL, f), JITUNWIND_EINVAL);
    ck_assert_str_eq(jitunwind_stop_reason_string(JITUNWIND_STOP_LOOP),
                     "loop: a (pc, sp) pair repeated");
    ck_assert_str_eq(jitunwind_frame_source_string(JITUNWIND_SOURCE_RULE), "rule");
    ju_builder_free(b);
}
END_TEST

START_TEST(aarch64_leaf_uses_link_register_once)
{
    /* Innermost pc at a framed trampoline's first instruction: the caller is
     * in x30 with the same sp; a second equal-sp step is refused. */
    struct ju_builder *b = ju_builder_new();
    struct jitunwind_memory mem = ju_builder_memory(b);
    jitunwind_registry *reg;
    struct jitunwind_range t1 = {JIT, JIT + 20, JITUNWIND_KIND_TRAMPOLINE,
                                 JITUNWIND_RULE_TRAMPOLINE_FRAMED, 0, 0, 0, NULL};
    struct jitunwind_range t2 = {JIT + 0x100, JIT + 0x114, JITUNWIND_KIND_TRAMPOLINE,
                                 JITUNWIND_RULE_TRAMPOLINE_FRAMED, 0, 0, 0, NULL};
    struct jitunwind_regs start = {JIT, 0x7f0000, 0x7f0100, NATIVE + 0x40,
                                   ALL3 | JITUNWIND_REG_LR, 0};
    struct jitunwind_frame f[8];
    int n, stop;
    uint64_t pcs[2] = {NATIVE + 0x80, 0};
    ju_builder_write(b, JIT, JU_A64_FRAMED, sizeof JU_A64_FRAMED);
    ju_builder_write(b, JIT + 0x100, JU_A64_FRAMED, sizeof JU_A64_FRAMED);
    chain(b, 0x7f0100, 2, pcs);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_registry_add(reg, &t1), 0);
    n = jitunwind_unwind(JITUNWIND_ARCH_AARCH64, reg, NULL, &mem, &start, f, 8, 0, &stop);
    ck_assert_int_ge(n, 3);
    ck_assert_int_eq(f[1].source, JITUNWIND_SOURCE_LR);
    ck_assert_uint_eq(f[1].regs.pc, NATIVE + 0x40);
    ck_assert_uint_eq(f[1].regs.sp, 0x7f0000);
    ck_assert_int_eq(f[2].source, JITUNWIND_SOURCE_FP);
    /* If x30 pointed into another trampoline start, that frame would need x30
     * again: not available for a non-innermost frame. */
    ck_assert_int_eq(jitunwind_registry_add(reg, &t2), 0);
    start.lr = JIT + 0x100;
    n = jitunwind_unwind(JITUNWIND_ARCH_AARCH64, reg, NULL, &mem, &start, f, 8, 0, &stop);
    ck_assert_int_ge(n, 2);
    ck_assert_int_eq(f[1].source, JITUNWIND_SOURCE_LR);
    jitunwind_registry_free(reg);
    ju_builder_free(b);
}
END_TEST

int main(void)
{
    return ju_run_tests("unwind", JU_TESTS(walks_through_jit_ranges_with_sources,
                                           return_address_at_range_end_belongs_to_the_range,
                                           self_loop_and_cycle_stop_quickly,
                                           repeated_pc_sp_is_a_loop,
                                           cpython_stack_through_sub8_trampoline,
                                           cpython_stack_through_framed_trampoline,
                                           garbage_stacks_stay_bounded,
                                           garbage_stacks_stay_bounded_with_scan_ranges,
                                           depth_cap_unreadable_and_garbage,
                                           cursor_copy_is_an_independent_walk,
                                           no_fp_fallback_and_bad_arguments,
                                           aarch64_leaf_uses_link_register_once));
}
