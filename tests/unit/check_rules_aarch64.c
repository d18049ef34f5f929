/* AArch64 unwind rules (x29/x30) at every byte offset of the framed
 * trampoline (plain, after `bti c`, and CPython's branch-protected one with
 * paciasp/autiasp, in a multi-copy range with padding),
 * as innermost and as caller frames, on synthetic memory: the library
 * implements them on any host. */
#include <stdlib.h>

#include "builder.h"
#include "internal.h"
#include "suite.h"
#include "trampoline_code.h"

#define CODE 0x500000ull
#define SP 0x7ff000ull
#define FP 0x7ff100ull
#define LR 0x401111ull
#define AT_SP 0x7ff300ull  /* the word at sp (a saved x29) */
#define AT_SP8 0x402222ull /* the word at sp + 8 */
#define AT_FP 0x7ff800ull  /* the word at fp */
#define AT_FP8 0x403333ull /* the word at fp + 8 */
#define STRIDE 32u
#define COPIES 4u

/* The real instruction words:
 *   a9bf7bfd stp x29, x30, [sp, #-16]!   910003fd mov x29, sp
 *   d63f0060 blr x3                      a8c17bfd ldp x29, x30, [sp], #16
 *   d65f03c0 ret                         d503245f bti c */
static const uint32_t BTI_FRAMED[] = {0xd503245f, 0xa9bf7bfd, 0x910003fd, 0xd63f0060,
                                      0xa8c17bfd, 0xd65f03c0};
/* CPython's Python/asm_trampoline.S under -mbranch-protection: `hint 25`
 * (d503233f paciasp) first, `hint 29` (d50323bf autiasp) before ret. */
static const uint32_t PAC_FRAMED[] = {0xd503233f, 0xa9bf7bfd, 0x910003fd, 0xd63f0060,
                                      0xa8c17bfd, 0xd50323bf, 0xd65f03c0};

enum outcome {
    BAD = 0, /* not an instruction boundary, or padding */
    FROM_LR, /* pc x30, sp and fp kept */
    REC_SP,  /* pc [sp+8], fp [sp], sp + 16: record stored, x29 not yet set */
    REC_FP   /* pc [fp+8], fp [fp], fp + 16 */
};

#define ALL (JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP | JITUNWIND_REG_LR)

static struct ju_builder *b;
static struct jitunwind_memory mem;

static void setup(const uint32_t *code, size_t words)
{
    unsigned i;
    b = ju_builder_new();
    mem = ju_builder_memory(b);
    for (i = 0; code && i < COPIES; i++)
        ju_builder_write(b, CODE + i * STRIDE, code, words * 4);
    ju_builder_u64(b, SP, AT_SP);
    ju_builder_u64(b, SP + 8, AT_SP8);
    ju_builder_u64(b, FP, AT_FP);
    ju_builder_u64(b, FP + 8, AT_FP8);
}

static int step(uint32_t rule, uint32_t stride, uint64_t off, int innermost, uint32_t valid,
                uint64_t lr, struct jitunwind_regs *out, int *stop)
{
    struct jitunwind_range r = {CODE, CODE + (uint64_t)STRIDE * COPIES, JITUNWIND_KIND_TRAMPOLINE,
                                rule, stride, 0, 0, NULL};
    struct jitunwind_regs in = {CODE + off, SP, FP, lr, valid, 0};
    return jitunwind_step_range(JITUNWIND_ARCH_AARCH64, &r, &mem, &in, innermost, out, stop);
}

static void check_outcome(uint64_t off, int innermost, enum outcome want)
{
    static const uint64_t pc[] = {0, LR, AT_SP8, AT_FP8};
    static const uint64_t sp[] = {0, SP, SP + 16, FP + 16};
    static const uint64_t fp[] = {0, FP, AT_SP, AT_FP};
    struct jitunwind_regs o;
    int st = -1, rc = step(JITUNWIND_RULE_TRAMPOLINE_FRAMED, STRIDE, off, innermost, ALL, LR, &o, &st);
    if (want == BAD) {
        ck_assert_msg(rc < 0 && st == JITUNWIND_STOP_BAD_FRAME,
                      "offset %d (innermost %d): expected BAD_FRAME, got rc %d stop %d",
                      (int)off, innermost, rc, st);
        return;
    }
    ck_assert_msg(rc == 0, "offset %d: rc %d stop %d", (int)off, rc, st);
    ck_assert_msg(o.pc == pc[want] && o.sp == sp[want] && o.fp == fp[want],
                  "offset %d (innermost %d): got pc %#llx sp %#llx fp %#llx, want outcome %d",
                  (int)off, innermost, (unsigned long long)o.pc, (unsigned long long)o.sp,
                  (unsigned long long)o.fp, (int)want);
    ck_assert_uint_eq(o.valid & JITUNWIND_REG_LR, 0); /* x30 is spent */
}

