/* The decoder over synthetic targets of every supported version's layout:
 * threads, names, lines, and how each version marks eval-loop activations
 * (3.11: is_entry on the frame; 3.12+: a sentinel frame owned by the C
 * stack, which is not emitted). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "py_image.h"
#include "python/pyreader.h"
#include "suite.h"
#include "trampoline_code.h"

/* Each minor's release the tables are for (3.15: rc1, the first its
 * debug-offsets list is confirmed on; 3.16 is provisional, see below). */
static const uint32_t VERSIONS[] = {0x030b07f0, 0x030c01f0, 0x030d00f0, 0x030e07f0, 0x030f00c1};

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
    if (p.L->ts_holds_gil != JU_PY_NONE) {
        /* 3.15+: the thread says so itself; the GIL's last holder is stale. */
        uint64_t gil = pyi_alloc(&p, 64);
        ju_builder_u64(p.b, interp + p.L->interp_gil_ptr, gil);
        ju_builder_u32(p.b, ts + p.L->ts_holds_gil, 1);
    } else if (p.L->interp_gil_ptr != JU_PY_NONE) {
        uint64_t gil = pyi_alloc(&p, 64);
        ju_builder_u64(p.b, interp + p.L->interp_gil_ptr, gil);
        ju_builder_u64(p.b, gil + p.L->gil_last_holder, ts);
        ju_builder_u32(p.b, gil + 16, 1); /* locked (value_layout.c: gil_locked) */
    } else {
        pyi_set_gil_holder(&p, ts);
    }
    mem = ju_builder_memory(p.b);
    ck_assert_msg(jitunwind_pyreader_open(&r, &mem, p.runtime, version,
                                          NULL) == 0, "%s: %s", p.L->name,
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
    /* One frame alone: the walk's first, with no limit reached (a walk
     * of at most one frame says there are more). */
    ck_assert_int_eq(jitunwind_pyreader_frames(r, a, f + 3, 1, &n), JITUNWIND_ELIMIT);
    ck_assert_int_eq(jitunwind_pyreader_frame(r, a, f + 3), 0);
    ck_assert_str_eq(f[3].qualname, "inner");
    ck_assert_int_eq(f[3].line, 41);
    ck_assert_uint_eq(f[3].address, a);
    ck_assert_int_eq(jitunwind_pyreader_frame(r, b, f + 3), 0);
    ck_assert_str_eq(f[3].qualname, "middle");
    ck_assert_int_eq(jitunwind_pyreader_frame(r, s1, f + 3), 0); /* from a sentinel: the next */
    ck_assert_str_eq(f[3].qualname, "outermost");
    ck_assert_int_eq(jitunwind_pyreader_frame(r, 0, f + 3), JITUNWIND_ENOTFOUND);
    ck_assert_int_eq(jitunwind_pyreader_frame(NULL, a, f + 3), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_pyreader_frame(r, a, NULL), JITUNWIND_EINVAL);
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
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, 0x030e07f0, NULL), 0);
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

/* Reads that touch [WATCH_LO, WATCH_HI) are counted. */
static uint64_t WATCH_LO, WATCH_HI;
static unsigned long WATCHED;
static struct jitunwind_memory WATCH_INNER;

static int watching_read(void *arg, uint64_t addr, void *dst, size_t len)
{
    if (addr < WATCH_HI && addr + len > WATCH_LO)
        WATCHED++;
    return WATCH_INNER.read(WATCH_INNER.arg, addr, dst, len);
}

/* Where each thread state says whether it holds its GIL (3.15+), listing
 * the threads reads neither the interpreter's GIL pointer nor the GIL: a
 * sampler lists them at every pass. */
START_TEST(a_listing_reads_no_gil_where_threads_say)
{
    struct py_image p;
    struct jitunwind_memory mem;
    jitunwind_pyreader *r;
    struct jitunwind_py_thread t[4];
    uint64_t interp, ts, gil;
    size_t n;
    pyi_init(&p, 0x030f00f0);
    ck_assert_uint_ne(p.L->ts_holds_gil, JU_PY_NONE);
    interp = pyi_interp(&p, 0, 0);
    ts = pyi_thread(&p, interp, 0, 77);
    pyi_set_interpreters(&p, interp);
    gil = pyi_alloc(&p, 64);
    ju_builder_u64(p.b, interp + p.L->interp_gil_ptr, gil);
    ju_builder_u64(p.b, gil + p.L->gil_last_holder, ts);
    ju_builder_u32(p.b, ts + p.L->ts_holds_gil, 1);
    WATCH_INNER = ju_builder_memory(p.b);
    mem = WATCH_INNER;
    mem.read = watching_read;
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, 0x030f00f0, NULL), 0);
    WATCHED = 0;
    WATCH_LO = gil, WATCH_HI = gil + 64;
    ck_assert_int_eq(jitunwind_pyreader_threads(r, t, 4, &n), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_int_eq(t[0].holds_gil, 1);
    ck_assert_int_eq(jitunwind_pyreader_thread(r, &t[0]), 0);
    ck_assert_int_eq(t[0].holds_gil, 1);
    ck_assert_uint_eq(WATCHED, 0);
    WATCH_LO = interp + p.L->interp_gil_ptr, WATCH_HI = WATCH_LO + 8;
    ck_assert_int_eq(jitunwind_pyreader_threads(r, t, 4, &n), 0);
    ck_assert_uint_eq(WATCHED, 0);
    ju_builder_u32(p.b, ts + p.L->ts_holds_gil, 0); /* its own word, whatever the GIL says */
    ck_assert_int_eq(jitunwind_pyreader_threads(r, t, 4, &n), 0);
    ck_assert_int_eq(t[0].holds_gil, 0);
    jitunwind_pyreader_free(r);
    pyi_free(&p);
}
END_TEST

