/* A native frame's variable by name, from its module's DWARF and the
 * frame's registers (see jitunwind_native_variable). */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <string.h>

#include "base/arch_facts.h"
#include "elf/modules_internal.h"
#include "internal.h"
#include "jitunwind/native_variables.h"
#include "unwind/cfi.h"

#define MAX_CHILDREN 65536u /* DIEs looked at in one scope (a unit holds thousands) */
#define MAX_DEPTH 64       /* nested scopes followed at one pc */

/* The DIE of the variable or parameter NAME directly in SCOPE, or -1. */
static int find_in_scope(Dwarf_Die *scope, const char *name, Dwarf_Die *out)
{
    Dwarf_Die child;
    unsigned seen = 0;
    if (dwarf_child(scope, &child) != 0)
        return -1;
    do {
        int tag = dwarf_tag(&child);
        const char *n;
        if ((tag == DW_TAG_formal_parameter || tag == DW_TAG_variable) &&
            (n = dwarf_diename(&child)) != NULL && strcmp(n, name) == 0 &&
            dwarf_hasattr(&child, DW_AT_location)) {
            *out = child;
            return 0;
        }
    } while (++seen < MAX_CHILDREN && dwarf_siblingof(&child, &child) == 0);
    return -1;
}

/* Evaluate the location attribute ATTR at VADDR into *VALUE: a register
 * location or a computed value as is, a memory location read. */
static int evaluate(struct ju_dwarf_eval *c, Dwarf_Attribute *attr, uint64_t vaddr,
                    uint64_t *value)
{
    Dwarf_Op *ops;
    size_t nops;
    uint64_t result;
    int is_value, rc;
    if (dwarf_getlocation_addr(attr, vaddr, &ops, &nops, 1) != 1 || nops == 0)
        return JITUNWIND_ENOTFOUND;
    rc = ju_dwarf_eval_ops(c, ops, nops, &result, &is_value);
    if (rc == JITUNWIND_EREAD)
        return rc;
    if (rc < 0)
        return JITUNWIND_EUNSUPPORTED;
    if (is_value) {
        *value = result;
        return 0;
    }
    return ju_read_u64(c->mem, result, value) < 0 ? JITUNWIND_EREAD : 0;
}

/* The frame base of SUBPROGRAM at VADDR into C (DW_OP_call_frame_cfa, or
 * a register's value); without one a DW_OP_fbreg location is refused. */
static void frame_base(struct ju_dwarf_eval *c, Dwarf_Die *subprogram, uint64_t vaddr)
{
    Dwarf_Attribute attr;
    Dwarf_Op *ops;
    size_t nops;
    uint64_t base;
    int is_value;
    if (!dwarf_attr(subprogram, DW_AT_frame_base, &attr) ||
        dwarf_getlocation_addr(&attr, vaddr, &ops, &nops, 1) != 1 || nops == 0 ||
        ju_dwarf_eval_ops(c, ops, nops, &base, &is_value) < 0)
        return;
    c->frame_base = base;
    c->have_frame_base = 1;
}

/* Into SCOPES (outermost first, at most MAX_DEPTH) the chain of DIEs
 * containing VADDR below the unit CU: the concrete function, then each
 * lexical block and inlined call inside it. libdw's dwarf_getscopes gives
 * none for a function whose abstract origin is in another unit (an LTO
 * build's), so the chain is followed here. Returns its length. */
static int scope_chain(Dwarf_Die *cu, uint64_t vaddr, Dwarf_Die *scopes)
{
    Dwarf_Die *parent = cu, child;
    int depth = 0;
    while (depth < MAX_DEPTH && dwarf_child(parent, &child) == 0) {
        unsigned seen = 0;
        int found = 0;
        do {
            int tag = dwarf_tag(&child);
            if ((tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
                 tag == DW_TAG_lexical_block) && dwarf_haspc(&child, vaddr) == 1) {
                found = 1;
                break;
            }
        } while (++seen < MAX_CHILDREN && dwarf_siblingof(&child, &child) == 0);
        if (!found)
            break;
        scopes[depth] = child;
        parent = &scopes[depth++];
    }
    return depth;
}

JITUNWIND_API int jitunwind_native_variable(int arch, jitunwind_modules *mods,
                                            const struct jitunwind_memory *mem,
                                            const struct jitunwind_dwarf_regs *regs,
                                            int innermost, uint64_t cfa, const char *name,
                                            uint64_t *value)
{
    struct ju_dwarf_eval c = {0};
    struct jitunwind_regs none = {0};
    struct ju_module *m;
    Dwarf *dw;
    Dwarf_Die cu, scopes[MAX_DEPTH], found;
    Dwarf_Attribute attr;
    uint64_t lookup, vaddr;
    int depth, i;
    if (!mods || !ju_memory_valid(mem) || !regs || !name || !value)
        return JITUNWIND_EINVAL;
    if (!(c.dr = ju_arch_facts(arch)))
        return JITUNWIND_EUNSUPPORTED;
    lookup = ju_arch_lookup_pc(c.dr, regs->pc, innermost);
    if (!(m = ju_modules_lookup(mods, lookup)) || !(dw = ju_module_debug_info(m)))
        return JITUNWIND_ENOTFOUND;
    vaddr = lookup - m->bias;
    if (dwarf_addrdie(dw, vaddr, &cu) == NULL || (depth = scope_chain(&cu, vaddr, scopes)) == 0 ||
        dwarf_tag(&scopes[0]) != DW_TAG_subprogram)
        return JITUNWIND_ENOTFOUND;
    c.regs = &none; /* every register from `all` */
    c.all = regs;
    c.mem = mem;
    c.cfa = cfa;
    c.have_cfa = 1;
    c.locations = 1;
    frame_base(&c, &scopes[0], vaddr);
    for (i = depth - 1; i >= 0; i--) /* the innermost scope first */
        if (find_in_scope(&scopes[i], name, &found) == 0 &&
            dwarf_attr(&found, DW_AT_location, &attr))
            return evaluate(&c, &attr, vaddr, value);
    return JITUNWIND_ENOTFOUND;
}
