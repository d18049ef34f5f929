/* The one DWARF pass the layouts share (merge.h): the value of a field by
 * its row, found by the first of its member paths (dwarf_paths.h), its bit
 * offset for bit-fields, or its holder's size; each merged into its table
 * by the one rule, counted, and a difference named in one wording. */
#include <stdio.h>

#include "dwarf/dwarf_paths.h"
#include "python/layout/merge.h"

int ju_py_dwarf_field(jitunwind_dwarf_types *types, const struct ju_py_field_desc *f,
                      uint32_t base, uint64_t *value)
{
    if (f->kind == JU_PYK_COPY ||
        ju_dwarf_first_path(types, ju_py_holders[f->holder].type,
                            f->kind == JU_PYK_SIZE_OF ? NULL : f->paths, f->kind == JU_PYK_BITS,
                            value) < 0 ||
        *value < base || *value >= JU_PY_NONE)
        return JITUNWIND_ENOTFOUND;
    *value -= base;
    return 0;
}

void ju_py_dwarf_difference(char *out, size_t size, const char *type, const char *member,
                            const char *from, uint64_t have, uint64_t dwarf, int bits)
{
    snprintf(out, size, "%s.%s: %s %llu, DWARF %llu%s", type, member, from,
             (unsigned long long)have, (unsigned long long)dwarf, bits ? " (bits)" : "");
}

void ju_py_dwarf_record(struct jitunwind_py_dwarf_report *report, enum ju_py_merge m,
                        const char *difference)
{
    if ((m == JU_PY_MERGE_ADOPT || m == JU_PY_MERGE_STAND) && report->mismatches == 0)
        ju_strlcpy(report->first_mismatch, difference, sizeof report->first_mismatch);
    ju_py_merge_count(report, m);
}

int ju_py_dwarf_pass(jitunwind_dwarf_types *types, const struct ju_py_dwarf_pass *p)
{
    const struct ju_py_dwarf_policy *pol = p->policy;
    size_t i, first = ju_py_parts[p->part].first;
    int rc;
    for (i = first; i < ju_py_parts[p->part].end; i++) {
        const struct ju_py_field_desc *f = &ju_py_fields[i];
        char *slot = (char *)p->to.table + f->slot;
        struct ju_py_jit_bits *b = f->kind == JU_PYK_BITS ? (struct ju_py_jit_bits *)slot : NULL;
        uint8_t *source = p->to.source ? &p->to.source[i - first] : NULL;
        uint32_t base = ju_py_holders[f->holder].object ? p->to.header : 0, word;
        int target_gave = p->target_wins && source && (*source & JU_PY_SRC_DEBUG_OFFSETS);
        char difference[sizeof p->report->first_mismatch] = "";
        uint64_t value, have;
        enum ju_py_merge m;
        if (ju_py_dwarf_field(types, f, base, &value) < 0) {
            if (f->kind != JU_PYK_COPY && pol && pol->missing &&
                (rc = pol->missing(pol->ctx, f, slot)) < 0)
                return rc;
            continue;
        }
        if (pol && pol->given && (rc = pol->given(pol->ctx, f, value)) < 0)
            return rc;
        if (b && b->width == 0)
            continue; /* the table says this version has no such flag */
        /* bit-fields are compared by bit position; only DWARF knows those
         * marked FROM_DWARF */
        memcpy(&word, slot, sizeof word);
        have = !b                               ? word
               : b->offset == JU_PY_FROM_DWARF ? JU_PY_FROM_DWARF
                                                : (uint64_t)b->offset * 8 + b->bit;
        m = ju_py_merge_field(f, have, value, target_gave);
        if (m == JU_PY_MERGE_SKIP)
            continue; /* a member this version's decoder does not use */
        if (source)
            *source |= JU_PY_SRC_DWARF;
        if (m == JU_PY_MERGE_ADOPT || m == JU_PY_MERGE_STAND)
            ju_py_dwarf_difference(difference, sizeof difference, ju_py_holders[f->holder].type,
                                   p->part == JU_PYP_VALUES ? f->name
                                   : f->paths               ? f->paths
                                                            : "sizeof",
                                   source && (*source & JU_PY_SRC_DEBUG_OFFSETS) ? "debug offsets"
                                                                                 : "table",
                                   have + base, value + base, b != NULL);
        ju_py_dwarf_record(p->report, m, difference);
        if (pol && pol->verdict && (rc = pol->verdict(pol->ctx, f, m, difference)) < 0)
            return rc;
        if (m != JU_PY_MERGE_DERIVE && m != JU_PY_MERGE_ADOPT)
            continue;
        if (b) {
            b->offset = (uint32_t)(value / 8);
            b->bit = (uint8_t)(value % 8);
        } else {
            word = (uint32_t)value;
            memcpy(slot, &word, sizeof word);
        }
    }
    return 0;
}
