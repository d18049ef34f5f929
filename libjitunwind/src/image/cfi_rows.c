/* The unwinder's range rules (unwind/arch/) written as CFI rows. Offsets
 * count from the start of one copy; `base` is the landing pad's length
 * when the copy has one. The instruction boundaries are those of the
 * architecture table's trampoline templates:
 *   x86-64 SUB8:   sub $8,%rsp (4) | call *%rcx (2) | add $8,%rsp (4) | ret (1)
 *   x86-64 FRAMED: push %rbp (1) | mov %rsp,%rbp (3) | call *%rcx (2) | pop %rbp (1)
 *                  | ret (1)
 *   AArch64 FRAMED: stp | mov x29,sp | blr x3 | ldp | ret (4 bytes each); its
 *                  branch-protected form puts paciasp first (like a landing
 *                  pad: x30 still holds the caller, signed) and autiasp
 *                  before ret (x30 restored, as at ret)
 * A caller frame's pc is the return point after the call; debuggers look
 * its CFI up one byte lower, inside the call, whose row is the return
 * point's rule: the unwinder's "not innermost" case. */
#include "image/image_internal.h"

#define W 8 /* word size */

static struct ju_cfi_row row(uint32_t at, int on_fp, uint32_t cfa, int32_t ra_at, int32_t fp_at)
{
    struct ju_cfi_row r = {at, (uint8_t)on_fp, 0, cfa, ra_at, fp_at};
    return r;
}

static void add(struct ju_cfi_plan *p, struct ju_cfi_row r)
{
    p->rows[p->nrows++] = r;
}

/* caller pc = [fp + W], caller fp = [fp], caller sp = fp + size. */
static void fp_preserving(const struct ju_arch_facts *a, uint32_t frame_size,
                          struct ju_cfi_plan *p)
{
    uint32_t size = frame_size ? frame_size : a->frame_record_size;
    p->len = 0;
    add(p, row(0, 1, size, -(int32_t)size + W, -(int32_t)size));
}

static void x86_64_sub8(const struct ju_arch_facts *a, uint32_t base, struct ju_cfi_plan *p)
{
    p->len = base + a->trampoline_sub8.len;
    add(p, row(0, 0, W, -W, 0));             /* entry: only the return address */
    add(p, row(base + 4, 0, 2 * W, -W, 0));  /* after sub: the 8-byte pad below it */
    add(p, row(base + 10, 0, W, -W, 0));     /* after add, at ret */
}

static void x86_64_framed(const struct ju_arch_facts *a, uint32_t base, struct ju_cfi_plan *p)
{
    p->len = base + a->trampoline_framed.len;
    add(p, row(0, 0, W, -W, 0));                 /* entry, at push */
    add(p, row(base + 1, 0, 2 * W, -W, -2 * W)); /* rbp pushed, at mov */
    add(p, row(base + 4, 1, 2 * W, -W, -2 * W)); /* the frame record, at call and pop */
    add(p, row(base + 7, 0, W, -W, 0));          /* rbp restored, at ret */
}

static void aarch64_framed(const struct ju_arch_facts *a, uint32_t base, int pac,
                           struct ju_cfi_plan *p)
{
    p->len = pac ? a->trampoline_framed_pac.len : base + a->trampoline_framed.len;
    add(p, row(0, 0, 0, 0, 0));                   /* before stp: x30 holds the caller */
    add(p, row(base + 4, 0, 2 * W, -W, -2 * W));  /* the record at sp, at mov */
    add(p, row(base + 8, 1, 2 * W, -W, -2 * W));  /* the record at x29, at blr and ldp */
    add(p, row(base + 16, 0, 0, 0, 0));           /* x29, x30 restored, at (autiasp,) ret */
}

int ju_cfi_plan_for(const struct ju_arch_facts *a, uint32_t rule, uint32_t frame_size,
                    int head, struct ju_cfi_plan *out)
{
    uint32_t base = head == JU_COPY_LANDING_PAD ? a->landing_pad.len
                    : head == JU_COPY_PAC      ? a->insn_align
                                               : 0;
    *out = (struct ju_cfi_plan){0};
    if (rule == JITUNWIND_RULE_FP_PRESERVING) {
        fp_preserving(a, frame_size, out);
        return 0;
    }
    if (a->arch == JITUNWIND_ARCH_X86_64 && rule == JITUNWIND_RULE_TRAMPOLINE_SUB8) {
        x86_64_sub8(a, base, out);
        return 0;
    }
    if (a->arch == JITUNWIND_ARCH_X86_64 && rule == JITUNWIND_RULE_TRAMPOLINE_FRAMED) {
        x86_64_framed(a, base, out);
        return 0;
    }
    if (a->arch == JITUNWIND_ARCH_AARCH64 && rule == JITUNWIND_RULE_TRAMPOLINE_FRAMED) {
        aarch64_framed(a, base, head == JU_COPY_PAC, out);
        return 0;
    }
    return JITUNWIND_EUNSUPPORTED;
}
