/* The value renderer's layout is built per reader the way the frame
 * layout is: the version's table, then the target's _Py_DebugOffsets
 * (3.13+), then the interpreter's DWARF, then one check of each field
 * against its width and its holder. Synthetic targets: debug offsets that
 * move a field (the renderer follows), move exactly the fields whose rows
 * name an entry of the version's block, give a free-threaded build its GC
 * state, one that does not fit its struct
 * (refused by name, nothing read), DWARF that disagrees with the table
 * (DWARF wins, and the values report says so) or with the target's own
 * debug offsets (they win, reported too), a 3.15 target whose fields are
 * not all known (refused by name). This file is built with -g: its DWARF
 * is the "interpreter's". */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "py_objects.h"
#include "python/pyreader.h"
#include "suite.h"

/* A float whose ob_fval is 8 bytes further than in CPython, as a build's
 * DWARF might say. */
typedef struct {
    char header[16];
    double moved_from_here;
    double ob_fval;
} PyFloatObject;
PyFloatObject stand_in_float;


/* A target of `version` whose _Py_DebugOffsets (3.13+) describe the value
 * layout V (NULL: the version's table), with one interpreter and thread;
 * objects built with V. */
static void build(struct pyo_target *t, uint32_t version, int free_threaded,
                  const struct ju_py_value_layout *V)
{
    uint64_t interp;
    t->version = version;
    pyi_init_build(&t->p, version, free_threaded);
    if (ju_py_debug_offsets_supported(version)) {
        uint8_t block[2048];
        size_t len;
        ck_assert_int_eq(ju_py_encode_debug_offsets(version, t->p.L, V, block, sizeof block, &len),
                         0);
        ju_builder_write(t->p.b, t->p.runtime, block, len);
    }
    pyo_init(&t->o, &t->p);
    if (V)
        t->o.V = V;
    interp = pyi_interp(&t->p, 0, 0);
    pyi_thread(&t->p, interp, 0, 1);
    pyi_set_interpreters(&t->p, interp);
    t->mem = ju_builder_memory(t->p.b);
    t->r = NULL;
}

static const char *self_path(void)
{
    static char path[4096];
    ssize_t got = readlink("/proc/self/exe", path, sizeof path - 1);
    ck_assert_int_gt(got, 0);
    path[got] = 0;
    return path;
}

/* Open t's reader with this file's DWARF: the values status, *rep its report. */
static int open_with_dwarf(struct pyo_target *t, struct jitunwind_py_dwarf_report *rep)
{
    int status = -1;
    ck_assert_msg(jitunwind_pyreader_open(&t->r, &t->mem, t->p.runtime, t->version,
                                          JITUNWIND_PYREADER_OPTS(.module = self_path())) == 0,
                  "%s", jitunwind_pyreader_last_error(t->r)->message);
    ck_assert_int_eq(jitunwind_pyreader_values_report(t->r, rep, &status), 0);
    return status;
}

static const char *render(struct pyo_target *t, uint64_t obj)
{
    static char buf[256];
    ck_assert_msg(jitunwind_pyreader_repr(t->r, obj, NULL, buf, sizeof buf, NULL) == 0, "%s",
                  jitunwind_pyreader_last_error(t->r)->message);
    return buf;
}


/* Every build with _Py_DebugOffsets: a float's ob_fval and a tuple's items
 * moved 8 bytes on, an int's digits 8 bytes on; the renderer reads them
 * where the target says (with the static table it would read zeros). */
