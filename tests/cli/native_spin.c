/* A native process for the --perf --all test: it spins in known functions,
 * two calls below main, until it is killed. */
#include <stdint.h>

__attribute__((noinline)) static uint64_t native_spin_inner(uint64_t x)
{
    for (uint32_t i = 0; i < 100000; i++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x;
}

__attribute__((noinline)) static uint64_t native_spin_outer(uint64_t x)
{
    for (;;) {
        x = native_spin_inner(x);
        __asm__ volatile("" : "+r"(x));
    }
}

int main(void)
{
    return (int)native_spin_outer(1);
}
