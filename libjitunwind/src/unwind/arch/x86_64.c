/* x86-64 rules. The trampoline layouts are data (rules.c): a copy's state
 * at its pc's offset is executed; an innermost pc that is not at an
 * instruction boundary of the template (or lies in the padding after it)
 * is a BAD_FRAME: the range does not hold what it claims. Whether a copy
 * starts with endbr64 is read from its first bytes; an unreadable head is
 * taken as none.
 *
 * Only the innermost frame can be stopped at any instruction. Every other
 * frame's pc is a return address, which points just after a call: in a
 * trampoline that is always the return point (the callee is still running),
 * whatever offset the pc seems to have. So non-innermost frames use the
 * return point's state unconditionally; this also makes a return address
 * that equals range.end (a call ending the range) unwind correctly. */
#include "base/arch_facts.h"
#include "unwind/arch/arch.h"

/* endbr64 is the architecture table's. */
static const struct ju_code_bytes *endbr64(void)
{
    return &ju_arch_facts(JITUNWIND_ARCH_X86_64)->landing_pad;
}

/* Is there a call instruction ending just before `ra`? e8 rel32; ff /2 with
 * a register (2-3 bytes), [reg+disp8] (3-4), or rip/[reg+disp32] (6-7). */
static int after_call(const struct jitunwind_memory *mem, uint64_t ra)
{
    uint8_t b[8];
    if (ra < 8 || ju_read(mem, ra - 8, b, sizeof b) < 0)
        return 0;
    if (b[3] == 0xe8)
        return 1;
    if (b[6] == 0xff && (b[7] & 0xf8) == 0xd0)
        return 1;
    if (b[5] == 0xff && (b[6] & 0x38) == 0x10 && (b[6] & 0xc0) == 0x40)
        return 1;
    if (b[2] == 0xff && (b[3] & 0x38) == 0x10 && ((b[3] & 0xc0) == 0x80 || (b[3] & 0xc7) == 0x05))
        return 1;
    return 0;
}

/* The fixed size of the frame below the frame pointer of a function whose
 * code at `fn` starts `[endbr64] push %rbp; mov %rsp,%rbp; push <reg>...;
 * [sub $imm,%rsp]`: at its call sites (with no stack arguments), rbp = sp
 * after the call returns + this. 0 when the prologue is not of that shape. */
static uint64_t fp_frame_extent(const struct jitunwind_memory *mem, uint64_t fn)
{
    uint8_t c[40];
    size_t i = 0;
    uint64_t extent = 0;
    if (fn == 0 || ju_read(mem, fn, c, sizeof c) < 0)
        return 0;
    if (ju_code_starts_with(c, sizeof c, endbr64()))
        i += endbr64()->len;
    if (c[i] != 0x55 || c[i + 1] != 0x48 || c[i + 2] != 0x89 || c[i + 3] != 0xe5)
        return 0;
    i += 4;
    while (i + 2 < sizeof c - 7) {
        if (c[i] >= 0x50 && c[i] <= 0x57) { /* push %rax..%rdi */
            extent += 8;
            i += 1;
        } else if (c[i] == 0x41 && c[i + 1] >= 0x50 && c[i + 1] <= 0x57) { /* push %r8..%r15 */
            extent += 8;
            i += 2;
        } else {
            break;
        }
    }
    if (c[i] == 0x48 && c[i + 1] == 0x83 && c[i + 2] == 0xec) /* sub $imm8,%rsp */
        extent += c[i + 3];
    else if (c[i] == 0x48 && c[i + 1] == 0x81 && c[i + 2] == 0xec) /* sub $imm32,%rsp */
        extent += ju_load_u32(c + i + 3);
    return extent;
}

/* The caller's frame pointer when the scanned-for caller (the function at
 * scan_start) keeps a fixed frame below its rbp and the code in between
 * clobbered rbp: rbp = the caller's sp + extent (+ 8 or 16 when it pushed
 * stack arguments or padding), accepted only if the word above it is a
 * return address. 0 when not found. */
static uint64_t recover_caller_fp(const struct ju_step *s, const struct jitunwind_range *r,
                                  uint64_t caller_sp)
{
    uint64_t extent = fp_frame_extent(s->mem, r->scan_start), extra, ra;
    if (extent == 0 || extent > JITUNWIND_SCAN_BYTES * 16)
        return 0;
    for (extra = 0; extra <= 16; extra += 8) {
        uint64_t fp = caller_sp + extent + extra;
        if (ju_read_u64(s->mem, fp + 8, &ra) == 0 && ra != 0 && after_call(s->mem, ra))
            return fp;
    }
    return 0;
}

#define SHIM_MAX 256 /* bytes: where an executor's shim may call its trace */

