/* The _jitbed test-bed module: internal interfaces between its files. */
#ifndef JITBED_H
#define JITBED_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* jit.c: the copy-and-patch JIT. */
extern PyTypeObject JitbedExecutor_Type;
PyObject *jitbed_compile(PyObject *module, PyObject *callable);
PyObject *jitbed_regions(PyObject *module, PyObject *unused);

/* trampolines.c: perf-style trampolines behind a PEP 523 eval hook. */
PyObject *jitbed_enable_trampolines(PyObject *module, PyObject *layout);
PyObject *jitbed_set_trampoline_layout(PyObject *module, PyObject *layout);
PyObject *jitbed_disable_trampolines(PyObject *module, PyObject *unused);
PyObject *jitbed_perf_map_path(PyObject *module, PyObject *unused);
/* This architecture's two layout names: (other, "framed"); other is "sub8"
 * on x86-64, "pac" on AArch64. */
PyObject *jitbed_trampoline_layouts(void);

/* The debugger breakpoint target: a real, exported, never-inlined call. */
void jitbed_checkpoint(void);
void jitbed_wait_at_checkpoint(const char *file); /* JITBED_WAIT_AT_CHECKPOINT (module.c) */

#endif
