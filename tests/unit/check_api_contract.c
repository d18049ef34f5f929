/* The API's argument and failure contract, checked across the whole public
 * surface (docs/usage.md, "Failure contract"):
 *  - a required out-pointer that is NULL gives EINVAL, never a crash;
 *  - an optional one (documented "may be NULL") is simply not written;
 *  - a constructor that fails leaves *out NULL (nothing to free), and the
 *    detail of its failure is in jitunwind_last_error();
 *  - a reader made from a NULL handle fails every read with EINVAL. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "jitunwind/dwarf.h"
#include "py_image.h"
#include "suite.h"

/* A type for the DWARF lookups below (this suite is built with -g). */
struct contract_probe {
    long first;
    void *second;
};
struct contract_probe contract_probe_instance;

#define POISON ((void *)(uintptr_t)0x5a5a5a5a)

START_TEST(dwarf_lookups_reject_null_out)
{
    jitunwind_dwarf_types *t = POISON;
    uint64_t v = 0;
    ck_assert_int_eq(jitunwind_dwarf_types_open(&t, "/proc/self/exe"), 0);
    ck_assert_int_eq(jitunwind_dwarf_member_offset(t, "contract_probe", "second", &v), 0);
    ck_assert_uint_eq(v, 8);
    ck_assert_int_eq(jitunwind_dwarf_member_offset(t, "contract_probe", "second", NULL),
                     JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_dwarf_member_bit_offset(t, "contract_probe", "second", NULL),
                     JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_dwarf_type_size(t, "contract_probe", NULL), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_dwarf_member_offset(t, NULL, "second", &v), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_dwarf_member_offset(t, "contract_probe", NULL, &v),
                     JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_dwarf_member_offset(NULL, "contract_probe", "second", &v),
                     JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_dwarf_member_bit_offset(NULL, "contract_probe", "second", &v),
                     JITUNWIND_EINVAL);
    jitunwind_dwarf_types_free(t);
}
END_TEST

START_TEST(constructors_reject_null_out)
{
    struct jitunwind_memory mem = {0};
    ck_assert_int_eq(jitunwind_registry_new(NULL), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_modules_new(NULL), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_image_new(NULL), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_process_reader_new(NULL, getpid()), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_core_reader_new(NULL, "/proc/self/exe"), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_dwarf_types_open(NULL, "/proc/self/exe"), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_dwarf_types_open_cached(NULL, "/proc/self/exe", "/tmp"),
                     JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_pyreader_open(NULL, &mem, 0x1000, 0x030c00f0, NULL),
                     JITUNWIND_EINVAL);
}
END_TEST

