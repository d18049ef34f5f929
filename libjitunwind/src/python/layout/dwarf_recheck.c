/* A layout cache entry is well formed and this user's (dwarf_answers.h),
 * but that proves no answer in it right: a hand-edited or otherwise wrong
 * entry would give wrong names and lines without an error. The table is
 * what the reader knows independently of the entry, so an answer that
 * contradicts it (or that the checks refuse) is reason enough to ask the
 * DWARF again; the entry is dropped when the DWARF says otherwise, and the
 * layout made afresh. A build whose DWARF really differs from the table
 * pays for opening its DWARF on each run; the answers stay the same. */
#include "python/pyreader.h"
#include "dwarf/dwarf_answers.h"

int ju_py_apply_dwarf_rechecked(jitunwind_pyreader *r, jitunwind_dwarf_types *types,
                                struct ju_py_layout *L, struct jitunwind_py_dwarf_report *report)
{
    const struct ju_py_layout table = *L;
    const struct jitunwind_py_dwarf_report before = *report;
    const unsigned confirmed = r->debug_offsets_confirmed;
    int rc = ju_py_apply_dwarf(r, types, L, report);
    if ((rc < 0 || report->mismatches > 0) && ju_dwarf_types_recheck(types) == 1) {
        *L = table;
        *report = before;
        r->debug_offsets_confirmed = confirmed;
        rc = ju_py_apply_dwarf(r, types, L, report);
    }
    return rc;
}
