/* Native-frame unwinding from DWARF CFI (.eh_frame / .debug_frame) through
 * libdw, with a small bounded evaluator for the DWARF expressions CFI uses. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arch_facts.h"
#include "internal.h"
#include "unwind/cfi.h"
#include "unwind/cfi_row_cache.h"
#include "elf/modules_internal.h"
#include "unwind/arch/arch.h"
#include "jitunwind/native_variables.h"

#define EXPR_STACK 16   /* DWARF expression stack depth */
#define EXPR_STEPS 64   /* operations evaluated per expression (no loops allowed) */

static int reg_value(const struct ju_dwarf_eval *c, uint64_t regno, uint64_t *out)
{
    const struct jitunwind_regs *r = c->regs;
    int k;
    if ((int)regno == c->dr->dwarf_sp && (r->valid & JITUNWIND_REG_SP))
        *out = r->sp;
    else if ((int)regno == c->dr->dwarf_fp && (r->valid & JITUNWIND_REG_FP))
        *out = r->fp;
    else if ((int)regno == c->dr->dwarf_pc && (r->valid & JITUNWIND_REG_PC))
        *out = r->pc;
    else if ((int)regno == c->dr->dwarf_lr && (r->valid & JITUNWIND_REG_LR))
        *out = r->lr;
    else if (c->carried && regno < 64 && (k = ju_carried_slot(c->dr, (int)regno)) >= 0 &&
             (c->carried->valid & (1u << k)))
        *out = c->carried->value[k];
    else if (c->all && regno < JITUNWIND_DWARF_REGS && (c->all->valid & (1ull << regno)))
        *out = c->all->value[regno];
    else
        return JITUNWIND_EUNSUPPORTED;
    return 0;
}

