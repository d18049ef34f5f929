/* Writes the committed seed corpora: make_corpus <tests/fuzz/corpus>.
 * Each seed is a synthetic process (fuzz_target.h) laid out with the
 * library's own table of a CPython version the tests know (3.11 to 3.15,
 * GIL and free-threaded), or a descriptor, a GDB JIT object list, a perf
 * map, an API-call script. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_target.h"
#include "py_image.h"
#include "python/pyreader.h"
#include "trampoline_code.h"

static const char *root;

static FILE *seed(const char *harness, const char *name)
{
    char path[512];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", root, harness);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/%s/%s", root, harness, name);
    if (!(f = fopen(path, "wb"))) {
        perror(path);
        exit(1);
    }
    return f;
}

/* A file's bytes (malloc'd), or NULL. */
static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long n;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* Compile `source` (C or assembler, by `ext`) with `flags` and return the
 * output's bytes. */
static uint8_t *compile(const char *source, const char *ext, const char *flags, size_t *len)
{
    char src[128], out[128], cmd[512];
    uint8_t *bytes = NULL;
    FILE *f;
    snprintf(src, sizeof src, "/tmp/ju-corpus-%d.%s", (int)getpid(), ext);
    snprintf(out, sizeof out, "/tmp/ju-corpus-%d.out", (int)getpid());
    if (!(f = fopen(src, "w")))
        return NULL;
    fputs(source, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cc %s -o %s %s 2>/dev/null", flags, out, src);
    if (system(cmd) == 0)
        bytes = slurp(out, len);
    unlink(src);
    unlink(out);
    return bytes;
}

/* Structs named as CPython names them, for the DWARF layout harness. */
static const char DWARF_SOURCE[] =
    "struct _typeobject; typedef struct _object { long ob_refcnt; struct _typeobject *ob_type; }"
    " PyObject;\n"
    "typedef struct _typeobject { PyObject ob_base; long ob_size; const char *tp_name; }"
    " PyTypeObject;\n"
    "struct _ts; typedef struct _is { struct _is *next; struct { struct _ts *head; } threads;"
    " long id; } PyInterpreterState;\n"
    "typedef struct _ts { struct _ts *prev, *next; PyInterpreterState *interp; } PyThreadState;\n"
    "typedef struct { struct { PyInterpreterState *head; } interpreters; } _PyRuntimeState;\n"
    "typedef struct _PyInterpreterFrame { PyObject *f_executable;"
    " struct _PyInterpreterFrame *previous; } _PyInterpreterFrame;\n"
    "typedef struct { PyObject ob_base; PyObject *co_linetable; int co_firstlineno; }"
    " PyCodeObject;\n"
    "typedef struct { unsigned char opcode; unsigned char valid:1; struct { void *next; } links;"
    " } _PyVMData;\n"
    "typedef struct { PyObject ob_base; _PyVMData vm_data; void *jit_code; unsigned long"
    " jit_size; } _PyExecutorObject;\n"
    "PyTypeObject t; PyThreadState s; _PyRuntimeState r; _PyInterpreterFrame f; PyCodeObject c;"
    " _PyExecutorObject e;\n";

struct version {
    uint32_t hex;
    int free_threaded;
    const char *name;
};

static const struct version VERSIONS[] = {
    {0x030b07f0, 0, "3.11"}, {0x030c01f0, 0, "3.12"}, {0x030d00f0, 0, "3.13"},
    {0x030d00f0, 1, "3.13t"}, {0x030e07f0, 0, "3.14"}, {0x030e07f0, 1, "3.14t"},
    {0x030f00c1, 0, "3.15"},
};

/* A thread in `outermost` -> `middle` -> `inner`, as check_py_versions.c
 * builds it; returns the innermost frame. */
static uint64_t python_stack(struct py_image *p)
{
    uint64_t c, s1, b, a, interp, ts;
    int sentinels = p->L->owner_sentinel_min != 0;
    c = pyi_frame(p, pyi_code(p, "outermost", "/o.py", 1, 8), 0, 2, 0, 1);
    s1 = sentinels ? pyi_frame(p, 0, c, 0, p->L->owner_sentinel_min, 0) : c;
    b = pyi_frame(p, pyi_code(p, "middle", "/m.py", 20, 8), s1, 3, 0, 1);
    a = pyi_frame(p, pyi_code(p, "inner", "/i.py", 40, 8), b, 1, 1, 0);
    interp = pyi_interp(p, 0, 0);
    ts = pyi_thread(p, interp, a, 77);
    pyi_set_interpreters(p, interp);
    if (p->L->ts_holds_gil != JU_PY_NONE) {
        ju_builder_u32(p->b, ts + p->L->ts_holds_gil, 1);
    } else if (p->L->interp_gil_ptr != JU_PY_NONE) {
        uint64_t gil = pyi_alloc(p, 64);
        ju_builder_u64(p->b, interp + p->L->interp_gil_ptr, gil);
        ju_builder_u64(p->b, gil + p->L->gil_last_holder, ts);
    } else {
        pyi_set_gil_holder(p, ts);
    }
    return a;
}

static void python_seeds(void)
{
    size_t dwarf_len = 0, zdwarf_len = 0, i;
    uint8_t *dwarf = compile(DWARF_SOURCE, "c", "-g -c -O0", &dwarf_len);
    /* The same with zlib-compressed sections, as distributions ship them:
     * the reader inflates them itself (elf/types_only_elf.c). */
    uint8_t *zdwarf = compile(DWARF_SOURCE, "c", "-g -gz=zlib -c -O0", &zdwarf_len);
    for (i = 0; i < sizeof VERSIONS / sizeof VERSIONS[0]; i++) {
        const struct version *v = &VERSIONS[i];
        struct py_image p;
        uint64_t inner;
        FILE *f;
        pyi_init_build(&p, v->hex, v->free_threaded);
        inner = python_stack(&p);
        fuzz_target_write(f = seed("debug_offsets", v->name), v->hex, 0, p.runtime, 0, 0, p.b,
                          NULL, 0);
        fclose(f);
        fuzz_target_write(f = seed("frames", v->name), v->hex, 0, p.runtime, inner, 0, p.b,
                          "\x01\x02\x03\x00\x05\x01\x02\x03", 8);
        fclose(f);
        /* The executor list head right after the interpreter's last known
         * field (flags bits 8..19, in words). */
        fuzz_target_write(f = seed("executors", v->name), v->hex, (64u << 8), p.runtime,
                          0x400000, 0x500000, p.b, NULL, 0);
        fclose(f);
        fuzz_target_write(f = seed("trampolines", v->name), v->hex, 0, p.runtime, 0, 0, p.b,
                          NULL, 0);
        fclose(f);
        if (dwarf) {
            fuzz_target_write(f = seed("dwarf_layout", v->name), v->hex, 0, p.runtime, inner, 0,
                              p.b, dwarf, dwarf_len);
            fclose(f);
        }
        if (zdwarf) {
            char name[64];
            snprintf(name, sizeof name, "%s-zlib", v->name);
            fuzz_target_write(f = seed("dwarf_layout", name), v->hex, 0, p.runtime, inner, 0,
                              p.b, zdwarf, zdwarf_len);
            fclose(f);
        }
        pyi_free(&p);
    }
    free(dwarf);
    free(zdwarf);
}

/* The JIT view (fuzz_jit_view): per 3.13/3.14 build two executors on the
 * list at interp + 3000, one with a trace of every uop and two exits, a
 * stencil table and uop names, laid out as check_py_jit_view.c does. */
static void jit_view_seeds(void)
{
    static const char *const names[] = {"_START_EXECUTOR", "_SET_IP", "_GUARD_TYPE_VERSION",
                                        "_CALL_BUILTIN_FAST", "_DEOPT", "_ERROR_POP_N",
                                        "_EXIT_TRACE", "_PUSH_FRAME", "_RETURN_VALUE",
                                        "_FATAL_ERROR"};
    enum { N = sizeof names / sizeof names[0], LIST = 3000 };
    const uint64_t jit_code = 0x7f0000100000ull;
    size_t i;
    for (i = 2; i < 6; i++) { /* 3.13, 3.13t, 3.14, 3.14t */
        const struct version *v = &VERSIONS[i];
        const struct ju_py_layout *L;
        const struct ju_py_jit_layout *J;
        struct py_image p;
        uint64_t interp, code, stencils, names_at, trace, ex[2] = {0, 0};
        uint8_t tail[13] = {0};
        uint32_t stencils_size, names_size;
        int k, e;
        FILE *f;
        pyi_init_build(&p, v->hex, v->free_threaded);
        L = p.L;
        J = &L->jit;
        interp = pyi_interp(&p, 0, 0);
        pyi_set_interpreters(&p, interp);
        code = pyi_code(&p, "hot", "/app.py", 10, 16);
        stencils = pyi_alloc(&p, (size_t)J->stencil_size * N);
        names_at = pyi_alloc(&p, 8 * N);
        trace = pyi_alloc(&p, (size_t)J->uop_size * N);
        for (k = 0; k < N; k++) {
            uint64_t name = pyi_alloc(&p, 32);
            uint64_t uop = trace + (uint64_t)k * J->uop_size;
            ju_builder_write(p.b, name, names[k], strlen(names[k]) + 1);
            ju_builder_u64(p.b, names_at + 8ull * k, name);
            ju_builder_u64(p.b, stencils + (uint64_t)k * J->stencil_size + J->stencil_code_size,
                           8 + 4ull * k);
            ju_builder_u16(p.b, uop, (uint16_t)(k | (k == 2 ? J->format_jump : 0)
                                                      << J->opcode_bits));
            ju_builder_u16(p.b, uop + J->uop_oparg, (uint16_t)k);
            ju_builder_u32(p.b, uop + J->uop_target, k == 2 ? 4u | 5u << 16 : (uint32_t)k);
            ju_builder_u64(p.b, uop + J->uop_operand0, k == 5 ? 3 : 0);
        }
        for (e = 0; e < 2; e++) {
            uint64_t x = pyi_alloc(&p, J->ex_exits + 2ull * J->exit_size);
            uint64_t jc = jit_code + 0x10000ull * (uint64_t)e;
            ju_builder_u64(p.b, x + L->ex_links_next, e ? ex[0] : 0);
            ju_builder_u64(p.b, x + L->ex_code, code);
            ju_builder_u64(p.b, x + L->ex_jit_code, jc);
            ju_builder_u64(p.b, x + L->ex_jit_size, 4096);
            ju_builder_u64(p.b, x + J->ex_side_entry, jc + 16);
            ju_builder_u64(p.b, x + J->ex_trace, trace);
            ju_builder_u32(p.b, x + J->ex_code_size, N);
            ju_builder_u32(p.b, x + J->ex_exit_count, 2);
            ju_builder_u32(p.b, x + J->vm_index, 4);
            ju_builder_u32(p.b, x + J->ex_exits + J->exit_target, 2);
            ju_builder_u64(p.b, x + J->ex_exits + J->exit_executor, ex[0]);
            ex[e] = x;
        }
        ju_builder_u64(p.b, interp + LIST, ex[1]);
        stencils_size = J->stencil_size * N;
        names_size = 8 * N;
        memcpy(tail, &stencils_size, 4);
        memcpy(tail + 4, &names_size, 4);
        tail[8] = 0; /* no layout edits */
        tail[9] = 40; /* jit_pc at code + 40, then + 70 */
        tail[11] = 70;
        fuzz_target_write(f = seed("jit_view", v->name), v->hex, (LIST / 8) << 8, p.runtime,
                          stencils, names_at, p.b, tail, sizeof tail);
        fclose(f);
        pyi_free(&p);
    }
}

/* Location tables (3.11+ format): the short forms, one-line forms, the
 * no-column form, the long form and "no location". */
static void linetable_seeds(void)
{
    static const uint8_t no_columns[] = {1, 0, 0, 0, 0xe8, 0x02, 0xe8, 0x02, 0xe9, 0x03, 0xe8, 0x00};
    static const uint8_t mixed[] = {10, 0, 0, 0, 0x80, 0x05, 0xd1, 0x04, 0x09, 0xf0, 0x02, 0x00,
                                    0x05, 0x09, 0xf8, 0xe8, 0x7f, 0xd8, 0x01, 0x02};
    static const uint8_t long_form[] = {100, 0, 0, 0, 0xf3, 0x81, 0x01, 0x02, 0x03, 0x04, 0xe8,
                                        0x03};
    FILE *f;
    fwrite(no_columns, 1, sizeof no_columns, f = seed("linetable", "no_columns"));
    fclose(f);
    fwrite(mixed, 1, sizeof mixed, f = seed("linetable", "mixed"));
    fclose(f);
    fwrite(long_form, 1, sizeof long_form, f = seed("linetable", "long_form"));
    fclose(f);
}

#define DESC 0x10000ull
#define SLOTS 0x20000ull
#define NAMES 0x30000ull
#define STACK 0x7ff000ull

static void descriptor_seed(void)
{
    struct ju_builder *b = ju_builder_new();
    struct jitunwind_jit_descriptor d = {JITUNWIND_JIT_MAGIC, JITUNWIND_JIT_VERSION,
                                         sizeof(struct jitunwind_jit_entry), 2, SLOTS, 4, 3, 9};
    struct jitunwind_jit_entry e[4] = {
        {0x400000, 0x100, JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING, 0, 9, NAMES, 1},
        {0x400100, 0x40, JITUNWIND_KIND_TRAMPOLINE, JITUNWIND_RULE_TRAMPOLINE_SUB8, 16, 5,
         NAMES + 16, 2},
        {0},
        {0x500000, 0x1000, JITUNWIND_KIND_JIT, JITUNWIND_RULE_SCAN, 0, 0, 0, 3},
    };
    uint64_t stack[8] = {STACK + 32, 0x400080, 0, 0, STACK + 48, 0x400110, 0, 0};
    uint64_t regs[2] = {STACK, STACK};
    FILE *f;
    ju_builder_write(b, DESC, &d, sizeof d);
    ju_builder_write(b, SLOTS, e, sizeof e);
    ju_builder_write(b, NAMES, "py::jit:f\0\0\0\0\0\0\0py::t", 21);
    ju_builder_write(b, STACK, stack, sizeof stack);
    ju_builder_write(b, 0x400000, JU_X86_SUB8, sizeof JU_X86_SUB8);
    fuzz_target_write(f = seed("descriptor", "three_slots"), 0, 0, 0, DESC, 0x400010, b, regs,
                      sizeof regs);
    fclose(f);
    ju_builder_free(b);
}

#define GDB_DESC 0x11000ull
#define ENTRY1 0x12000ull
#define ENTRY2 0x12100ull
#define OBJ1 0x200000ull
#define OBJ2 0x300000ull

static void gdb_jit_seed(void)
{
    static const char fp_src[] =
        ".text\n.globl py_jit_f\n.type py_jit_f,@function\npy_jit_f:\n.cfi_startproc\n"
        ".cfi_def_cfa %rbp, 16\n.cfi_offset %rbp, -16\nnop\nret\n.cfi_endproc\n"
        ".size py_jit_f, .-py_jit_f\n.section .note.GNU-stack,\"\",@progbits\n";
    static const char sp_src[] =
        ".text\n.globl py_jit_g\n.type py_jit_g,@function\npy_jit_g:\n.cfi_startproc\n"
        ".cfi_def_cfa %rsp, 8\nnop\nret\n.cfi_endproc\n"
        ".size py_jit_g, .-py_jit_g\n.section .note.GNU-stack,\"\",@progbits\n";
    struct ju_builder *b = ju_builder_new();
    size_t len1 = 0, len2 = 0;
    uint8_t *o1 = compile(fp_src, "s", "-shared -nostdlib -Wl,-Ttext=0x7f0000001000", &len1);
    uint8_t *o2 = compile(sp_src, "s", "-shared -nostdlib -Wl,-Ttext=0x7f0000101000", &len2);
    uint64_t head[3] = {1, 0, ENTRY1};
    uint64_t e1[4] = {ENTRY2, 0, OBJ1, len1}, e2[4] = {0, ENTRY1, OBJ2, len2};
    FILE *f;
    if (!o1 || !o2) {
        fprintf(stderr, "make_corpus: no C toolchain: no gdb_jit seed\n");
        free(o1);
        free(o2);
        ju_builder_free(b);
        return;
    }
    ju_builder_write(b, GDB_DESC, head, sizeof head);
    ju_builder_write(b, ENTRY1, e1, sizeof e1);
    ju_builder_write(b, ENTRY2, e2, sizeof e2);
    ju_builder_write(b, OBJ1, o1, len1);
    ju_builder_write(b, OBJ2, o2, len2);
    fuzz_target_write(f = seed("gdb_jit", "two_objects"), 0, 0, 0, GDB_DESC, 0, b, NULL, 0);
    fclose(f);
    free(o1);
    free(o2);
    ju_builder_free(b);
}

static void perfmap_seed(void)
{
    static const char text[] = "7f0000 b py::leaf:/tmp/demo.py\n"
                               "7f0010 8 py::outer:/tmp/demo.py\n"
                               "7f0020 b py::sub8\n"
                               "zz 8 py::bad\n";
    struct ju_builder *b = ju_builder_new();
    FILE *f;
    ju_builder_write(b, 0x7f0000, JU_X86_SUB8, sizeof JU_X86_SUB8);
    ju_builder_write(b, 0x7f0010, JU_X86_FRAMED, sizeof JU_X86_FRAMED);
    ju_builder_write(b, 0x7f0020, JU_X86_SUB8, sizeof JU_X86_SUB8);
    fuzz_target_write(f = seed("perfmap", "three_trampolines"), 0, 0, 0, 0, 0, b, text,
                      sizeof text - 1);
    fclose(f);
    ju_builder_free(b);
}

/* A jitdump file as CPython's -X perf_jit writes it: its header, an
 * unwinding-info record, two code loads (a trampoline each). */
static void jitdump_seed(void)
{
    static const char *const names[] = {"py::hot:/tmp/demo.py", "py::caller:/tmp/demo.py"};
    uint8_t text[512];
    size_t n = 0, i, len;
    uint32_t head[10] = {0x4a695444u, 1, 40, 62, 0, 1, 0, 0, 0, 0};
    uint32_t rec[4] = {4, 48, 0, 0};
    struct ju_builder *b = ju_builder_new();
    FILE *f;
    memcpy(text, head, sizeof head), n = sizeof head;
    memcpy(text + n, rec, sizeof rec), n += sizeof rec;
    memset(text + n, 0xee, 32), n += 32;
    for (i = 0; i < 2; i++) {
        uint64_t addr = 0x7f0000 + 0x60 * i, size = sizeof JU_X86_FRAMED;
        uint32_t load[4] = {0, 0, 0, 0};
        uint32_t ids[2] = {1, 1};
        uint64_t fields[4] = {addr, addr, size, i + 1};
        len = strlen(names[i]) + 1;
        load[1] = (uint32_t)(56 + len + size);
        memcpy(text + n, load, sizeof load), n += sizeof load;
        memcpy(text + n, ids, sizeof ids), n += sizeof ids;
        memcpy(text + n, fields, sizeof fields), n += sizeof fields;
        memcpy(text + n, names[i], len), n += len;
        memcpy(text + n, JU_X86_FRAMED, size), n += size;
        ju_builder_write(b, addr, JU_X86_FRAMED, sizeof JU_X86_FRAMED);
    }
    fuzz_target_write(f = seed("jitdump", "two_trampolines"), 0, 0, 0, 0, 0, b, (char *)text, n);
    fclose(f);
    ju_builder_free(b);
}

/* API calls: adds of every rule, lookups, steps, in-process registrations. */
static void registry_seed(void)
{
    struct ju_builder *b = ju_builder_new();
    uint8_t ops[512];
    size_t n = 0, i;
    FILE *f;
    uint64_t stack[4] = {STACK + 16, 0x400020, 0, 0};
    ju_builder_write(b, STACK, stack, sizeof stack);
    ju_builder_write(b, 0x400000, JU_X86_SUB8, sizeof JU_X86_SUB8);
    for (i = 0; i < 6; i++) { /* op 0: add [0x400000 + i*0x100, +0x80) with rule i */
        uint64_t start = 0x400000 + i * 0x100;
        ops[n++] = 0;
        memcpy(ops + n, &start, 8), n += 8;
        ops[n++] = 0x80, ops[n++] = 0, ops[n++] = 0, ops[n++] = 0;
        ops[n++] = 1 + (uint8_t)(i % 2);          /* kind */
        ops[n++] = (uint8_t)(i % 5);              /* rule */
        ops[n++] = 16, ops[n++] = 0;              /* stride */
        ops[n++] = 1;                             /* origin */
        memset(ops + n, 0, 4), n += 4;            /* frame size */
        memcpy(ops + n, &start, 8), n += 8;       /* scan start */
        ops[n++] = 0x40, ops[n++] = 0;            /* scan length */
        ops[n++] = (uint8_t)i;                    /* name */
    }
    ops[n++] = 3; /* lookup + step */
    {
        uint64_t pc = 0x400010, sp = STACK, fp = STACK;
        memcpy(ops + n, &pc, 8), n += 8;
        memcpy(ops + n, &sp, 8), n += 8;
        memcpy(ops + n, &fp, 8), n += 8;
        memset(ops + n, 0, 8), n += 8;
        ops[n++] = 7;
        ops[n++] = 1;
    }
    ops[n++] = 6; /* in-process register, unregister, read back */
    {
        uint64_t start = 0x600000;
        memcpy(ops + n, &start, 8), n += 8;
        ops[n++] = 3;
        ops[n++] = 0x40, ops[n++] = 0, ops[n++] = 0, ops[n++] = 0;
        ops[n++] = 1, ops[n++] = 1, ops[n++] = 0;
    }
    ops[n++] = 9;
    ops[n++] = 7, ops[n++] = 3, ops[n++] = 0;
    ops[n++] = 2, memset(ops + n, 0, 8), n += 8;
    ops[n++] = 5;
    memset(ops + n, 0x40, 16), n += 16;
    fuzz_target_write(f = seed("registry", "calls"), 0, 0, STACK, 0x400010, STACK, b, ops, n);
    fclose(f);
    ju_builder_free(b);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_corpus <tests/fuzz/corpus>\n");
        return 2;
    }
    root = argv[1];
    mkdir(root, 0755);
    python_seeds();
    jit_view_seeds();
    linetable_seeds();
    descriptor_seed();
    gdb_jit_seed();
    perfmap_seed();
    jitdump_seed();
    registry_seed();
    return 0;
}
