/* An interpreter's eval loop as GCC with LTO leaves it, in a small shared
 * library built with -g: the function, the part split off as `.cold` and a
 * `.part.0` clone (LOCAL), a lookalike that is another function, and local
 * JIT tables, so that check_debug_files finds them through a separate
 * debug file once the library is stripped. */
struct eval_parts_runtime {
    long state;
};
struct eval_parts_runtime _PyRuntime;

static const unsigned int stencil_groups[4] = {1, 2, 3, 4};
static const char *const _PyOpcode_uop_name[2] = {"_NOP", "_EXIT"};

__attribute__((noinline, cold)) static long eval_cold(long x) __asm__("_PyEval_EvalFrameDefault.cold");
__attribute__((noinline)) static long eval_part(long x) __asm__("_PyEval_EvalFrameDefault.part.0");
__attribute__((noinline)) static long lookalike(long x) __asm__("_PyEval_EvalFrame.constprop.0");

static long eval_cold(long x)
{
    _PyRuntime.state += x * 3;
    return _PyRuntime.state + (long)stencil_groups[x & 3];
}

static long eval_part(long x)
{
    return x > 7 ? eval_cold(x) : x + (long)_PyOpcode_uop_name[x & 1][0];
}

static long lookalike(long x)
{
    return x - 1;
}

long _PyEval_EvalFrameDefault(long x)
{
    return x > 100 ? eval_part(x) : lookalike(x);
}