START_TEST(debug_offsets_move_value_fields_and_the_renderer_follows)
{
    static const struct {
        uint32_t version;
        int free_threaded;
    } BUILDS[] = {{0x030d00f0, 0}, {0x030d00f0, 1}, {0x030e07f0, 0}, {0x030e07f0, 1}};
    size_t b;
    for (b = 0; b < sizeof BUILDS / sizeof BUILDS[0]; b++) {
        struct ju_py_value_layout V =
            *ju_py_value_table(BUILDS[b].version, BUILDS[b].free_threaded);
        struct pyo_target t;
        uint64_t items[2];
        int status = -1;
        struct jitunwind_py_dwarf_report rep;
        V.float_value += 8;
        V.tuple_items += 8;
        V.long_digits += 8;
        build(&t, BUILDS[b].version, BUILDS[b].free_threaded, &V);
        ck_assert_int_eq(jitunwind_pyreader_open(&t.r, &t.mem, t.p.runtime, t.version, NULL), 0);
        ck_assert_int_eq(jitunwind_pyreader_values_report(t.r, &rep, &status), 0);
        ck_assert_int_eq(status, 0);
        items[0] = pyo_int(&t.o, 1);
        items[1] = pyo_int(&t.o, -123456789012345);
        ck_assert_str_eq(render(&t, pyo_float(&t.o, 2.5)), "2.5");
        ck_assert_str_eq(render(&t, pyo_tuple(&t.o, 2, items)), "(1, -123456789012345)");
        pyo_target_close(&t);
    }
}
END_TEST

/* Each value field's row names the _Py_DebugOffsets entry that gives it:
 * with every field of the target's objects 8 bytes on, the reader moves
 * exactly those its version's block publishes (3.13: not the set's, which
 * 3.14 added; never dict_used, which no version publishes) and keeps the
 * table's offset for the rest. */
START_TEST(the_value_rows_name_the_debug_offsets_that_move_them)
{
    static const uint32_t VERSIONS[] = {0x030d00f0, 0x030e07f0};
    static const unsigned MOVED[] = {14, 17}; /* 3.14's block adds the set's three */
    size_t v, i;
    ck_assert(!ju_py_debug_offsets_give(0x030d00f0, JU_PYF_val_set_used));
    ck_assert(ju_py_debug_offsets_give(0x030e07f0, JU_PYF_val_set_used));
    ck_assert(ju_py_debug_offsets_give(0x030d00f0, JU_PYF_val_float_value));
    ck_assert(!ju_py_debug_offsets_give(0x030e07f0, JU_PYF_val_dict_used));
    for (v = 0; v < sizeof VERSIONS / sizeof VERSIONS[0]; v++) {
        const struct ju_py_value_layout *table = ju_py_value_table(VERSIONS[v], 0);
        struct ju_py_value_layout V = *table;
        struct pyo_target t;
        unsigned moved = 0;
        for (i = JU_PYF_JIT_END; i < JU_PYF_COUNT; i++) {
            uint32_t off = ju_py_slot(table, ju_py_fields[i].slot) + 8;
            if (off != JU_PY_NONE + 8)
                memcpy((char *)&V + ju_py_fields[i].slot, &off, sizeof off);
        }
        build(&t, VERSIONS[v], 0, &V);
        ck_assert_int_eq(jitunwind_pyreader_open(&t.r, &t.mem, t.p.runtime, t.version, NULL), 0);
        for (i = JU_PYF_JIT_END; i < JU_PYF_COUNT; i++) {
            const struct ju_py_field_desc *f = &ju_py_fields[i];
            uint32_t want = ju_py_slot(table, f->slot), got;
            int gives = ju_py_debug_offsets_give(VERSIONS[v], (enum ju_py_field_id)i) ||
                        i == JU_PYF_val_interp_gc_collecting; /* interp.gc + gc.collecting */
            if (want == JU_PY_NONE)
                continue;
            got = ju_py_slot(&t.r->values.V, f->slot);
            ck_assert_msg(got == want + (gives ? 8 : 0), "%#x: %s at %u, want %u", VERSIONS[v],
                          f->name, got, want + (gives ? 8 : 0));
            moved += gives;
        }
        ck_assert_uint_eq(moved, MOVED[v]);
        pyo_target_close(&t);
    }
}
END_TEST

/* 3.15's block gives sizeof(PyHeapTypeObject) (heap_type_object.size),
 * which no earlier block has: the value fields it holds are held to it, as
 * those of every holder whose size the block gives (the encoder declares
 * 0x4000-byte structs). */
