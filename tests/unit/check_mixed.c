/* Interleaving native and Python frames. */
#include "internal.h"
#include "suite.h"

static struct jitunwind_py_frame py(uint32_t flags)
{
    struct jitunwind_py_frame f;
    memset(&f, 0, sizeof f);
    f.flags = flags;
    return f;
}

START_TEST(groups_follow_their_eval_frames)
{
    /* native: 0 C, 1 eval, 2 trampoline, 3 jit, 4 eval, 5 main
     * python: p0 (entry) | p1, p2 (entry) */
    uint32_t roles[] = {JITUNWIND_ROLE_OTHER, JITUNWIND_ROLE_EVAL, JITUNWIND_ROLE_TRAMPOLINE,
                        JITUNWIND_ROLE_JIT, JITUNWIND_ROLE_EVAL, JITUNWIND_ROLE_OTHER};
    struct jitunwind_py_frame p[3] = {py(JITUNWIND_PYFRAME_ENTRY), py(0), py(JITUNWIND_PYFRAME_ENTRY)};
    struct jitunwind_mixed_item out[16];
    size_t n;
    static const uint32_t kinds[] = {1, 1, 2, 1, 1, 1, 2, 2, 1};
    static const uint32_t index[] = {0, 1, 0, 2, 3, 4, 1, 2, 5};
    size_t i;
    ck_assert_int_eq(jitunwind_mix(roles, 6, p, 3, out, 16, &n), 0);
    ck_assert_uint_eq(n, 9);
    for (i = 0; i < n; i++) {
        ck_assert_uint_eq(out[i].kind, kinds[i]);
        ck_assert_uint_eq(out[i].index, index[i]);
    }
    ck_assert_uint_eq(out[2].anchor, 1);
    ck_assert_uint_eq(out[6].anchor, 4);
    ck_assert_uint_eq(out[0].anchor, JITUNWIND_MIXED_NO_ANCHOR);
}
END_TEST

START_TEST(leftovers_and_limits)
{
    uint32_t roles[] = {JITUNWIND_ROLE_EVAL};
    struct jitunwind_py_frame p[3] = {py(JITUNWIND_PYFRAME_ENTRY), py(0), py(JITUNWIND_PYFRAME_ENTRY)};
    struct jitunwind_mixed_item out[8];
    size_t n;
    ck_assert_int_eq(jitunwind_mix(roles, 1, p, 3, out, 8, &n), 0);
    ck_assert_uint_eq(n, 4);
    ck_assert_uint_eq(out[1].anchor, 0);
    ck_assert_uint_eq(out[2].anchor, JITUNWIND_MIXED_NO_ANCHOR); /* the native stack was cut */
    ck_assert_uint_eq(out[3].anchor, JITUNWIND_MIXED_NO_ANCHOR);
    ck_assert_int_eq(jitunwind_mix(roles, 1, p, 3, out, 2, &n), JITUNWIND_ELIMIT);
    ck_assert_uint_eq(n, 2);
    ck_assert_int_eq(jitunwind_mix(NULL, 1, p, 3, out, 8, &n), JITUNWIND_EINVAL);
    /* No eval frames at all: every Python frame is unanchored, none lost. */
    roles[0] = JITUNWIND_ROLE_OTHER;
    ck_assert_int_eq(jitunwind_mix(roles, 1, p, 3, out, 8, &n), 0);
    ck_assert_uint_eq(n, 4);
}
END_TEST

START_TEST(line_may_lag_only_under_a_direct_jit_callee)
{
    /* native: 0 JIT, 1 eval (its direct caller), 2 JIT, 3 shim-like C, 4 eval */
    uint32_t roles[] = {JITUNWIND_ROLE_JIT, JITUNWIND_ROLE_EVAL, JITUNWIND_ROLE_JIT,
                        JITUNWIND_ROLE_OTHER, JITUNWIND_ROLE_EVAL};
    struct jitunwind_py_frame p[3] = {py(0), py(JITUNWIND_PYFRAME_ENTRY), py(JITUNWIND_PYFRAME_ENTRY)};
    struct jitunwind_mixed_item out[16];
    size_t n;
    ck_assert_int_eq(jitunwind_mix(roles, 5, p, 3, out, 16, &n), 0);
    ck_assert_uint_eq(n, 8);
    ck_assert_uint_eq(out[2].kind, JITUNWIND_MIXED_PYTHON);
    ck_assert_uint_eq(out[2].flags, JITUNWIND_MIXED_LINE_MAY_LAG); /* innermost of the group */
    ck_assert_uint_eq(out[3].flags, 0);                            /* the frame below it */
    ck_assert_uint_eq(out[7].kind, JITUNWIND_MIXED_PYTHON);
    ck_assert_uint_eq(out[7].flags, 0); /* JIT frame not the eval loop's direct callee */
}
END_TEST

START_TEST(roles_from_symbols)
{
    ck_assert_int_eq(jitunwind_native_role_from_symbol("_PyEval_EvalFrameDefault"), JITUNWIND_ROLE_EVAL);
    ck_assert_int_eq(jitunwind_native_role_from_symbol("py::f:/x.py"), JITUNWIND_ROLE_TRAMPOLINE);
    ck_assert_int_eq(jitunwind_native_role_from_symbol("_PyEval_EvalFrame"), JITUNWIND_ROLE_OTHER);
    ck_assert_int_eq(jitunwind_native_role_from_symbol(NULL), JITUNWIND_ROLE_OTHER);
}
END_TEST

int main(void)
{
    return ju_run_tests("mixed", JU_TESTS(groups_follow_their_eval_frames, leftovers_and_limits,
                                          line_may_lag_only_under_a_direct_jit_callee,
                                          roles_from_symbols));
}