/* Between listings a sampler reads the listed thread states again
 * (jitunwind_pyreader_threads_again): 1, their current frames read again,
 * while the list's links and the thread ids are as listed; 0 once a
 * thread state is added at the head, one is taken out, or one's ids
 * changed. */
START_TEST(listed_threads_read_again_until_the_list_changes)
{
    struct py_image p;
    struct jitunwind_memory mem;
    jitunwind_pyreader *r;
    struct jitunwind_py_thread t[8];
    uint64_t interp, a, b, c, d;
    size_t n;
    pyi_init(&p, 0x030f00f0);
    interp = pyi_interp(&p, 0, 0);
    a = pyi_thread(&p, interp, 0x1000, 71);
    b = pyi_thread(&p, interp, 0x2000, 72);
    c = pyi_thread(&p, interp, 0x3000, 73);
    ju_builder_u64(p.b, b + p.L->ts_next - 8, a); /* the previous links */
    ju_builder_u64(p.b, c + p.L->ts_next - 8, b);
    pyi_set_interpreters(&p, interp);
    mem = ju_builder_memory(p.b);
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, 0x030f00f0, NULL), 0);
    ck_assert_int_eq(jitunwind_pyreader_threads(r, t, 8, &n), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(t[0].tstate, a);
    ck_assert_int_eq(jitunwind_pyreader_threads_again(r, t, 3), 1);
    ju_builder_u64(p.b, b + p.L->ts_current_frame, 0x2100);
    ck_assert_int_eq(jitunwind_pyreader_threads_again(r, t, 3), 1);
    ck_assert_uint_eq(t[1].current_frame, 0x2100);
    /* Added at the head. */
    d = pyi_alloc(&p, 1024);
    ju_builder_u64(p.b, d + p.L->ts_next, a);
    ju_builder_u64(p.b, a + p.L->ts_next - 8, d);
    ju_builder_u64(p.b, interp + p.L->interp_threads_head, d);
    ck_assert_int_eq(jitunwind_pyreader_threads_again(r, t, 3), 0);
    ju_builder_u64(p.b, a + p.L->ts_next - 8, 0);
    ju_builder_u64(p.b, interp + p.L->interp_threads_head, a);
    ck_assert_int_eq(jitunwind_pyreader_threads(r, t, 8, &n), 0);
    ck_assert_int_eq(jitunwind_pyreader_threads_again(r, t, 3), 1);
    /* Taken out of the middle. */
    ju_builder_u64(p.b, a + p.L->ts_next, c);
    ju_builder_u64(p.b, c + p.L->ts_next - 8, a);
    ck_assert_int_eq(jitunwind_pyreader_threads_again(r, t, 3), 0);
    ck_assert_int_eq(jitunwind_pyreader_threads(r, t, 8, &n), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_int_eq(jitunwind_pyreader_threads_again(r, t, 2), 1);
    /* The last one's memory now another thread's. */
    ju_builder_u64(p.b, c + p.L->ts_native_thread_id, 99);
    ck_assert_int_eq(jitunwind_pyreader_threads_again(r, t, 2), 0);
    ck_assert_int_eq(jitunwind_pyreader_threads_again(r, NULL, 1), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_pyreader_threads_again(NULL, t, 2), JITUNWIND_EINVAL);
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
    check_version(0x030f00f0, 1); /* 3.15.0t */
    check_version(0x030f02f0, 0); /* a later 3.15 release */
    ck_assert_int_eq(jitunwind_py_version_supported(0x031100a0), 0); /* 3.17: not yet */
}
END_TEST

/* 3.13+: a class's __init__ returns through a cleanup frame whose static
 * code object is named "__init__" in file "__init__": flagged as a shim,
 * not taken for an entry frame or for user code; a user's own __init__ is
 * not flagged. */
START_TEST(the_init_cleanup_frame_is_a_shim)
{
    static const uint32_t VERSIONS_WITH_CLEANUP[] = {0x030d00f0, 0x030e07f0, 0x030f00c1};
    size_t i;
    for (i = 0; i < sizeof VERSIONS_WITH_CLEANUP / sizeof VERSIONS_WITH_CLEANUP[0]; i++) {
        uint32_t version = VERSIONS_WITH_CLEANUP[i];
        struct py_image p;
        struct jitunwind_memory mem;
        jitunwind_pyreader *r;
        struct jitunwind_py_frame f[4];
        uint64_t caller, cleanup, user_init;
        size_t n;
        pyi_init(&p, version);
        caller = pyi_frame(&p, pyi_code(&p, "make", "/m.py", 1, 8), 0, 2, 0, 0);
        cleanup = pyi_frame(&p, pyi_code(&p, "__init__", "__init__", 0, 2), caller, 0, 0, 0);
        user_init = pyi_frame(&p, pyi_code(&p, "__init__", "/m.py", 10, 8), cleanup, 1, 0, 0);
        pyi_set_interpreters(&p, pyi_interp(&p, 0, 0));
        mem = ju_builder_memory(p.b);
        ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, version, NULL), 0);
        ck_assert_int_eq(jitunwind_pyreader_frames(r, user_init, f, 4, &n), 0);
        ck_assert_uint_eq(n, 3);
        ck_assert_uint_eq(f[0].flags & JITUNWIND_PYFRAME_SHIM, 0);
        ck_assert_int_eq(f[0].line, 11);
        ck_assert_uint_ne(f[1].flags & JITUNWIND_PYFRAME_SHIM, 0);
        ck_assert_uint_eq(f[1].flags & JITUNWIND_PYFRAME_ENTRY, 0);
        ck_assert_str_eq(f[2].qualname, "make");
        ck_assert_uint_eq(f[2].flags & JITUNWIND_PYFRAME_SHIM, 0);
        jitunwind_pyreader_free(r);
        pyi_free(&p);
    }
}
END_TEST