START_TEST(the_struct_sizes_of_the_block_bound_the_value_fields)
{
    struct pyo_target t;
    build(&t, 0x030f00f0, 0, ju_py_value_table_newest(0));
    ck_assert_int_eq(jitunwind_pyreader_open(&t.r, &t.mem, t.p.runtime, t.version, NULL), 0);
    ck_assert_uint_eq(t.r->values.holder_size[JU_PYH_HEAPTYPE], 0x4000);
    ck_assert_uint_eq(t.r->values.holder_size[JU_PYH_SET], 0x4000);
    ck_assert_uint_eq(t.r->values.holder_size[JU_PYH_INTERP], 0x4000);
    ck_assert_uint_eq(t.r->values.holder_size[JU_PYH_FUNCTION], 0); /* no size in the block */
    pyo_target_close(&t);
    build(&t, 0x030e07f0, 0, NULL);
    ck_assert_int_eq(jitunwind_pyreader_open(&t.r, &t.mem, t.p.runtime, t.version, NULL), 0);
    ck_assert_uint_eq(t.r->values.holder_size[JU_PYH_HEAPTYPE], 0); /* 3.14's has none */
    pyo_target_close(&t);
}
END_TEST

/* Free-threaded builds: the tables do not say where gc.collecting is; the
 * target's debug offsets (interpreter_state.gc + gc.collecting) do. */
START_TEST(debug_offsets_give_free_threaded_builds_their_gc_state)
{
    struct ju_py_value_layout V = *ju_py_value_table(0x030e07f0, 0);
    struct pyo_target t;
    uint64_t interp;
    int collecting = -1;
    V.interp_gc_collecting = 6000;
    build(&t, 0x030e07f0, 1, &V);
    ck_assert_int_eq(jitunwind_pyreader_open(&t.r, &t.mem, t.p.runtime, t.version, NULL), 0);
    t.mem.read(t.mem.arg, t.p.runtime + t.p.L->rt_interpreters_head, &interp, 8);
    ju_builder_u32(t.p.b, interp + 6000, 1);
    ck_assert_int_eq(jitunwind_pyreader_gc_collecting(t.r, interp, &collecting), 0);
    ck_assert_int_eq(collecting, 1);
    ju_builder_u32(t.p.b, interp + 6000, 0);
    ck_assert_int_eq(jitunwind_pyreader_gc_collecting(t.r, interp, &collecting), 0);
    ck_assert_int_eq(collecting, 0);
    pyo_target_close(&t);
    /* the same build without them in the block: not known, said so */
    build(&t, 0x030e07f0, 1, NULL);
    ck_assert_int_eq(jitunwind_pyreader_open(&t.r, &t.mem, t.p.runtime, t.version, NULL), 0);
    t.mem.read(t.mem.arg, t.p.runtime + t.p.L->rt_interpreters_head, &interp, 8);
    ck_assert_int_eq(jitunwind_pyreader_gc_collecting(t.r, interp, &collecting),
                     JITUNWIND_EUNSUPPORTED);
    pyo_target_close(&t);
}
END_TEST

/* A debug offset that puts ob_fval's 8 bytes across the end of the
 * PyFloatObject the same block declares: the values are refused with the
 * field's name before anything is read; the stacks still work. */
START_TEST(a_debug_offset_past_its_struct_refuses_the_values_by_name)
{
    struct ju_py_value_layout V = *ju_py_value_table(0x030d00f0, 0);
    struct pyo_target t;
    struct jitunwind_py_thread th[2];
    size_t n;
    uint64_t before, f;
    char buf[64];
    int status = 0;
    struct jitunwind_py_dwarf_report rep;
    V.float_value = 0x4000 - 16 - 4; /* the encoder declares 0x4000-byte objects */
    build(&t, 0x030d00f0, 0, &V);
    f = pyo_object(&t.o, t.o.t_float, 8);
    ck_assert_int_eq(jitunwind_pyreader_open(&t.r, &t.mem, t.p.runtime, t.version, NULL), 0);
    ck_assert_int_eq(jitunwind_pyreader_values_report(t.r, &rep, &status), 0);
    ck_assert_int_eq(status, JITUNWIND_ECORRUPT);
    before = ju_builder_reads(t.p.b);
    ck_assert_int_eq(jitunwind_pyreader_repr(t.r, f, NULL, buf, sizeof buf, NULL),
                     JITUNWIND_ECORRUPT);
    ck_assert_uint_eq(ju_builder_reads(t.p.b), before);
    ck_assert_str_eq(jitunwind_pyreader_last_error(t.r)->message,
                     "values of CPython 3.13: PyFloatObject.float_value (offset 16380, 8 bytes) "
                     "ends past sizeof(PyFloatObject), 16384");
    ck_assert_int_eq(jitunwind_pyreader_threads(t.r, th, 2, &n), 0);
    ck_assert_uint_eq(n, 1);
    pyo_target_close(&t);
}
END_TEST