static int eval(const struct ju_dwarf_eval *c, const Dwarf_Op *ops, size_t nops, uint64_t *result,
                int *is_value, int *stop)
{
    uint64_t st[EXPR_STACK];
    size_t sp = 0, i;
    *is_value = 0;
    if (nops > EXPR_STEPS) {
        *stop = JITUNWIND_STOP_BAD_FRAME;
        return JITUNWIND_ELIMIT;
    }
#define PUSH(v) do { if (sp >= EXPR_STACK) goto overflow; st[sp++] = (v); } while (0)
#define NEED(n) do { if (sp < (n)) goto underflow; } while (0)
    for (i = 0; i < nops; i++) {
        const Dwarf_Op *op = &ops[i];
        uint8_t a = op->atom;
        uint64_t v;
        if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
            PUSH((uint64_t)(a - DW_OP_lit0));
        } else if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
            if (reg_value(c, (uint64_t)(a - DW_OP_breg0), &v) < 0)
                goto need_reg;
            PUSH(v + op->number);
        } else if (a >= DW_OP_reg0 && a <= DW_OP_reg31 && c->locations) {
            if (reg_value(c, (uint64_t)(a - DW_OP_reg0), &v) < 0)
                goto need_reg;
            PUSH(v);
            *is_value = 1;
        } else {
            switch (a) {
            case DW_OP_regx:
                if (!c->locations)
                    goto bad;
                if (reg_value(c, op->number, &v) < 0)
                    goto need_reg;
                PUSH(v);
                *is_value = 1;
                break;
            case DW_OP_fbreg:
                if (!c->have_frame_base)
                    goto bad;
                PUSH(c->frame_base + op->number);
                break;
            case DW_OP_bregx:
                if (reg_value(c, op->number, &v) < 0)
                    goto need_reg;
                PUSH(v + op->number2);
                break;
            case DW_OP_call_frame_cfa:
                if (!c->have_cfa)
                    goto bad;
                PUSH(c->cfa);
                break;
            case DW_OP_addr: case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u:
            case DW_OP_const2s: case DW_OP_const4u: case DW_OP_const4s: case DW_OP_const8u:
            case DW_OP_const8s: case DW_OP_constu: case DW_OP_consts:
                PUSH(op->number);
                break;
            case DW_OP_plus_uconst: NEED(1); st[sp - 1] += op->number; break;
            case DW_OP_dup: NEED(1); v = st[sp - 1]; PUSH(v); break;
            case DW_OP_drop: NEED(1); sp--; break;
            case DW_OP_deref:
                NEED(1);
                if (ju_read_u64(c->mem, st[sp - 1], &st[sp - 1]) < 0) {
                    *stop = JITUNWIND_STOP_UNREADABLE;
                    return JITUNWIND_EREAD;
                }
                break;
#define BINOP(code, expr) case code: NEED(2); v = st[--sp]; st[sp - 1] = (expr); break;
            BINOP(DW_OP_plus, st[sp - 1] + v)
            BINOP(DW_OP_minus, st[sp - 1] - v)
            BINOP(DW_OP_mul, st[sp - 1] * v)
            BINOP(DW_OP_and, st[sp - 1] & v)
            BINOP(DW_OP_or, st[sp - 1] | v)
            BINOP(DW_OP_xor, st[sp - 1] ^ v)
            BINOP(DW_OP_shl, v >= 64 ? 0 : st[sp - 1] << v)
            BINOP(DW_OP_shr, v >= 64 ? 0 : st[sp - 1] >> v)
            BINOP(DW_OP_ge, (int64_t)st[sp - 1] >= (int64_t)v)
            BINOP(DW_OP_gt, (int64_t)st[sp - 1] > (int64_t)v)
            BINOP(DW_OP_le, (int64_t)st[sp - 1] <= (int64_t)v)
            BINOP(DW_OP_lt, (int64_t)st[sp - 1] < (int64_t)v)
            BINOP(DW_OP_eq, st[sp - 1] == v)
            BINOP(DW_OP_ne, st[sp - 1] != v)
#undef BINOP
            case DW_OP_neg: NEED(1); st[sp - 1] = (uint64_t)-(int64_t)st[sp - 1]; break;
            case DW_OP_not: NEED(1); st[sp - 1] = ~st[sp - 1]; break;
            case DW_OP_stack_value: *is_value = 1; break;
            case DW_OP_nop: break;
            default:
                goto bad;
            }
        }
    }
    NEED(1);
    *result = st[sp - 1];
    return 0;
#undef PUSH
#undef NEED
overflow:
underflow:
bad:
    *stop = JITUNWIND_STOP_BAD_FRAME;
    return JITUNWIND_ECORRUPT;
need_reg:
    *stop = JITUNWIND_STOP_NEED_REGISTER;
    return JITUNWIND_EUNSUPPORTED;
}

/* Register `regno`'s rule in FRAME's row into *rule, its operations in
 * `mem_ops` (3) or in the frame. */
static int rule_of(Dwarf_Frame *frame, int regno, Dwarf_Op *mem_ops, struct ju_cfi_rule *rule,
                   int *stop)
{
    Dwarf_Op *ops = NULL;
    size_t nops = 0;
    if (dwarf_frame_register(frame, regno, mem_ops, &ops, &nops) != 0) {
        *stop = JITUNWIND_STOP_BAD_FRAME;
        return JITUNWIND_ECORRUPT;
    }
    rule->kind = nops ? JU_RULE_OPS : ops == NULL ? JU_RULE_SAME : JU_RULE_UNDEFINED;
    rule->nops = nops;
    rule->ops = nops ? ops : NULL;
    return 0;
}

/* The caller's value of DWARF register `regno` by its rule. *defined = 0
 * when CFI says the register is undefined in the caller; *same (if not
 * NULL) = 1 when the caller's value is the register's current one ("same
 * value"). */
