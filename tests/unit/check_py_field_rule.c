/* The one rule every layout field is held to (ju_py_field_misfit): loaded
 * with its width it lies inside its holder's size, inside the decoder's
 * copy and below any plausible struct; and a reader holds every field of
 * its layout to the struct sizes the target's _Py_DebugOffsets give,
 * whether the field's offset came from them or from the static table. */
#include <stdio.h>
#include <string.h>

#include "py_image.h"
#include "python/layout/merge.h"
#include "python/layout/validate.h"
#include "python/pyreader.h"
#include "suite.h"

static enum ju_py_misfit misfit(uint64_t offset, unsigned width, uint64_t holder, uint64_t copy)
{
    struct ju_py_placed f = {offset, width, holder, copy};
    return ju_py_field_misfit(&f);
}

START_TEST(a_field_inside_its_holder_and_copy_fits)
{
    ck_assert_int_eq(misfit(16, 8, 24, JU_PY_UNBOUNDED), JU_PY_FITS);
    ck_assert_int_eq(misfit(16, 8, 24, 24), JU_PY_FITS); /* ending at the end */
    ck_assert_int_eq(misfit(24, 0, 24, 24), JU_PY_FITS); /* an address at the end, not loaded */
    ck_assert_int_eq(misfit(100, 4, JU_PY_UNBOUNDED, JU_PY_UNBOUNDED), JU_PY_FITS);
}
END_TEST

START_TEST(a_field_outside_its_holder_is_refused)
{
    ck_assert_int_eq(misfit(24, 8, 24, JU_PY_UNBOUNDED), JU_PY_PAST_HOLDER);
    ck_assert_int_eq(misfit(4096, 1, 24, JU_PY_UNBOUNDED), JU_PY_PAST_HOLDER);
    ck_assert_int_eq(misfit(32, 0, 24, JU_PY_UNBOUNDED), JU_PY_PAST_HOLDER);
}
END_TEST

/* It starts inside the struct; its width carries the load past the end. */
START_TEST(a_field_whose_width_overruns_its_holder_is_refused)
{
    ck_assert_int_eq(misfit(20, 8, 24, JU_PY_UNBOUNDED), JU_PY_PAST_HOLDER);
    ck_assert_int_eq(misfit(20, 4, 24, JU_PY_UNBOUNDED), JU_PY_FITS);
    ck_assert_int_eq(misfit(20, 8, 64, 24), JU_PY_PAST_COPY); /* in the struct, past the copy */
}
END_TEST

START_TEST(a_width_no_decoder_loads_is_refused)
{
    ck_assert_int_eq(misfit(0, 3, 24, JU_PY_UNBOUNDED), JU_PY_BAD_WIDTH);
    ck_assert_int_eq(misfit(0, 16, 24, JU_PY_UNBOUNDED), JU_PY_BAD_WIDTH);
    ck_assert_int_eq(misfit(0, 2, 24, JU_PY_UNBOUNDED), JU_PY_FITS);
}
END_TEST

START_TEST(no_offset_wraps_past_the_plausible)
{
    ck_assert_int_eq(misfit(JU_PY_MAX_STRUCT - 4, 8, JU_PY_UNBOUNDED, JU_PY_UNBOUNDED),
                     JU_PY_PAST_ANY);
    ck_assert_int_eq(misfit(UINT64_MAX - 2, 8, JU_PY_UNBOUNDED, JU_PY_UNBOUNDED), JU_PY_PAST_ANY);
    ck_assert_int_eq(misfit(JU_PY_MAX_STRUCT - 8, 8, JU_PY_UNBOUNDED, JU_PY_UNBOUNDED),
                     JU_PY_FITS);
}
END_TEST

/* The precedence every layout's DWARF step follows: build-specific fields
 * and those left to DWARF are taken; an absent field stays absent; a
 * table loses a disagreement, the target's own debug offsets do not. */