START_TEST(queries_reject_null_out)
{
    jitunwind_registry *reg;
    jitunwind_modules *mods;
    struct jitunwind_regs regs = {0};
    struct jitunwind_range range = {0};
    struct jitunwind_frame frames[2];
    struct jitunwind_cursor cur;
    struct jitunwind_mapping maps[2];
    struct jitunwind_py_frame py[1];
    uint32_t roles[1] = {0};
    size_t n = 99;
    uint64_t off;
    char buf[16];
    struct ju_builder *b = ju_builder_new();
    struct jitunwind_memory mem = ju_builder_memory(b);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_modules_new(&mods), 0);
    regs.pc = 0x1000;
    regs.sp = 0x2000;
    regs.valid = JITUNWIND_REG_PC | JITUNWIND_REG_SP;
    range.start = 0x1000;
    range.end = 0x2000;
    range.kind = JITUNWIND_KIND_JIT;
    range.rule = JITUNWIND_RULE_FP_PRESERVING;

    ck_assert_int_eq(jitunwind_modules_info(mods, 0, NULL), JITUNWIND_EINVAL);
    ck_assert_int_lt(jitunwind_modules_symbolize(mods, 0x1000, NULL, 16, &off), 0);
    ck_assert_int_lt(jitunwind_modules_symbolize(mods, 0x1000, buf, sizeof buf, NULL), 0);
    ck_assert_int_eq(jitunwind_step_cfi(JITUNWIND_ARCH_X86_64, mods, &mem, &regs, 1, NULL, NULL),
                     JITUNWIND_EINVAL);
    {
        struct jitunwind_dwarf_regs all = {0}, caller;
        uint64_t value;
        all.pc = 0x1000;
        ck_assert_int_eq(jitunwind_step_cfi_registers(JITUNWIND_ARCH_X86_64, mods, &mem, &all, 1,
                                                      NULL),
                         JITUNWIND_EINVAL);
        /* no stack pointer to compute a CFA from */
        ck_assert_int_eq(jitunwind_step_cfi_registers(JITUNWIND_ARCH_X86_64, mods, &mem, &all, 1,
                                                      &caller),
                         JITUNWIND_EINVAL);
        ck_assert_int_eq(jitunwind_native_variable(JITUNWIND_ARCH_X86_64, mods, &mem, &all, 1, 0,
                                                   NULL, &value),
                         JITUNWIND_EINVAL);
        ck_assert_int_eq(jitunwind_native_variable(JITUNWIND_ARCH_X86_64, mods, &mem, &all, 1, 0,
                                                   "x", NULL),
                         JITUNWIND_EINVAL);
        /* no module maps the pc */
        ck_assert_int_eq(jitunwind_native_variable(JITUNWIND_ARCH_X86_64, mods, &mem, &all, 1, 0,
                                                   "x", &value),
                         JITUNWIND_ENOTFOUND);
    }
    ck_assert_int_eq(jitunwind_step_range(JITUNWIND_ARCH_X86_64, &range, &mem, &regs, 1, NULL,
                                          NULL),
                     JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_step_fp(JITUNWIND_ARCH_X86_64, &mem, &regs, NULL, NULL),
                     JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_cursor_init(NULL, JITUNWIND_ARCH_X86_64, reg, &mem, &regs, 0, 0),
                     JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_cursor_init(&cur, JITUNWIND_ARCH_X86_64, reg, &mem, &regs, 0, 0),
                     0);
    ck_assert_int_eq(jitunwind_cursor_step(&cur, NULL), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_cursor_step(NULL, frames), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_unwind(JITUNWIND_ARCH_X86_64, reg, NULL, &mem, &regs, NULL, 2, 0,
                                      NULL),
                     JITUNWIND_EINVAL);
    /* stop_reason is optional. */
    ck_assert_int_ge(jitunwind_unwind(JITUNWIND_ARCH_X86_64, reg, NULL, &mem, &regs, frames, 2, 0,
                                      NULL),
                     1);
    ck_assert_int_eq(jitunwind_anonymous_exec_mappings(getpid(), maps, 2, NULL), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_anonymous_exec_mappings(getpid(), NULL, 2, &n), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_core_anonymous_exec_mappings("/nonexistent", maps, 2, NULL),
                     JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_mix(roles, 1, py, 0, NULL, 4, &n), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_mix(roles, 1, py, 0, (struct jitunwind_mixed_item[4]){{0}}, 4,
                                   NULL),
                     JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_py_locate_live(getpid(), NULL), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_py_locate_core("/nonexistent", NULL), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_py_locate_modules(NULL, &(struct jitunwind_py_location){0}),
                     JITUNWIND_EINVAL);
    ck_assert_int_lt(jitunwind_elf_symbol("/proc/self/exe", "main", NULL, NULL), 0);
    /* Optional counters. */
    ck_assert_int_eq(jitunwind_registry_add_guesses(reg, &mem, JITUNWIND_ARCH_X86_64, maps, 0,
                                                    NULL),
                     0);
    ck_assert_int_eq(jitunwind_jit_read_descriptor(reg, &mem, 0x1000, NULL), JITUNWIND_EREAD);
    ck_assert_int_lt(jitunwind_registry_load_gdb_jit(reg, &mem, 0x1000, JITUNWIND_ARCH_X86_64,
                                                     NULL, NULL),
                     0);
    ck_assert_int_lt(jitunwind_registry_load_perf_map(reg, "/nonexistent", JITUNWIND_ARCH_X86_64,
                                                      &mem, NULL, NULL),
                     0);
    jitunwind_modules_free(mods);
    jitunwind_registry_free(reg);
    ju_builder_free(b);
}
END_TEST