static int apply_rule(const struct ju_dwarf_eval *c, const struct ju_cfi_rule *rule, int regno,
                      uint64_t *out, int *defined, int *same, int *stop)
{
    uint64_t v;
    int is_value, rc;
    *defined = 1;
    if (same)
        *same = 0;
    if (rule->kind == JU_RULE_SAME) {
        if (same)
            *same = 1;
        return reg_value(c, (uint64_t)regno, out) < 0 ? (*defined = 0, 0) : 0;
    }
    if (rule->kind == JU_RULE_UNDEFINED) {
        *defined = 0;
        return 0;
    }
    rc = eval(c, rule->ops, rule->nops, &v, &is_value, stop);
    if (rc < 0)
        return rc;
    if (is_value) {
        *out = v;
        return 0;
    }
    /* A slot wholly below sp was popped (GCC's epilogues leave the save
     * rule in place after the pop): the register holds the caller's value
     * again. A perf sample's stack copy, which starts at sp, lacks it. */
    if ((c->regs->valid & JITUNWIND_REG_SP) && v <= c->regs->sp - 8 && v < c->regs->sp &&
        regno != c->dr->dwarf_ra && reg_value(c, (uint64_t)regno, out) == 0)
        return 0;
    if (ju_read_u64(c->mem, v, out) < 0) {
        *stop = JITUNWIND_STOP_UNREADABLE;
        return JITUNWIND_EREAD;
    }
    return 0;
}

/* apply_rule with the rule FRAME's row has for `regno`. */
static int caller_reg(const struct ju_dwarf_eval *c, Dwarf_Frame *frame, int regno,
                      uint64_t *out, int *defined, int *same, int *stop)
{
    Dwarf_Op mem_ops[3];
    struct ju_cfi_rule rule;
    int rc = rule_of(frame, regno, mem_ops, &rule, stop);
    return rc < 0 ? rc : apply_rule(c, &rule, regno, out, defined, same, stop);
}

static int frame_at(struct ju_module *m, uint64_t vaddr, Dwarf_Frame **frame)
{
    int pass;
    for (pass = 0; pass < 2; pass++) {
        Dwarf_CFI *cfi = ju_module_cfi(m, pass);
        if (cfi && dwarf_cfi_addrframe(cfi, vaddr, frame) == 0)
            return 0;
    }
    return JITUNWIND_ENOTFOUND;
}

static int cfa_into(struct ju_dwarf_eval *c, const struct ju_cfi_rule *cfa, int *stop)
{
    int is_value, rc;
    *stop = JITUNWIND_STOP_BAD_FRAME;
    if (cfa->kind != JU_RULE_OPS || cfa->nops == 0)
        return JITUNWIND_ECORRUPT;
    if ((rc = eval(c, cfa->ops, cfa->nops, &c->cfa, &is_value, stop)) < 0)
        return rc;
    c->have_cfa = 1;
    return 0;
}

/* Where FRAME's row puts the carried registers (cfi_row_cache.h). A save
 * slot is recognised as libdw writes an offset(N) rule: the CFA, plus N
 * unless 0; any other rule leaves the register not known. */
static void saves_of(const struct ju_arch_facts *dr, Dwarf_Frame *frame,
                     struct ju_cfi_saves *saves)
{
    uint64_t mask = ju_carried_mask(dr);
    int regno, k;
    memset(saves, 0, sizeof *saves);
    for (regno = 0; regno < 64; regno++) {
        Dwarf_Op mem_ops[3], *ops = NULL;
        size_t nops = 0;
        int64_t offset;
        if (!(mask & (1ull << regno)) || (k = ju_carried_slot(dr, regno)) < 0 ||
            dwarf_frame_register(frame, regno, mem_ops, &ops, &nops) != 0)
            continue;
        if (nops == 0) { /* same value, or undefined: kept (see jitunwind_step_cfi_registers) */
            saves->kept |= 1u << k;
            continue;
        }
        if (ops[0].atom != DW_OP_call_frame_cfa || nops > 2 ||
            (nops == 2 && ops[1].atom != DW_OP_plus_uconst))
            continue;
        offset = nops == 2 ? (int64_t)ops[1].number : 0;
        if (offset < INT32_MIN || offset > INT32_MAX)
            continue;
        saves->at_cfa |= 1u << k;
        saves->offset[k] = (int32_t)offset;
    }
}