/* A return address into the shim of a CPython executor (see ju_step): in
 * its first SHIM_MAX bytes, after a `call rel32` to code of the same
 * executor (the side entry). Stencils call helpers outside the executor
 * (absolute or indirect calls), so their stale return addresses above
 * the stack pointer do not qualify. */
static int into_executor_shim(const struct ju_step *s, const struct jitunwind_range *r,
                              uint64_t w)
{
    const struct jitunwind_range *to;
    uint8_t call[5];
    uint64_t target;
    if (!s->registry || r->kind != JITUNWIND_KIND_JIT || r->origin != JITUNWIND_ORIGIN_INTERPRETER)
        return 0;
    to = jitunwind_registry_lookup(s->registry, w - 1);
    if (!to || to->kind != JITUNWIND_KIND_JIT || to->origin != JITUNWIND_ORIGIN_INTERPRETER ||
        to->rule != JITUNWIND_RULE_SCAN || w - to->start > SHIM_MAX ||
        ju_read(s->mem, w - 5, call, sizeof call) < 0 || call[0] != 0xe8)
        return 0;
    target = w + (uint64_t)(int64_t)(int32_t)ju_load_u32(call + 1);
    return target >= w && target < to->end;
}

static int step_scan(struct ju_step *s, const struct jitunwind_range *r)
{
    uint64_t words[JITUNWIND_SCAN_BYTES / 8], sp = s->in->sp;
    size_t i, n = JITUNWIND_SCAN_BYTES / 8;
    if (!(s->in->valid & JITUNWIND_REG_SP) || (sp & 7)) {
        s->stop = JITUNWIND_STOP_NEED_REGISTER;
        return JITUNWIND_EINVAL;
    }
    /* Read as much of the window as is mapped (the stack may end sooner). */
    while (n > 0 && ju_read(s->mem, sp, words, n * 8) < 0)
        n /= 2;
    for (i = 0; i < n; i++) {
        int to_scanned = words[i] >= r->scan_start && words[i] < r->scan_end;
        if ((to_scanned || into_executor_shim(s, r, words[i])) && after_call(s->mem, words[i])) {
            uint64_t fp;
            *s->out = (struct jitunwind_regs){0};
            s->out->pc = words[i];
            s->out->sp = sp + 8 * (uint64_t)i + 8;
            fp = to_scanned ? recover_caller_fp(s, r, s->out->sp) : 0;
            s->out->fp = fp ? fp : s->in->fp;
            s->out->valid = JITUNWIND_REG_PC | JITUNWIND_REG_SP |
                            (fp ? JITUNWIND_REG_FP : (s->in->valid & JITUNWIND_REG_FP));
            return 0;
        }
    }
    s->stop = n ? JITUNWIND_STOP_BAD_FRAME : JITUNWIND_STOP_UNREADABLE;
    return n ? JITUNWIND_ENOTFOUND : JITUNWIND_EREAD;
}

/* Frame pointer or scan, whichever finds the nearer caller: code that keeps
 * the frame pointer has a frame record whose caller lies below any return
 * address into the scanned-for function; code that clobbered it leaves
 * either no valid record or one that skips that function's frame. A record
 * counts only if its return address follows a call. */
static int step_fp_or_scan(struct ju_step *s, const struct jitunwind_range *r)
{
    struct jitunwind_regs by_record = {0};
    int have_record = (s->in->valid & JITUNWIND_REG_FP) &&
                      ju_step_frame_record(s, s->in->fp) == 0 && s->out->pc != 0 &&
                      after_call(s->mem, s->out->pc);
    int rc;
    if (have_record)
        by_record = *s->out;
    s->stop = JITUNWIND_STOP_NONE;
    rc = step_scan(s, r);
    if (rc == 0 && (!have_record || s->out->sp < by_record.sp))
        return 0;
    if (!have_record)
        return rc;
    *s->out = by_record;
    s->stop = JITUNWIND_STOP_NONE;
    return 0;
}

int ju_x86_64_step_range(struct ju_step *s, const struct jitunwind_range *r)
{
    if (r->rule == JITUNWIND_RULE_FP_PRESERVING)
        return ju_step_fp_preserving(s, ju_arch_facts(JITUNWIND_ARCH_X86_64), r);
    if (r->rule == JITUNWIND_RULE_SCAN)
        return step_fp_or_scan(s, r);
    if (!(s->in->valid & JITUNWIND_REG_SP)) {
        s->stop = JITUNWIND_STOP_NEED_REGISTER;
        return JITUNWIND_EINVAL;
    }
    return ju_step_trampoline(s, ju_arch_facts(JITUNWIND_ARCH_X86_64), r);
}
