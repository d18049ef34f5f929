/* The trampoline layouts' two readers agree: at every byte of a copy of
 * every layout (each architecture, each head a copy may have), the caller
 * the unwinder finds (jitunwind_step_range, innermost; at the return point
 * also as a caller frame) is the caller the ELF image writer's CFI rows for
 * that copy (ju_cfi_plan_for) give by their own formula, read here without
 * libdw. And each state executed alone (ju_rule_exec) is its CFI row. A
 * state changed in one reader's view only, a head shift forgotten in one,
 * or a row the writer emits at an offset the unwinder never stops at,
 * fails here. */
#include <string.h>

#include "image/image_internal.h"
#include "internal.h"
#include "suite.h"
#include "unwind/arch/arch.h"

#define CODE 0x500000ull
#define SP 0x7ff000ull
#define FP 0x7ff100ull
#define LR 0x404444ull
#define STRIDE 64u

/* Target memory: one copy of the code at CODE, and everywhere else a word
 * that names its own address (so that which slot was read shows). */
static uint8_t code[STRIDE];

static uint64_t word_at(uint64_t addr)
{
    return 0x100000000ull + addr;
}

static int read_mem(void *arg, uint64_t addr, void *dst, size_t len)
{
    uint8_t *out = dst;
    size_t i;
    (void)arg;
    for (i = 0; i < len; i++) {
        uint64_t a = addr + i, w = word_at(a & ~7ull);
        out[i] = a >= CODE && a < CODE + STRIDE ? code[a - CODE] : (uint8_t)(w >> (8 * (a & 7)));
    }
    return 0;
}

static const struct jitunwind_memory MEM = {sizeof(struct jitunwind_memory), read_mem, NULL};

/* The caller by a CFI row's formula: CFA = sp or fp + offset; pc saved at
 * CFA + ra_at or in the link register; fp saved at CFA + fp_at, equal to
 * CFA + fp_at, or unchanged; sp = CFA. */
static struct jitunwind_regs by_cfi(const struct ju_cfi_row *r, const struct jitunwind_regs *in)
{
    struct jitunwind_regs out = {0};
    uint64_t cfa = (r->cfa_on_fp ? in->fp : in->sp) + r->cfa_offset;
    out.sp = cfa;
    out.pc = r->ra_at ? word_at(cfa + (uint64_t)(int64_t)r->ra_at) : in->lr;
    out.fp = r->fp_is_value ? cfa + (uint64_t)(int64_t)r->fp_at
             : r->fp_at     ? word_at(cfa + (uint64_t)(int64_t)r->fp_at)
                            : in->fp;
    return out;
}

/* The row in force at byte `off` of a copy. */
static const struct ju_cfi_row *row_at(const struct ju_cfi_plan *p, uint64_t off)
{
    uint32_t i = p->nrows - 1;
    while (i > 0 && p->rows[i].at > off)
        i--;
    return &p->rows[i];
}

static struct jitunwind_regs regs_at(uint64_t pc)
{
    struct jitunwind_regs in = {pc, SP, FP, LR,
                                JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP |
                                    JITUNWIND_REG_LR,
                                0};
    return in;
}

static void same_caller(const struct jitunwind_regs *got, const struct jitunwind_regs *want,
                        const char *what, uint64_t off, int innermost)
{
    ck_assert_msg(got->pc == want->pc && got->sp == want->sp && got->fp == want->fp,
                  "%s +%llu (innermost %d): unwinder pc %#llx sp %#llx fp %#llx, CFI pc %#llx "
                  "sp %#llx fp %#llx",
                  what, (unsigned long long)off, innermost, (unsigned long long)got->pc,
                  (unsigned long long)got->sp, (unsigned long long)got->fp,
                  (unsigned long long)want->pc, (unsigned long long)want->sp,
                  (unsigned long long)want->fp);
}