/* The carried registers in the caller of C's frame (its CFA known), from
 * IN by SAVES. A slot wholly below sp was popped already (as apply_rule
 * reads it): the register holds the caller's value again. */
static void carry(const struct ju_dwarf_eval *c, const struct ju_cfi_saves *saves,
                  const struct ju_carried *in, struct ju_carried *out)
{
    int k;
    out->valid = 0;
    for (k = 0; k < JU_CARRIED_MAX; k++) {
        uint32_t bit = 1u << k;
        uint64_t at = c->cfa + (uint64_t)(int64_t)saves->offset[k];
        int popped = (c->regs->valid & JITUNWIND_REG_SP) && c->regs->sp >= 8 &&
                     at <= c->regs->sp - 8;
        if ((saves->kept & bit) || ((saves->at_cfa & bit) && popped)) {
            out->value[k] = in->value[k];
            out->valid |= in->valid & bit;
        } else if ((saves->at_cfa & bit) && ju_read_u64(c->mem, at, &out->value[k]) == 0) {
            out->valid |= bit;
        }
    }
}

/* The rules ju_step_cfi uses of the CFI row at C's pc into *ROW, and its
 * CFA into C: from the module set's row cache when the row was met before,
 * else from libdw (*FRAME, for the caller to free, holds what *ROW points
 * to) and then kept. ENOTFOUND (and *STOP untouched) when no module or FDE
 * covers the pc. */
static int row_rules(struct ju_dwarf_eval *c, jitunwind_modules *mods, int innermost,
                     struct ju_cfi_row *row, Dwarf_Op mem_ops[2][3], Dwarf_Frame **frame,
                     int *stop)
{
    uint64_t lookup = ju_arch_lookup_pc(c->dr, c->regs->pc, innermost);
    size_t index;
    struct ju_module *m = ju_modules_lookup_at(mods, lookup, &index);
    struct ju_cfi_row_cache *cache;
    Dwarf_Op *ops;
    size_t nops;
    int found, rc, rules, rule_stop = JITUNWIND_STOP_NONE;
    *frame = NULL;
    if (!m)
        return JITUNWIND_ENOTFOUND;
    cache = ju_modules_row_cache(mods);
    if (cache && ju_cfi_row_cache_get(cache, (uint32_t)index, lookup - m->bias, &found, row))
        return found ? cfa_into(c, &row->cfa, stop) : JITUNWIND_ENOTFOUND;
    if (frame_at(m, lookup - m->bias, frame) < 0) {
        if (cache)
            ju_cfi_row_cache_put(cache, (uint32_t)index, lookup - m->bias, 0, NULL);
        return JITUNWIND_ENOTFOUND;
    }
    *stop = JITUNWIND_STOP_BAD_FRAME;
    if (dwarf_frame_cfa(*frame, &ops, &nops) != 0 || nops == 0)
        return JITUNWIND_ECORRUPT;
    row->cfa.kind = JU_RULE_OPS;
    row->cfa.nops = nops;
    row->cfa.ops = ops;
    if ((rules = rule_of(*frame, c->dr->dwarf_ra, mem_ops[0], &row->ra, &rule_stop)) == 0)
        rules = rule_of(*frame, c->dr->dwarf_fp, mem_ops[1], &row->fp, &rule_stop);
    saves_of(c->dr, *frame, &row->saves);
    if (cache && rules == 0)
        ju_cfi_row_cache_put(cache, (uint32_t)index, lookup - m->bias, 1, row);
    if ((rc = cfa_into(c, &row->cfa, stop)) < 0)
        return rc; /* the CFA's failure first, as when the rules are read after it */
    if (rules < 0)
        *stop = rule_stop;
    return rules;
}

/* The CFI row of the frame at C's pc (*FRAME, for the caller to free) and
 * its CFA into C. ENOTFOUND (and *STOP untouched) when no module or FDE
 * covers the pc. */