/* 3.11 (no debug offsets): this file's DWARF puts ob_fval at 24, the table
 * at 16. DWARF wins, and the values report names the difference. */
START_TEST(dwarf_disagreeing_with_the_table_wins_and_is_reported)
{
    struct ju_py_value_layout V = *ju_py_value_table(0x030b07f0, 0);
    struct pyo_target t;
    struct jitunwind_py_dwarf_report rep;
    stand_in_float.ob_fval = 1;
    V.float_value = 8; /* the objects as that build lays them out */
    build(&t, 0x030b07f0, 0, &V);
    ck_assert_int_eq(open_with_dwarf(&t, &rep), 0);
    ck_assert_uint_eq(rep.checked, 1);
    ck_assert_uint_eq(rep.mismatches, 1);
    ck_assert_uint_eq(rep.adopted, 1);
    ck_assert_str_eq(rep.first_mismatch, "PyFloatObject.float_value: table 16, DWARF 24");
    ck_assert_str_eq(render(&t, pyo_float(&t.o, -0.75)), "-0.75");
    pyo_target_close(&t);
}
END_TEST

/* 3.13: the target's own (confirmed) _Py_DebugOffsets say 16, this file's
 * DWARF 24: the target wins (a file on disk may be another build's), and
 * the difference is reported, not adopted. */
START_TEST(the_targets_debug_offsets_win_over_dwarf_and_it_is_reported)
{
    struct pyo_target t;
    struct jitunwind_py_dwarf_report rep;
    build(&t, 0x030d00f0, 0, ju_py_value_table(0x030d00f0, 0));
    ck_assert_int_eq(open_with_dwarf(&t, &rep), 0);
    ck_assert_uint_eq(rep.mismatches, 1);
    ck_assert_uint_eq(rep.adopted, 0);
    ck_assert_str_eq(rep.first_mismatch, "PyFloatObject.float_value: debug offsets 16, DWARF 24");
    ck_assert_str_eq(render(&t, pyo_float(&t.o, 1.5)), "1.5");
    pyo_target_close(&t);
}
END_TEST

/* 3.15 has no value table: its _Py_DebugOffsets give what they describe,
 * and without DWARF the first needed field they do not is named. */
START_TEST(a_version_without_a_table_names_the_first_unknown_field)
{
    struct pyo_target t;
    char buf[64];
    build(&t, 0x030f00f0, 0, ju_py_value_table_newest(0));
    ck_assert_int_eq(jitunwind_pyreader_open(&t.r, &t.mem, t.p.runtime, t.version, NULL), 0);
    ck_assert_int_eq(jitunwind_pyreader_repr(t.r, t.p.code_type, NULL, buf, sizeof buf, NULL),
                     JITUNWIND_EUNSUPPORTED);
    ck_assert_str_eq(jitunwind_pyreader_last_error(t.r)->message,
                     "CPython 3.15.0 has no value table, and PyDictObject.dict_used is neither in "
                     "its _Py_DebugOffsets nor in any DWARF (none was found): its objects cannot "
                     "be read");
    pyo_target_close(&t);
}
END_TEST

int main(void)
{
    return ju_run_tests("py_value_layout",
                        JU_TESTS(debug_offsets_move_value_fields_and_the_renderer_follows,
                                 the_value_rows_name_the_debug_offsets_that_move_them,
                                 the_struct_sizes_of_the_block_bound_the_value_fields,
                                 debug_offsets_give_free_threaded_builds_their_gc_state,
                                 a_debug_offset_past_its_struct_refuses_the_values_by_name,
                                 dwarf_disagreeing_with_the_table_wins_and_is_reported,
                                 the_targets_debug_offsets_win_over_dwarf_and_it_is_reported,
                                 a_version_without_a_table_names_the_first_unknown_field));
}
