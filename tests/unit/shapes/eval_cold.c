/* An eval loop whose unlikely paths GCC moves into a `.cold` part (paths
 * to a cold function), jumped to from the function: stripped, only the
 * function stays named (.dynsym), and check_eval_outlined finds the part
 * from the code and .eh_frame. */
__attribute__((noinline, cold)) void eval_cold_report(long code);
long eval_cold_state;

__attribute__((noinline, cold)) void eval_cold_report(long code)
{
    eval_cold_state += code * 7;
}

long _PyEval_EvalFrameDefault(long x, long y);
long _PyEval_EvalFrameDefault(long x, long y)
{
    long r = 0;
    for (long i = 0; i < x; i++) {
        if (__builtin_expect(i == y, 0)) {
            eval_cold_report(i);
            r -= 3;
            continue;
        }
        if (__builtin_expect(i * 3 == y + 1, 0)) {
            eval_cold_report(i + 1);
            r += 5;
            break;
        }
        if (__builtin_expect(r > 1000000, 0)) {
            eval_cold_report(r);
            return -1;
        }
        r += i ^ y;
    }
    return r;
}