static int row_and_cfa(struct ju_dwarf_eval *c, jitunwind_modules *mods, int innermost,
                       Dwarf_Frame **frame, int *stop)
{
    struct ju_cfi_rule cfa;
    Dwarf_Op *ops;
    size_t nops;
    uint64_t lookup = ju_arch_lookup_pc(c->dr, c->regs->pc, innermost);
    struct ju_module *m = ju_modules_lookup(mods, lookup);
    *frame = NULL;
    if (!m || frame_at(m, lookup - m->bias, frame) < 0)
        return JITUNWIND_ENOTFOUND;
    *stop = JITUNWIND_STOP_BAD_FRAME;
    if (dwarf_frame_cfa(*frame, &ops, &nops) != 0 || nops == 0)
        return JITUNWIND_ECORRUPT;
    cfa.kind = JU_RULE_OPS;
    cfa.nops = nops;
    cfa.ops = ops;
    return cfa_into(c, &cfa, stop);
}

int ju_dwarf_eval_ops(const struct ju_dwarf_eval *c, const Dwarf_Op *ops, size_t nops,
                      uint64_t *result, int *is_value)
{
    int stop = JITUNWIND_STOP_NONE;
    return eval(c, ops, nops, result, is_value, &stop);
}

JITUNWIND_API int jitunwind_step_cfi(int arch, jitunwind_modules *mods,
                                     const struct jitunwind_memory *mem,
                                     const struct jitunwind_regs *in, int innermost,
                                     struct jitunwind_regs *out, int *stop_reason)
{
    return ju_step_cfi(arch, mods, mem, in, innermost, out, stop_reason, NULL, NULL, NULL);
}

int ju_step_cfi(int arch, jitunwind_modules *mods, const struct jitunwind_memory *mem,
                const struct jitunwind_regs *in, int innermost, struct jitunwind_regs *out,
                int *stop_reason, int *used_lr, const struct ju_carried *carried_in,
                struct ju_carried *carried_out)
{
    struct ju_dwarf_eval c = {0};
    struct ju_cfi_row row;
    Dwarf_Op mem_ops[2][3];
    Dwarf_Frame *frame = NULL;
    uint64_t value;
    int stop = JITUNWIND_STOP_NONE, defined, ra_same, rc;

    if (stop_reason)
        *stop_reason = JITUNWIND_STOP_NONE;
    if (!mods || !ju_memory_valid(mem) || !in || !out || !(in->valid & JITUNWIND_REG_PC))
        return JITUNWIND_EINVAL;
    if (!(c.dr = ju_arch_facts(arch)))
        return JITUNWIND_EUNSUPPORTED;
    c.regs = in;
    c.carried = carried_in && carried_in->valid ? carried_in : NULL;
    c.mem = mem;
    if (carried_out)
        carried_out->valid = 0;
    if ((rc = row_rules(&c, mods, innermost, &row, mem_ops, &frame, &stop)) < 0)
        goto done;

    *out = (struct jitunwind_regs){0};
    if (used_lr)
        *used_lr = 0;
    rc = apply_rule(&c, &row.ra, c.dr->dwarf_ra, &value, &defined, &ra_same, &stop);
    if (rc < 0)
        goto done;
    if (!defined) { /* the outermost frame (e.g. _start) marks its RA undefined */
        rc = JITUNWIND_OK;
        stop = JITUNWIND_STOP_END;
        out->pc = 0;
        out->valid = JITUNWIND_REG_PC;
        goto done;
    }
    /* A pac-ret function's saved x30 carries a pointer-authentication code. */
    out->pc = ju_arch_strip_pac(c.dr, ju_memory_pac_mask(mem), value);
    out->sp = c.cfa;
    out->valid = JITUNWIND_REG_PC | JITUNWIND_REG_SP;
    /* The return-address column is the link register and still holds the
     * caller's pc (a function before it saved x30): the caller may share
     * this frame's sp, as with the range rules' link-register steps. */
    if (used_lr)
        *used_lr = ra_same && c.dr->dwarf_ra == c.dr->dwarf_lr;
    rc = apply_rule(&c, &row.fp, c.dr->dwarf_fp, &value, &defined, NULL, &stop);
    if (rc < 0)
        goto done;
    if (defined) {
        out->fp = value;
        out->valid |= JITUNWIND_REG_FP;
    }
    if (c.carried && carried_out)
        carry(&c, &row.saves, c.carried, carried_out);
    stop = JITUNWIND_STOP_NONE;
    rc = 0;
done:
    free(frame);
    if (stop_reason)
        *stop_reason = stop;
    return rc;
}