START_TEST(pyreader_queries_reject_null_out)
{
    struct py_image p;
    struct jitunwind_memory mem;
    jitunwind_pyreader *r;
    jitunwind_registry *reg;
    uint64_t interp;
    size_t n;
    struct jitunwind_py_thread t[2];
    struct jitunwind_py_frame f[2];
    struct jitunwind_py_executor e[2];
    pyi_init(&p, 0x030d00f0);
    interp = pyi_interp(&p, 0, 0);
    pyi_thread(&p, interp, 0, 7);
    pyi_set_interpreters(&p, interp);
    mem = ju_builder_memory(p.b);
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, 0x030d00f0, NULL), 0);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_pyreader_threads(r, NULL, 2, &n), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_pyreader_threads(r, t, 2, NULL), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_pyreader_frames(r, 0x1000, NULL, 2, &n), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_pyreader_frames(r, 0x1000, f, 2, NULL), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_pyreader_executors(r, NULL, 2, &n), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_pyreader_executors(r, e, 2, NULL), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_pyreader_dwarf_report(r, NULL), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_pyreader_threads(NULL, t, 2, &n), JITUNWIND_EINVAL);
    {
        char names[2 * JITUNWIND_PY_THREAD_NAME_MAX] = "x";
        ck_assert_int_eq(jitunwind_pyreader_thread_names(r, NULL, 2, names, sizeof names / 2, &n),
                         JITUNWIND_EINVAL);
        ck_assert_int_eq(jitunwind_pyreader_thread_names(r, t, 2, NULL, sizeof names / 2, &n),
                         JITUNWIND_EINVAL);
        ck_assert_int_eq(jitunwind_pyreader_thread_names(r, t, 2, names, 1, &n), JITUNWIND_EINVAL);
        ck_assert_int_eq(jitunwind_pyreader_thread_names(r, t, 0, NULL, 8, &n), JITUNWIND_ENOTFOUND);
        ck_assert_uint_eq(n, 0);
        ck_assert_int_eq(jitunwind_pyreader_thread_name(r, NULL, names, sizeof names),
                         JITUNWIND_EINVAL);
        ck_assert_int_eq(names[0], '\0');
    }
    /* Optional counters. */
    jitunwind_pyreader_trampoline_ranges(r, reg, JITUNWIND_ARCH_X86_64, NULL);
    jitunwind_pyreader_executor_ranges(r, reg, JITUNWIND_ARCH_X86_64, 0, 0, NULL);
    jitunwind_registry_free(reg);
    jitunwind_pyreader_free(r);
    pyi_free(&p);
}
END_TEST

/* The reader of a NULL handle (an unchecked failed
 * constructor) fails with EINVAL instead of dereferencing NULL. */
START_TEST(reader_of_null_handle_fails_with_einval)
{
    uint8_t byte;
    struct jitunwind_memory m = jitunwind_process_reader_memory(NULL);
    ck_assert_ptr_nonnull(m.read);
    ck_assert_int_eq(m.read(m.arg, 0x1000, &byte, 1), JITUNWIND_EINVAL);
    m = jitunwind_image_memory(NULL);
    ck_assert_ptr_nonnull(m.read);
    ck_assert_int_eq(m.read(m.arg, 0x1000, &byte, 1), JITUNWIND_EINVAL);
    m = jitunwind_core_reader_memory(NULL);
    ck_assert_ptr_nonnull(m.read);
    ck_assert_int_eq(m.read(m.arg, 0x1000, &byte, 1), JITUNWIND_EINVAL);
}
END_TEST

/* Every constructor leaves *out NULL on failure, and
 * jitunwind_last_error() says why. */