/* A pre-release whose field list is not confirmed (3.15 before rc1: b4
 * inserted a thread-state field; 3.16: in development) is used only when
 * DWARF confirms it: without DWARF, refused, saying why. The DWARF side is
 * in check_py_assume.c. */
START_TEST(provisional_field_lists_need_dwarf)
{
    static const uint32_t PROVISIONAL[] = {0x030f00b3, 0x031000a2};
    size_t i;
    for (i = 0; i < sizeof PROVISIONAL / sizeof PROVISIONAL[0]; i++) {
        struct py_image p;
        struct jitunwind_memory mem;
        jitunwind_pyreader *r;
        const char *msg;
        pyi_init(&p, PROVISIONAL[i]);
        pyi_set_interpreters(&p, pyi_interp(&p, 0, 0));
        mem = ju_builder_memory(p.b);
        ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, PROVISIONAL[i], NULL),
                         JITUNWIND_EVERSION);
        msg = jitunwind_pyreader_last_error(r)->message;
        ck_assert_msg(strstr(msg, "provisional") && strstr(msg, "DWARF"), "%s", msg);
        ck_assert_ptr_nonnull(strstr(msg, i == 0 ? "3.15.0b3" : "3.16.0a2"));
        jitunwind_pyreader_free(r);
        pyi_free(&p);
    }
}
END_TEST

/* The 3.15 field list against the declaration of _Py_DebugOffsets in
 * CPython's Include/internal/pycore_debug_offsets.h (3.16 development, the
 * same as 3.15.0rc3's), written out here member by member so that the
 * compiler, not the library's positional list, decides where each value
 * lands. The values are a plausible build's, moved off the table's
 * placeholders so that reading the placeholders would fail. */