/* One layout with one head: returns how many offsets were compared. */
static size_t check_copy(int arch, uint32_t rule, int head, const char *what)
{
    const struct ju_arch_facts *a = ju_arch_facts(arch);
    const struct ju_rule_layout *l = ju_rule_layout(arch, rule, head);
    const struct ju_code_bytes *t;
    struct jitunwind_range r = {0};
    struct ju_cfi_plan plan;
    uint32_t head_len = ju_rule_head_len(a, head), i;
    uint64_t off;
    size_t compared = 0;
    ck_assert_ptr_nonnull(l);
    t = ju_rule_template(l);
    ck_assert_uint_le(head_len + t->len, STRIDE);
    memset(code, 0, sizeof code);
    if (head == JU_COPY_LANDING_PAD)
        memcpy(code, a->landing_pad.bytes, head_len);
    memcpy(code + head_len, t->bytes, t->len);
    ck_assert_int_eq(ju_copy_head(a, &MEM, CODE), head);
    ck_assert_int_eq(ju_cfi_plan_for(a, rule, 0, head, &plan), 0);
    ck_assert_uint_eq(plan.len, head_len + t->len);
    ck_assert_uint_eq(plan.nrows, l->nrows);
    /* Every row starts where the unwinder may stop. */
    for (i = 0; i < plan.nrows; i++)
        ck_assert_msg(ju_rule_state(l, head_len, plan.rows[i].at) != NULL,
                      "%s: a CFI row at +%u, no instruction boundary", what, plan.rows[i].at);
    r.start = CODE;
    r.end = CODE + STRIDE;
    r.kind = JITUNWIND_KIND_TRAMPOLINE;
    r.rule = rule;
    for (off = 0; off < STRIDE; off++) {
        struct jitunwind_regs in = regs_at(CODE + off), out, want;
        int stop, rc = jitunwind_step_range(arch, &r, &MEM, &in, 1, &out, &stop);
        if (off >= plan.len) {
            ck_assert_msg(rc < 0, "%s +%llu: padding unwound", what, (unsigned long long)off);
            continue;
        }
        if (rc < 0) { /* no instruction boundary: no stop, no row needed */
            ck_assert_int_eq(stop, JITUNWIND_STOP_BAD_FRAME);
            continue;
        }
        want = by_cfi(row_at(&plan, off), &in);
        same_caller(&out, &want, what, off, 1);
        compared++;
    }
    /* As a caller frame: the pc is the return point; debuggers look its
     * row up one byte lower, inside the call. */
    off = head_len + l->return_point;
    {
        struct jitunwind_regs in = regs_at(CODE + off), out, want;
        int stop;
        ck_assert_int_eq(jitunwind_step_range(arch, &r, &MEM, &in, 0, &out, &stop), 0);
        want = by_cfi(row_at(&plan, off - 1), &in);
        same_caller(&out, &want, what, off, 0);
    }
    return compared + 1;
}

/* Every layout with every head a copy of it may have, and the offsets the
 * unwinder accepts in such a copy (its instruction boundaries, the head's
 * first byte among them) plus its return point. */
static const struct {
    int arch;
    uint32_t rule;
    int head;
    const char *name;
    size_t compared;
} COPIES[] = {
    {JITUNWIND_ARCH_X86_64, JITUNWIND_RULE_TRAMPOLINE_SUB8, JU_COPY_PLAIN, "sub8", 8 + 1},
    {JITUNWIND_ARCH_X86_64, JITUNWIND_RULE_TRAMPOLINE_SUB8, JU_COPY_LANDING_PAD, "endbr64 sub8",
     9 + 1},
    {JITUNWIND_ARCH_X86_64, JITUNWIND_RULE_TRAMPOLINE_FRAMED, JU_COPY_PLAIN, "framed", 5 + 1},
    {JITUNWIND_ARCH_X86_64, JITUNWIND_RULE_TRAMPOLINE_FRAMED, JU_COPY_LANDING_PAD,
     "endbr64 framed", 6 + 1},
    {JITUNWIND_ARCH_AARCH64, JITUNWIND_RULE_TRAMPOLINE_FRAMED, JU_COPY_PLAIN, "framed", 5 + 1},
    {JITUNWIND_ARCH_AARCH64, JITUNWIND_RULE_TRAMPOLINE_FRAMED, JU_COPY_LANDING_PAD, "bti framed",
     6 + 1},
    {JITUNWIND_ARCH_AARCH64, JITUNWIND_RULE_TRAMPOLINE_FRAMED, JU_COPY_PAC,
     "branch-protected framed", 7 + 1},
};

