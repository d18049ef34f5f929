/* AArch64 unwind rules (x29/x30) at every instruction offset, on synthetic
 * memory: the library implements them on any host. */
#include "builder.h"
#include "internal.h"
#include "suite.h"

#define CODE 0x500000ull
#define SP 0x7ff000ull
#define FP 0x7ff100ull
#define LR 0x401111ull
#define RA_AT_SP8 0x402222ull
#define RA_IN_RECORD 0x403333ull
#define SAVED_FP_AT_SP 0x7ff300ull
#define CALLER_FP 0x7ff800ull

static const uint32_t FRAMED[] = {0xa9bf7bfd, 0x910003fd, 0xd63f0060, 0xa8c17bfd, 0xd65f03c0};
static const uint32_t BTI_FRAMED[] = {0xd503245f, 0xa9bf7bfd, 0x910003fd, 0xd63f0060,
                                      0xa8c17bfd, 0xd65f03c0};

static struct ju_builder *b;
static struct jitunwind_memory mem;

static void setup(const uint32_t *code, size_t words)
{
    b = ju_builder_new();
    mem = ju_builder_memory(b);
    ju_builder_write(b, CODE, code, words * 4);
    ju_builder_u64(b, SP, SAVED_FP_AT_SP);
    ju_builder_u64(b, SP + 8, RA_AT_SP8);
    ju_builder_u64(b, FP, CALLER_FP);
    ju_builder_u64(b, FP + 8, RA_IN_RECORD);
}

static int step(uint32_t rule, uint64_t off, int innermost, uint32_t valid, uint64_t lr,
                struct jitunwind_regs *out, int *stop)
{
    struct jitunwind_range r = {CODE, CODE + 64, JITUNWIND_KIND_TRAMPOLINE, rule, 0, 0, 0, NULL};
    struct jitunwind_regs in = {CODE + off, SP, FP, lr, valid, 0};
    return jitunwind_step_range(JITUNWIND_ARCH_AARCH64, &r, &mem, &in, innermost, out, stop);
}

#define ALL (JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP | JITUNWIND_REG_LR)

#define EXPECT(off, inner, pc_, sp_, fp_)                                                       \
    do {                                                                                        \
        struct jitunwind_regs o_;                                                               \
        int st_;                                                                                \
        ck_assert_int_eq(step(JITUNWIND_RULE_TRAMPOLINE_FRAMED, off, inner, ALL, LR, &o_, &st_), 0); \
        ck_assert_msg(o_.pc == (pc_) && o_.sp == (sp_) && o_.fp == (fp_),                      \
                      "offset %d: got pc %#llx sp %#llx fp %#llx", (int)(off),                  \
                      (unsigned long long)o_.pc, (unsigned long long)o_.sp,                     \
                      (unsigned long long)o_.fp);                                               \
    } while (0)

START_TEST(framed_every_offset)
{
    struct jitunwind_regs o;
    int st;
    setup(FRAMED, 5);
    EXPECT(0, 1, LR, SP, FP);                          /* before stp: caller in x30 */
    EXPECT(4, 1, RA_AT_SP8, SP + 16, SAVED_FP_AT_SP);  /* record stored at sp, x29 not set */
    EXPECT(8, 1, RA_IN_RECORD, FP + 16, CALLER_FP);    /* at blr */
    EXPECT(12, 1, RA_IN_RECORD, FP + 16, CALLER_FP);   /* return point */
    EXPECT(16, 1, LR, SP, FP);                         /* at ret: x30 restored */
    EXPECT(12, 0, RA_IN_RECORD, FP + 16, CALLER_FP);   /* caller frames: always the record */
    EXPECT(0, 0, RA_IN_RECORD, FP + 16, CALLER_FP);
    /* x30 is only trusted in the innermost frame. */
    ck_assert_int_lt(step(JITUNWIND_RULE_TRAMPOLINE_FRAMED, 0, 1, ALL & ~JITUNWIND_REG_LR, 0, &o, &st), 0);
    ck_assert_int_eq(st, JITUNWIND_STOP_NEED_REGISTER);
    ck_assert_int_lt(step(JITUNWIND_RULE_TRAMPOLINE_FRAMED, 2, 1, ALL, LR, &o, &st), 0);
    ck_assert_int_eq(st, JITUNWIND_STOP_BAD_FRAME); /* not an instruction boundary */
    ju_builder_free(b);
}
END_TEST

START_TEST(bti_prefix_and_pac)
{
    struct jitunwind_regs o;
    int st;
    setup(BTI_FRAMED, 6);
    EXPECT(4, 1, LR, SP, FP);                          /* at stp after bti */
    EXPECT(8, 1, RA_AT_SP8, SP + 16, SAVED_FP_AT_SP);
    EXPECT(16, 1, RA_IN_RECORD, FP + 16, CALLER_FP);
    /* A signed x30 (PAC bits in the top byte) is stripped to 48 bits. */
    ck_assert_int_eq(step(JITUNWIND_RULE_TRAMPOLINE_FRAMED, 0, 1, ALL, 0x002a000000401111ull, &o, &st), 0);
    ck_assert_uint_eq(o.pc, 0x401111ull);
    ju_builder_free(b);
}
END_TEST

START_TEST(fp_preserving_and_sub8)
{
    struct jitunwind_regs o;
    int st;
    setup(FRAMED, 5);
    ck_assert_int_eq(step(JITUNWIND_RULE_FP_PRESERVING, 40, 1, ALL, LR, &o, &st), 0);
    ck_assert_uint_eq(o.pc, RA_IN_RECORD);
    ck_assert_uint_eq(o.sp, FP + 16);
    ck_assert_uint_eq(o.fp, CALLER_FP);
    ck_assert_int_eq(step(JITUNWIND_RULE_TRAMPOLINE_SUB8, 0, 1, ALL, LR, &o, &st), JITUNWIND_EUNSUPPORTED);
    ju_builder_free(b);
}
END_TEST

START_TEST(classify)
{
    uint32_t bad[5] = {0xa9bf7bfd, 0x910003fd, 0x94000000, 0xa8c17bfd, 0xd65f03c0};
    ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_AARCH64, (const uint8_t *)FRAMED, 20),
                     JITUNWIND_RULE_TRAMPOLINE_FRAMED);
    ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_AARCH64, (const uint8_t *)BTI_FRAMED, 24),
                     JITUNWIND_RULE_TRAMPOLINE_FRAMED);
    ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_AARCH64, (const uint8_t *)bad, 20),
                     JITUNWIND_ENOTFOUND);
    ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_AARCH64, (const uint8_t *)FRAMED, 16),
                     JITUNWIND_ENOTFOUND);
}
END_TEST

int main(void)
{
    return ju_run_tests("rules_aarch64",
                        JU_TESTS(framed_every_offset, bti_prefix_and_pac, fp_preserving_and_sub8, classify));
}
