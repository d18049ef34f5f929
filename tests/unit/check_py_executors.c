/* JIT executors (3.13, 3.14) from the interpreter's lists, with the lists'
 * build-specific offsets taken from DWARF. This program is built with -g and
 * is its own "libpython": the CPython-named types below are what
 * jitunwind_pyreader_open (.module) finds in its DWARF, and its _PyRuntime
 * and COLD_EXITS symbols place 3.13's cold exits in the synthetic target. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "counting_memory.h"
#include "jitunwind/dwarf.h"
#include "py_image.h"
#include "python/pyreader.h"
#include "suite.h"

/* The CPython 3.14 shapes, as the DWARF of a real JIT build has them. */
typedef struct {
    void *next;
    void *previous;
} _PyExecutorLinkListNode;

typedef struct {
    uint8_t opcode, oparg, valid, linked;
    int index;
    char bloom[32];
    _PyExecutorLinkListNode links;
    void *code;
} _PyVMData;

typedef struct _PyExecutorObject {
    char ob_base[24];
    void *trace;
    _PyVMData vm_data;
    uint32_t exit_count, code_size;
    size_t jit_size;
    void *jit_code;
    void *jit_side_entry;
    char exits[16];
} _PyExecutorObject;

/* A Py_STATS build's trace entry: 3.14's members, then execution_count,
 * 32 bytes where the table has 24. */
typedef struct {
    uint16_t opcode : 15, format : 1;
    uint16_t oparg;
    union {
        uint32_t target;
        struct {
            uint16_t jump_target, error_target;
        };
    };
    uint64_t operand0, operand1;
    uint64_t execution_count;
} _PyUOpInstruction;
static _PyUOpInstruction STATS_TRACE[3] __attribute__((used));

/* Build-specific: where this "build" keeps the lists. */
typedef struct _is {
    char before[3000];
    _PyExecutorObject *executor_list_head;
    _PyExecutorObject *executor_deletion_list_head;
} PyInterpreterState;

#define N_COLD 4
char _PyRuntime[32768];
PyInterpreterState interp_instance;
static _PyExecutorObject COLD_EXITS[N_COLD] __attribute__((used));

#define LIST offsetof(PyInterpreterState, executor_list_head)
#define DELETED offsetof(PyInterpreterState, executor_deletion_list_head)

static char self_path[4096];

struct target {
    struct py_image p;
    uint64_t interp;
    uint64_t hot_code;
};

static void build(struct target *t, uint32_t version)
{
    ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    ck_assert_int_gt(n, 0);
    self_path[n] = 0;
    pyi_init(&t->p, version);
    t->interp = pyi_interp(&t->p, 0, 0);
    pyi_set_interpreters(&t->p, t->interp);
    t->hot_code = pyi_code(&t->p, "hot", "/h.py", 10, 4);
}

static uint64_t executor(struct target *t, uint64_t next, uint64_t code, uint64_t jit_code,
                         uint64_t jit_size)
{
    uint64_t ex = pyi_alloc(&t->p, sizeof(_PyExecutorObject));
    ju_builder_u64(t->p.b, ex + offsetof(_PyExecutorObject, vm_data.links.next), next);
    ju_builder_u64(t->p.b, ex + offsetof(_PyExecutorObject, vm_data.code), code);
    ju_builder_u64(t->p.b, ex + offsetof(_PyExecutorObject, jit_code), jit_code);
    ju_builder_u64(t->p.b, ex + offsetof(_PyExecutorObject, jit_size), jit_size);
    return ex;
}

static jitunwind_pyreader *open_reader(struct target *t, uint32_t version, const char *module)
{
    struct jitunwind_memory mem = ju_builder_memory(t->p.b);
    jitunwind_pyreader *r;
    int rc = module ? jitunwind_pyreader_open(&r, &mem, t->p.runtime, version,
                                              JITUNWIND_PYREADER_OPTS(.module = module))
                    : jitunwind_pyreader_open(&r, &mem, t->p.runtime, version, NULL);
    ck_assert_msg(rc == 0, "open: %s", jitunwind_pyreader_last_error(r)->message);
    return r;
}

