/* Interleaving native and Python frames, at once and through the
 * incremental mixer. */
#include <stdlib.h>

#include "internal.h"
#include "python/pyreader.h"
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

/* A mixer over a registry holding one JIT range [0x1000, 0x2000) and one
 * trampoline range [0x3000, 0x4000), without a reader. */
static jitunwind_mixer *mixer_over(jitunwind_registry **reg, uint32_t flags)
{
    struct jitunwind_range jit = {0x1000, 0x2000, JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING,
                                  0, JITUNWIND_ORIGIN_USER, 0, "jit"};
    struct jitunwind_range tramp = {0x3000, 0x4000, JITUNWIND_KIND_TRAMPOLINE,
                                    JITUNWIND_RULE_FP_PRESERVING, 0, JITUNWIND_ORIGIN_USER, 0,
                                    "py::f"};
    struct jitunwind_mixer_options o = {sizeof o, JITUNWIND_ARCH_X86_64, flags, NULL, NULL};
    jitunwind_mixer *m;
    ck_assert_int_eq(jitunwind_registry_new(reg), 0);
    ck_assert_int_eq(jitunwind_registry_add(*reg, &jit), 0);
    ck_assert_int_eq(jitunwind_registry_add(*reg, &tramp), 0);
    o.registry = *reg;
    ck_assert_int_eq(jitunwind_mixer_new(&o, &m), 0);
    return m;
}

static struct jitunwind_mixer_native nat(uint64_t pc, const char *symbol, uint32_t flags)
{
    struct jitunwind_mixer_native n = {pc, symbol, flags, UINT32_MAX, 0};
    return n;
}

START_TEST(mixer_roles_from_range_symbol_and_return_address)
{
    jitunwind_registry *reg;
    jitunwind_mixer *m = mixer_over(&reg, 0);
    /* 0x2000 is past the JIT range: only the innermost frame's pc is
     * looked up as it is, a caller's is a return address (looked up
     * before it). A "py::" name outside every range is OTHER. */
    struct jitunwind_mixer_native n[] = {nat(0x2000, NULL, 0), nat(0x2000, NULL, 0),
                                         nat(0x3010, "whatever", 0), nat(0x9000, "py::g", 0),
                                         nat(0x9000, "_PyEval_EvalFrameDefault.cold", 0)};
    struct jitunwind_mixed_item out[8];
    size_t fed, count;
    ck_assert_int_eq(jitunwind_mixer_python(m, NULL, 0), 0);
    ck_assert_int_eq(jitunwind_mixer_feed(m, n, 5, &fed, out, 8, &count), 0);
    ck_assert_uint_eq(fed, 5);
    ck_assert_uint_eq(count, 5);
    ck_assert_uint_eq(n[0].role, JITUNWIND_ROLE_OTHER);
    ck_assert_uint_eq(n[1].role, JITUNWIND_ROLE_JIT);
    ck_assert_uint_eq(n[2].role, JITUNWIND_ROLE_TRAMPOLINE);
    ck_assert_uint_eq(n[3].role, JITUNWIND_ROLE_OTHER);
    ck_assert_uint_eq(n[4].role, JITUNWIND_ROLE_EVAL);
    ck_assert_uint_eq(n[0].address, 0x2000);
    ck_assert_uint_eq(n[1].address, 0x1fff);
    ck_assert_int_eq(jitunwind_mixer_python(m, NULL, 0), JITUNWIND_EINVAL); /* once */
    jitunwind_mixer_free(m);
    jitunwind_registry_free(reg);
}
END_TEST

/* The same stack fed one frame at a time, asking for the Python frames at
 * the first eval loop, gives jitunwind_mix's items, and marks the frame
 * run straight into JIT code in place. */
