/* x86-64 unwind rules at every instruction offset, on synthetic memory. */
#include "builder.h"
#include "internal.h"
#include "suite.h"

#define CODE 0x500000ull
#define SP 0x7ff000ull
#define FP 0x7ff100ull
#define RA_AT_SP 0x401111ull
#define RA_AT_SP8 0x402222ull
#define RA_IN_RECORD 0x403333ull
#define CALLER_FP 0x7ff800ull

static const uint8_t SUB8[] = {0x48, 0x83, 0xec, 0x08, 0xff, 0xd1, 0x48, 0x83, 0xc4, 0x08, 0xc3};
static const uint8_t FRAMED[] = {0x55, 0x48, 0x89, 0xe5, 0xff, 0xd1, 0x5d, 0xc3};
static const uint8_t ENDBR_FRAMED[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89,
                                       0xe5, 0xff, 0xd1, 0x5d, 0xc3};

static struct ju_builder *b;
static struct jitunwind_memory mem;

static void setup(const uint8_t *code, size_t len)
{
    b = ju_builder_new();
    mem = ju_builder_memory(b);
    ju_builder_write(b, CODE, code, len);
    ju_builder_u64(b, SP, RA_AT_SP);
    ju_builder_u64(b, SP + 8, RA_AT_SP8);
    ju_builder_u64(b, FP, CALLER_FP);
    ju_builder_u64(b, FP + 8, RA_IN_RECORD);
}

static struct jitunwind_range range(uint32_t rule, uint64_t size, uint32_t stride)
{
    struct jitunwind_range r = {CODE, CODE + size, JITUNWIND_KIND_TRAMPOLINE, rule, stride, 0, 0, NULL};
    return r;
}

/* Step at pc = CODE + off; returns the status, *out the caller. */
static int step(const struct jitunwind_range *r, uint64_t off, int innermost,
                struct jitunwind_regs *out, int *stop)
{
    struct jitunwind_regs in = {CODE + off, SP, FP, 0,
                                JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP, 0};
    return jitunwind_step_range(JITUNWIND_ARCH_X86_64, r, &mem, &in, innermost, out, stop);
}

#define EXPECT(r, off, inner, pc_, sp_, fp_)                                      \
    do {                                                                          \
        struct jitunwind_regs o;                                                  \
        int st;                                                                   \
        ck_assert_int_eq(step(r, off, inner, &o, &st), 0);                        \
        ck_assert_msg(o.pc == (pc_) && o.sp == (sp_) && o.fp == (fp_),            \
                      "offset %d: got pc %#llx sp %#llx fp %#llx", (int)(off),    \
                      (unsigned long long)o.pc, (unsigned long long)o.sp,         \
                      (unsigned long long)o.fp);                                  \
    } while (0)

#define EXPECT_STOP(r, off, inner, reason)                                        \
    do {                                                                          \
        struct jitunwind_regs o;                                                  \
        int st;                                                                   \
        ck_assert_int_lt(step(r, off, inner, &o, &st), 0);                        \
        ck_assert_int_eq(st, reason);                                             \
    } while (0)

START_TEST(sub8_every_offset)
{
    struct jitunwind_range r = range(JITUNWIND_RULE_TRAMPOLINE_SUB8, sizeof SUB8, 0);
    setup(SUB8, sizeof SUB8);
    EXPECT(&r, 0, 1, RA_AT_SP, SP + 8, FP);     /* before sub */
    EXPECT(&r, 4, 1, RA_AT_SP8, SP + 16, FP);   /* at call */
    EXPECT(&r, 6, 1, RA_AT_SP8, SP + 16, FP);   /* return point: callee running */
    EXPECT(&r, 10, 1, RA_AT_SP, SP + 8, FP);    /* at ret */
    EXPECT(&r, 6, 0, RA_AT_SP8, SP + 16, FP);   /* caller frame: always the return point */
    EXPECT(&r, 6, 0, RA_AT_SP8, SP + 16, FP);
    EXPECT_STOP(&r, 2, 1, JITUNWIND_STOP_BAD_FRAME); /* inside an instruction */
    ju_builder_unmap(b, SP);
    EXPECT_STOP(&r, 6, 1, JITUNWIND_STOP_UNREADABLE);
    ju_builder_free(b);
}
END_TEST

START_TEST(framed_every_offset)
{
    struct jitunwind_range r = range(JITUNWIND_RULE_TRAMPOLINE_FRAMED, sizeof FRAMED, 0);
    setup(FRAMED, sizeof FRAMED);
    EXPECT(&r, 0, 1, RA_AT_SP, SP + 8, FP);            /* before push */
    EXPECT(&r, 1, 1, RA_AT_SP8, SP + 16, FP);          /* pushed, rbp still the caller's */
    EXPECT(&r, 4, 1, RA_IN_RECORD, FP + 16, CALLER_FP); /* at call: frame record */
    EXPECT(&r, 6, 1, RA_IN_RECORD, FP + 16, CALLER_FP); /* return point */
    EXPECT(&r, 7, 1, RA_AT_SP, SP + 8, FP);            /* at ret: rbp restored */
    EXPECT(&r, 6, 0, RA_IN_RECORD, FP + 16, CALLER_FP);
    EXPECT(&r, 1, 0, RA_IN_RECORD, FP + 16, CALLER_FP); /* not innermost: offsets ignored */
    EXPECT_STOP(&r, 2, 1, JITUNWIND_STOP_BAD_FRAME);
    ju_builder_free(b);
}
END_TEST