struct debug_offsets_315 {
    char cookie[8];
    uint64_t version, free_threaded;
    struct { uint64_t size, finalizing, interpreters_head; } runtime_state;
    struct {
        uint64_t size, id, next, threads_head, threads_main, gc, imports_modules, sysdict,
            builtins, ceval_gil, gil_runtime_state, gil_runtime_state_enabled,
            gil_runtime_state_locked, gil_runtime_state_holder, code_object_generation,
            tlbc_generation;
    } interpreter_state;
    struct {
        uint64_t size, prev, next, interp, current_frame, base_frame, last_profiled_frame,
            last_profiled_frame_seq, thread_id, native_thread_id, datastack_chunk, status,
            holds_gil, gil_requested, current_exception, exc_state;
    } thread_state;
    struct { uint64_t exc_value; } err_stackitem;
    struct {
        uint64_t size, previous, executable, instr_ptr, localsplus, owner, stackpointer,
            tlbc_index;
    } interpreter_frame;
    struct {
        uint64_t size, filename, name, qualname, linetable, firstlineno, argcount,
            localsplusnames, localspluskinds, co_code_adaptive, co_tlbc;
    } code_object;
    struct { uint64_t size, ob_type; } pyobject;
    struct { uint64_t size, tp_name, tp_repr, tp_flags, tp_basicsize, tp_dictoffset; } type_object;
    struct { uint64_t size, ht_cached_keys; } heap_type_object;
    struct { uint64_t size, ob_item, ob_size; } tuple_object, list_object;
    struct { uint64_t size, used, table, mask; } set_object;
    struct { uint64_t size, ma_keys, ma_values; } dict_object;
    struct { uint64_t size, ob_fval; } float_object;
    struct { uint64_t size, lv_tag, ob_digit; } long_object;
    struct { uint64_t size, ob_size, ob_sval; } bytes_object;
    struct {
        uint64_t size, state, length, asciiobject_size, compactunicodeobject_size;
    } unicode_object;
    struct { uint64_t size, collecting, frame, generation_stats_size, generation_stats; } gc;
    struct { uint64_t size, gi_name, gi_iframe, gi_frame_state; } gen_object;
    struct { uint64_t next, prev; } llist_node;
    struct {
        uint64_t eval_breaker, remote_debugger_support, remote_debugging_enabled,
            debugger_pending_call, debugger_script_path, debugger_script_path_size;
    } debugger_support;
};

/* Each value field the 3.15 block gives, where it says (the value layout
 * counts object fields from the end of the 16-byte header): the value
 * rows' debug-offset column, checked against the declaration. (Without
 * DWARF the values stay unusable: 3.15 has no value table, and the block
 * does not give every field they need.) */
static void check_315_values(jitunwind_pyreader *r, const struct debug_offsets_315 *d)
{
    const struct ju_py_value_layout *V = &r->values.V;
    ck_assert_uint_eq(V->tp_flags, d->type_object.tp_flags - 16);
    ck_assert_uint_eq(V->co_argcount, d->code_object.argcount - 16);
    ck_assert_uint_eq(V->co_localsplusnames, d->code_object.localsplusnames - 16);
    ck_assert_uint_eq(V->co_localspluskinds, d->code_object.localspluskinds - 16);
    ck_assert_uint_eq(V->var_size, d->tuple_object.ob_size - 16);
    ck_assert_uint_eq(V->tuple_items, d->tuple_object.ob_item - 16);
    ck_assert_uint_eq(V->list_items, d->list_object.ob_item - 16);
    ck_assert_uint_eq(V->set_used, d->set_object.used - 16);
    ck_assert_uint_eq(V->set_table, d->set_object.table - 16);
    ck_assert_uint_eq(V->set_mask, d->set_object.mask - 16);
    ck_assert_uint_eq(V->dict_keys, d->dict_object.ma_keys - 16);
    ck_assert_uint_eq(V->dict_values, d->dict_object.ma_values - 16);
    ck_assert_uint_eq(V->float_value, d->float_object.ob_fval - 16);
    ck_assert_uint_eq(V->long_tag, d->long_object.lv_tag - 16);
    ck_assert_uint_eq(V->long_digits, d->long_object.ob_digit - 16);
    ck_assert_uint_eq(V->fr_localsplus, d->interpreter_frame.localsplus); /* not an object */
    ck_assert_uint_eq(V->interp_gc_collecting, d->interpreter_state.gc + d->gc.collecting);
    ck_assert_uint_eq(r->values.holder_size[JU_PYH_HEAPTYPE], d->heap_type_object.size);
    ck_assert_uint_eq(r->values.holder_size[JU_PYH_LONG], d->long_object.size);
}

