/* The name a JIT frame is shown by, the same in the CLI and both debugger
 * plugins: its executor's code, where in the trace the pc is, and the line
 * of the uop there. */
#include <stdio.h>

#include "jitunwind/python.h"

JITUNWIND_API int jitunwind_py_jit_frame_name(const struct jitunwind_py_jit_pc *w, char *buf,
                                              size_t size)
{
    char label[96], place[JITUNWIND_PY_FILENAME_MAX + 16], who[JITUNWIND_PY_NAME_MAX + 32];
    int line;
    if (!w || !buf || !size)
        return JITUNWIND_EINVAL;
    if (w->ex.qualname[0])
        snprintf(who, sizeof who, "%s", w->ex.qualname);
    else
        snprintf(who, sizeof who, "<executor %#llx>", (unsigned long long)w->executor);
    jitunwind_py_jit_pc_label(w, label, sizeof label);
    /* In a uop, that uop's line (none when it has none: a uop of an inlined
     * callee, whose line is in another code object, is not given the
     * executor's first line); elsewhere the executor's first line. */
    line = w->region == JITUNWIND_JIT_REGION_UOP ? w->uop.line : w->ex.first_line;
    place[0] = '\0';
    if (w->ex.filename[0] && line > 0)
        snprintf(place, sizeof place, " (%s:%d)", w->ex.filename, line);
    else if (w->ex.filename[0])
        snprintf(place, sizeof place, " (%s)", w->ex.filename);
    return snprintf(buf, size, "py::jit:%s%s%s%s", who, label[0] ? " " : "", label, place);
}
