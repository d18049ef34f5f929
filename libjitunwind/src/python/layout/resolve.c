/* The one resolver of a reader's layouts: the frame layout, its JIT view
 * and the value layout, each merged from the same sources in the same
 * order (merge.h): the version's table, the target's own _Py_DebugOffsets,
 * the build's DWARF, then settle and one check. runtime.c calls the steps
 * as their sources become available: the target when the reader opens,
 * DWARF when the interpreter's file is read. */
#include <stdio.h>

#include "python/pyreader.h"

int ju_py_resolve_target(jitunwind_pyreader *r)
{
    int rc;
    memset(r->frame_source, JU_PY_SRC_TABLE, sizeof r->frame_source);
    if (r->assumed || !ju_py_debug_offsets_supported(r->version_hex)) {
        ju_py_values_start(&r->values, r->layout, r->version_hex);
        return 0;
    }
    r->from_target = *r->layout;
    if ((rc = ju_py_apply_debug_offsets(r, &r->from_target)) < 0)
        return rc; /* it starts the value layout too */
    r->layout = &r->from_target;
    return 0;
}

int ju_py_resolve_dwarf(jitunwind_pyreader *r, jitunwind_dwarf_types *types)
{
    int rc;
    if (r->layout != &r->from_target) {
        r->from_target = *r->layout;
        r->layout = &r->from_target;
    }
    ju_strlcpy(r->report.frames.source, jitunwind_dwarf_types_source(types),
               sizeof r->report.frames.source);
    rc = ju_py_apply_dwarf_rechecked(r, types, &r->from_target, &r->report.frames);
    ju_py_values_apply_dwarf(&r->values, r->layout, types,
                             !r->assumed && ju_py_debug_offsets_confirmed(r->version_hex),
                             &r->report.values);
    ju_py_jit_apply_dwarf(types, &r->from_target.jit, &r->report.jit);
    return rc;
}

int ju_py_resolve_finish(jitunwind_pyreader *r, const char *module)
{
    int provisional = ju_py_debug_offsets_supported(r->version_hex) &&
                      !ju_py_debug_offsets_confirmed(r->version_hex);
    if (r->assumed && !r->report.frames.source[0])
        return ju_fail(&r->err, JITUNWIND_EVERSION, 0,
                       "%s: no DWARF found for %s", r->layout->name, module);
    if (!r->assumed && provisional && r->debug_offsets_confirmed == 0) {
        /* ju_py_resolve_dwarf has refused any disagreement; here there was
         * nothing to compare. */
        char release[32];
        ju_py_release_name(r->version_hex, release, sizeof release);
        return ju_fail(&r->err, JITUNWIND_EVERSION, 0,
                       "CPython %s: its _Py_DebugOffsets field list is provisional (a pre-release, "
                       "or a version still in development) and is used only when the "
                       "interpreter's DWARF confirms it; no DWARF describing it was found%s%s",
                       release, module && *module ? " for " : "", module ? module : "");
    }
    {
        /* Fields only DWARF could give and did not are absent from here on;
         * the first of each part is named when its feature is asked for. */
        struct ju_py_layout settled = *r->layout;
        if (ju_py_layout_settle(&settled, r->report.executors_missing, r->report.jit_missing,
                                sizeof r->report.executors_missing) > 0) {
            r->from_target = settled;
            r->layout = &r->from_target;
        }
    }
    {
        /* The one check of the finished layout (table, debug offsets, DWARF):
         * the decoders read no field it has not passed. */
        char why[JITUNWIND_ERROR_MESSAGE_MAX];
        char release[32];
        if (ju_py_layout_check(r->layout, why, sizeof why) < 0)
            return ju_fail(&r->err, JITUNWIND_ECORRUPT, r->runtime, "%s", why);
        /* The value layout's own check: failing it costs the values only
         * (ju_py_objects_init reports it), not the stacks. */
        ju_py_release_name(r->version_hex, release, sizeof release);
        ju_py_values_finish(&r->values, r->layout, release);
    }
    return 0;
}
