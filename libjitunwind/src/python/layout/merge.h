/* The one precedence by which a layout's sources are merged, for the
 * frame layout, the JIT view and the value layout alike. The order is
 * always: the version's table (versions.c), then the target's own
 * _Py_DebugOffsets (debug_offsets.c, 3.13+), then the build's DWARF
 * (dwarf_layout.c, jit_layout.c, value_layout.c), then settle (fields only
 * DWARF could give and did not become absent), then one check
 * (validate.h). This header owns what DWARF's value does at the third
 * step. */
#ifndef JITUNWIND_PY_MERGE_H
#define JITUNWIND_PY_MERGE_H

#include <stdint.h>

#include "jitunwind/python.h"
#include "python/layout/layout.h"

enum ju_py_merge {
    JU_PY_MERGE_SKIP,   /* the version has no such field: DWARF's value is not used */
    JU_PY_MERGE_DERIVE, /* taken from DWARF: a build-specific field, or one only DWARF knows */
    JU_PY_MERGE_AGREE,  /* compared: the same */
    JU_PY_MERGE_ADOPT,  /* compared, differs: DWARF's value replaces the table's */
    JU_PY_MERGE_STAND   /* compared, differs: the target's own debug offsets stand (a file
                         * on disk could belong to another build) */
};

/* What DWARF's value `dwarf` does to a field that has `have`, unless
 * `absent` (the version has no such field). `derive`: the caller's rule
 * says DWARF gives it outright (build-specific, or left to DWARF by the
 * table); `target_gave`: the value came from the target's own debug
 * offsets. */
static inline enum ju_py_merge ju_py_merge(int absent, uint64_t have, uint64_t dwarf,
                                           int derive, int target_gave)
{
    if (derive)
        return JU_PY_MERGE_DERIVE;
    if (absent)
        return JU_PY_MERGE_SKIP;
    if (have == dwarf)
        return JU_PY_MERGE_AGREE;
    return target_gave ? JU_PY_MERGE_STAND : JU_PY_MERGE_ADOPT;
}

/* The one rule for every field of every table: DWARF gives a field
 * outright when the table leaves it to DWARF, or when it is
 * build-specific and the target's own debug offsets did not give it;
 * otherwise the two are compared. `have`: the field's value (a bit-field's
 * in bits), JU_PY_NONE when the version has no such field. */
static inline enum ju_py_merge ju_py_merge_field(const struct ju_py_field_desc *f,
                                                 uint64_t have, uint64_t dwarf, int target_gave)
{
    int derive = have == JU_PY_FROM_DWARF || (f->kind == JU_PYK_BUILD && !target_gave);
    return ju_py_merge(have == JU_PY_NONE, have, dwarf, derive, target_gave);
}

/* Count verdict m in a report: checked, mismatches (the first named by
 * `first`, already formatted), adopted, derived. */
static inline void ju_py_merge_count(struct jitunwind_py_dwarf_report *report,
                                     enum ju_py_merge m)
{
    if (m == JU_PY_MERGE_DERIVE)
        report->derived++;
    if (m == JU_PY_MERGE_AGREE || m == JU_PY_MERGE_ADOPT || m == JU_PY_MERGE_STAND)
        report->checked++;
    if (m == JU_PY_MERGE_ADOPT || m == JU_PY_MERGE_STAND)
        report->mismatches++;
    if (m == JU_PY_MERGE_ADOPT)
        report->adopted++;
}

/* A table's own refusals beside the one rule, as hooks the pass calls
 * (the frame table's, dwarf_layout.c: an assumed layout read strictly, a
 * provisional debug-offsets list that DWARF contradicts, DWARF placing a
 * field past its own struct). Each returns 0 to go on, or a negative
 * status that ends the pass with it; a NULL hook is never called. */
struct ju_py_dwarf_policy {
    void *ctx;
    /* DWARF has no value for f (a copied size never has); slot: f's place
     * in the table */
    int (*missing)(void *ctx, const struct ju_py_field_desc *f, void *slot);
    /* DWARF gives `value` for f, before it is merged */
    int (*given)(void *ctx, const struct ju_py_field_desc *f, uint64_t value);
    /* f's verdict m, before it is applied; `difference` names a difference
     * as the report does (ju_py_dwarf_difference), "" when there is none */
    int (*verdict)(void *ctx, const struct ju_py_field_desc *f, enum ju_py_merge m,
                   const char *difference);
};

/* One table's DWARF pass: every field of `part` DWARF gives (by its row,
 * ju_py_dwarf_field) merged into `table` by ju_py_merge_field and counted
 * in `report`, the first difference named (ju_py_dwarf_difference). 0, or
 * the status of a policy hook that refused. */
struct ju_py_dwarf_pass {
    enum ju_py_part part;
    struct ju_py_table_build to; /* the table the part's fields are merged into */
    int target_wins; /* a field the target's debug offsets gave stands against DWARF */
    struct jitunwind_py_dwarf_report *report;
    const struct ju_py_dwarf_policy *policy; /* NULL: the one rule alone */
};
JU_HIDDEN int ju_py_dwarf_pass(jitunwind_dwarf_types *types, const struct ju_py_dwarf_pass *p);

/* The one wording of a difference between a table and DWARF, for every
 * table: "PyFloatObject.float_value: table 16, DWARF 24" (`from`: "table"
 * or "debug offsets"; `bits`: the values are bit positions, " (bits)"
 * follows). Frame and JIT fields are named by their member path, value
 * fields by their name. */
JU_HIDDEN void ju_py_dwarf_difference(char *out, size_t size, const char *type,
                                      const char *member, const char *from, uint64_t have,
                                      uint64_t dwarf, int bits);
/* Count verdict m in `report` (ju_py_merge_count), keeping `difference` as
 * its first mismatch when it is one. */
JU_HIDDEN void ju_py_dwarf_record(struct jitunwind_py_dwarf_report *report, enum ju_py_merge m,
                                  const char *difference);

#endif