START_TEST(lists_of_a_314_build_from_its_dwarf)
{
    struct target t;
    struct jitunwind_py_executor e[8];
    struct jitunwind_py_dwarf_report rep;
    jitunwind_pyreader *r;
    jitunwind_registry *reg;
    const struct jitunwind_range *rg;
    size_t n, added;
    uint64_t a, b, d;
    build(&t, 0x030e07f0);
    b = executor(&t, 0, 0, 0, 0); /* not compiled: listed, no range */
    a = executor(&t, b, t.hot_code, 0x7f0000001000, 4096);
    d = executor(&t, 0, t.hot_code, 0x7f0000003000, 8192);
    ju_builder_u64(t.p.b, t.interp + LIST, a);
    ju_builder_u64(t.p.b, t.interp + DELETED, d);
    r = open_reader(&t, 0x030e07f0, self_path);
    ck_assert_int_eq(jitunwind_pyreader_dwarf_report(r, &rep), 0);
    ck_assert_str_eq(rep.source, self_path);
    ck_assert_uint_ge(rep.derived, 3); /* both list heads and the executor size */
    ck_assert_uint_eq(rep.mismatches, 0);
    ck_assert_int_eq(jitunwind_pyreader_executors(r, e, 8, &n), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(e[0].address, a);
    ck_assert_str_eq(e[0].qualname, "hot");
    ck_assert_str_eq(e[0].filename, "/h.py");
    ck_assert_int_eq(e[0].first_line, 10);
    ck_assert_uint_eq(e[0].jit_code, 0x7f0000001000);
    ck_assert_uint_eq(e[0].interp, t.interp);
    ck_assert_uint_eq(e[1].address, b);
    ck_assert_uint_ne(e[1].flags & JITUNWIND_PYEXEC_NO_CODE, 0);
    ck_assert_uint_eq(e[1].jit_code, 0);
    ck_assert_uint_eq(e[2].address, d);
    ck_assert_uint_ne(e[2].flags & JITUNWIND_PYEXEC_DELETED, 0);

    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_pyreader_executor_ranges(r, reg, JITUNWIND_ARCH_X86_64, 0x1000,
                                                        0x2000, &added), 0);
    ck_assert_uint_eq(added, 2);
    rg = jitunwind_registry_lookup(reg, 0x7f0000001800);
    ck_assert_ptr_nonnull(rg);
    ck_assert_str_eq(rg->name, "py::jit:hot (/h.py:10)");
    ck_assert_uint_eq(rg->kind, JITUNWIND_KIND_JIT);
    ck_assert_uint_eq(rg->origin, JITUNWIND_ORIGIN_INTERPRETER);
    ck_assert_uint_eq(rg->rule, JITUNWIND_RULE_SCAN); /* 3.14 x86-64 code clobbers RBP */
    ck_assert_uint_eq(rg->cookie, t.hot_code);
    ck_assert_uint_eq(rg->scan_start, 0x1000);
    ck_assert_uint_eq(rg->end, 0x7f0000002000);
    rg = jitunwind_registry_lookup(reg, 0x7f0000004000);
    ck_assert_ptr_nonnull(rg);
    ck_assert_str_eq(rg->name, "py::jit:hot (/h.py:10) [invalidated]");
    /* Again: the same ranges overlap and are skipped. */
    ck_assert_int_eq(jitunwind_pyreader_executor_ranges(r, reg, JITUNWIND_ARCH_AARCH64, 0, 0,
                                                        &added), 0);
    ck_assert_uint_eq(added, 0);
    jitunwind_registry_clear(reg);
    ck_assert_int_eq(jitunwind_pyreader_executor_ranges(r, reg, JITUNWIND_ARCH_AARCH64, 0, 0,
                                                        &added), 0);
    ck_assert_uint_eq(jitunwind_registry_lookup(reg, 0x7f0000001000)->rule,
                      JITUNWIND_RULE_FP_PRESERVING);
    /* x86-64 without the eval loop's range: nothing can be scanned for, so
     * the ranges are not registered, and the caller is told so. */
    jitunwind_registry_clear(reg);
    ck_assert_int_eq(jitunwind_pyreader_executor_ranges(r, reg, JITUNWIND_ARCH_X86_64, 0, 0,
                                                        &added), JITUNWIND_ENOTFOUND);
    ck_assert_uint_eq(added, 0);
    ck_assert_uint_eq(jitunwind_registry_count(reg), 0);
    ck_assert_ptr_nonnull(strstr(jitunwind_pyreader_last_error(r)->message,
                                 "2 JIT executor ranges were not registered"));
    ck_assert_ptr_nonnull(strstr(jitunwind_pyreader_last_error(r)->message, "eval loop"));
    jitunwind_registry_free(reg);
    jitunwind_pyreader_free(r);
    pyi_free(&t.p);
}
END_TEST

