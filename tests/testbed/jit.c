/* The test bed's copy-and-patch JIT. An executor is a fresh anonymous
 * mapping holding copies of the stencils (stencils.c, extracted at build
 * time into stencils_gen.h) with their holes patched, made read+execute and
 * registered with libjitunwind as frameless, frame-pointer preserving code.
 * It is entered through jitbed_shim, which has a normal frame record (like
 * CPython 3.15's _PyJIT_Entry), so RBP points at that record while any JIT
 * instruction runs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jitbed.h"
#include "jitbed_state.h"
#include "jitunwind/jit.h"
#include "stencils_gen.h"

#define STENCIL_ALIGN 16
#define WORK_ITERATIONS 8 /* _JIT_OPERAND: loop count of stencil_work */

typedef struct {
    PyObject_HEAD
    PyObject *callable;
    unsigned char *code;
    size_t map_size;
    size_t code_size;
    jitunwind_jit_id id;
} JitbedExecutor;

/* Called from JIT code (stencil_call): C → eval loop → Python. */
PyObject *jitbed_call_python(PyObject *callable);
PyObject *jitbed_call_python(PyObject *callable)
{
    return PyObject_CallNoArgs(callable);
}

/* The shim: keeps its own frame (push %rbp; mov %rsp,%rbp) and CALLs the
 * first stencil; the stencils tail-jump along and the last one returns here. */
__attribute__((noinline, optimize("no-omit-frame-pointer", "no-optimize-sibling-calls")))
static void jitbed_shim(void *code, struct jitbed_state *st)
{
    ((void (*)(struct jitbed_state *))code)(st);
    __asm__ volatile("" ::: "memory");
}

static size_t round_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

/* AArch64 `b`/`bl` reach +-128 MiB; a hole whose target is farther (the
 * module's C helper, seen from an anonymous mapping) goes through a veneer
 * after the stencils, as in CPython's AArch64 JIT: ldr x16, #8; br x16;
 * .quad target. x16 (IP0) is the register the ABI gives veneers. */
#define VENEER_SIZE 16
static const uint32_t VENEER_LDR_X16 = 0x58000050u, VENEER_BR_X16 = 0xd61f0200u;

static int is_branch(const struct jitbed_hole *hole)
{
    return hole->kind == JITBED_RELOC_JUMP26 || hole->kind == JITBED_RELOC_CALL26;
}

/* Bytes of code for the stencils and, after them, one veneer slot per
 * branch hole. */
static size_t code_size_needed(void)
{
    size_t size = 0, i, h;
    for (i = 0; i < JITBED_N_STENCILS; i++) {
        size = round_up(size + JITBED_STENCILS[i].size, STENCIL_ALIGN);
        for (h = 0; h < JITBED_STENCILS[i].nholes; h++)
            if (is_branch(&JITBED_STENCILS[i].holes[h]))
                size += VENEER_SIZE;
    }
    return size;
}

/* Point the branch at `at` to `target`, through a new veneer at *veneer
 * when the target is out of reach. */
static void patch_branch(unsigned char *at, uint64_t target, unsigned char **veneer)
{
    int64_t delta = (int64_t)(target - (uint64_t)(uintptr_t)at);
    uint32_t insn;
    if (delta < -(1ll << 27) || delta >= (1ll << 27)) {
        memcpy(*veneer, &VENEER_LDR_X16, 4);
        memcpy(*veneer + 4, &VENEER_BR_X16, 4);
        memcpy(*veneer + 8, &target, 8);
        delta = (int64_t)((uint64_t)(uintptr_t)*veneer - (uint64_t)(uintptr_t)at);
        *veneer += VENEER_SIZE;
    }
    memcpy(&insn, at, 4);
    insn = (insn & 0xfc000000u) | ((uint32_t)(delta >> 2) & 0x03ffffffu);
    memcpy(at, &insn, 4);
}

/* Lay out and patch the stencils at `dst` (already writable). */
static size_t emit(unsigned char *dst)
{
    size_t offsets[JITBED_N_STENCILS + 1], off = 0, i, h;
    unsigned char *veneer;
    for (i = 0; i < JITBED_N_STENCILS; i++) {
        offsets[i] = off;
        off = round_up(off + JITBED_STENCILS[i].size, STENCIL_ALIGN);
    }
    offsets[JITBED_N_STENCILS] = off;
    veneer = dst + off;
    for (i = 0; i < JITBED_N_STENCILS; i++) {
        const struct jitbed_stencil *s = &JITBED_STENCILS[i];
        memcpy(dst + offsets[i], s->code, s->size);
        for (h = 0; h < s->nholes; h++) {
            const struct jitbed_hole *hole = &s->holes[h];
            uint64_t value = 0;
            switch (hole->symbol) {
            case JITBED_HOLE_0: value = (uint64_t)(uintptr_t)(dst + offsets[i + 1]); break;
            case JITBED_HOLE_1: value = WORK_ITERATIONS; break;
            case JITBED_HOLE_2: value = (uint64_t)(uintptr_t)&jitbed_call_python; break;
            }
            value += (uint64_t)hole->addend;
            if (is_branch(hole))
                patch_branch(dst + offsets[i] + hole->offset, value, &veneer);
            else
                memcpy(dst + offsets[i] + hole->offset, &value, sizeof value);
        }
    }
    return (size_t)(veneer - dst);
}

