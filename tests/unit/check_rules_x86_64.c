/* x86-64 unwind rules at every byte offset of every trampoline layout (with
 * and without endbr64, in a multi-copy range with padding), as innermost and
 * as caller frames, plus the FP_PRESERVING rule and its guards. */
#include <stdlib.h>

#include "builder.h"
#include "internal.h"
#include "suite.h"
#include "trampoline_code.h"

#define CODE 0x500000ull
#define SP 0x7ff000ull
#define FP 0x7ff100ull
#define AT_SP 0x401111ull      /* the word at sp */
#define AT_SP8 0x402222ull     /* the word at sp + 8 */
#define AT_FP 0x7ff800ull      /* the word at fp (the caller's saved fp) */
#define AT_FP8 0x403333ull     /* the word at fp + 8 */
#define STRIDE 16u
#define COPIES 4u

static const uint8_t ENDBR_SUB8[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x48, 0x83, 0xec, 0x08,
                                     0xff, 0xd1, 0x48, 0x83, 0xc4, 0x08, 0xc3};
static const uint8_t ENDBR_FRAMED[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89,
                                       0xe5, 0xff, 0xd1, 0x5d, 0xc3};

/* What the caller's registers should be, per offset. */
enum outcome {
    BAD = 0, /* not an instruction boundary, or padding: BAD_FRAME */
    RA_SP,   /* pc [sp], sp + 8, fp kept: nothing pushed */
    RA_SP8,  /* pc [sp+8], sp + 16, fp kept: SUB8's pad pushed */
    REC_SP,  /* pc [sp+8], fp [sp], sp + 16: rbp pushed, not yet moved */
    REC_FP   /* pc [fp+8], fp [fp], fp + 16: the frame record */
};

/* Offsets 0..STRIDE-1 of one copy, innermost. */
static const uint8_t SUB8_AT[STRIDE] = {RA_SP, BAD, BAD, BAD, RA_SP8, RA_SP8, RA_SP8, RA_SP8,
                                        RA_SP8, RA_SP8, RA_SP, BAD, BAD, BAD, BAD, BAD};
static const uint8_t ENDBR_SUB8_AT[STRIDE] = {RA_SP,  BAD,    BAD,    BAD,    RA_SP,  BAD,
                                              BAD,    BAD,    RA_SP8, RA_SP8, RA_SP8, RA_SP8,
                                              RA_SP8, RA_SP8, RA_SP,  BAD};
static const uint8_t FRAMED_AT[STRIDE] = {RA_SP, REC_SP, BAD, BAD, REC_FP, BAD, REC_FP, RA_SP,
                                          BAD,   BAD,    BAD, BAD, BAD,    BAD, BAD,    BAD};
static const uint8_t ENDBR_FRAMED_AT[STRIDE] = {RA_SP,  BAD, BAD,    BAD,   RA_SP, REC_SP, BAD, BAD,
                                                REC_FP, BAD, REC_FP, RA_SP, BAD,   BAD,    BAD, BAD};

static struct ju_builder *b;
static struct jitunwind_memory mem;