START_TEST(the_3_15_field_list_follows_the_header)
{
    struct ju_py_layout L = *ju_py_layout_for(0x030f00c1, jitunwind_host_arch());
    struct debug_offsets_315 d;
    struct py_image p;
    struct jitunwind_memory mem;
    jitunwind_pyreader *r;
    struct jitunwind_py_thread t[2];
    struct jitunwind_py_frame f[4];
    static const uint32_t SNOWMAN_AT_NOON[] = {0x2603, '@', 0xe9};
    uint64_t interp, ts, outer, inner, gil;
    size_t n;
    L.rt_interpreters_head = (sizeof d + 63) & ~63u;
    L.interp_next = 7200, L.interp_id = 7208, L.interp_threads_head = 7240, L.interp_gil_ptr = 24;
    L.ts_next = 16, L.ts_interp = 24, L.ts_current_frame = 80;
    L.ts_thread_id = 192, L.ts_native_thread_id = 200, L.ts_holds_gil = 44;
    L.fr_previous = 16, L.fr_code = 8, L.fr_instr = 64, L.fr_owner = 82, L.fr_size = 96;
    L.co_filename = 120, L.co_name = 128, L.co_qualname = 136, L.co_linetable = 144;
    L.co_firstlineno = 76, L.co_code_adaptive = 216, L.co_size = 224;
    L.str_compact_size = 64; /* not sizeof(PyASCIIObject) + 16: read from the block */
    L.str_legacy_data = 64;
    memset(&d, 0, sizeof d);
    memcpy(d.cookie, "xdebugpy", 8);
    d.version = 0x030f00c1;
    d.runtime_state.size = 4096;
    d.runtime_state.interpreters_head = L.rt_interpreters_head;
    d.interpreter_state.size = 8192;
    d.interpreter_state.id = L.interp_id;
    d.interpreter_state.next = L.interp_next;
    d.interpreter_state.threads_head = L.interp_threads_head;
    d.interpreter_state.threads_main = L.interp_threads_head + 16;
    d.interpreter_state.ceval_gil = L.interp_gil_ptr;
    d.thread_state.size = 900;
    d.thread_state.next = L.ts_next;
    d.thread_state.interp = L.ts_interp;
    d.thread_state.current_frame = L.ts_current_frame;
    d.thread_state.base_frame = 88, d.thread_state.last_profiled_frame = 96;
    d.thread_state.last_profiled_frame_seq = 104;
    d.thread_state.thread_id = L.ts_thread_id;
    d.thread_state.native_thread_id = L.ts_native_thread_id;
    d.thread_state.datastack_chunk = 256, d.thread_state.status = 40;
    d.thread_state.holds_gil = L.ts_holds_gil, d.thread_state.gil_requested = 48;
    d.interpreter_frame.size = L.fr_size;
    d.interpreter_frame.previous = L.fr_previous;
    d.interpreter_frame.executable = L.fr_code;
    d.interpreter_frame.instr_ptr = L.fr_instr;
    d.interpreter_frame.localsplus = 88;
    d.interpreter_frame.owner = L.fr_owner;
    d.interpreter_frame.stackpointer = 72;
    d.code_object.size = L.co_size;
    d.code_object.filename = L.co_filename;
    d.code_object.name = L.co_name;
    d.code_object.qualname = L.co_qualname;
    d.code_object.linetable = L.co_linetable;
    d.code_object.firstlineno = L.co_firstlineno;
    d.code_object.co_code_adaptive = L.co_code_adaptive;
    d.pyobject.size = 16, d.pyobject.ob_type = L.ob_type;
    d.type_object.size = 424, d.type_object.tp_name = L.tp_name;
    d.bytes_object.size = 40, d.bytes_object.ob_size = L.bytes_size;
    d.bytes_object.ob_sval = L.bytes_sval;
    d.unicode_object.size = 80, d.unicode_object.state = L.str_state;
    d.unicode_object.length = L.str_length, d.unicode_object.asciiobject_size = L.str_ascii_size;
    d.unicode_object.compactunicodeobject_size = L.str_compact_size;
    /* The value groups, each field 8 bytes past where the 3.14 table (the
     * one a 3.15 reader starts from) puts it. */
    d.type_object.tp_flags = 176;
    d.code_object.argcount = 60, d.code_object.localsplusnames = 104;
    d.code_object.localspluskinds = 112;
    d.heap_type_object.size = 920;
    d.tuple_object.size = 64, d.tuple_object.ob_item = 40, d.tuple_object.ob_size = 24;
    d.list_object.size = 64, d.list_object.ob_item = 32, d.list_object.ob_size = 24;
    d.set_object.size = 256, d.set_object.used = 32, d.set_object.table = 48;
    d.set_object.mask = 40;
    d.dict_object.size = 64, d.dict_object.ma_keys = 40, d.dict_object.ma_values = 48;
    d.float_object.size = 32, d.float_object.ob_fval = 24;
    d.long_object.size = 40, d.long_object.lv_tag = 24, d.long_object.ob_digit = 32;
    d.interpreter_state.gc = 7000, d.gc.size = 64, d.gc.collecting = 4;
    pyi_init_from(&p, &L, 0x030f00c1);
    ju_builder_write(p.b, p.runtime, &d, sizeof d);
    outer = pyi_frame(&p, pyi_code(&p, "outer", "/app.py", 10, 8), 0, 2, 0, 0);
    inner = pyi_code(&p, "x", "/app.py", 30, 8);
    ju_builder_u64(p.b, inner + L.co_qualname, pyi_str_kind(&p, SNOWMAN_AT_NOON, 3, 2));
    inner = pyi_frame(&p, inner, outer, 4, 0, 0);
    interp = pyi_interp(&p, 0, 1);
    ts = pyi_thread(&p, interp, inner, 315);
    ju_builder_u32(p.b, ts + L.ts_holds_gil, 1);
    gil = pyi_alloc(&p, 64);
    ju_builder_u64(p.b, interp + L.interp_gil_ptr, gil);
    pyi_set_interpreters(&p, interp);
    mem = ju_builder_memory(p.b);
    ck_assert_msg(jitunwind_pyreader_open(&r, &mem, p.runtime, 0x030f00c1, NULL) == 0, "%s",
                  jitunwind_pyreader_last_error(r)->message);
    ck_assert_str_eq(jitunwind_pyreader_layout_name(r), "CPython 3.15");
    check_315_values(r, &d);
    ck_assert_int_eq(jitunwind_pyreader_threads(r, t, 2, &n), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(t[0].native_thread_id, 315);
    ck_assert_uint_eq(t[0].thread_id, 315000);
    ck_assert_int_eq(t[0].interp_id, 1);
    ck_assert_int_eq(t[0].holds_gil, 1);
    ck_assert_uint_eq(t[0].current_frame, inner);
    ck_assert_int_eq(jitunwind_pyreader_frames(r, inner, f, 4, &n), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(f[0].qualname, "\xe2\x98\x83@\xc3\xa9");
    ck_assert_int_eq(f[0].line, 34);
    ck_assert_str_eq(f[1].qualname, "outer");
    ck_assert_str_eq(f[1].filename, "/app.py");
    ck_assert_int_eq(f[1].line, 12);
    /* The thread lets go of the GIL. */
    ju_builder_u32(p.b, ts + L.ts_holds_gil, 0);
    ck_assert_int_eq(jitunwind_pyreader_threads(r, t, 2, &n), 0);
    ck_assert_int_eq(t[0].holds_gil, 0);
    jitunwind_pyreader_free(r);
    pyi_free(&p);
}
END_TEST

/* An ELF header for `arch` and nothing else, at a new temporary path. */
static void write_elf_header(char *path, int arch)
{
    unsigned char eh[64] = {0x7f, 'E', 'L', 'F', 2 /* 64-bit */, 1 /* LE */, 1 /* version */};
    uint16_t type = 3 /* ET_DYN */, machine = arch == JITUNWIND_ARCH_AARCH64 ? 183 : 62;
    uint32_t version = 1;
    uint16_t ehsize = sizeof eh;
    int fd;
    strcpy(path, "/tmp/ju_arch_XXXXXX");
    fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    memcpy(eh + 16, &type, 2);
    memcpy(eh + 18, &machine, 2);
    memcpy(eh + 20, &version, 4);
    memcpy(eh + 52, &ehsize, 2);
    ck_assert_int_eq(write(fd, eh, sizeof eh), (ssize_t)sizeof eh);
    close(fd);
}

/* The reader takes the table of the architecture its module is for: 3.11
 * keeps the runtime's GIL holder 16 bytes further on AArch64 (glibc's
 * mutexes are larger there). Read with the other table, the holder is
 * someone else. */
START_TEST(each_architecture_reads_its_own_table)
{
    static const int ARCHES[] = {JITUNWIND_ARCH_X86_64, JITUNWIND_ARCH_AARCH64};
    char paths[2][32];
    size_t a, m;
    write_elf_header(paths[0], ARCHES[0]);
    write_elf_header(paths[1], ARCHES[1]);
    for (a = 0; a < 2; a++) {
        struct py_image p;
        struct jitunwind_memory mem;
        uint64_t interp;
        pyi_init_arch(&p, 0x030b07f0, 0, ARCHES[a]);
        interp = pyi_interp(&p, 0, 0);
        pyi_set_gil_holder(&p, pyi_thread(&p, interp, 0, 9));
        pyi_set_interpreters(&p, interp);
        mem = ju_builder_memory(p.b);
        for (m = 0; m < 2; m++) {
            struct jitunwind_py_thread t[1];
            jitunwind_pyreader *r;
            size_t n;
            ck_assert_int_eq(
                jitunwind_pyreader_open(&r, &mem, p.runtime, 0x030b07f0,
                                        JITUNWIND_PYREADER_OPTS(.module = paths[m])), 0);
            ck_assert_int_eq(jitunwind_pyreader_threads(r, t, 1, &n), 0);
            ck_assert_int_eq(t[0].holds_gil, a == m);
            jitunwind_pyreader_free(r);
        }
        pyi_free(&p);
    }
    unlink(paths[0]);
    unlink(paths[1]);
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
    rc = jitunwind_pyreader_open(&r, &mem, p.runtime, 0x030d00f0, NULL);
    snprintf(message, cap, "%s", jitunwind_pyreader_last_error(r)->message);
    jitunwind_pyreader_free(r);
    pyi_free(&p);
    return rc;
}

START_TEST(debug_offsets_are_checked)
{
    char msg[JITUNWIND_ERROR_MESSAGE_MAX];
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
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, 0x030c01f0,
                                             NULL), JITUNWIND_EVERSION);
    ck_assert_ptr_nonnull(strstr(jitunwind_pyreader_last_error(r)->message, "does not match"));
    jitunwind_pyreader_free(r);
    pyi_free(&p);
}
END_TEST

