/* Perf-style trampolines, as CPython 3.12+ makes them (Python/perf_trampoline.c):
 * a PEP 523 eval hook calls the eval loop through a per-code-object copy of a
 * tiny template. Copies live in 64 KiB arenas (mmap RW, filled with copies at
 * a fixed stride, then made R+X); each new trampoline gets a line in
 * /tmp/perf-PID.map. Trampolines are not registered with libjitunwind: a
 * debugger finds them through the perf map, as it must for CPython. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define Py_BUILD_CORE_MODULE 1
#include "jitbed.h"
#include "internal/pycore_frame.h"

/* The test bed builds against 3.11 (CMake) and, for the LLDB image tests, the
 * extended matrix's 3.12 and 3.13 (tests/support/testbed_for.py): 3.13 names
 * the frame's code object f_executable. */
#if PY_VERSION_HEX >= 0x030d0000
#define FRAME_CODE(frame) ((PyCodeObject *)(frame)->f_executable)
#else
#define FRAME_CODE(frame) ((frame)->f_code)
#endif

#define ARENA_SIZE (64 * 1024)

/* Each architecture's two template layouts (trampoline.S, trampoline_aarch64.S):
 * "framed" on both, and the other one, "sub8" (CPython 3.12/3.13 on x86-64) or
 * "pac" (AArch64: CPython's branch-protected build). The stride is CPython's round_up(template size, 16). */
#if defined(__aarch64__)
#define OTHER_LAYOUT "pac"
#define OTHER_START jitbed_trampoline_pac_start
#define OTHER_END jitbed_trampoline_pac_end
#define STRIDE 32
#else
#define OTHER_LAYOUT "sub8"
#define OTHER_START jitbed_trampoline_sub8_start
#define OTHER_END jitbed_trampoline_sub8_end
#define STRIDE 16
#endif

extern const char OTHER_START[], OTHER_END[];
extern const char jitbed_trampoline_framed_start[], jitbed_trampoline_framed_end[];

typedef PyObject *(*trampoline_fn)(PyThreadState *, _PyInterpreterFrame *, int,
                                   PyObject *(*)(PyThreadState *, _PyInterpreterFrame *, int));

enum layout { LAYOUT_OTHER = 0, LAYOUT_FRAMED = 1 };

struct arena {
    unsigned char *start;
    size_t used;
};

static struct arena arenas[2];   /* the current arena of each layout */
static enum layout current_layout = LAYOUT_FRAMED;
static Py_ssize_t extra_index = -1;
static int perf_fd = -1;
static char perf_path[64];

static const char *template_start(enum layout l)
{
    return l == LAYOUT_OTHER ? OTHER_START : jitbed_trampoline_framed_start;
}

static size_t template_size(enum layout l)
{
    return l == LAYOUT_OTHER
               ? (size_t)(OTHER_END - OTHER_START)
               : (size_t)(jitbed_trampoline_framed_end - jitbed_trampoline_framed_start);
}

