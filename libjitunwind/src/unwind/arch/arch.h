/* Per-architecture unwind rules. Each step function computes the caller's
 * registers of one frame, or fails with a negative status and a stop
 * reason. `innermost` says whether the PC may be at any instruction (only
 * the innermost frame can be stopped mid-trampoline; every other frame's PC
 * is a return address, i.e. just after a call). */
#ifndef JITUNWIND_ARCH_H
#define JITUNWIND_ARCH_H

#include "internal.h"
#include "unwind/arch/rules.h"

struct ju_step {
    const struct jitunwind_memory *mem;
    const struct jitunwind_regs *in;
    struct jitunwind_regs *out;
    int innermost;
    int stop;    /* enum jitunwind_stop_reason when the step fails */
    int used_lr; /* set when the caller's pc came from the link register */
    /* Optional: the registered ranges. A SCAN step then also stops at a
     * return address into a CPython executor's code (the shim that called
     * the trace), not only into the scanned-for function. */
    const jitunwind_registry *registry;
};

/* The frame-record step shared by both architectures: the record at `fp`
 * holds {saved fp, return address}; the caller's sp is fp + 16. Checks that
 * fp is non-zero, 8-aligned and not below sp. */
JU_HIDDEN int ju_step_frame_record(struct ju_step *s, uint64_t fp);
/* The same for an FP_PRESERVING range: the caller's sp is fp + its
 * frame_size (16 when 0). */
JU_HIDDEN int ju_step_fp_preserving(struct ju_step *s, const struct ju_arch_facts *a,
                                    const struct jitunwind_range *r);
/* One state of a rule (rules.h) executed on s->in, with checked
 * arithmetic: a CFA or slot address that wraps is a BAD_FRAME; pc = lr
 * without an innermost frame's lr, or an sp-based state without sp, is
 * NEED_REGISTER; the frame record's checks are ju_step_frame_record's. */
JU_HIDDEN int ju_rule_exec(struct ju_step *s, const struct ju_rule_row *row);
/* A trampoline range's step (rule_exec.c): the state of its layout at the
 * pc's offset in its copy (the copy's head read from its code), or for a
 * caller frame the return point's. EUNSUPPORTED (BAD_FRAME) when `a` has
 * no layout of the rule; ECORRUPT (BAD_FRAME) for an innermost pc at no
 * instruction boundary of it. */
JU_HIDDEN int ju_step_trampoline(struct ju_step *s, const struct ju_arch_facts *a,
                                 const struct jitunwind_range *r);
/* Caller pc from [addr], sp' = new_sp, fp unchanged (x86-64 return address on
 * the stack outside any frame record). */
JU_HIDDEN int ju_step_return_address_at(struct ju_step *s, uint64_t addr, uint64_t new_sp);

/* Offset of `pc` inside its trampoline copy (ranges may hold copies at a
 * stride), and the copy's start. */
JU_HIDDEN uint64_t ju_trampoline_offset(const struct jitunwind_range *r, uint64_t pc,
                                        uint64_t *copy_start);

JU_HIDDEN int ju_x86_64_step_range(struct ju_step *s, const struct jitunwind_range *r);
JU_HIDDEN int ju_aarch64_step_range(struct ju_step *s, const struct jitunwind_range *r);

#endif