/* This program stands in for libpython: its _PyRuntime and PyType_Type
 * symbols say where the runtime and the type object are in the synthetic
 * target (the runtime's 64 KiB keep the type object clear of it). */
char stand_in_runtime[65536] __asm__("_PyRuntime");
char stand_in_type[512] __asm__("PyType_Type");

/* Without DWARF, a build whose object header is not the table's (here laid
 * out as --with-trace-refs does: two pointers first) is refused, not
 * misread; the thread-state check alone would let it through. */
START_TEST(a_build_whose_objects_differ_is_refused)
{
    struct py_image p;
    struct jitunwind_memory mem;
    jitunwind_pyreader *r;
    char self[4096];
    uint64_t runtime_value, type_value, type, name;
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    const char *msg;
    ck_assert_int_gt(n, 0);
    self[n] = 0;
    stand_in_runtime[0] = stand_in_type[0] = 1; /* used */
    pyi_init(&p, 0x030c01f0);
    pyi_set_interpreters(&p, pyi_interp(&p, 0, 0));
    ck_assert_int_eq(jitunwind_elf_symbol(self, "_PyRuntime", &runtime_value, NULL), 0);
    ck_assert_int_eq(jitunwind_elf_symbol(self, "PyType_Type", &type_value, NULL), 0);
    type = type_value + (p.runtime - runtime_value);
    name = pyi_alloc(&p, 8);
    ju_builder_write(p.b, name, "type", 5);
    ju_builder_u64(p.b, type + p.L->ob_type, type);
    ju_builder_u64(p.b, type + p.L->tp_name, name);
    mem = ju_builder_memory(p.b);
    ck_assert_msg(jitunwind_pyreader_open(&r, &mem, p.runtime, 0x030c01f0,
                                          JITUNWIND_PYREADER_OPTS(.module = self)) == 0,
                  "%s", jitunwind_pyreader_last_error(r)->message);
    jitunwind_pyreader_free(r);
    /* The name unreadable (a core without read-only data): no judgement. */
    ju_builder_u64(p.b, type + p.L->tp_name, 0x7700000000ull);
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, 0x030c01f0,
                                             JITUNWIND_PYREADER_OPTS(.module = self)), 0);
    jitunwind_pyreader_free(r);
    /* Not relocated yet (a process in its first instructions): the type
     * slot holds the file's own address of PyType_Type. */
    ck_assert_uint_ne(type, type_value);
    ju_builder_u64(p.b, type + p.L->tp_name, name);
    ju_builder_u64(p.b, type + p.L->ob_type, type_value);
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, 0x030c01f0,
                                             JITUNWIND_PYREADER_OPTS(.module = self)),
                     JITUNWIND_EBUSY);
    msg = jitunwind_pyreader_last_error(r)->message;
    ck_assert_msg(strstr(msg, "still starting") != NULL, "%s", msg);
    jitunwind_pyreader_free(r);
    /* Trace-refs: _ob_next, _ob_prev, then the refcount and the type. */
    ju_builder_u64(p.b, type + 8, 0);
    ju_builder_u64(p.b, type + 24, type);
    ju_builder_u64(p.b, type + 40, name);
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, 0x030c01f0,
                                             JITUNWIND_PYREADER_OPTS(.module = self)),
                     JITUNWIND_EVERSION);
    msg = jitunwind_pyreader_last_error(r)->message;
    ck_assert_msg(strstr(msg, "objects do not match the CPython 3.12 layout") && strstr(msg, "trace-refs"),
                  "%s", msg);
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
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, 0x030d00f0, NULL), 0);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_pyreader_trampoline_ranges(r, reg, JITUNWIND_ARCH_X86_64, &added), 0);
    ck_assert_uint_eq(added, 2);
    ck_assert_uint_eq(jitunwind_registry_lookup(reg, code1 + 11 + 6)->stride, 11);
    ck_assert_uint_eq(jitunwind_registry_lookup(reg, code2 + 16 + 6)->stride, 16);
    ck_assert_int_eq(jitunwind_registry_lookup(reg, code2)->origin, JITUNWIND_ORIGIN_INTERPRETER);
    ck_assert_ptr_null(jitunwind_registry_lookup(reg, code1 + 3 * 11)); /* not handed out yet */
    /* A cycle in the arena list is reported, not followed forever; the
     * arenas added before it stay and are counted. */
    ju_builder_u64(p.b, a1 + 40, a2);
    jitunwind_registry_clear(reg);
    ck_assert_int_eq(jitunwind_pyreader_trampoline_ranges(r, reg, JITUNWIND_ARCH_X86_64, &added),
                     JITUNWIND_ELOOP);
    ck_assert_uint_eq(added, 2);
    ck_assert_ptr_nonnull(jitunwind_registry_lookup(reg, code1 + 11 + 6));
    /* Never activated. */
    ju_builder_u64(p.b, p.runtime + p.L->rt_perf_code_arena, 0);
    ck_assert_int_eq(jitunwind_pyreader_trampoline_ranges(r, reg, JITUNWIND_ARCH_X86_64, &added),
                     JITUNWIND_ENOTFOUND);
    jitunwind_registry_free(reg);
    jitunwind_pyreader_free(r);
    pyi_free(&p);
}
END_TEST

