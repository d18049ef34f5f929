/* The trampoline layouts (rules.h). The templates are CPython's
 * Python/asm_trampoline.S, whose bytes are the architecture table's:
 *   x86-64 SUB8:    0 sub $8,%rsp | 4 call *%rcx | 6 add $8,%rsp | 10 ret
 *   x86-64 FRAMED:  0 push %rbp | 1 mov %rsp,%rbp | 4 call *%rcx | 6 pop %rbp
 *                   | 7 ret
 *   AArch64 FRAMED: 0 stp x29,x30,[sp,#-16]! | 4 mov x29,sp | 8 blr x3
 *                   | 12 ldp x29,x30,[sp],#16 | 16 ret
 *   AArch64 branch-protected: 0 paciasp | 4 stp | 8 mov | 12 blr | 16 ldp
 *                   | 20 autiasp | 24 ret (x30 holds the caller, signed,
 *                   before stp and after ldp)
 * x86-64 CET builds (3.14+, briefly 3.13.x with SUB8) and AArch64 BTI
 * builds put a landing pad (endbr64, `bti c`) before the template. */
#include "unwind/arch/rules.h"

#define W 8 /* word size */
#define BIT(i) (1u << (i))

/* The states, each with its formula (rules.h). */
#define RA_AT_SP(at) {at, 0, W, -W, 0} /* nothing pushed (or popped again): pc = [sp], sp + 8 */
#define RA_ABOVE_PAD(at)                                                                           \
    {at, 0, 2 * W, -W, 0} /* 8-byte pad below the return address: pc = [sp + 8], sp + 16 */
#define RECORD_AT_SP(at)                                                                           \
    {at, 0, 2 * W, -W, -2 * W} /* the record at sp: pc = [sp + 8], fp = [sp], sp + 16 */
#define RECORD_AT_FP(at)                                                                           \
    {at, 1, 2 * W, -W, -2 * W} /* the record at fp: pc = [fp + 8], fp = [fp], fp + 16 */
#define IN_LR(at) {at, 0, 0, 0, 0} /* pc = lr, sp and fp unchanged */

static const struct ju_rule_layout LAYOUTS[] = {
    {.arch = JITUNWIND_ARCH_X86_64, .rule = JITUNWIND_RULE_TRAMPOLINE_SUB8,
     /* `call *%rcx` and `add` count as a whole: every byte in [4, 10) */
     .innermost_at = BIT(0) | BIT(4) | BIT(5) | BIT(6) | BIT(7) | BIT(8) | BIT(9) | BIT(10),
     .return_point = 6,
     .nrows = 3,
     .rows = {RA_AT_SP(0), RA_ABOVE_PAD(4), RA_AT_SP(10)}},
    {.arch = JITUNWIND_ARCH_X86_64, .rule = JITUNWIND_RULE_TRAMPOLINE_FRAMED,
     .innermost_at = BIT(0) | BIT(1) | BIT(4) | BIT(6) | BIT(7),
     .return_point = 6,
     .nrows = 4,
     .rows = {RA_AT_SP(0), RECORD_AT_SP(1), RECORD_AT_FP(4), RA_AT_SP(7)}},
    {.arch = JITUNWIND_ARCH_AARCH64, .rule = JITUNWIND_RULE_TRAMPOLINE_FRAMED,
     .innermost_at = BIT(0) | BIT(4) | BIT(8) | BIT(12) | BIT(16),
     .return_point = 12,
     .nrows = 4,
     .rows = {IN_LR(0), RECORD_AT_SP(4), RECORD_AT_FP(8), IN_LR(16)}},
    {.arch = JITUNWIND_ARCH_AARCH64, .rule = JITUNWIND_RULE_TRAMPOLINE_FRAMED, .pac = 1,
     .innermost_at = BIT(0) | BIT(4) | BIT(8) | BIT(12) | BIT(16) | BIT(20) | BIT(24),
     .return_point = 16,
     .nrows = 4,
     .rows = {IN_LR(0), RECORD_AT_SP(8), RECORD_AT_FP(12), IN_LR(20)}},
};

const struct ju_rule_layout *ju_rule_layout(int arch, uint32_t rule, int head)
{
    size_t i;
    for (i = 0; i < sizeof LAYOUTS / sizeof LAYOUTS[0]; i++)
        if (LAYOUTS[i].arch == arch && LAYOUTS[i].rule == rule &&
            LAYOUTS[i].pac == (head == JU_COPY_PAC))
            return &LAYOUTS[i];
    return NULL;
}

const struct ju_code_bytes *ju_rule_template(const struct ju_rule_layout *l)
{
    const struct ju_arch_facts *a = ju_arch_facts(l->arch);
    if (l->pac)
        return &a->trampoline_framed_pac;
    return l->rule == JITUNWIND_RULE_TRAMPOLINE_SUB8 ? &a->trampoline_sub8 : &a->trampoline_framed;
}

uint32_t ju_rule_head_len(const struct ju_arch_facts *a, int head)
{
    return head == JU_COPY_LANDING_PAD ? a->landing_pad.len : 0;
}

int ju_code_head(const struct ju_arch_facts *a, const uint8_t *code, size_t len)
{
    if (ju_code_starts_with(code, len, &a->trampoline_framed_pac))
        return JU_COPY_PAC;
    if (ju_code_starts_with(code, len, &a->landing_pad))
        return JU_COPY_LANDING_PAD;
    return JU_COPY_PLAIN;
}

int ju_copy_head(const struct ju_arch_facts *a, const struct jitunwind_memory *mem, uint64_t copy)
{
    uint8_t head[JU_MAX_TEMPLATE];
    const struct ju_code_bytes *pac = &a->trampoline_framed_pac, *pad = &a->landing_pad;
    if (!mem)
        return JU_COPY_PLAIN;
    /* the longest head that can be read: a copy may end a mapping early */
    if (pac->len && ju_read(mem, copy, head, pac->len) == 0)
        return ju_code_head(a, head, pac->len);
    if (pad->len && ju_read(mem, copy, head, pad->len) == 0)
        return ju_code_head(a, head, pad->len);
    return JU_COPY_PLAIN;
}

uint32_t ju_rule_copy_len(const struct ju_arch_facts *a, const struct ju_rule_layout *l, int head)
{
    return ju_rule_head_len(a, head) + ju_rule_template(l)->len;
}

static const struct ju_rule_row *row_at(const struct ju_rule_layout *l, uint64_t t)
{
    uint32_t i = l->nrows - 1;
    while (i > 0 && l->rows[i].at > t)
        i--;
    return &l->rows[i];
}

const struct ju_rule_row *ju_rule_state(const struct ju_rule_layout *l, uint32_t head_len,
                                        uint64_t off)
{
    uint64_t t;
    if (off < head_len)
        return off == 0 ? &l->rows[0] : NULL;
    t = off - head_len;
    if (t >= ju_rule_template(l)->len || !(l->innermost_at & BIT(t)))
        return NULL;
    return row_at(l, t);
}

const struct ju_rule_row *ju_rule_return_state(const struct ju_rule_layout *l)
{
    return row_at(l, l->return_point);
}

struct ju_rule_row ju_rule_fp_preserving(const struct ju_arch_facts *a, uint32_t frame_size)
{
    uint32_t size = frame_size ? frame_size : a->frame_record_size;
    struct ju_rule_row r = {0, 1, size, -(int32_t)size + W, -(int32_t)size};
    return r;
}