/* A debugger opens the DWARF once and a reader at every stop. */
START_TEST(one_dwarf_handle_for_many_readers)
{
    struct target t;
    struct jitunwind_py_executor e[4];
    struct jitunwind_memory mem;
    jitunwind_dwarf_types *types;
    jitunwind_pyreader *r;
    size_t n;
    int i;
    build(&t, 0x030e07f0);
    ju_builder_u64(t.p.b, t.interp + LIST, executor(&t, 0, t.hot_code, 0x7f0000001000, 4096));
    mem = ju_builder_memory(t.p.b);
    ck_assert_int_eq(jitunwind_dwarf_types_open(&types, self_path), 0);
    for (i = 0; i < 3; i++) {
        ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, t.p.runtime, 0x030e07f0,
                                                 JITUNWIND_PYREADER_OPTS(.module = self_path,
                                                                         .types = types)), 0);
        ck_assert_int_eq(jitunwind_pyreader_executors(r, e, 4, &n), 0);
        ck_assert_uint_eq(n, 1);
        jitunwind_pyreader_free(r);
    }
    jitunwind_dwarf_types_free(types);
    /* No handle: the tables alone, which do not know where the lists are. */
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, t.p.runtime, 0x030e07f0,
                                             JITUNWIND_PYREADER_OPTS(.module = self_path,
                                                                     .flags = JITUNWIND_PYREADER_NO_DWARF)), 0);
    ck_assert_int_eq(jitunwind_pyreader_executors(r, e, 4, &n), JITUNWIND_ENOTFOUND);
    jitunwind_pyreader_free(r);
    pyi_free(&t.p);
}
END_TEST

/* The JIT view adopts DWARF's trace entry size (within the decoder's
 * copy, so it passes ju_py_jit_layout_check) and steps the trace by it:
 * with the table's 24 bytes the second uop would be read from the first's
 * execution_count. */
