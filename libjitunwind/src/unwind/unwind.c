/* The cursor: one frame per step, by range rule, CFI or frame pointer, with
 * guards against loops and garbage. Never allocates. */
#include "base/arch_facts.h"
#include "ranges/registry_internal.h"
#include "unwind/arch/arch.h"
#include "unwind/cursor.h"
#include "internal.h"
#include "unwind/cfi.h"

#define SEEN_RING JU_CURSOR_SEEN

JITUNWIND_API int jitunwind_host_arch(void)
{
#if defined(__x86_64__)
    return JITUNWIND_ARCH_X86_64;
#elif defined(__aarch64__)
    return JITUNWIND_ARCH_AARCH64;
#else
    return 0;
#endif
}

JITUNWIND_API uint64_t jitunwind_lookup_address(int arch, uint64_t pc, int innermost)
{
    const struct ju_arch_facts *a = ju_arch_facts(arch);
    return a ? ju_arch_lookup_pc(a, pc, innermost) : pc;
}

JITUNWIND_API const char *jitunwind_stop_reason_string(int reason)
{
    switch (reason) {
    case JITUNWIND_STOP_NONE: return "not stopped";
    case JITUNWIND_STOP_END: return "end of stack";
    case JITUNWIND_STOP_UNREADABLE: return "unreadable memory";
    case JITUNWIND_STOP_LOOP: return "loop: a (pc, sp) pair repeated";
    case JITUNWIND_STOP_SP_ORDER: return "stack pointer went backwards";
    case JITUNWIND_STOP_DEPTH: return "depth limit reached";
    case JITUNWIND_STOP_NO_RULE: return "no unwind rule for this pc";
    case JITUNWIND_STOP_NEED_REGISTER: return "a needed register is not available";
    case JITUNWIND_STOP_BAD_FRAME: return "implausible frame";
    default: return "unknown stop reason";
    }
}

JITUNWIND_API const char *jitunwind_frame_source_string(int source)
{
    switch (source) {
    case JITUNWIND_SOURCE_INITIAL: return "initial";
    case JITUNWIND_SOURCE_RULE: return "rule";
    case JITUNWIND_SOURCE_FP: return "fp";
    case JITUNWIND_SOURCE_LR: return "lr";
    case JITUNWIND_SOURCE_CFI: return "cfi";
    default: return "unknown";
    }
}

static int arch_ok(int arch)
{
    return ju_arch_facts(arch) != NULL;
}

/* The rule of `range` applied to s->in (pc within the range), arch known. */
static int apply_rule(int arch, struct ju_step *s, const struct jitunwind_range *range)
{
    if (range->rule == JITUNWIND_RULE_FP_PRESERVING && !(s->in->valid & JITUNWIND_REG_FP)) {
        s->stop = JITUNWIND_STOP_NEED_REGISTER;
        return JITUNWIND_EINVAL;
    }
    return arch == JITUNWIND_ARCH_X86_64 ? ju_x86_64_step_range(s, range)
                                         : ju_aarch64_step_range(s, range);
}

/* Whether pc may be unwound by range's rule: inside it, or (a return
 * address) at its end, after a call ending the range. */
static int pc_fits(const struct jitunwind_range *range, uint64_t pc, int innermost)
{
    return pc >= range->start && (innermost ? pc < range->end : pc <= range->end);
}

JITUNWIND_API int jitunwind_step_range_in(int arch, const jitunwind_registry *registry,
                                          const struct jitunwind_range *range,
                                          const struct jitunwind_memory *mem,
                                          const struct jitunwind_regs *in, int innermost,
                                          struct jitunwind_regs *out, int *stop_reason)
{
    struct ju_step s = {mem, in, out, innermost, JITUNWIND_STOP_NONE, 0, registry};
    int rc;
    if (!range || !ju_memory_valid(mem) || !in || !out || !arch_ok(arch) || !(in->valid & JITUNWIND_REG_PC) ||
        !pc_fits(range, in->pc, innermost))
        return JITUNWIND_EINVAL;
    rc = apply_rule(arch, &s, range);
    if (stop_reason)
        *stop_reason = rc < 0 ? s.stop : JITUNWIND_STOP_NONE;
    return rc;
}