START_TEST(mixer_in_batches_matches_mix_and_flags_jit_frames)
{
    uint32_t roles[] = {JITUNWIND_ROLE_OTHER, JITUNWIND_ROLE_JIT, JITUNWIND_ROLE_EVAL,
                        JITUNWIND_ROLE_TRAMPOLINE, JITUNWIND_ROLE_EVAL, JITUNWIND_ROLE_OTHER};
    struct jitunwind_py_frame p[4] = {py(0), py(JITUNWIND_PYFRAME_ENTRY), py(JITUNWIND_PYFRAME_ENTRY),
                                      py(0)};
    struct jitunwind_mixer_native n[6];
    struct jitunwind_mixed_item want[16], got[16];
    struct jitunwind_mixer_options o = {sizeof o, JITUNWIND_ARCH_X86_64, 0, NULL, NULL};
    jitunwind_mixer *m;
    size_t i, n_want, n_got = 0, fed, count;
    ck_assert_int_eq(jitunwind_mix(roles, 6, p, 4, want, 16, &n_want), 0);
    ck_assert_int_eq(jitunwind_mixer_new(&o, &m), 0);
    for (i = 0; i < 6; i++)
        n[i] = nat(0x100 * (i + 1), NULL, JITUNWIND_MIXER_ROLE_GIVEN), n[i].role = roles[i];
    for (i = 0; i < 6;) {
        int rc = jitunwind_mixer_feed(m, &n[i], 1, &fed, got + n_got, 16 - n_got, &count);
        n_got += count;
        i += fed;
        if (rc == JITUNWIND_MIXER_WANTS_PYTHON) {
            ck_assert_uint_eq(i, 2); /* the first eval loop */
            ck_assert_int_eq(jitunwind_mixer_python(m, p, 4), 0);
        } else {
            ck_assert_int_eq(rc, 0);
        }
    }
    ck_assert_uint_eq(jitunwind_mixer_next_python(m), 3);
    for (i = 3; i < 4; i++, n_got++) { /* the leftover, as jitunwind_mix places it */
        got[n_got].kind = JITUNWIND_MIXED_PYTHON;
        got[n_got].index = (uint32_t)i;
        got[n_got].anchor = JITUNWIND_MIXED_NO_ANCHOR;
        got[n_got].flags = 0;
    }
    ck_assert_uint_eq(n_got, n_want);
    ck_assert_int_eq(memcmp(got, want, n_want * sizeof *want), 0);
    ck_assert_uint_eq(p[0].flags, JITUNWIND_PYFRAME_IN_JIT | JITUNWIND_PYFRAME_LINE_MAY_LAG);
    ck_assert_uint_eq(p[1].flags, JITUNWIND_PYFRAME_ENTRY);
    ck_assert_uint_eq(p[2].flags, JITUNWIND_PYFRAME_ENTRY);
    jitunwind_mixer_free(m);
}
END_TEST

START_TEST(mixer_limits_keep_frames_and_items_in_step)
{
    struct jitunwind_py_frame p[2] = {py(0), py(JITUNWIND_PYFRAME_ENTRY)};
    struct jitunwind_mixer_native n[] = {nat(0x10, NULL, 0), nat(0x20, "_PyEval_EvalFrameDefault", 0)};
    struct jitunwind_mixer_options o = {sizeof o, 0, 0, NULL, NULL};
    struct jitunwind_mixed_item out[4];
    jitunwind_mixer *m;
    size_t fed, count;
    o.size = 8; /* too small to hold the flags */
    ck_assert_int_eq(jitunwind_mixer_new(&o, &m), JITUNWIND_EINVAL);
    ck_assert_ptr_null(m);
    o.size = sizeof o;
    ck_assert_int_eq(jitunwind_mixer_new(&o, &m), 0);
    ck_assert_int_eq(jitunwind_mixer_python(m, p, 2), 0);
    /* room for the first frame, not for the eval loop and its group of 2 */
    ck_assert_int_eq(jitunwind_mixer_feed(m, n, 2, &fed, out, 3, &count), JITUNWIND_ELIMIT);
    ck_assert_uint_eq(fed, 1);
    ck_assert_uint_eq(count, 1);
    ck_assert_int_eq(jitunwind_mixer_feed(m, n + 1, 1, &fed, out, 4, &count), 0);
    ck_assert_uint_eq(count, 3);
    ck_assert_uint_eq(out[0].index, 1); /* counted over every frame fed */
    ck_assert_uint_eq(out[2].anchor, 1);
    ck_assert_int_eq(jitunwind_mixer_feed(NULL, n, 1, &fed, out, 4, &count), JITUNWIND_EINVAL);
    jitunwind_mixer_free(m);
}
END_TEST

