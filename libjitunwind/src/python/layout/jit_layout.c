/* The JIT view's layout (struct ju_py_jit_layout) checked against, and
 * completed from, the interpreter's DWARF: the executor, its trace entries
 * (_PyUOpInstruction: its size differs between versions and Py_STATS
 * builds), its exits and the stencil table's element. No debug offset
 * describes these, so DWARF wins every disagreement with the table; a
 * field the build's DWARF lacks keeps the table's value. Fields a table
 * marks JU_PY_FROM_DWARF (3.15: every one) are taken from DWARF alone;
 * one DWARF lacks stays so, and ju_py_layout_settle then takes the view
 * away, naming it. Bit widths are
 * the table's (only positions are compared). The result, whatever its
 * source, is held to ju_py_jit_layout_check before the view reads with it. */
#include <stdio.h>

#include "python/pyreader.h"

enum jit_field_kind { MEMBER, SIZE_OF, BITS };

struct jit_field {
    const char *type;
    const char *paths; /* '|' between alternatives (3.13 `operand`, 3.14 `operand0`) */
    uint8_t kind;
    size_t slot;       /* offsetof(struct ju_py_jit_layout, ...) */
};

#define M(type, paths, field) {type, paths, MEMBER, offsetof(struct ju_py_jit_layout, field)}
#define S(type, field) {type, NULL, SIZE_OF, offsetof(struct ju_py_jit_layout, field)}
#define B(type, paths, field) {type, paths, BITS, offsetof(struct ju_py_jit_layout, field)}

static const struct jit_field JIT_FIELDS[] = {
    M("_PyExecutorObject", "trace", ex_trace),
    M("_PyExecutorObject", "exit_count", ex_exit_count),
    M("_PyExecutorObject", "code_size", ex_code_size),
    M("_PyExecutorObject", "jit_side_entry", ex_side_entry),
    M("_PyExecutorObject", "exits", ex_exits),
    M("_PyExecutorObject", "vm_data.opcode", vm_opcode),
    M("_PyExecutorObject", "vm_data.oparg", vm_oparg),
    M("_PyExecutorObject", "vm_data.index", vm_index),
    B("_PyExecutorObject", "vm_data.valid", vm_valid),
    B("_PyExecutorObject", "vm_data.linked", vm_linked),
    B("_PyExecutorObject", "vm_data.chain_depth", vm_chain_depth),
    B("_PyExecutorObject", "vm_data.warm", vm_warm),
    S("_PyUOpInstruction", uop_size),
    M("_PyUOpInstruction", "oparg", uop_oparg),
    M("_PyUOpInstruction", "target", uop_target),
    M("_PyUOpInstruction", "operand0|operand", uop_operand0),
    M("_PyUOpInstruction", "operand1", uop_operand1),
    S("_PyExitData", exit_size),
    M("_PyExitData", "target", exit_target),
    M("_PyExitData", "executor", exit_executor),
    S("StencilGroup", stencil_size),
    M("StencilGroup", "code_size|code.body_size", stencil_code_size),
};

/* The first path of `paths` the type has: 0 and *value in bytes (bits for
 * BITS), or ENOTFOUND. */
static int lookup(jitunwind_dwarf_types *types, const struct jit_field *f, uint64_t *value)
{
    return ju_py_dwarf_lookup(types, f->type, f->kind == SIZE_OF ? NULL : f->paths,
                              f->kind == BITS, value);
}

void ju_py_jit_apply_dwarf(jitunwind_dwarf_types *types, struct ju_py_jit_layout *J,
                           struct ju_py_jit_report *report)
{
    size_t i;
    memset(report, 0, sizeof *report);
    if (!J->known || !types)
        return;
    for (i = 0; i < sizeof JIT_FIELDS / sizeof JIT_FIELDS[0]; i++) {
        const struct jit_field *f = &JIT_FIELDS[i];
        char *slot = (char *)J + f->slot;
        uint64_t value, have;
        if (lookup(types, f, &value) < 0 || value >= JU_PY_NONE)
            continue;
        if (f->kind == BITS) {
            struct ju_py_jit_bits *b = (struct ju_py_jit_bits *)slot;
            if (b->width == 0)
                continue; /* the table says this version has no such flag */
            if (b->offset == JU_PY_FROM_DWARF) { /* only DWARF knows: taken, not compared */
                b->offset = (uint32_t)(value / 8);
                b->bit = (uint8_t)(value % 8);
                report->derived++;
                continue;
            }
            have = (uint64_t)b->offset * 8 + b->bit;
        } else {
            have = *(uint32_t *)slot;
            if (have == JU_PY_NONE)
                continue;
            if (have == JU_PY_FROM_DWARF) {
                *(uint32_t *)slot = (uint32_t)value;
                report->derived++;
                continue;
            }
        }
        report->checked++;
        if (have == value)
            continue;
        if (report->adopted++ == 0)
            snprintf(report->first, sizeof report->first, "%s.%s: table %llu, DWARF %llu%s",
                     f->type, f->paths ? f->paths : "sizeof", (unsigned long long)have,
                     (unsigned long long)value, f->kind == BITS ? " (bits)" : "");
        if (f->kind == BITS) {
            struct ju_py_jit_bits *b = (struct ju_py_jit_bits *)slot;
            b->offset = (uint32_t)(value / 8);
            b->bit = (uint8_t)(value % 8);
        } else {
            *(uint32_t *)slot = (uint32_t)value;
        }
    }
}

int ju_py_jit_layout_check(const struct ju_py_layout *L, char *why, size_t size)
{
    static const enum ju_py_field_id strides[] = {JU_PYF_jit_uop_size, JU_PYF_jit_exit_size};
    static const enum ju_py_field_id flags[] = {JU_PYF_jit_vm_valid, JU_PYF_jit_vm_linked,
                                                JU_PYF_jit_vm_chain_depth, JU_PYF_jit_vm_warm};
    const struct ju_py_jit_layout *J = &L->jit;
    size_t i;
    int rc;
    if (!J->known)
        return 0;
    if ((rc = ju_py_fields_check(L, JU_PYF_MAIN_END, JU_PYF_COUNT, why, size)) < 0)
        return rc;
    for (i = 0; i < sizeof strides / sizeof strides[0]; i++)
        if (ju_py_offset(L, strides[i]) == JU_PY_NONE) {
            snprintf(why, size, "%s: no %s, the stride of the JIT view's arrays", L->name,
                     ju_py_fields[strides[i]].name);
            return JITUNWIND_ECORRUPT;
        }
    if (J->uop_size < 2) {
        snprintf(why, size, "%s: uop_size %u leaves no room for _PyUOpInstruction's opcode",
                 L->name, J->uop_size);
        return JITUNWIND_ECORRUPT;
    }
    for (i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        const struct ju_py_jit_bits *b =
            (const struct ju_py_jit_bits *)((const char *)L + ju_py_fields[flags[i]].slot);
        if (b->width && (b->width > 8 || b->bit + b->width > 32)) {
            snprintf(why, size, "%s: _PyExecutorObject.%s (%u bits from bit %u) is not a flag "
                     "of the 32-bit word read", L->name, ju_py_fields[flags[i]].name, b->width,
                     b->bit);
            return JITUNWIND_ECORRUPT;
        }
    }
    return 0;
}
