/* The decoder over synthetic targets of every supported version's layout:
 * threads, names, lines, and how each version marks eval-loop activations
 * (3.11: is_entry on the frame; 3.12+: a sentinel frame owned by the C
 * stack, which is not emitted). */
#include <stdio.h>
#include <stdlib.h>

#include "py_image.h"
#include "python/pyreader.h"
#include "suite.h"
#include "trampoline_code.h"

static const uint32_t VERSIONS[] = {0x030b07f0, 0x030c01f0, 0x030d00f0, 0x030e07f0};

static void check_version(uint32_t version, int free_threaded)
{
    struct py_image p;
    struct jitunwind_memory mem;
    jitunwind_pyreader *r;
    struct jitunwind_py_thread t[4];
    struct jitunwind_py_frame f[16];
    uint64_t interp, ts, c, s1, b, a, s0 = 0;
    size_t n;
    int sentinels = 0;
    pyi_init_build(&p, version, free_threaded);
    sentinels = p.L->owner_sentinel_min != 0;
    c = pyi_frame(&p, pyi_code(&p, "outermost", "/o.py", 1, 8), 0, 2, 0, 1);
    if (sentinels) {
        s0 = pyi_frame(&p, 0, 0, 0, p.L->owner_sentinel_min, 0);
        ju_builder_u64(p.b, c + p.L->fr_previous, s0);
    }
    s1 = sentinels ? pyi_frame(&p, 0, c, 0, p.L->owner_sentinel_min, 0) : c;
    b = pyi_frame(&p, pyi_code(&p, "middle", "/m.py", 20, 8), s1, 3, 0, 1);
    a = pyi_frame(&p, pyi_code(&p, "inner", "/i.py", 40, 8), b, 1, 1, 0);
    interp = pyi_interp(&p, 0, 0);
    ts = pyi_thread(&p, interp, a, 77);
    pyi_set_interpreters(&p, interp);
    if (p.L->interp_gil_ptr != JU_PY_NONE) {
        uint64_t gil = pyi_alloc(&p, 64);
        ju_builder_u64(p.b, interp + p.L->interp_gil_ptr, gil);
        ju_builder_u64(p.b, gil + p.L->gil_last_holder, ts);
    } else {
        pyi_set_gil_holder(&p, ts);
    }
    mem = ju_builder_memory(p.b);
    ck_assert_msg(jitunwind_pyreader_new(&r, &mem, p.runtime, version) == 0, "%s: %s", p.L->name,
                  jitunwind_pyreader_last_error(r)->message);
    ck_assert_int_eq(jitunwind_pyreader_threads(r, t, 4, &n), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(t[0].current_frame, a);
    ck_assert_int_eq(t[0].holds_gil, free_threaded ? -1 : 1); /* no GIL holder to ask */
    ck_assert_int_eq(jitunwind_pyreader_frames(r, a, f, 16, &n), 0);
    ck_assert_msg(n == 3, "%s: %zu frames", p.L->name, n); /* sentinels are not frames */
    ck_assert_str_eq(f[0].qualname, "inner");
    ck_assert_int_eq(f[0].line, 41);
    ck_assert_uint_ne(f[0].flags & JITUNWIND_PYFRAME_GENERATOR, 0);
    ck_assert_uint_eq(f[0].flags & JITUNWIND_PYFRAME_ENTRY, 0);
    ck_assert_str_eq(f[1].qualname, "middle");
    ck_assert_int_eq(f[1].line, 23);
    ck_assert_uint_ne(f[1].flags & JITUNWIND_PYFRAME_ENTRY, 0);
    ck_assert_str_eq(f[2].qualname, "outermost");
    ck_assert_uint_ne(f[2].flags & JITUNWIND_PYFRAME_ENTRY, 0);
    jitunwind_pyreader_free(r);
    pyi_free(&p);
}

/* 3.14t: a thread running its own copy of the bytecode (tlbc_index > 0)
 * has instr_ptr inside co_tlbc->entries[index], not co_code_adaptive. */
START_TEST(free_threaded_thread_local_bytecode)
{
    struct py_image p;
    struct jitunwind_memory mem;
    jitunwind_pyreader *r;
    struct jitunwind_py_frame f[2];
    uint64_t code, frame, copy, tlbc, interp;
    size_t n;
    pyi_init_build(&p, 0x030e07f0, 1);
    code = pyi_code(&p, "runner", "/t.py", 100, 8);
    copy = pyi_alloc(&p, 64);           /* the thread's copy of the bytecode */
    tlbc = pyi_alloc(&p, 8 + 8 * 2);    /* {size = 2, entries[2]} */
    ju_builder_u64(p.b, tlbc, 2);
    ju_builder_u64(p.b, tlbc + 8, code + p.L->co_code_adaptive);
    ju_builder_u64(p.b, tlbc + 16, copy);
    ju_builder_u64(p.b, code + p.L->co_tlbc, tlbc);
    frame = pyi_frame(&p, code, 0, 0, 0, 0);
    ju_builder_u64(p.b, frame + p.L->fr_instr, copy + 2 * 5);
    ju_builder_u32(p.b, frame + p.L->fr_tlbc_index, 1);
    interp = pyi_interp(&p, 0, 0);
    pyi_thread(&p, interp, frame, 7);
    pyi_set_interpreters(&p, interp);
    mem = ju_builder_memory(p.b);
    ck_assert_int_eq(jitunwind_pyreader_new(&r, &mem, p.runtime, 0x030e07f0), 0);
    ck_assert_int_eq(jitunwind_pyreader_frames(r, frame, f, 2, &n), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(f[0].qualname, "runner");
    ck_assert_int_eq(f[0].lasti, 5);
    ck_assert_int_eq(f[0].line, 105);
    /* An index past the array: no line, said so, no read beyond it. */
    ju_builder_u32(p.b, frame + p.L->fr_tlbc_index, 2);
    ck_assert_int_eq(jitunwind_pyreader_frames(r, frame, f, 2, &n), 0);
    ck_assert_int_eq(f[0].line, -1);
    ck_assert_uint_ne(f[0].flags & JITUNWIND_PYFRAME_NO_LINE, 0);
    ck_assert_str_eq(f[0].qualname, "runner");
    /* Index 0 is the code object's own bytecode. */
    ju_builder_u32(p.b, frame + p.L->fr_tlbc_index, 0);
    ju_builder_u64(p.b, frame + p.L->fr_instr, code + p.L->co_code_adaptive + 2 * 3);
    ck_assert_int_eq(jitunwind_pyreader_frames(r, frame, f, 2, &n), 0);
    ck_assert_int_eq(f[0].line, 103);
    jitunwind_pyreader_free(r);
    pyi_free(&p);
}
END_TEST

START_TEST(every_supported_version)
{
    size_t i;
    for (i = 0; i < sizeof VERSIONS / sizeof VERSIONS[0]; i++)
        check_version(VERSIONS[i], 0);
    check_version(0x030d00f0, 1); /* 3.13t */
    check_version(0x030e07f0, 1); /* 3.14t */
    ck_assert_int_eq(jitunwind_py_version_supported(0x030f00a0), 0); /* 3.15: not yet */
}
END_TEST

/* A 3.13 target whose _Py_DebugOffsets are then damaged one way at a time. */
static int open_damaged(uint64_t offset, const void *bytes, size_t len, char *message, size_t cap)
{
    struct py_image p;
    struct jitunwind_memory mem;
    jitunwind_pyreader *r;
    int rc;
    pyi_init(&p, 0x030d00f0);
    pyi_set_interpreters(&p, pyi_interp(&p, 0, 0));
    ju_builder_write(p.b, p.runtime + offset, bytes, len);
    mem = ju_builder_memory(p.b);
    rc = jitunwind_pyreader_new(&r, &mem, p.runtime, 0x030d00f0);
    snprintf(message, cap, "%s", jitunwind_pyreader_last_error(r)->message);
    jitunwind_pyreader_free(r);
    pyi_free(&p);
    return rc;
}

START_TEST(debug_offsets_are_checked)
{
    char msg[256];
    uint64_t v;
    ck_assert_int_eq(open_damaged(0, "xdebugpy", 8, msg, sizeof msg), 0);
    ck_assert_int_eq(open_damaged(0, "notdebug", 8, msg, sizeof msg), JITUNWIND_ECORRUPT);
    ck_assert_ptr_nonnull(strstr(msg, "cookie"));
    v = 0x030c00f0; /* says 3.12 */
    ck_assert_int_eq(open_damaged(8, &v, 8, msg, sizeof msg), JITUNWIND_ECORRUPT);
    ck_assert_ptr_nonnull(strstr(msg, "version"));
    v = 2; /* free_threaded is a flag */
    ck_assert_int_eq(open_damaged(16, &v, 8, msg, sizeof msg), JITUNWIND_ECORRUPT);
    ck_assert_ptr_nonnull(strstr(msg, "free_threaded"));
    v = 4; /* runtime_state.size smaller than interpreters_head */
    ck_assert_int_eq(open_damaged(24, &v, 8, msg, sizeof msg), JITUNWIND_ECORRUPT);
    ck_assert_ptr_nonnull(strstr(msg, "implausible"));
    v = UINT64_MAX; /* a huge struct size */
    ck_assert_int_eq(open_damaged(24, &v, 8, msg, sizeof msg), JITUNWIND_ECORRUPT);
}
END_TEST

START_TEST(a_build_that_does_not_fit_is_refused)
{
    struct py_image p;
    struct jitunwind_memory mem;
    jitunwind_pyreader *r;
    uint64_t interp, ts;
    pyi_init(&p, 0x030c01f0);
    interp = pyi_interp(&p, 0, 0);
    ts = pyi_thread(&p, interp, 0, 1);
    pyi_set_interpreters(&p, interp);
    /* As if PyThreadState had other fields first (e.g. a debug build). */
    ju_builder_u64(p.b, ts + p.L->ts_interp, 0);
    mem = ju_builder_memory(p.b);
    ck_assert_int_eq(jitunwind_pyreader_new(&r, &mem, p.runtime, 0x030c01f0), JITUNWIND_EVERSION);
    ck_assert_ptr_nonnull(strstr(jitunwind_pyreader_last_error(r)->message, "does not match"));
    jitunwind_pyreader_free(r);
    pyi_free(&p);
}
END_TEST

START_TEST(trampoline_arenas_from_the_runtime)
{
    struct py_image p;
    struct jitunwind_memory mem;
    jitunwind_pyreader *r;
    jitunwind_registry *reg;
    uint64_t code1 = 0x7e0000, code2 = 0x7f0000, a1, a2, bad, i;
    size_t added;
    pyi_init(&p, 0x030d00f0);
    pyi_set_interpreters(&p, pyi_interp(&p, 0, 0));
    for (i = 0; i < 4; i++) { /* arena 1: 4 copies back to back (3.12.1 style) */
        ju_builder_write(p.b, code1 + i * 11, JU_X86_SUB8, sizeof JU_X86_SUB8);
        ju_builder_write(p.b, code2 + i * 16, JU_X86_SUB8, sizeof JU_X86_SUB8); /* arena 2: 16-aligned */
    }
    bad = pyi_alloc(&p, 48); /* implausible: current before start */
    ju_builder_u64(p.b, bad, 0x900000);
    ju_builder_u64(p.b, bad + 8, 0x800000);
    a1 = pyi_alloc(&p, 48);
    ju_builder_u64(p.b, a1, code1);
    ju_builder_u64(p.b, a1 + 8, code1 + 3 * 11);
    ju_builder_u64(p.b, a1 + 16, 0x10000);
    ju_builder_u64(p.b, a1 + 32, sizeof JU_X86_SUB8);
    ju_builder_u64(p.b, a1 + 40, bad);
    a2 = pyi_alloc(&p, 48);
    ju_builder_u64(p.b, a2, code2);
    ju_builder_u64(p.b, a2 + 8, code2 + 4 * 16);
    ju_builder_u64(p.b, a2 + 16, 0x10000);
    ju_builder_u64(p.b, a2 + 32, sizeof JU_X86_SUB8);
    ju_builder_u64(p.b, a2 + 40, a1);
    ju_builder_u64(p.b, p.runtime + p.L->rt_perf_code_arena, a2);
    mem = ju_builder_memory(p.b);
    ck_assert_int_eq(jitunwind_pyreader_new(&r, &mem, p.runtime, 0x030d00f0), 0);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_pyreader_trampoline_ranges(r, reg, JITUNWIND_ARCH_X86_64, &added), 0);
    ck_assert_uint_eq(added, 2);
    ck_assert_uint_eq(jitunwind_registry_lookup(reg, code1 + 11 + 6)->stride, 11);
    ck_assert_uint_eq(jitunwind_registry_lookup(reg, code2 + 16 + 6)->stride, 16);
    ck_assert_int_eq(jitunwind_registry_lookup(reg, code2)->origin, JITUNWIND_ORIGIN_INTERPRETER);
    ck_assert_ptr_null(jitunwind_registry_lookup(reg, code1 + 3 * 11)); /* not handed out yet */
    /* A cycle in the arena list is reported, not followed forever. */
    ju_builder_u64(p.b, a1 + 40, a2);
    jitunwind_registry_clear(reg);
    ck_assert_int_eq(jitunwind_pyreader_trampoline_ranges(r, reg, JITUNWIND_ARCH_X86_64, &added),
                     JITUNWIND_ELOOP);
    /* Never activated. */
    ju_builder_u64(p.b, p.runtime + p.L->rt_perf_code_arena, 0);
    ck_assert_int_eq(jitunwind_pyreader_trampoline_ranges(r, reg, JITUNWIND_ARCH_X86_64, &added),
                     JITUNWIND_ENOTFOUND);
    jitunwind_registry_free(reg);
    jitunwind_pyreader_free(r);
    pyi_free(&p);
}
END_TEST

int main(void)
{
    return ju_run_tests("py_versions", JU_TESTS(every_supported_version, free_threaded_thread_local_bytecode, debug_offsets_are_checked,
                                                a_build_that_does_not_fit_is_refused,
                                                trampoline_arenas_from_the_runtime));
}