START_TEST(every_layout_every_offset)
{
    size_t i;
    for (i = 0; i < sizeof COPIES / sizeof COPIES[0]; i++)
        ck_assert_uint_eq(check_copy(COPIES[i].arch, COPIES[i].rule, COPIES[i].head,
                                     COPIES[i].name),
                          COPIES[i].compared);
}
END_TEST

/* No SUB8 layout on AArch64: neither reader has one. */
START_TEST(no_sub8_on_aarch64)
{
    struct ju_cfi_plan plan;
    ck_assert_ptr_null(ju_rule_layout(JITUNWIND_ARCH_AARCH64, JITUNWIND_RULE_TRAMPOLINE_SUB8,
                                      JU_COPY_PLAIN));
    ck_assert_int_eq(ju_cfi_plan_for(ju_arch_facts(JITUNWIND_ARCH_AARCH64),
                                     JITUNWIND_RULE_TRAMPOLINE_SUB8, 0, JU_COPY_PLAIN, &plan),
                     JITUNWIND_EUNSUPPORTED);
}
END_TEST

/* Every state alone: executing it is its CFI row's formula. */
START_TEST(each_state_is_its_row)
{
    size_t c, states = 0;
    for (c = 0; c < sizeof COPIES / sizeof COPIES[0]; c++) {
        const struct ju_arch_facts *a = ju_arch_facts(COPIES[c].arch);
        const struct ju_rule_layout *l = ju_rule_layout(a->arch, COPIES[c].rule, COPIES[c].head);
        struct ju_cfi_plan plan;
        uint32_t i;
        ck_assert_int_eq(ju_cfi_plan_for(a, COPIES[c].rule, 0, COPIES[c].head, &plan), 0);
        for (i = 0; i < l->nrows; i++) {
            struct jitunwind_regs in = regs_at(CODE), out, want;
            struct ju_step s = {&MEM, &in, &out, 1, JITUNWIND_STOP_NONE, 0, NULL};
            ck_assert_int_eq(ju_rule_exec(&s, &l->rows[i]), 0);
            want = by_cfi(&plan.rows[i], &in);
            same_caller(&out, &want, COPIES[c].name, l->rows[i].at, 1);
            states++;
        }
    }
    ck_assert_uint_eq(states, 3 + 3 + 4 + 4 + 4 + 4 + 4);
}
END_TEST

/* FP_PRESERVING's one state, for the record's size and wider frames. */
START_TEST(fp_preserving_state_is_its_row)
{
    static const uint32_t sizes[] = {0, 48, 96};
    static const int archs[] = {JITUNWIND_ARCH_X86_64, JITUNWIND_ARCH_AARCH64};
    size_t i, k;
    for (k = 0; k < 2; k++)
        for (i = 0; i < 3; i++) {
            struct jitunwind_range r = {0};
            struct jitunwind_regs in = regs_at(CODE + 8), out, want;
            struct ju_cfi_plan plan;
            int stop;
            r.start = CODE;
            r.end = CODE + STRIDE;
            r.kind = JITUNWIND_KIND_JIT;
            r.rule = JITUNWIND_RULE_FP_PRESERVING;
            r.frame_size = sizes[i];
            ck_assert_int_eq(ju_cfi_plan_for(ju_arch_facts(archs[k]), r.rule, sizes[i],
                                             JU_COPY_PLAIN, &plan), 0);
            ck_assert_uint_eq(plan.len, 0);
            ck_assert_uint_eq(plan.nrows, 1);
            ck_assert_int_eq(jitunwind_step_range(archs[k], &r, &MEM, &in, 1, &out, &stop), 0);
            want = by_cfi(&plan.rows[0], &in);
            same_caller(&out, &want, "fp-preserving", sizes[i], 1);
            ck_assert_uint_eq(out.sp, FP + (sizes[i] ? sizes[i] : 16));
        }
}
END_TEST

int main(void)
{
    return ju_run_tests("rule_table", JU_TESTS(every_layout_every_offset, no_sub8_on_aarch64,
                                                each_state_is_its_row,
                                                fp_preserving_state_is_its_row));
}
