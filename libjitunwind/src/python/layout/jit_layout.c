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

#include "python/layout/merge.h"
#include "python/pyreader.h"

void ju_py_jit_apply_dwarf(jitunwind_dwarf_types *types, struct ju_py_jit_layout *J,
                           struct jitunwind_py_dwarf_report *report)
{
    size_t i;
    memset(report, 0, sizeof *report);
    if (!J->known || !types)
        return;
    ju_strlcpy(report->source, jitunwind_dwarf_types_source(types), sizeof report->source);
    for (i = JU_PYF_MAIN_END; i < JU_PYF_JIT_END; i++) {
        const struct ju_py_field_desc *f = &ju_py_fields[i];
        size_t at = f->slot - offsetof(struct ju_py_layout, jit);
        char *slot = (char *)J + at;
        struct ju_py_jit_bits *b = f->kind == JU_PYK_BITS ? (struct ju_py_jit_bits *)slot : NULL;
        uint64_t value, have;
        enum ju_py_merge m;
        if (ju_py_dwarf_field(types, f, 0, &value) < 0)
            continue;
        if (b && b->width == 0)
            continue; /* the table says this version has no such flag */
        /* bit-fields are compared by bit position; only DWARF knows those
         * marked FROM_DWARF */
        have = !b                               ? *(uint32_t *)slot
               : b->offset == JU_PY_FROM_DWARF ? JU_PY_FROM_DWARF
                                                : (uint64_t)b->offset * 8 + b->bit;
        m = ju_py_merge_field(f, have, value, 0);
        if (m == JU_PY_MERGE_ADOPT && report->mismatches == 0)
            snprintf(report->first_mismatch, sizeof report->first_mismatch,
                     "%s.%s: table %llu, DWARF %llu%s", ju_py_holders[f->holder].type,
                     f->paths ? f->paths : "sizeof", (unsigned long long)have,
                     (unsigned long long)value, b ? " (bits)" : "");
        ju_py_merge_count(report, m);
        if (m == JU_PY_MERGE_SKIP || m == JU_PY_MERGE_AGREE)
            continue;
        if (b) {
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