START_TEST(framed_with_endbr64_and_stride)
{
    /* Four copies at a 16-byte stride; the pc is in the third. */
    struct jitunwind_range r = range(JITUNWIND_RULE_TRAMPOLINE_FRAMED, 64, 16);
    uint64_t copy;
    setup(ENDBR_FRAMED, sizeof ENDBR_FRAMED);
    for (copy = 1; copy < 4; copy++)
        ju_builder_write(b, CODE + copy * 16, ENDBR_FRAMED, sizeof ENDBR_FRAMED);
    EXPECT(&r, 32 + 0, 1, RA_AT_SP, SP + 8, FP);             /* at endbr64 */
    EXPECT(&r, 32 + 4, 1, RA_AT_SP, SP + 8, FP);             /* at push */
    EXPECT(&r, 32 + 5, 1, RA_AT_SP8, SP + 16, FP);           /* at mov */
    EXPECT(&r, 32 + 10, 1, RA_IN_RECORD, FP + 16, CALLER_FP); /* return point */
    EXPECT(&r, 32 + 11, 1, RA_AT_SP, SP + 8, FP);            /* at ret */
    ju_builder_free(b);
}
END_TEST

START_TEST(fp_preserving_and_its_guards)
{
    struct jitunwind_range r = range(JITUNWIND_RULE_FP_PRESERVING, 0x1000, 0);
    struct jitunwind_regs in = {CODE + 0x123, SP, FP, 0,
                                JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP, 0}, out;
    int stop;
    setup(SUB8, 1);
    /* Any pc in the range: the caller is in the frame record at fp. */
    EXPECT(&r, 0x123, 1, RA_IN_RECORD, FP + 16, CALLER_FP);
    EXPECT(&r, 0xfff, 0, RA_IN_RECORD, FP + 16, CALLER_FP);
    in.fp = FP + 3; /* misaligned */
    ck_assert_int_lt(jitunwind_step_range(JITUNWIND_ARCH_X86_64, &r, &mem, &in, 1, &out, &stop), 0);
    ck_assert_int_eq(stop, JITUNWIND_STOP_BAD_FRAME);
    in.fp = SP - 0x100; /* below sp: cannot be a live frame record */
    ck_assert_int_lt(jitunwind_step_range(JITUNWIND_ARCH_X86_64, &r, &mem, &in, 1, &out, &stop), 0);
    ck_assert_int_eq(stop, JITUNWIND_STOP_BAD_FRAME);
    in.fp = 0;
    ck_assert_int_lt(jitunwind_step_range(JITUNWIND_ARCH_X86_64, &r, &mem, &in, 1, &out, &stop), 0);
    ck_assert_int_eq(stop, JITUNWIND_STOP_END);
    in.fp = 0x7fe000; /* unmapped page */
    in.sp = 0x7fd000;
    ck_assert_int_lt(jitunwind_step_range(JITUNWIND_ARCH_X86_64, &r, &mem, &in, 1, &out, &stop), 0);
    ck_assert_int_eq(stop, JITUNWIND_STOP_UNREADABLE);
    in.fp = UINT64_MAX - 7; /* the record would wrap */
    ck_assert_int_lt(jitunwind_step_range(JITUNWIND_ARCH_X86_64, &r, &mem, &in, 1, &out, &stop), 0);
    ck_assert_int_eq(stop, JITUNWIND_STOP_BAD_FRAME);
    in.fp = FP;
    in.valid = JITUNWIND_REG_PC | JITUNWIND_REG_SP;
    ck_assert_int_lt(jitunwind_step_range(JITUNWIND_ARCH_X86_64, &r, &mem, &in, 1, &out, &stop), 0);
    ck_assert_int_eq(stop, JITUNWIND_STOP_NEED_REGISTER);
    in.valid |= JITUNWIND_REG_FP;
    in.pc = CODE + 0x1000; /* outside the range */
    ck_assert_int_eq(jitunwind_step_range(JITUNWIND_ARCH_X86_64, &r, &mem, &in, 1, &out, &stop),
                     JITUNWIND_EINVAL);
    ju_builder_free(b);
}
END_TEST

START_TEST(classify_real_and_garbage)
{
    uint8_t garbage[16] = {0x55, 0x48, 0x89, 0xe5, 0xe8, 0, 0, 0, 0, 0x5d, 0xc3};
    ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_X86_64, SUB8, sizeof SUB8),
                     JITUNWIND_RULE_TRAMPOLINE_SUB8);
    ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_X86_64, FRAMED, sizeof FRAMED),
                     JITUNWIND_RULE_TRAMPOLINE_FRAMED);
    ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_X86_64, ENDBR_FRAMED,
                                                   sizeof ENDBR_FRAMED),
                     JITUNWIND_RULE_TRAMPOLINE_FRAMED);
    ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_X86_64, garbage, sizeof garbage),
                     JITUNWIND_ENOTFOUND); /* a direct call is not CPython's trampoline */
    ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_X86_64, SUB8, 5),
                     JITUNWIND_ENOTFOUND); /* truncated */
    ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_X86_64, NULL, 0), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_classify_trampoline(7, SUB8, sizeof SUB8), JITUNWIND_EINVAL);
}
END_TEST

int main(void)
{
    return ju_run_tests("rules_x86_64", JU_TESTS(sub8_every_offset, framed_every_offset,
                                                 framed_with_endbr64_and_stride,
                                                 fp_preserving_and_its_guards,
                                                 classify_real_and_garbage));
}