START_TEST(failed_constructors_leave_out_null)
{
    jitunwind_pyreader *r = POISON;
    jitunwind_process_reader *pr = POISON;
    jitunwind_dwarf_types *t = POISON;
    const struct jitunwind_error *err;
    struct py_image p;
    struct jitunwind_memory mem;
    char path[64];
    pyi_init(&p, 0x030d00f0);
    mem = ju_builder_memory(p.b);
    /* No interpreter (Python not initialised yet): opened, then refused. */
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, 0x030d00f0, NULL),
                     JITUNWIND_ENOTFOUND);
    ck_assert_ptr_null(r);
    err = jitunwind_last_error();
    ck_assert_ptr_nonnull(err);
    ck_assert_int_eq(err->code, JITUNWIND_ENOTFOUND);
    ck_assert_msg(strstr(err->message, "not initialised") != NULL, "%s", err->message);
    r = POISON;
    /* Options are checked by their size and flags before the target is
     * read: a size of 0, an unknown member set past this library's struct
     * or an unknown flag is refused; a larger struct whose unknown tail is
     * 0 gets as far as the target (not initialised). */
    {
        struct {
            struct jitunwind_pyreader_opts opts;
            uint64_t unknown;
        } newer = {{sizeof newer, NULL, NULL, 0}, 1};
        struct jitunwind_pyreader_opts none = {0};
        ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, 0x030d00f0, &none),
                         JITUNWIND_EINVAL);
        ck_assert_ptr_null(r);
        ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, 0x030d00f0, &newer.opts),
                         JITUNWIND_EINVAL);
        ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, 0x030d00f0,
                                                 JITUNWIND_PYREADER_OPTS(.flags = 1u << 31)),
                         JITUNWIND_EINVAL);
        newer.unknown = 0;
        ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, 0x030d00f0, &newer.opts),
                         JITUNWIND_ENOTFOUND);
        r = POISON;
    }
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, 0x02070000,
                                             JITUNWIND_PYREADER_OPTS(.module = NULL)),
                     JITUNWIND_EVERSION);
    ck_assert_ptr_null(r);
    ck_assert_int_eq(jitunwind_last_error()->code, JITUNWIND_EVERSION);
    r = POISON;
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, 0x02070000,
                                             JITUNWIND_PYREADER_OPTS(.module = NULL,
                                                                     .flags = JITUNWIND_PYREADER_NO_DWARF)),
                     JITUNWIND_EVERSION);
    ck_assert_ptr_null(r);
    r = POISON;
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime + 0x100000000ull, 0x030d00f0,
                                             NULL),
                     JITUNWIND_EREAD);
    ck_assert_ptr_null(r);
    r = POISON;
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, 0, 0x030d00f0, NULL), JITUNWIND_EINVAL);
    ck_assert_ptr_null(r);
    /* A process that does not exist. */
    snprintf(path, sizeof path, "/proc/sys/kernel/pid_max");
    ck_assert_int_eq(jitunwind_process_reader_new(&pr, 0x3fffffff), JITUNWIND_ENOTFOUND);
    ck_assert_ptr_null(pr);
    pr = POISON;
    ck_assert_int_eq(jitunwind_process_reader_new(&pr, -1), JITUNWIND_EINVAL);
    ck_assert_ptr_null(pr);
    {
        jitunwind_core_reader *cr = POISON;
        /* An ELF file that is not a core, and no file at all. */
        ck_assert_int_eq(jitunwind_core_reader_new(&cr, "/proc/self/exe"), JITUNWIND_EELF);
        ck_assert_ptr_null(cr);
        ck_assert_msg(strstr(jitunwind_last_error()->message, "not a core") != NULL, "%s",
                      jitunwind_last_error()->message);
        cr = POISON;
        ck_assert_int_lt(jitunwind_core_reader_new(&cr, "/nonexistent/core"), 0);
        ck_assert_ptr_null(cr);
    }
    ck_assert_int_lt(jitunwind_dwarf_types_open(&t, "/nonexistent"), 0);
    ck_assert_ptr_null(t);
    t = POISON;
    ck_assert_int_lt(jitunwind_dwarf_types_open(&t, NULL), 0);
    ck_assert_ptr_null(t);
    pyi_free(&p);
}
END_TEST

/* The constructors that succeed clear the thread's last error. */
START_TEST(last_error_is_cleared_by_a_success)
{
    jitunwind_registry *reg;
    jitunwind_pyreader *r;
    struct py_image p;
    struct jitunwind_memory mem;
    pyi_init(&p, 0x030d00f0);
    mem = ju_builder_memory(p.b);
    ck_assert_int_lt(jitunwind_pyreader_open(&r, &mem, p.runtime, 0x030d00f0, NULL), 0);
    ck_assert_int_ne(jitunwind_last_error()->code, 0);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_last_error()->code, 0);
    ck_assert_str_eq(jitunwind_last_error()->message, "");
    jitunwind_registry_free(reg);
    pyi_free(&p);
}
END_TEST

/* The headers' version, the library's number and its string agree, and
 * the number orders versions as they are ordered. */
START_TEST(version_of_headers_and_library_agree)
{
    char expected[32];
    snprintf(expected, sizeof expected, "%d.%d.%d", JITUNWIND_VERSION_MAJOR,
             JITUNWIND_VERSION_MINOR, JITUNWIND_VERSION_PATCH);
    ck_assert_str_eq(jitunwind_version_string(), expected);
    ck_assert_uint_eq(jitunwind_version(), JITUNWIND_VERSION);
    ck_assert_uint_lt(JITUNWIND_VERSION_NUMBER(0, 9, 99), JITUNWIND_VERSION_NUMBER(1, 0, 0));
    ck_assert_uint_lt(JITUNWIND_VERSION_NUMBER(1, 2, 3), JITUNWIND_VERSION_NUMBER(1, 3, 0));
}
END_TEST

int main(void)
{
    return ju_run_tests("api_contract",
                        JU_TESTS(dwarf_lookups_reject_null_out, constructors_reject_null_out,
                                 queries_reject_null_out, pyreader_queries_reject_null_out,
                                 reader_of_null_handle_fails_with_einval,
                                 failed_constructors_leave_out_null,
                                 last_error_is_cleared_by_a_success,
                                 version_of_headers_and_library_agree));
}