JITUNWIND_API int jitunwind_step_range(int arch, const struct jitunwind_range *range,
                                       const struct jitunwind_memory *mem,
                                       const struct jitunwind_regs *in, int innermost,
                                       struct jitunwind_regs *out, int *stop_reason)
{
    return jitunwind_step_range_in(arch, NULL, range, mem, in, innermost, out, stop_reason);
}

/* Outside registered ranges: the frame record at fp. Besides the record
 * checks (fp non-zero, 8-aligned, not below sp), AArch64 requires a
 * 16-aligned sp (the architecture faults on a misaligned sp), so any other
 * value is garbage. */
JITUNWIND_API int jitunwind_step_fp(int arch, const struct jitunwind_memory *mem,
                                    const struct jitunwind_regs *in,
                                    struct jitunwind_regs *out, int *stop_reason)
{
    struct ju_step s = {mem, in, out, 0, JITUNWIND_STOP_NONE, 0};
    int rc;
    if (!ju_memory_valid(mem) || !in || !out || !arch_ok(arch))
        return JITUNWIND_EINVAL;
    if (!(in->valid & JITUNWIND_REG_FP)) {
        s.stop = JITUNWIND_STOP_NEED_REGISTER;
        rc = JITUNWIND_EINVAL;
    } else if (ju_arch_facts(arch)->sp_align && (in->valid & JITUNWIND_REG_SP) &&
               in->sp % ju_arch_facts(arch)->sp_align != 0) {
        s.stop = JITUNWIND_STOP_BAD_FRAME;
        rc = JITUNWIND_ECORRUPT;
    } else {
        rc = ju_step_frame_record(&s, in->fp);
        if (rc == 0)
            out->pc = ju_arch_strip_pac(ju_arch_facts(arch), ju_memory_pac_mask(mem), out->pc);
    }
    if (stop_reason)
        *stop_reason = rc < 0 ? s.stop : JITUNWIND_STOP_NONE;
    return rc;
}

/* A trampoline copy is the architecture's landing pad (optional), then one
 * of its templates; or its branch-protected framed template. */
JITUNWIND_API int jitunwind_classify_trampoline(int arch, const uint8_t *code, size_t len)
{
    const struct ju_arch_facts *a = ju_arch_facts(arch);
    int head;
    uint32_t skip;
    if (!code || !a)
        return JITUNWIND_EINVAL;
    if ((head = ju_code_head(a, code, len)) == JU_COPY_PAC)
        return JITUNWIND_RULE_TRAMPOLINE_FRAMED;
    skip = ju_rule_head_len(a, head);
    code += skip;
    len -= skip;
    if (ju_code_starts_with(code, len, &a->trampoline_sub8))
        return JITUNWIND_RULE_TRAMPOLINE_SUB8;
    if (ju_code_starts_with(code, len, &a->trampoline_framed))
        return JITUNWIND_RULE_TRAMPOLINE_FRAMED;
    return JITUNWIND_ENOTFOUND;
}

JITUNWIND_API int jitunwind_cursor_init(struct jitunwind_cursor *cursor, int arch,
                                        const jitunwind_registry *registry,
                                        const struct jitunwind_memory *mem,
                                        const struct jitunwind_regs *initial,
                                        uint32_t max_depth, uint32_t flags)
{
    struct ju_cursor *c = cursor ? ju_cursor_of(cursor) : NULL;
    if (!c || !ju_memory_valid(mem) || !initial || !arch_ok(arch) ||
        (initial->valid & (JITUNWIND_REG_PC | JITUNWIND_REG_SP)) !=
            (JITUNWIND_REG_PC | JITUNWIND_REG_SP))
        return JITUNWIND_EINVAL;
    memset(cursor, 0, sizeof *cursor);
    c->arch = arch;
    c->flags = flags;
    c->max_depth = max_depth ? max_depth : JITUNWIND_DEFAULT_MAX_DEPTH;
    c->registry = registry;
    ju_memory_copy(&c->mem, mem);
    c->current.regs = *initial;
    c->current.source = JITUNWIND_SOURCE_INITIAL;
    c->current.depth = 0;
    c->depth = 0;
    c->stop_reason = JITUNWIND_STOP_NONE;
    return 0;
}