START_TEST(a_py_stats_trace_entry_size_is_adopted)
{
    struct target t;
    struct jitunwind_py_uop u[8];
    struct jitunwind_py_executor_detail d;
    jitunwind_pyreader *r;
    uint64_t ex, trace;
    size_t n, i;
    char why[256];
    build(&t, 0x030e07f0);
    trace = pyi_alloc(&t.p, sizeof STATS_TRACE);
    for (i = 0; i < 3; i++) {
        _PyUOpInstruction e;
        memset(&e, 0, sizeof e);
        e.opcode = (uint16_t)(7 + i);
        e.oparg = (uint16_t)(100 + i);
        e.target = (uint32_t)i;
        e.operand0 = 0x1000 + i;
        e.operand1 = 0x2000 + i;
        e.execution_count = 0xfffefdfcfbfaf9f8ull;
        ju_builder_write(t.p.b, trace + i * sizeof e, &e, sizeof e);
    }
    ex = executor(&t, 0, t.hot_code, 0x7f0000001000, 4096);
    ju_builder_u64(t.p.b, ex + offsetof(_PyExecutorObject, trace), trace);
    ju_builder_u32(t.p.b, ex + offsetof(_PyExecutorObject, code_size), 3);
    ju_builder_u64(t.p.b, ex + offsetof(_PyExecutorObject, jit_side_entry), 0x7f0000001010);
    ju_builder_u64(t.p.b, t.interp + LIST, ex);
    r = open_reader(&t, 0x030e07f0, self_path);
    ck_assert_uint_eq(r->layout->jit.uop_size, sizeof(_PyUOpInstruction));
    ck_assert_uint_eq(ju_py_layout_for(0x030e07f0, jitunwind_host_arch())->jit.uop_size, 24);
    ck_assert_msg(ju_py_jit_layout_check(r->layout, why, sizeof why) == 0, "%s", why);
    ck_assert_int_eq(jitunwind_pyreader_executor_trace(r, ex, 0, u, 8, &n, &d), 0);
    ck_assert_uint_eq(n, 3);
    for (i = 0; i < 3; i++) {
        ck_assert_uint_eq(u[i].opcode, 7 + i);
        ck_assert_uint_eq(u[i].oparg, 100 + i);
        ck_assert_uint_eq(u[i].raw_target, i);
        ck_assert_uint_eq(u[i].operand0, 0x1000 + i);
        ck_assert_uint_eq(u[i].operand1, 0x2000 + i);
        ck_assert_int_eq(u[i].target, (int32_t)i);
        ck_assert_int_eq(u[i].line, 10 + (int32_t)i);
    }
    /* No stencil table in this "build": said, and nothing placed. */
    ck_assert_ptr_nonnull(strstr(d.missing, "no stencil_groups"));
    ck_assert_int_eq(u[0].code_offset, -1);
    jitunwind_pyreader_free(r);
    pyi_free(&t.p);
}
END_TEST