START_TEST(dwarf_loses_only_to_the_target)
{
    struct jitunwind_py_dwarf_report rep;
    memset(&rep, 0, sizeof rep);
    ck_assert_int_eq(ju_py_merge(1, 0, 40, 1, 0), JU_PY_MERGE_DERIVE);
    ck_assert_int_eq(ju_py_merge(1, 0, 40, 0, 0), JU_PY_MERGE_SKIP);
    ck_assert_int_eq(ju_py_merge(0, 40, 40, 0, 1), JU_PY_MERGE_AGREE);
    ck_assert_int_eq(ju_py_merge(0, 32, 40, 0, 0), JU_PY_MERGE_ADOPT);
    ck_assert_int_eq(ju_py_merge(0, 32, 40, 0, 1), JU_PY_MERGE_STAND);
    ju_py_merge_count(&rep, JU_PY_MERGE_DERIVE);
    ju_py_merge_count(&rep, JU_PY_MERGE_SKIP);
    ju_py_merge_count(&rep, JU_PY_MERGE_AGREE);
    ju_py_merge_count(&rep, JU_PY_MERGE_ADOPT);
    ju_py_merge_count(&rep, JU_PY_MERGE_STAND);
    ck_assert_uint_eq(rep.derived, 1);
    ck_assert_uint_eq(rep.checked, 3);
    ck_assert_uint_eq(rep.mismatches, 2);
    ck_assert_uint_eq(rep.adopted, 1);
}
END_TEST

#define V314 0x030e00f0u
#define RT_SIZE_AT 24 /* the first word after the header: runtime_state.size */

/* A 3.14 target whose _Py_DebugOffsets give sizeof(_PyRuntimeState) as
 * rt_size (its interpreters head at 2048 fits any size from 2056): opening
 * it returns the status, the message in msg. */
static int open_with_runtime_size(uint64_t rt_size, char *msg, size_t cap)
{
    struct py_image p;
    struct jitunwind_memory mem;
    jitunwind_pyreader *r;
    uint64_t interp, frame;
    int rc;
    pyi_init(&p, V314);
    ck_assert_uint_eq(p.L->rt_interpreters_head, 2048);
    ju_builder_u64(p.b, p.runtime + RT_SIZE_AT, rt_size);
    frame = pyi_frame(&p, pyi_code(&p, "f", "/f.py", 1, 4), 0, 1, 0, 0);
    interp = pyi_interp(&p, 0, 0);
    pyi_thread(&p, interp, frame, 1);
    pyi_set_interpreters(&p, interp);
    mem = ju_builder_memory(p.b);
    rc = jitunwind_pyreader_open(&r, &mem, p.runtime, V314, NULL);
    snprintf(msg, cap, "%s", jitunwind_pyreader_last_error(r)->message);
    jitunwind_pyreader_free(r);
    pyi_free(&p);
    return rc;
}

/* The perf trampolines' arena (build-specific: from the table here, no
 * DWARF) lies at 2760, past a runtime the target says is 2056 bytes: the
 * reader refuses, naming it, instead of reading past the struct. */
START_TEST(a_table_field_past_the_targets_struct_size_is_refused)
{
    char msg[JITUNWIND_ERROR_MESSAGE_MAX];
    ck_assert_uint_eq(ju_py_layout_for(V314, jitunwind_host_arch())->rt_perf_code_arena, 2760);
    ck_assert_msg(open_with_runtime_size(0x4000, msg, sizeof msg) == 0, "%s", msg);
    ck_assert_int_eq(open_with_runtime_size(2056, msg, sizeof msg), JITUNWIND_ECORRUPT);
    ck_assert_msg(strstr(msg, "_PyRuntimeState.rt_perf_code_arena (offset 2760, 8 bytes) ends "
                              "past sizeof(_PyRuntimeState), 2056"),
                  "%s", msg);
    ck_assert_msg(open_with_runtime_size(2768, msg, sizeof msg) == 0, "%s", msg); /* just fits */
}
END_TEST

int main(void)
{
    return ju_run_tests("py_field_rule",
                        JU_TESTS(a_field_inside_its_holder_and_copy_fits,
                                 a_field_outside_its_holder_is_refused,
                                 a_field_whose_width_overruns_its_holder_is_refused,
                                 a_width_no_decoder_loads_is_refused,
                                 no_offset_wraps_past_the_plausible,
                                 dwarf_loses_only_to_the_target,
                                 a_table_field_past_the_targets_struct_size_is_refused));
}
