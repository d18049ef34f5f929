/* The _jitbed module: a CPython 3.11 test bed that reproduces CPython
 * 3.12-3.15's JIT executors and perf trampolines with real machine code. */
#include <time.h>
#include <unistd.h>

#include "jitbed.h"

/* JITBED_ABORT_AT_CHECKPOINT=1 makes the checkpoint abort, so a system (or
 * qemu-user) core of the whole stack is written without a debugger. */
__attribute__((noinline, visibility("default"))) void jitbed_checkpoint(void)
{
    __asm__ volatile("" ::: "memory");
    if (getenv("JITBED_ABORT_AT_CHECKPOINT"))
        abort();
}

/* JITBED_WAIT_AT_CHECKPOINT=FILE makes checkpoint() wait here (sleeping)
 * instead of calling jitbed_checkpoint, while FILE exists: a tool that is
 * not a debugger (the jitunwind command) can then look at the whole stack.
 * FILE.ready says the stack is in place; removing FILE lets the demo go on. */
__attribute__((noinline, visibility("default"))) void jitbed_wait_at_checkpoint(const char *file)
{
    FILE *ready;
    char ready_path[4096];
    snprintf(ready_path, sizeof ready_path, "%s.ready", file);
    if ((ready = fopen(ready_path, "w")))
        fclose(ready);
    while (access(file, F_OK) == 0) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

static PyObject *checkpoint(PyObject *module, PyObject *unused)
{
    const char *wait_file = getenv("JITBED_WAIT_AT_CHECKPOINT");
    (void)module;
    (void)unused;
    if (wait_file)
        jitbed_wait_at_checkpoint(wait_file);
    else
        jitbed_checkpoint();
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"compile", jitbed_compile, METH_O,
     "compile(callable) -> Executor: JIT code that calls `callable` through a C helper."},
    {"regions", jitbed_regions, METH_NOARGS,
     "regions() -> [(start, size, name)] as published in jitunwind_jit_descriptor."},
    {"enable_trampolines", jitbed_enable_trampolines, METH_O,
     "enable_trampolines(layout): route every Python frame through a perf trampoline."},
    {"set_trampoline_layout", jitbed_set_trampoline_layout, METH_O,
     "set_trampoline_layout(name) for code objects that get a trampoline later; names in "
     "TRAMPOLINE_LAYOUTS."},
    {"disable_trampolines", jitbed_disable_trampolines, METH_NOARGS, "Remove the eval hook."},
    {"perf_map_path", jitbed_perf_map_path, METH_NOARGS, "Path of this process's perf map."},
    {"checkpoint", checkpoint, METH_NOARGS, "Call jitbed_checkpoint() (a breakpoint target)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_jitbed", "libjitunwind's JIT and trampoline test bed.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__jitbed(void);
PyMODINIT_FUNC PyInit__jitbed(void)
{
    PyObject *m, *layouts;
    if (PyType_Ready(&JitbedExecutor_Type) < 0)
        return NULL;
    m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    layouts = jitbed_trampoline_layouts();
    if (PyModule_AddObjectRef(m, "Executor", (PyObject *)&JitbedExecutor_Type) < 0 || !layouts ||
        PyModule_AddObjectRef(m, "TRAMPOLINE_LAYOUTS", layouts) < 0) {
        Py_XDECREF(layouts);
        Py_DECREF(m);
        return NULL;
    }
    Py_DECREF(layouts);
    return m;
}
