/* The JIT view's layout (struct ju_py_jit_layout) checked against, and
 * completed from, the interpreter's DWARF by the one pass over its rows
 * (ju_py_dwarf_pass): the executor, its trace entries
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

#include "python/layout/merge.h"
#include "python/pyreader.h"

void ju_py_jit_apply_dwarf(jitunwind_dwarf_types *types, struct ju_py_jit_layout *J,
                           struct jitunwind_py_dwarf_report *report)
{
    /* the JIT rows' slots are in the frame layout that holds J */
    struct ju_py_dwarf_pass pass = {
        JU_PYP_JIT, {(char *)J - offsetof(struct ju_py_layout, jit), 0, NULL}, 0, report, NULL};
    memset(report, 0, sizeof *report);
    if (!J->known || !types)
        return;
    ju_strlcpy(report->source, jitunwind_dwarf_types_source(types), sizeof report->source);
    ju_py_dwarf_pass(types, &pass);
}

int ju_py_jit_layout_check(const struct ju_py_layout *L, char *why, size_t size)
{
    static const enum ju_py_field_id strides[] = {JU_PYF_jit_uop_size, JU_PYF_jit_exit_size};
    static const enum ju_py_field_id flags[] = {JU_PYF_jit_vm_valid, JU_PYF_jit_vm_linked,
                                                JU_PYF_jit_vm_chain_depth, JU_PYF_jit_vm_warm};
    const struct ju_py_jit_layout *J = &L->jit;
    size_t i;
    int rc;
    const struct ju_py_table_view t = {L->name, L, L->holder_size, 0, NULL};
    if (!J->known)
        return 0;
    if ((rc = ju_py_fields_check(&t, JU_PYP_JIT, why, size)) < 0)
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