/* -X perf_jit's arena: copies padded to 96 bytes, the first two named by
 * the jitdump file (ranges of origin PERF_MAP), the newest not yet (CPython
 * buffers the file): the arena's copies past the named ones get a range. */
START_TEST(a_padded_arena_named_in_part_keeps_its_newest_copies)
{
    struct py_image p;
    struct jitunwind_memory mem;
    jitunwind_pyreader *r;
    jitunwind_registry *reg;
    struct jitunwind_range named = {.kind = JITUNWIND_KIND_TRAMPOLINE,
                                    .rule = JITUNWIND_RULE_TRAMPOLINE_FRAMED,
                                    .origin = JITUNWIND_ORIGIN_PERF_MAP};
    const struct jitunwind_range *tail;
    uint64_t code = 0x7e0000, arena, i;
    size_t added;
    pyi_init(&p, 0x030d00f0);
    pyi_set_interpreters(&p, pyi_interp(&p, 0, 0));
    for (i = 0; i < 5; i++)
        ju_builder_write(p.b, code + i * 96, JU_X86_FRAMED, sizeof JU_X86_FRAMED);
    arena = pyi_alloc(&p, 48);
    ju_builder_u64(p.b, arena, code);
    ju_builder_u64(p.b, arena + 8, code + 5 * 96);
    ju_builder_u64(p.b, arena + 16, 0x10000);
    ju_builder_u64(p.b, arena + 32, sizeof JU_X86_FRAMED);
    ju_builder_u64(p.b, p.runtime + p.L->rt_perf_code_arena, arena);
    mem = ju_builder_memory(p.b);
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, 0x030d00f0, NULL), 0);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    for (i = 0; i < 2; i++) {
        named.start = code + i * 96;
        named.end = named.start + sizeof JU_X86_FRAMED;
        named.name = i ? "py::caller:/app.py" : "py::hot:/app.py";
        ck_assert_int_eq(jitunwind_registry_add(reg, &named), 0);
    }
    ck_assert_int_eq(jitunwind_pyreader_trampoline_ranges(r, reg, JITUNWIND_ARCH_X86_64, &added), 0);
    ck_assert_uint_eq(added, 1);
    ck_assert_str_eq(jitunwind_registry_lookup(reg, code + 96 + 5)->name, "py::caller:/app.py");
    ck_assert_ptr_nonnull(tail = jitunwind_registry_lookup(reg, code + 3 * 96 + 5));
    ck_assert_str_eq(tail->name, "py::<perf trampoline>");
    ck_assert_uint_eq(tail->stride, 96);
    ck_assert_uint_eq(tail->start, code + 2 * 96);
    ck_assert_uint_eq(tail->end, code + 5 * 96);
    jitunwind_registry_free(reg);
    jitunwind_pyreader_free(r);
    pyi_free(&p);
}
END_TEST

int main(void)
{
    return ju_run_tests("py_versions", JU_TESTS(every_supported_version,
                                                a_listing_reads_no_gil_where_threads_say,
                                                listed_threads_read_again_until_the_list_changes,
                                                provisional_field_lists_need_dwarf,
                                                the_init_cleanup_frame_is_a_shim,
                                                the_3_15_field_list_follows_the_header,
                                                each_architecture_reads_its_own_table,
                                                free_threaded_thread_local_bytecode,
                                                debug_offsets_are_checked,
                                                a_build_that_does_not_fit_is_refused,
                                                a_build_whose_objects_differ_is_refused,
                                                trampoline_arenas_from_the_runtime,
                                                a_padded_arena_named_in_part_keeps_its_newest_copies));
}