static void every_offset(const uint32_t *code, size_t words, const uint8_t *table)
{
    uint64_t off;
    setup(code, words);
    for (off = 0; off < STRIDE; off++) {
        enum outcome want = (off & 3) ? BAD : (enum outcome)table[off / 4];
        check_outcome(2 * STRIDE + off, 1, want);
        check_outcome(2 * STRIDE + off, 0, REC_FP); /* caller frames: the return point */
    }
    ju_builder_free(b);
}

START_TEST(framed_every_offset)
{
    static const uint8_t at[STRIDE / 4] = {FROM_LR, REC_SP, REC_FP, REC_FP, FROM_LR, BAD, BAD, BAD};
    every_offset(JU_A64_FRAMED, 5, at);
}
END_TEST

START_TEST(framed_with_bti_every_offset)
{
    static const uint8_t at[STRIDE / 4] = {FROM_LR, FROM_LR, REC_SP, REC_FP, REC_FP, FROM_LR, BAD, BAD};
    every_offset(BTI_FRAMED, 6, at);
}
END_TEST

START_TEST(link_register_rules)
{
    struct jitunwind_regs o;
    int st;
    setup(JU_A64_FRAMED, 5);
    /* x30 is needed, and only trusted in the innermost frame. */
    ck_assert_int_lt(step(JITUNWIND_RULE_TRAMPOLINE_FRAMED, 0, 0, 1, ALL & ~JITUNWIND_REG_LR, 0, &o, &st), 0);
    ck_assert_int_eq(st, JITUNWIND_STOP_NEED_REGISTER);
    ck_assert_int_lt(step(JITUNWIND_RULE_TRAMPOLINE_FRAMED, 0, 16, 1, ALL & ~JITUNWIND_REG_LR, 0, &o, &st), 0);
    ck_assert_int_eq(st, JITUNWIND_STOP_NEED_REGISTER);
    /* After stp the record is at sp: sp is needed. */
    ck_assert_int_lt(step(JITUNWIND_RULE_TRAMPOLINE_FRAMED, 0, 4, 1, ALL & ~JITUNWIND_REG_SP, LR, &o, &st), 0);
    ck_assert_int_eq(st, JITUNWIND_STOP_NEED_REGISTER);
    /* A signed x30 (PAC bits above bit 47) is stripped to 48 bits; a plain
     * one is kept. */
    ck_assert_int_eq(step(JITUNWIND_RULE_TRAMPOLINE_FRAMED, 0, 0, 1, ALL, 0x002a000000401111ull, &o, &st), 0);
    ck_assert_uint_eq(o.pc, 0x401111ull);
    ck_assert_int_eq(step(JITUNWIND_RULE_TRAMPOLINE_FRAMED, 0, 0, 1, ALL, 0x0000ffff00401111ull, &o, &st), 0);
    ck_assert_uint_eq(o.pc, 0x0000ffff00401111ull);
    /* ... and so is a signed return address stored in a frame record. */
    ju_builder_u64(b, FP + 8, 0x7f12000000403333ull);
    ck_assert_int_eq(step(JITUNWIND_RULE_TRAMPOLINE_FRAMED, 0, 12, 1, ALL, LR, &o, &st), 0);
    ck_assert_uint_eq(o.pc, 0x403333ull);
    ju_builder_free(b);
}
END_TEST