JITUNWIND_API void jitunwind_cursor_set_modules(struct jitunwind_cursor *cursor,
                                                struct jitunwind_modules *modules)
{
    if (cursor)
        ju_cursor_of(cursor)->modules = modules;
}

JITUNWIND_API int jitunwind_cursor_set_registers(struct jitunwind_cursor *cursor,
                                                 const struct jitunwind_dwarf_regs *regs)
{
    struct ju_cursor *c = cursor ? ju_cursor_of(cursor) : NULL;
    const struct ju_arch_facts *a = c ? ju_arch_facts(c->arch) : NULL;
    int regno, k;
    if (!a || !regs || c->started)
        return JITUNWIND_EINVAL;
    c->carried.valid = 0;
    for (regno = 0; regno < (int)JITUNWIND_DWARF_REGS; regno++) {
        if (!(regs->valid & (1ull << regno)) || (k = ju_carried_slot(a, regno)) < 0)
            continue;
        c->carried.value[k] = regs->value[regno];
        c->carried.valid |= 1u << k;
    }
    return 0;
}

JITUNWIND_API int jitunwind_cursor_stop_reason(const struct jitunwind_cursor *cursor)
{
    return cursor ? ju_cursor_of_const(cursor)->stop_reason : JITUNWIND_STOP_NONE;
}

static const struct jitunwind_range *range_for(const struct ju_cursor *c,
                                               uint64_t pc, int innermost)
{
    /* Every frame but the innermost has a return address as pc: it points
     * after the call, and a call that is the last instruction of a range
     * returns to range.end, outside it (and possibly inside the next range).
     * Looking it up inside the call instruction attributes it to the code
     * that made the call. The innermost pc is exact. */
    return c->registry ? ju_registry_lookup(
                             c->registry, ju_arch_lookup_pc(ju_arch_facts(c->arch), pc, innermost))
                       : NULL;
}

static int stop(struct ju_cursor *c, int reason)
{
    c->stop_reason = reason;
    return 0;
}

/* Compute the caller of c->current into *next, and its carried registers
 * into *carried (none after a step by a rule or by the frame pointer);
 * returns 0 or a stop reason. */
static int caller_of(struct ju_cursor *c, struct jitunwind_frame *next,
                     struct ju_carried *carried)
{
    const struct jitunwind_frame *cur = &c->current;
    int innermost = cur->depth == 0;
    int reason = JITUNWIND_STOP_NONE, rc;

    *next = (struct jitunwind_frame){0};
    carried->valid = 0;
    if (cur->range) { /* step_range without its checks: arch, mem and pc are the cursor's */
        struct ju_step s = {&c->mem, &cur->regs, &next->regs, innermost, JITUNWIND_STOP_NONE, 0,
                            c->registry};
        if (!pc_fits(cur->range, cur->regs.pc, innermost))
            return JITUNWIND_STOP_BAD_FRAME;
        if (apply_rule(c->arch, &s, cur->range) < 0)
            return s.stop ? s.stop : JITUNWIND_STOP_BAD_FRAME;
        next->source = s.used_lr ? JITUNWIND_SOURCE_LR : JITUNWIND_SOURCE_RULE;
        return JITUNWIND_STOP_NONE;
    }
    if (c->modules) {
        int used_lr = 0;
        rc = ju_step_cfi(c->arch, c->modules, &c->mem, &cur->regs, innermost, &next->regs,
                         &reason, &used_lr, &c->carried, carried);
        if (rc == 0 && reason == JITUNWIND_STOP_END)
            return JITUNWIND_STOP_END;
        if (rc == 0) {
            next->source = used_lr ? JITUNWIND_SOURCE_LR : JITUNWIND_SOURCE_CFI;
            return JITUNWIND_STOP_NONE;
        }
        if (rc != JITUNWIND_ENOTFOUND)
            return reason ? reason : JITUNWIND_STOP_BAD_FRAME;
    }
    if (c->flags & JITUNWIND_UNWIND_NO_FP_FALLBACK)
        return JITUNWIND_STOP_NO_RULE;
    rc = jitunwind_step_fp(c->arch, &c->mem, &cur->regs, &next->regs, &reason);
    if (rc < 0)
        return reason ? reason : JITUNWIND_STOP_BAD_FRAME;
    next->source = JITUNWIND_SOURCE_FP;
    return JITUNWIND_STOP_NONE;
}