START_TEST(cold_exits_of_a_313_build)
{
    struct target t;
    struct jitunwind_py_executor e[8];
    jitunwind_pyreader *r;
    uint64_t runtime_value, cold_value, size, cold, a;
    size_t n;
    build(&t, 0x030d00f0);
    ck_assert_int_eq(jitunwind_elf_symbol(self_path, "_PyRuntime", &runtime_value, &size), 0);
    ck_assert_int_eq(jitunwind_elf_symbol(self_path, "COLD_EXITS", &cold_value, &size), 0);
    ck_assert_uint_eq(size, sizeof COLD_EXITS);
    cold = t.p.runtime + (cold_value - runtime_value);
    ck_assert_msg(cold + sizeof COLD_EXITS <= t.p.runtime || cold >= t.p.runtime + 4096,
                  "the cold exits would overlap the synthetic runtime");
    ju_builder_write(t.p.b, cold, &(_PyExecutorObject[N_COLD]){{{0}}}, sizeof COLD_EXITS);
    ju_builder_u64(t.p.b, cold + offsetof(_PyExecutorObject, jit_code), 0x7f0000010000);
    ju_builder_u64(t.p.b, cold + offsetof(_PyExecutorObject, jit_size), 4096);
    ju_builder_u64(t.p.b, cold + 2 * sizeof(_PyExecutorObject) +
                              offsetof(_PyExecutorObject, jit_code), 0x7f0000011000);
    ju_builder_u64(t.p.b, cold + 2 * sizeof(_PyExecutorObject) +
                              offsetof(_PyExecutorObject, jit_size), 4096);
    a = executor(&t, 0, t.hot_code, 0x7f0000001000, 4096);
    ju_builder_u64(t.p.b, t.interp + LIST, a);
    r = open_reader(&t, 0x030d00f0, self_path);
    ck_assert_int_eq(jitunwind_pyreader_executors(r, e, 8, &n), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert_str_eq(e[0].qualname, "hot");
    ck_assert_uint_ne(e[1].flags & JITUNWIND_PYEXEC_COLD_EXIT, 0);
    ck_assert_uint_eq(e[1].jit_code, 0x7f0000010000);
    ck_assert_uint_eq(e[2].address, cold + 2 * sizeof(_PyExecutorObject));
    ck_assert_uint_eq(e[2].interp, 0);
    jitunwind_pyreader_free(r);
    pyi_free(&t.p);
}
END_TEST

START_TEST(without_dwarf_or_before_313_it_says_why)
{
    struct target t;
    struct jitunwind_py_executor e[2];
    jitunwind_pyreader *r;
    size_t n = 99;
    build(&t, 0x030e07f0);
    r = open_reader(&t, 0x030e07f0, NULL);
    ck_assert_int_eq(jitunwind_pyreader_executors(r, e, 2, &n), JITUNWIND_ENOTFOUND);
    ck_assert_uint_eq(n, 0);
    ck_assert_ptr_nonnull(strstr(jitunwind_pyreader_last_error(r)->message, "DWARF"));
    jitunwind_pyreader_free(r);
    pyi_free(&t.p);
    build(&t, 0x030c01f0);
    r = open_reader(&t, 0x030c01f0, self_path);
    ck_assert_int_eq(jitunwind_pyreader_executors(r, e, 2, &n), JITUNWIND_EUNSUPPORTED);
    jitunwind_pyreader_free(r);
    pyi_free(&t.p);
    /* A module path that is not a file: the tables are kept. */
    build(&t, 0x030e07f0);
    r = open_reader(&t, 0x030e07f0, "/nonexistent/libpython3.14.so");
    ck_assert_int_eq(jitunwind_pyreader_executors(r, e, 2, &n), JITUNWIND_ENOTFOUND);
    jitunwind_pyreader_free(r);
    pyi_free(&t.p);
}
END_TEST

/* Damaged lists end with a clear status and the executors before the damage. */
static int walk_damaged(int how, size_t *n, char *message, size_t cap)
{
    struct target t;
    struct jitunwind_py_executor e[4];
    jitunwind_pyreader *r;
    uint64_t a, b;
    int rc;
    build(&t, 0x030e07f0);
    b = executor(&t, 0, t.hot_code, 0x7f0000002000, 4096);
    a = executor(&t, b, t.hot_code, 0x7f0000001000, 4096);
    ju_builder_u64(t.p.b, t.interp + LIST, a);
    if (how == 0) /* a cycle */
        ju_builder_u64(t.p.b, b + offsetof(_PyExecutorObject, vm_data.links.next), a);
    else if (how == 1) /* a misaligned next */
        ju_builder_u64(t.p.b, b + offsetof(_PyExecutorObject, vm_data.links.next), a + 3);
    else if (how == 2) /* an unmapped next */
        ju_builder_u64(t.p.b, b + offsetof(_PyExecutorObject, vm_data.links.next),
                       0x5555000000);
    else if (how == 3) /* absurd code size */
        ju_builder_u64(t.p.b, b + offsetof(_PyExecutorObject, jit_size), 1ull << 40);
    else if (how == 4) /* wrapping code range */
        ju_builder_u64(t.p.b, b + offsetof(_PyExecutorObject, jit_code), UINT64_MAX - 10);
    else /* a long list: more than asked for */
        ju_builder_u64(t.p.b, b + offsetof(_PyExecutorObject, vm_data.links.next),
                       executor(&t, executor(&t, executor(&t, 0, 0, 0, 0), 0, 0, 0), 0, 0, 0));
    r = open_reader(&t, 0x030e07f0, self_path);
    rc = jitunwind_pyreader_executors(r, e, 4, n);
    snprintf(message, cap, "%s", jitunwind_pyreader_last_error(r)->message);
    jitunwind_pyreader_free(r);
    pyi_free(&t.p);
    return rc;
}

START_TEST(damaged_lists)
{
    static const int expect[] = {JITUNWIND_ELOOP,    JITUNWIND_ECORRUPT, JITUNWIND_EREAD,
                                 JITUNWIND_ECORRUPT, JITUNWIND_ECORRUPT, JITUNWIND_ELIMIT};
    static const size_t good[] = {2, 2, 2, 1, 1, 4};
    char message[JITUNWIND_ERROR_MESSAGE_MAX];
    size_t n;
    int how;
    for (how = 0; how < 6; how++) {
        int rc = walk_damaged(how, &n, message, sizeof message);
        ck_assert_msg(rc == expect[how], "case %d: %s (%s)", how, jitunwind_strerror(rc),
                      message);
        ck_assert_msg(n == good[how], "case %d: %zu executors kept", how, n);
        ck_assert_msg(message[0] != 0, "case %d: no message", how);
    }
}
END_TEST

/* A search by pc or by address (jitunwind_pyreader_jit_pc,
 * jitunwind_pyreader_executor_detail) answers as a look through the full
 * list does, and reads the names of the executor it finds only: each other
 * executor costs its list link and its code range (three reads). */
#define N_SEARCHED 48
START_TEST(a_search_reads_only_the_names_it_finds)
{
    struct target t;
    struct jitunwind_py_executor all[N_SEARCHED];
    struct jitunwind_py_executor_detail d;
    struct jitunwind_py_jit_pc w;
    struct counting c;
    struct jitunwind_memory mem;
    jitunwind_pyreader *r;
    uint64_t head = 0, pc;
    unsigned long nearest, farthest;
    size_t n, i, j;
    char name[16];
    build(&t, 0x030e07f0);
    for (i = N_SEARCHED; i-- > 0;) { /* executor 0 first on the list */
        snprintf(name, sizeof name, "f%zu", i);
        head = executor(&t, head, pyi_code(&t.p, name, "/s.py", (int)i + 1, 4),
                        0x7f0000000000 + 0x10000 * i, 4096);
    }
    ju_builder_u64(t.p.b, t.interp + LIST, head);
    c.inner = ju_builder_memory(t.p.b);
    c.reads = 0;
    mem = counting_memory(&c);
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, t.p.runtime, 0x030e07f0,
                                             JITUNWIND_PYREADER_OPTS(.module = self_path)),
                     0);
    ck_assert_int_eq(jitunwind_pyreader_executors(r, all, N_SEARCHED, &n), 0);
    ck_assert_uint_eq(n, N_SEARCHED);
    for (i = 0; i < n; i++) {
        /* What a look through the list says holds pc, and what the search says. */
        pc = all[i].jit_code + 100;
        for (j = 0; j < n && !(pc >= all[j].jit_code && pc - all[j].jit_code < all[j].jit_size);
             j++)
            ;
        ck_assert_uint_eq(j, i);
        ck_assert_int_eq(jitunwind_pyreader_jit_pc(r, pc, 0, &w), 0);
        ck_assert_uint_eq(w.executor, all[j].address);
        ck_assert_str_eq(w.ex.qualname, all[j].qualname);
        ck_assert_str_eq(w.ex.filename, all[j].filename);
        ck_assert_int_eq(w.ex.first_line, all[j].first_line);
        ck_assert_int_eq(jitunwind_pyreader_executor_detail(r, all[i].address, &d), 0);
        ck_assert_mem_eq(&d.ex, &all[i], sizeof all[i]);
    }
    ck_assert_int_eq(jitunwind_pyreader_jit_pc(r, 0x7f0000000000 + 0x10000 * n, 0, &w),
                     JITUNWIND_ENOTFOUND);
    /* The cost: a pc in the last executor against one in the first. */
    c.reads = 0;
    ck_assert_int_eq(jitunwind_pyreader_jit_pc(r, all[0].jit_code, 0, &w), 0);
    nearest = c.reads;
    c.reads = 0;
    ck_assert_int_eq(jitunwind_pyreader_jit_pc(r, all[n - 1].jit_code, 0, &w), 0);
    farthest = c.reads;
    ck_assert_msg(farthest - nearest <= 3 * (N_SEARCHED - 1),
                  "%lu reads for the last executor, %lu for the first", farthest, nearest);
    jitunwind_pyreader_free(r);
    pyi_free(&t.p);
}
END_TEST

int main(void)
{
    return ju_run_tests("py_executors",
                        JU_TESTS(lists_of_a_314_build_from_its_dwarf, one_dwarf_handle_for_many_readers,
                                 a_py_stats_trace_entry_size_is_adopted,
                                 cold_exits_of_a_313_build,
                                 without_dwarf_or_before_313_it_says_why, damaged_lists,
                                 a_search_reads_only_the_names_it_finds));
}