static void setup(const uint8_t *code, size_t len)
{
    unsigned i;
    b = ju_builder_new();
    mem = ju_builder_memory(b);
    for (i = 0; code && i < COPIES; i++)
        ju_builder_write(b, CODE + i * STRIDE, code, len);
    ju_builder_u64(b, SP, AT_SP);
    ju_builder_u64(b, SP + 8, AT_SP8);
    ju_builder_u64(b, FP, AT_FP);
    ju_builder_u64(b, FP + 8, AT_FP8);
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

static void check_outcome(const struct jitunwind_range *r, uint64_t off, int innermost,
                          enum outcome want)
{
    static const uint64_t pc[] = {0, AT_SP, AT_SP8, AT_SP8, AT_FP8};
    static const uint64_t sp[] = {0, SP + 8, SP + 16, SP + 16, FP + 16};
    static const uint64_t fp[] = {0, FP, FP, AT_SP, AT_FP};
    struct jitunwind_regs o;
    int st = -1, rc = step(r, off, innermost, &o, &st);
    if (want == BAD) {
        ck_assert_msg(rc == JITUNWIND_ECORRUPT && st == JITUNWIND_STOP_BAD_FRAME,
                      "offset %d (innermost %d): expected BAD_FRAME, got rc %d stop %d",
                      (int)off, innermost, rc, st);
        return;
    }
    ck_assert_msg(rc == 0 && st == JITUNWIND_STOP_NONE, "offset %d: rc %d stop %d", (int)off, rc, st);
    ck_assert_msg(o.pc == pc[want] && o.sp == sp[want] && o.fp == fp[want],
                  "offset %d (innermost %d): got pc %#llx sp %#llx fp %#llx, want outcome %d",
                  (int)off, innermost, (unsigned long long)o.pc, (unsigned long long)o.sp,
                  (unsigned long long)o.fp, (int)want);
    ck_assert_uint_eq(o.valid & (JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP),
                      JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP);
}

/* Every offset of the third copy of a COPIES-copy range, innermost (the
 * table) and as a caller frame (always the return point `ret_point`). */
static void every_offset(const uint8_t *code, size_t len, uint32_t rule, const uint8_t *table,
                         enum outcome ret_point)
{
    struct jitunwind_range r = range(rule, (uint64_t)STRIDE * COPIES, STRIDE);
    uint64_t off;
    setup(code, len);
    for (off = 0; off < STRIDE; off++) {
        check_outcome(&r, 2 * STRIDE + off, 1, (enum outcome)table[off]);
        check_outcome(&r, 2 * STRIDE + off, 0, ret_point);
    }
    /* A single copy (stride 0) behaves like copy 0. */
    r = range(rule, len, 0);
    for (off = 0; off < len; off++)
        check_outcome(&r, off, 1, (enum outcome)table[off]);
    ju_builder_free(b);
}

START_TEST(sub8_every_offset)
{
    every_offset(JU_X86_SUB8, sizeof JU_X86_SUB8, JITUNWIND_RULE_TRAMPOLINE_SUB8, SUB8_AT, RA_SP8);
}
END_TEST

START_TEST(sub8_with_endbr64_every_offset)
{
    every_offset(ENDBR_SUB8, sizeof ENDBR_SUB8, JITUNWIND_RULE_TRAMPOLINE_SUB8, ENDBR_SUB8_AT, RA_SP8);
}
END_TEST

START_TEST(framed_every_offset)
{
    every_offset(JU_X86_FRAMED, sizeof JU_X86_FRAMED, JITUNWIND_RULE_TRAMPOLINE_FRAMED, FRAMED_AT, REC_FP);
}
END_TEST

START_TEST(framed_with_endbr64_every_offset)
{
    every_offset(ENDBR_FRAMED, sizeof ENDBR_FRAMED, JITUNWIND_RULE_TRAMPOLINE_FRAMED,
                 ENDBR_FRAMED_AT, REC_FP);
}
END_TEST

START_TEST(unreadable_code_means_no_endbr64)
{
    /* The layout is taken from the range's rule; only the endbr64 prefix is
     * read, and an unreadable copy is assumed to have none. */
    struct jitunwind_range r = range(JITUNWIND_RULE_TRAMPOLINE_FRAMED, sizeof JU_X86_FRAMED, 0);
    uint64_t off;
    setup(NULL, 0);
    for (off = 0; off < sizeof JU_X86_FRAMED; off++)
        check_outcome(&r, off, 1, (enum outcome)FRAMED_AT[off]);
    ju_builder_free(b);
}
END_TEST

START_TEST(unreadable_stack_and_missing_sp)
{
    struct jitunwind_range r = range(JITUNWIND_RULE_TRAMPOLINE_SUB8, sizeof JU_X86_SUB8, 0);
    struct jitunwind_regs in = {CODE + 6, SP, FP, 0, JITUNWIND_REG_PC | JITUNWIND_REG_FP, 0}, o;
    int st;
    setup(JU_X86_SUB8, sizeof JU_X86_SUB8);
    ck_assert_int_lt(jitunwind_step_range(JITUNWIND_ARCH_X86_64, &r, &mem, &in, 1, &o, &st), 0);
    ck_assert_int_eq(st, JITUNWIND_STOP_NEED_REGISTER);
    ju_builder_unmap(b, SP);
    ck_assert_int_eq(step(&r, 6, 1, &o, &st), JITUNWIND_EREAD);
    ck_assert_int_eq(st, JITUNWIND_STOP_UNREADABLE);
    r = range(JITUNWIND_RULE_TRAMPOLINE_FRAMED, sizeof JU_X86_FRAMED, 0);
    ck_assert_int_eq(step(&r, 6, 1, &o, &st), JITUNWIND_EREAD); /* fp's page is gone too */
    ck_assert_int_eq(st, JITUNWIND_STOP_UNREADABLE);
    ju_builder_free(b);
}
END_TEST

START_TEST(caller_pc_at_range_end_is_the_return_point)
{
    /* A return address may equal range.end (the call was the last
     * instruction): accepted for caller frames only. */
    struct jitunwind_range r = range(JITUNWIND_RULE_TRAMPOLINE_FRAMED, 6, 0);
    struct jitunwind_regs o;
    int st;
    setup(JU_X86_FRAMED, sizeof JU_X86_FRAMED);
    check_outcome(&r, 6, 0, REC_FP);
    ck_assert_int_eq(step(&r, 6, 1, &o, &st), JITUNWIND_EINVAL);
    ck_assert_int_eq(step(&r, 7, 0, &o, &st), JITUNWIND_EINVAL);
    ju_builder_free(b);
}
END_TEST

START_TEST(fp_preserving_and_its_guards)
{
    struct jitunwind_range r = range(JITUNWIND_RULE_FP_PRESERVING, 0x1000, 0);
    struct jitunwind_regs in = {CODE + 0x123, SP, FP, 0,
                                JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP, 0}, out;
    int stop;
    uint64_t off;
    setup(NULL, 0);
    /* Any pc in the range, innermost or not: the frame record at fp. */
    for (off = 0; off < 0x1000; off += 0x111) {
        check_outcome(&r, off, 1, REC_FP);
        check_outcome(&r, off, 0, REC_FP);
    }
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
    in.sp = SP;
    in.valid = JITUNWIND_REG_PC | JITUNWIND_REG_SP;
    ck_assert_int_lt(jitunwind_step_range(JITUNWIND_ARCH_X86_64, &r, &mem, &in, 1, &out, &stop), 0);
    ck_assert_int_eq(stop, JITUNWIND_STOP_NEED_REGISTER);
    in.valid |= JITUNWIND_REG_FP;
    in.pc = CODE + 0x1000; /* outside the range */
    ck_assert_int_eq(jitunwind_step_range(JITUNWIND_ARCH_X86_64, &r, &mem, &in, 1, &out, &stop),
                     JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_step_range(3, &r, &mem, &in, 1, &out, &stop), JITUNWIND_EINVAL);
    ju_builder_free(b);
}
END_TEST

START_TEST(fp_step_outside_ranges)
{
    struct jitunwind_regs in = {0x401000, SP, FP, 0,
                                JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP, 0}, out;
    int stop;
    setup(NULL, 0);
    ck_assert_int_eq(jitunwind_step_fp(JITUNWIND_ARCH_X86_64, &mem, &in, &out, &stop), 0);
    ck_assert_uint_eq(out.pc, AT_FP8);
    ck_assert_uint_eq(out.sp, FP + 16);
    ck_assert_uint_eq(out.fp, AT_FP);
    ck_assert_int_eq(stop, JITUNWIND_STOP_NONE);
    in.sp = FP + 8; /* fp below sp */
    ck_assert_int_lt(jitunwind_step_fp(JITUNWIND_ARCH_X86_64, &mem, &in, &out, &stop), 0);
    ck_assert_int_eq(stop, JITUNWIND_STOP_BAD_FRAME);
    in.sp = SP + 8; /* an 8-aligned sp is normal on x86-64 */
    ck_assert_int_eq(jitunwind_step_fp(JITUNWIND_ARCH_X86_64, &mem, &in, &out, &stop), 0);
    in.valid &= ~JITUNWIND_REG_FP;
    ck_assert_int_lt(jitunwind_step_fp(JITUNWIND_ARCH_X86_64, &mem, &in, &out, &stop), 0);
    ck_assert_int_eq(stop, JITUNWIND_STOP_NEED_REGISTER);
    ju_builder_free(b);
}
END_TEST

/* After the scan, the caller's frame pointer, clobbered by the code in
 * between, is recovered from the caller's prologue (a fixed frame below its
 * rbp, as GCC builds _PyEval_EvalFrameDefault), and only when the word above
 * it is a return address. */
START_TEST(scan_recovers_the_callers_frame_pointer)
{
    static const uint8_t caller[] = {
        0xf3, 0x0f, 0x1e, 0xfa,       /* endbr64 */
        0x55, 0x48, 0x89, 0xe5,       /* push %rbp; mov %rsp,%rbp */
        0x41, 0x57, 0x53,             /* push %r15; push %rbx */
        0x48, 0x81, 0xec, 0x88, 0x02, 0x00, 0x00, /* sub $0x288,%rsp */
        0x90, 0x90, 0x90, 0x90, 0xe8, 0, 0, 0, 0, /* call (returns to +0x1b) */
        0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
        0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90};
    static const uint8_t other[] = {0x90, 0x90, 0x90, 0xe8, 0, 0, 0, 0, 0x90};
    struct jitunwind_range r = range(JITUNWIND_RULE_SCAN, 0x1000, 0);
    struct jitunwind_regs in = {CODE + 0x10, SP, 0xdead0000, 0,
                                JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP, 0}, out;
    uint64_t caller_sp = SP + 24, rbp = caller_sp + 16 + 0x288;
    int stop;
    b = ju_builder_new();
    mem = ju_builder_memory(b);
    r.scan_start = 0x401000;
    r.scan_end = 0x401000 + sizeof caller;
    ju_builder_write(b, 0x401000, caller, sizeof caller);
    ju_builder_write(b, 0x402000, other, sizeof other);
    ju_builder_u64(b, SP + 16, 0x40101b);  /* return address into the caller */
    ju_builder_u64(b, rbp, 0x7ff900);      /* the caller's saved rbp */
    ju_builder_u64(b, rbp + 8, 0x402008);  /* the caller's return address */
    ck_assert_int_eq(jitunwind_step_range(JITUNWIND_ARCH_X86_64, &r, &mem, &in, 0, &out, &stop), 0);
    ck_assert_uint_eq(out.pc, 0x40101b);
    ck_assert_uint_eq(out.sp, caller_sp);
    ck_assert_uint_eq(out.fp, rbp);
    ck_assert_uint_ne(out.valid & JITUNWIND_REG_FP, 0);
    /* 8 more bytes below the frame (stack padding before the call). */
    ju_builder_u64(b, rbp + 8, 0);
    ju_builder_u64(b, rbp + 16, 0x402008);
    ck_assert_int_eq(jitunwind_step_range(JITUNWIND_ARCH_X86_64, &r, &mem, &in, 0, &out, &stop), 0);
    ck_assert_uint_eq(out.fp, rbp + 8);
    /* No return address where the frame pointer should be: not recovered,
     * the register is passed on as it was. */
    ju_builder_u64(b, rbp + 16, 0x402007);
    ck_assert_int_eq(jitunwind_step_range(JITUNWIND_ARCH_X86_64, &r, &mem, &in, 0, &out, &stop), 0);
    ck_assert_uint_eq(out.fp, 0xdead0000);
    /* A caller without a frame-pointer prologue: nothing to recover from. */
    ju_builder_u64(b, rbp + 8, 0x402008);
    ju_builder_u8(b, 0x401004, 0x90);
    ck_assert_int_eq(jitunwind_step_range(JITUNWIND_ARCH_X86_64, &r, &mem, &in, 0, &out, &stop), 0);
    ck_assert_uint_eq(out.fp, 0xdead0000);
    ju_builder_free(b);
}
END_TEST

START_TEST(scan_for_a_return_address_into_the_caller)
{
    /* The caller's code: a call (e8 rel32) ending at 0x401105; the stack
     * holds decoys first: a word into the caller not after a call, then a
     * word outside the caller, then the real return address. */
    static const uint8_t caller[] = {0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
                                     0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
                                     0xe8, 0, 0, 0, 0, 0x90, 0x90, 0x90};
    struct jitunwind_range r = range(JITUNWIND_RULE_SCAN, 0x1000, 0);
    struct jitunwind_regs in = {CODE + 0x10, SP, 0, 0,
                                JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP, 0}, out;
    int stop;
    b = ju_builder_new();
    mem = ju_builder_memory(b);
    r.scan_start = 0x401000;
    r.scan_end = 0x401100 + sizeof caller;
    ju_builder_write(b, 0x401100, caller, sizeof caller);
    ju_builder_u64(b, SP, 0x401102);       /* inside the caller, but not after a call */
    ju_builder_u64(b, SP + 8, 0x12345678); /* not in the caller */
    ju_builder_u64(b, SP + 16, 0x401115);  /* just after the e8 call */
    ck_assert_int_eq(jitunwind_step_range(JITUNWIND_ARCH_X86_64, &r, &mem, &in, 1, &out, &stop), 0);
    ck_assert_uint_eq(out.pc, 0x401115);
    ck_assert_uint_eq(out.sp, SP + 24);
    /* A frame record whose caller is nearer than the scan's wins (code that
     * keeps the frame pointer, called through a framed shim); its return
     * address must follow a call. */
    ju_builder_write(b, 0x402000, caller, sizeof caller); /* another function with a call */
    ju_builder_u64(b, SP + 16, 0);
    ju_builder_u64(b, SP + 64, 0x401115);  /* the scan now finds the caller here */
    in.fp = SP + 24;
    ju_builder_u64(b, SP + 24, AT_FP);
    ju_builder_u64(b, SP + 32, 0x402015);
    ck_assert_int_eq(jitunwind_step_range(JITUNWIND_ARCH_X86_64, &r, &mem, &in, 1, &out, &stop), 0);
    ck_assert_uint_eq(out.pc, 0x402015);
    ck_assert_uint_eq(out.sp, SP + 40);
    ck_assert_uint_eq(out.fp, AT_FP);
    ju_builder_u64(b, SP + 32, 0x402014); /* not after a call: no record */
    ck_assert_int_eq(jitunwind_step_range(JITUNWIND_ARCH_X86_64, &r, &mem, &in, 1, &out, &stop), 0);
    ck_assert_uint_eq(out.pc, 0x401115);
    /* A record beyond the scan's caller would skip that caller's frame (an
     * intact rbp of the function that called into frame-clobbering code):
     * the scan wins. */
    in.fp = FP;
    ju_builder_u64(b, FP, AT_FP);
    ju_builder_u64(b, FP + 8, 0x402015);
    ck_assert_int_eq(jitunwind_step_range(JITUNWIND_ARCH_X86_64, &r, &mem, &in, 1, &out, &stop), 0);
    ck_assert_uint_eq(out.pc, 0x401115);
    ck_assert_uint_eq(out.sp, SP + 72);
    ju_builder_u64(b, SP + 64, 0);
    /* Nothing to find: a clear failure, not a guess. */
    in.fp = 0;
    ck_assert_int_lt(jitunwind_step_range(JITUNWIND_ARCH_X86_64, &r, &mem, &in, 1, &out, &stop), 0);
    ck_assert_int_eq(stop, JITUNWIND_STOP_BAD_FRAME);
    /* A scan range needs its target. */
    r.scan_end = r.scan_start;
    {
        jitunwind_registry *reg;
        ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
        ck_assert_int_eq(jitunwind_registry_add(reg, &r), JITUNWIND_EINVAL);
        jitunwind_registry_free(reg);
    }
    ju_builder_free(b);
}
END_TEST

START_TEST(classify_real_and_garbage)
{
    uint8_t direct_call[16] = {0x55, 0x48, 0x89, 0xe5, 0xe8, 0, 0, 0, 0, 0x5d, 0xc3};
    uint8_t other_register[16] = {0x48, 0x83, 0xec, 0x08, 0xff, 0xd0, 0x48, 0x83, 0xc4, 0x08, 0xc3};
    uint8_t buf[32];
    size_t i;
    ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_X86_64, JU_X86_SUB8, sizeof JU_X86_SUB8),
                     JITUNWIND_RULE_TRAMPOLINE_SUB8);
    ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_X86_64, ENDBR_SUB8, sizeof ENDBR_SUB8),
                     JITUNWIND_RULE_TRAMPOLINE_SUB8);
    ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_X86_64, JU_X86_FRAMED, sizeof JU_X86_FRAMED),
                     JITUNWIND_RULE_TRAMPOLINE_FRAMED);
    ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_X86_64, ENDBR_FRAMED,
                                                   sizeof ENDBR_FRAMED),
                     JITUNWIND_RULE_TRAMPOLINE_FRAMED);
    /* Trailing bytes (the next copy, padding) do not matter. */
    memset(buf, 0xcc, sizeof buf);
    memcpy(buf, JU_X86_FRAMED, sizeof JU_X86_FRAMED);
    ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_X86_64, buf, 16),
                     JITUNWIND_RULE_TRAMPOLINE_FRAMED);
    ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_X86_64, direct_call, sizeof direct_call),
                     JITUNWIND_ENOTFOUND); /* a direct call is not CPython's trampoline */
    ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_X86_64, other_register,
                                                   sizeof other_register),
                     JITUNWIND_ENOTFOUND); /* call *%rax */
    /* Every truncation of a real layout is refused. */
    for (i = 0; i < sizeof JU_X86_SUB8; i++)
        ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_X86_64, JU_X86_SUB8, i), JITUNWIND_ENOTFOUND);
    for (i = 0; i < sizeof ENDBR_FRAMED; i++)
        ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_X86_64, ENDBR_FRAMED, i),
                         JITUNWIND_ENOTFOUND);
    /* Pseudo-random garbage is never a trampoline. */
    srand(3);
    for (i = 0; i < 10000; i++) {
        size_t j;
        for (j = 0; j < 16; j++)
            buf[j] = (uint8_t)rand();
        ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_X86_64, buf, 16), JITUNWIND_ENOTFOUND);
    }
    ck_assert_int_eq(jitunwind_classify_trampoline(JITUNWIND_ARCH_X86_64, NULL, 0), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_classify_trampoline(7, JU_X86_SUB8, sizeof JU_X86_SUB8), JITUNWIND_EINVAL);
}
END_TEST

int main(void)
{
    return ju_run_tests("rules_x86_64",
                        JU_TESTS(sub8_every_offset, sub8_with_endbr64_every_offset, framed_every_offset,
                                 framed_with_endbr64_every_offset, unreadable_code_means_no_endbr64,
                                 unreadable_stack_and_missing_sp,
                                 caller_pc_at_range_end_is_the_return_point,
                                 fp_preserving_and_its_guards, fp_step_outside_ranges,
                                 scan_for_a_return_address_into_the_caller,
                                 scan_recovers_the_callers_frame_pointer,
                                 classify_real_and_garbage));
}