START_TEST(fp_preserving_sub8_and_fp_step)
{
    struct jitunwind_regs o;
    struct jitunwind_regs in = {0x401000, SP, FP, 0, ALL, 0};
    int st;
    uint64_t off;
    setup(NULL, 0);
    for (off = 0; off < STRIDE * COPIES; off += 4) {
        ck_assert_int_eq(step(JITUNWIND_RULE_FP_PRESERVING, 0, off, (int)(off & 4), ALL, LR, &o, &st), 0);
        ck_assert_uint_eq(o.pc, AT_FP8);
        ck_assert_uint_eq(o.sp, FP + 16);
        ck_assert_uint_eq(o.fp, AT_FP);
    }
    /* CPython 3.15's executors: CFA = x29 + 96, the shim's whole frame with
     * its record at the bottom; the caller's sp is the CFA. */
    {
        struct jitunwind_range r = {CODE, CODE + 64, JITUNWIND_KIND_JIT,
                                    JITUNWIND_RULE_FP_PRESERVING, 0, 0, 0, NULL};
        struct jitunwind_regs at = {CODE + 8, SP, FP, LR, ALL, 0};
        r.frame_size = 96;
        ck_assert_int_eq(jitunwind_step_range(JITUNWIND_ARCH_AARCH64, &r, &mem, &at, 1, &o, &st), 0);
        ck_assert_uint_eq(o.pc, AT_FP8);
        ck_assert_uint_eq(o.fp, AT_FP);
        ck_assert_uint_eq(o.sp, FP + 96);
        at.fp = UINT64_MAX - 64; /* the CFA would wrap */
        ck_assert_int_lt(jitunwind_step_range(JITUNWIND_ARCH_AARCH64, &r, &mem, &at, 1, &o, &st), 0);
        ck_assert_int_eq(st, JITUNWIND_STOP_BAD_FRAME);
    }
    /* CPython has no SUB8 trampoline on AArch64. */
    ck_assert_int_eq(step(JITUNWIND_RULE_TRAMPOLINE_SUB8, 0, 0, 1, ALL, LR, &o, &st), JITUNWIND_EUNSUPPORTED);
    /* The guarded frame-pointer step wants a 16-aligned sp on AArch64. */
    ck_assert_int_eq(jitunwind_step_fp(JITUNWIND_ARCH_AARCH64, &mem, &in, &o, &st), 0);
    ck_assert_uint_eq(o.pc, AT_FP8);
    in.sp = SP + 8;
    ck_assert_int_lt(jitunwind_step_fp(JITUNWIND_ARCH_AARCH64, &mem, &in, &o, &st), 0);
    ck_assert_int_eq(st, JITUNWIND_STOP_BAD_FRAME);
    in.sp = SP;
    in.fp = FP + 4;
    ck_assert_int_lt(jitunwind_step_fp(JITUNWIND_ARCH_AARCH64, &mem, &in, &o, &st), 0);
    ck_assert_int_eq(st, JITUNWIND_STOP_BAD_FRAME);
    ju_builder_free(b);
}
END_TEST

/* x30 is the caller at paciasp and at stp (signed: stripped), and at
 * autiasp and ret after the ldp restored it. */
START_TEST(framed_with_pac_every_offset)
{
    static const uint8_t at[STRIDE / 4] = {FROM_LR, FROM_LR, REC_SP, REC_FP, REC_FP,
                                           FROM_LR, FROM_LR, BAD};
    every_offset(PAC_FRAMED, 7, at);
}
END_TEST

START_TEST(classify)
{
    uint32_t bad[5] = {0xa9bf7bfd, 0x910003fd, 0x94000000, 0xa8c17bfd, 0xd65f03c0}; /* bl, not blr x3 */
    uint32_t x4[5] = {0xa9bf7bfd, 0x910003fd, 0xd63f0080, 0xa8c17bfd, 0xd65f03c0};  /* blr x4 */
    uint8_t buf[24];
    int i, j;
    ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_AARCH64, (const uint8_t *)JU_A64_FRAMED, 20),
                     JITUNWIND_RULE_TRAMPOLINE_FRAMED);
    ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_AARCH64, (const uint8_t *)BTI_FRAMED, 24),
                     JITUNWIND_RULE_TRAMPOLINE_FRAMED);
    ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_AARCH64, (const uint8_t *)PAC_FRAMED, 28),
                     JITUNWIND_RULE_TRAMPOLINE_FRAMED);
    ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_AARCH64, (const uint8_t *)PAC_FRAMED, 24),
                     JITUNWIND_ENOTFOUND); /* truncated before its ret */
    ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_AARCH64, (const uint8_t *)bad, 20),
                     JITUNWIND_ENOTFOUND);
    ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_AARCH64, (const uint8_t *)x4, 20),
                     JITUNWIND_ENOTFOUND);
    ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_AARCH64, (const uint8_t *)JU_A64_FRAMED, 16),
                     JITUNWIND_ENOTFOUND); /* truncated */
    /* x86-64 bytes are not an AArch64 trampoline, and vice versa. */
    ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_X86_64, (const uint8_t *)JU_A64_FRAMED, 20),
                     JITUNWIND_ENOTFOUND);
    srand(5);
    for (i = 0; i < 10000; i++) {
        for (j = 0; j < (int)sizeof buf; j++)
            buf[j] = (uint8_t)rand();
        ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_AARCH64, buf, sizeof buf),
                         JITUNWIND_ENOTFOUND);
    }
}
END_TEST

int main(void)
{
    return ju_run_tests("rules_aarch64", JU_TESTS(framed_every_offset, framed_with_bti_every_offset,
                                                  framed_with_pac_every_offset,
                                                  link_register_rules, fp_preserving_sub8_and_fp_step,
                                                  classify));
}