START_TEST(mixer_hides_interpreter_frames_between_eval_loops)
{
    jitunwind_registry *reg;
    jitunwind_mixer *m = mixer_over(&reg, JITUNWIND_MIXER_HIDE_INTERPRETER);
    const char *eval = "_PyEval_EvalFrameDefault";
    /* 0 interp C (above the innermost eval loop: shown), 1 eval, 2 interp C
     * (hidden), 3 JIT (never hidden), 4 other module's C (shown), 5 eval,
     * 6 interp C (below the outermost eval loop: shown) */
    struct jitunwind_mixer_native n[] = {
        nat(0x9000, "f", JITUNWIND_MIXER_INTERPRETER), nat(0x9100, eval, 0),
        nat(0x9200, "g", JITUNWIND_MIXER_INTERPRETER), nat(0x1010, NULL, JITUNWIND_MIXER_INTERPRETER),
        nat(0x9300, "h", 0), nat(0x9400, eval, 0), nat(0x9500, "main", JITUNWIND_MIXER_INTERPRETER)};
    struct jitunwind_mixed_item out[8];
    size_t fed, count, i;
    int want[] = {0, 0, 1, 0, 0, 0, 0};
    ck_assert_int_eq(jitunwind_mixer_python(m, NULL, 0), 0);
    ck_assert_int_eq(jitunwind_mixer_feed(m, n, 7, &fed, out, 8, &count), 0);
    for (i = 0; i < 7; i++)
        ck_assert_int_eq(jitunwind_mixer_hidden(m, i), want[i]);
    ck_assert_int_eq(jitunwind_mixer_hidden(m, 7), 0);
    jitunwind_mixer_free(m);
    jitunwind_registry_free(reg);
}
END_TEST

/* A frame in any part of the eval loop the reader found is an eval-loop
 * frame whatever its name (a `.cold` part named differently, or not
 * named); outside them only the name decides. */
START_TEST(mixer_knows_the_eval_loop_by_address)
{
    jitunwind_pyreader *r = calloc(1, sizeof *r);
    struct jitunwind_mixer_options o = {sizeof o, JITUNWIND_ARCH_X86_64, 0, NULL, NULL};
    struct jitunwind_mixer_native n[] = {nat(0x5010, NULL, 0), nat(0x7011, "??", 0),
                                         nat(0x7011, "_PyEval_EvalFrameDefault.part.0", 0),
                                         nat(0x7011, "_PyEval_EvalFrame.constprop.0", 0)};
    struct jitunwind_mixed_item out[8];
    jitunwind_mixer *m;
    size_t fed, count;
    ck_assert_ptr_nonnull(r);
    r->eval[0].start = 0x5000;
    r->eval[0].end = 0x6000;
    r->n_eval = 1;
    o.reader = r;
    ck_assert_int_eq(jitunwind_mixer_new(&o, &m), 0);
    ck_assert_int_eq(jitunwind_mixer_python(m, NULL, 0), 0);
    ck_assert_int_eq(jitunwind_mixer_feed(m, n, 4, &fed, out, 8, &count), 0);
    ck_assert_uint_eq(n[0].role, JITUNWIND_ROLE_EVAL);
    ck_assert_uint_eq(n[1].role, JITUNWIND_ROLE_OTHER);
    ck_assert_uint_eq(n[2].role, JITUNWIND_ROLE_EVAL);
    ck_assert_uint_eq(n[3].role, JITUNWIND_ROLE_OTHER);
    jitunwind_mixer_free(m);
    o.reader = NULL; /* without a reader the address says nothing */
    ck_assert_int_eq(jitunwind_mixer_new(&o, &m), 0);
    ck_assert_int_eq(jitunwind_mixer_python(m, NULL, 0), 0);
    ck_assert_int_eq(jitunwind_mixer_feed(m, n, 1, &fed, out, 8, &count), 0);
    ck_assert_uint_eq(n[0].role, JITUNWIND_ROLE_OTHER);
    jitunwind_mixer_free(m);
    free(r);
}
END_TEST

int main(void)
{
    return ju_run_tests("mixed", JU_TESTS(groups_follow_their_eval_frames, leftovers_and_limits,
                                          line_may_lag_only_under_a_direct_jit_callee,
                                          roles_from_symbols,
                                          mixer_roles_from_range_symbol_and_return_address,
                                          mixer_in_batches_matches_mix_and_flags_jit_frames,
                                          mixer_limits_keep_frames_and_items_in_step,
                                          mixer_hides_interpreter_frames_between_eval_loops,
                                          mixer_knows_the_eval_loop_by_address));
}