static int new_arena(enum layout l)
{
    unsigned char *mem = mmap(NULL, ARENA_SIZE, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    size_t off;
    if (mem == MAP_FAILED)
        return -1;
    for (off = 0; off + STRIDE <= ARENA_SIZE; off += STRIDE)
        memcpy(mem + off, template_start(l), template_size(l));
    if (mprotect(mem, ARENA_SIZE, PROT_READ | PROT_EXEC) != 0) {
        munmap(mem, ARENA_SIZE);
        return -1;
    }
    __builtin___clear_cache((char *)mem, (char *)mem + ARENA_SIZE);
    arenas[l].start = mem; /* full arenas are kept: their trampolines stay in use */
    arenas[l].used = 0;
    return 0;
}

static void write_perf_map(void *code, size_t size, PyCodeObject *co)
{
    const char *qualname, *filename;
    char line[2048];
    int n;
    if (getenv("JITBED_NO_METADATA"))
        return; /* publish nothing, so debuggers must guess */
    if (perf_fd < 0) {
        snprintf(perf_path, sizeof perf_path, "/tmp/perf-%d.map", (int)getpid());
        perf_fd = open(perf_path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (perf_fd < 0)
            return;
    }
    qualname = PyUnicode_AsUTF8(co->co_qualname);
    filename = PyUnicode_AsUTF8(co->co_filename);
    if (!qualname || !filename) {
        PyErr_Clear();
        return;
    }
    n = snprintf(line, sizeof line, "%lx %zx py::%s:%s\n", (unsigned long)(uintptr_t)code, size,
                 qualname, filename);
    if (n > 0 && (size_t)n < sizeof line && write(perf_fd, line, (size_t)n) != n)
        return; /* best effort, like CPython */
}

static void *new_trampoline(PyCodeObject *co)
{
    enum layout l = current_layout;
    void *code;
    if ((!arenas[l].start || arenas[l].used + STRIDE > ARENA_SIZE) && new_arena(l) < 0)
        return NULL;
    code = arenas[l].start + arenas[l].used;
    arenas[l].used += STRIDE;
    write_perf_map(code, template_size(l), co);
    return code;
}

static PyObject *eval_hook(PyThreadState *ts, _PyInterpreterFrame *frame, int throwflag)
{
    PyObject *co = (PyObject *)FRAME_CODE(frame);
    void *tramp = NULL;
    if (_PyCode_GetExtra(co, extra_index, &tramp) < 0) {
        PyErr_Clear();
        tramp = NULL;
    }
    if (!tramp) {
        tramp = new_trampoline(FRAME_CODE(frame));
        if (tramp && _PyCode_SetExtra(co, extra_index, tramp) < 0)
            PyErr_Clear();
    }
    if (!tramp)
        return _PyEval_EvalFrameDefault(ts, frame, throwflag);
    return ((trampoline_fn)tramp)(ts, frame, throwflag, _PyEval_EvalFrameDefault);
}

static int parse_layout(PyObject *arg, enum layout *out)
{
    const char *s = PyUnicode_Check(arg) ? PyUnicode_AsUTF8(arg) : NULL;
    if (s && strcmp(s, OTHER_LAYOUT) == 0)
        *out = LAYOUT_OTHER;
    else if (s && strcmp(s, "framed") == 0)
        *out = LAYOUT_FRAMED;
    else {
        PyErr_SetString(PyExc_ValueError, "layout must be '" OTHER_LAYOUT "' or 'framed'");
        return -1;
    }
    return 0;
}

PyObject *jitbed_trampoline_layouts(void)
{
    return Py_BuildValue("(ss)", OTHER_LAYOUT, "framed");
}

PyObject *jitbed_set_trampoline_layout(PyObject *module, PyObject *layout)
{
    (void)module;
    if (parse_layout(layout, &current_layout) < 0)
        return NULL;
    Py_RETURN_NONE;
}

PyObject *jitbed_enable_trampolines(PyObject *module, PyObject *layout)
{
    if (extra_index < 0) {
        extra_index = _PyEval_RequestCodeExtraIndex(NULL);
        if (extra_index < 0)
            return PyErr_Format(PyExc_RuntimeError, "no code extra index available");
    }
    if (!jitbed_set_trampoline_layout(module, layout))
        return NULL;
    _PyInterpreterState_SetEvalFrameFunc(PyInterpreterState_Get(), eval_hook);
    Py_RETURN_NONE;
}

PyObject *jitbed_disable_trampolines(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    _PyInterpreterState_SetEvalFrameFunc(PyInterpreterState_Get(), _PyEval_EvalFrameDefault);
    Py_RETURN_NONE;
}

PyObject *jitbed_perf_map_path(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    if (!perf_path[0])
        snprintf(perf_path, sizeof perf_path, "/tmp/perf-%d.map", (int)getpid());
    return PyUnicode_FromString(perf_path);
}