static void executor_dealloc(PyObject *self)
{
    JitbedExecutor *ex = (JitbedExecutor *)self;
    if (ex->code) {
        jitunwind_jit_unregister(ex->id);
        munmap(ex->code, ex->map_size);
    }
    Py_XDECREF(ex->callable);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *executor_call(PyObject *self, PyObject *args, PyObject *kwargs)
{
    JitbedExecutor *ex = (JitbedExecutor *)self;
    struct jitbed_state st = {0};
    if (PyTuple_GET_SIZE(args) != 0 || (kwargs && PyDict_GET_SIZE(kwargs) != 0)) {
        PyErr_SetString(PyExc_TypeError, "a JIT executor takes no arguments");
        return NULL;
    }
    st.callable = ex->callable;
    jitbed_shim(ex->code, &st);
    if (!st.done) {
        Py_XDECREF((PyObject *)st.result);
        PyErr_SetString(PyExc_SystemError, "JIT code did not reach its exit stencil");
        return NULL;
    }
    return (PyObject *)st.result;
}

static PyObject *executor_repr(PyObject *self)
{
    JitbedExecutor *ex = (JitbedExecutor *)self;
    return PyUnicode_FromFormat("<jitbed executor at %p, %zu bytes, for %R>", ex->code,
                                ex->code_size, ex->callable);
}

PyTypeObject JitbedExecutor_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "_jitbed.Executor",
    .tp_basicsize = sizeof(JitbedExecutor),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = executor_dealloc,
    .tp_call = executor_call,
    .tp_repr = executor_repr,
    .tp_doc = "Machine code made from the test bed's stencils; calling it calls the callable.",
};

PyObject *jitbed_compile(PyObject *module, PyObject *callable)
{
    JitbedExecutor *ex;
    PyObject *qualname;
    const char *qn;
    char name[512];
    size_t size;
    long page = sysconf(_SC_PAGESIZE);
    int rc;
    if (!PyCallable_Check(callable)) {
        PyErr_SetString(PyExc_TypeError, "compile() needs a callable");
        return NULL;
    }
    size = code_size_needed();
    ex = PyObject_New(JitbedExecutor, &JitbedExecutor_Type);
    if (!ex)
        return NULL;
    ex->code = NULL;
    ex->callable = Py_NewRef(callable);
    ex->map_size = round_up(size, (size_t)page);
    ex->code = mmap(NULL, ex->map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (ex->code == MAP_FAILED) {
        ex->code = NULL;
        Py_DECREF(ex);
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    ex->code_size = emit(ex->code);
    if (mprotect(ex->code, ex->map_size, PROT_READ | PROT_EXEC) != 0) {
        PyErr_SetFromErrno(PyExc_OSError);
        munmap(ex->code, ex->map_size);
        ex->code = NULL;
        Py_DECREF(ex);
        return NULL;
    }
    __builtin___clear_cache((char *)ex->code, (char *)ex->code + ex->code_size);
    qualname = PyObject_GetAttrString(callable, "__qualname__");
    if (!qualname)
        PyErr_Clear();
    qn = qualname && PyUnicode_Check(qualname) ? PyUnicode_AsUTF8(qualname) : NULL;
    if (!qn) {
        PyErr_Clear();
        qn = "<callable>";
    }
    snprintf(name, sizeof name, "py::jit:%s", qn);
    Py_XDECREF(qualname);
    /* JITBED_NO_METADATA=1: publish nothing, so debuggers must guess. */
    rc = getenv("JITBED_NO_METADATA") ? 0
                                      : jitunwind_jit_register(ex->code, ex->code_size,
                                                               JITUNWIND_KIND_JIT,
                                                               JITUNWIND_RULE_FP_PRESERVING, name,
                                                               (uint64_t)(uintptr_t)callable,
                                                               &ex->id);
    if (rc < 0) {
        munmap(ex->code, ex->map_size);
        ex->code = NULL;
        Py_DECREF(ex);
        return PyErr_Format(PyExc_RuntimeError, "jitunwind_jit_register failed: %d", rc);
    }
    (void)module;
    return (PyObject *)ex;
}

/* (start, size, name) of every registered range, read back from the
 * descriptor the debugger reads, so tests see what a debugger would. */
PyObject *jitbed_regions(PyObject *module, PyObject *unused)
{
    const struct jitunwind_jit_descriptor *d = &jitunwind_jit_descriptor;
    const struct jitunwind_jit_entry *e = (const struct jitunwind_jit_entry *)(uintptr_t)d->entries;
    PyObject *list = PyList_New(0);
    uint64_t i;
    (void)module;
    (void)unused;
    if (!list)
        return NULL;
    for (i = 0; i < d->capacity; i++) {
        PyObject *item;
        if (e[i].size == 0)
            continue;
        item = Py_BuildValue("(KKs)", (unsigned long long)e[i].start,
                             (unsigned long long)e[i].size,
                             e[i].name ? (const char *)(uintptr_t)e[i].name : "");
        if (!item || PyList_Append(list, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(item);
    }
    return list;
}