static int seen_before(const struct ju_cursor *c, uint64_t pc, uint64_t sp)
{
    size_t i, n = c->depth + 1 < SEEN_RING ? c->depth + 1 : SEEN_RING;
    for (i = 0; i < n; i++)
        if (c->seen_pc[i] == pc && c->seen_sp[i] == sp)
            return 1;
    return 0;
}

JITUNWIND_API int jitunwind_cursor_step(struct jitunwind_cursor *cursor,
                                        struct jitunwind_frame *out)
{
    struct ju_cursor *c = cursor ? ju_cursor_of(cursor) : NULL;
    struct jitunwind_frame next;
    struct ju_carried carried;
    int reason;
    if (!c || !out)
        return JITUNWIND_EINVAL;
    if (c->stop_reason != JITUNWIND_STOP_NONE)
        return 0;
    if (!c->started) {
        c->started = 1;
        c->current.range = range_for(c, c->current.regs.pc, 1);
        c->seen_pc[0] = c->current.regs.pc;
        c->seen_sp[0] = c->current.regs.sp;
        *out = c->current;
        return 1;
    }
    if (c->depth + 1 >= c->max_depth)
        return stop(c, JITUNWIND_STOP_DEPTH);
    reason = caller_of(c, &next, &carried);
    if (reason != JITUNWIND_STOP_NONE)
        return stop(c, reason);
    if (next.regs.pc == 0)
        return stop(c, JITUNWIND_STOP_END);
    if (next.regs.sp < c->current.regs.sp)
        return stop(c, JITUNWIND_STOP_SP_ORDER);
    if (next.regs.sp == c->current.regs.sp) {
        /* Only a link-register step may keep sp, and only once in a row. */
        if (next.source != JITUNWIND_SOURCE_LR || c->equal_sp_steps > 0)
            return stop(c, JITUNWIND_STOP_SP_ORDER);
        c->equal_sp_steps = 1;
    } else {
        c->equal_sp_steps = 0;
    }
    if (seen_before(c, next.regs.pc, next.regs.sp))
        return stop(c, JITUNWIND_STOP_LOOP);
    c->depth++;
    next.depth = c->depth;
    next.range = range_for(c, next.regs.pc, 0);
    c->seen_pc[c->depth % SEEN_RING] = next.regs.pc;
    c->seen_sp[c->depth % SEEN_RING] = next.regs.sp;
    c->current = next;
    c->carried = carried;
    *out = next;
    return 1;
}

JITUNWIND_API int jitunwind_unwind(int arch, const jitunwind_registry *registry,
                                   struct jitunwind_modules *modules,
                                   const struct jitunwind_memory *mem,
                                   const struct jitunwind_regs *initial,
                                   struct jitunwind_frame *frames, size_t max,
                                   uint32_t flags, int *stop_reason)
{
    struct jitunwind_cursor c;
    size_t n = 0;
    int rc;
    if (!frames && max)
        return JITUNWIND_EINVAL;
    rc = jitunwind_cursor_init(&c, arch, registry, mem, initial,
                               max > UINT32_MAX ? UINT32_MAX : (uint32_t)max, flags);
    if (rc < 0)
        return rc;
    jitunwind_cursor_set_modules(&c, modules);
    while (n < max && (rc = jitunwind_cursor_step(&c, &frames[n])) == 1)
        n++;
    if (stop_reason)
        *stop_reason = n >= max ? JITUNWIND_STOP_DEPTH : jitunwind_cursor_stop_reason(&c);
    return rc < 0 ? rc : (int)(n > INT32_MAX ? INT32_MAX : n);
}