/* The view of IN as the walk's registers: pc, sp, fp and lr. */
static struct jitunwind_regs walk_regs(const struct ju_arch_facts *dr,
                                       const struct jitunwind_dwarf_regs *in)
{
    struct jitunwind_regs r = {0};
    r.pc = in->pc;
    r.valid = JITUNWIND_REG_PC;
    r.sp = in->value[dr->dwarf_sp];
    r.valid |= JITUNWIND_REG_SP;
    if (in->valid & (1ull << dr->dwarf_fp)) {
        r.fp = in->value[dr->dwarf_fp];
        r.valid |= JITUNWIND_REG_FP;
    }
    if (dr->dwarf_lr >= 0 && (in->valid & (1ull << dr->dwarf_lr))) {
        r.lr = in->value[dr->dwarf_lr];
        r.valid |= JITUNWIND_REG_LR;
    }
    return r;
}

JITUNWIND_API int jitunwind_step_cfi_registers(int arch, jitunwind_modules *mods,
                                               const struct jitunwind_memory *mem,
                                               const struct jitunwind_dwarf_regs *in,
                                               int innermost, struct jitunwind_dwarf_regs *out)
{
    struct ju_dwarf_eval c = {0};
    struct jitunwind_regs regs;
    Dwarf_Frame *frame = NULL;
    uint64_t value, saved;
    int stop = JITUNWIND_STOP_NONE, defined, rc, n;

    if (!mods || !ju_memory_valid(mem) || !in || !out)
        return JITUNWIND_EINVAL;
    if (!(c.dr = ju_arch_facts(arch)))
        return JITUNWIND_EUNSUPPORTED;
    if (!(in->valid & (1ull << c.dr->dwarf_sp)))
        return JITUNWIND_EINVAL;
    regs = walk_regs(c.dr, in);
    c.regs = &regs;
    c.all = in;
    c.mem = mem;
    if ((rc = row_and_cfa(&c, mods, innermost, &frame, &stop)) < 0)
        goto done;
    *out = (struct jitunwind_dwarf_regs){0};
    if ((rc = caller_reg(&c, frame, c.dr->dwarf_ra, &value, &defined, NULL, &stop)) < 0)
        goto done;
    if (!defined) { /* the outermost frame (e.g. _start) marks its RA undefined */
        rc = JITUNWIND_ENOTFOUND;
        goto done;
    }
    out->pc = ju_arch_strip_pac(c.dr, ju_memory_pac_mask(mem), value);
    out->value[c.dr->dwarf_sp] = c.cfa;
    out->valid = 1ull << c.dr->dwarf_sp;
    saved = c.dr->dwarf_callee_saved;
    for (n = 0; n < (int)JITUNWIND_DWARF_REGS; n++) {
        if (!(saved & (1ull << n)))
            continue;
        /* A register CFI does not name keeps its value across the call.
         * "Undefined" is read as that too: no compiler marks a register
         * the ABI preserves undefined, but libdw's x86-64 defaults leave
         * rbx without a same-value rule (elfutils 0.188). */
        if (caller_reg(&c, frame, n, &value, &defined, NULL, &stop) < 0)
            continue;
        if (!defined) {
            if (!(in->valid & (1ull << n)))
                continue;
            value = in->value[n];
        }
        out->value[n] = value;
        out->valid |= 1ull << n;
    }
    rc = 0;
done:
    free(frame);
    return rc;
}
