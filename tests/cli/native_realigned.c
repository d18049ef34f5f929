/* A library whose walk needs a register a call preserves: realigned_run
 * calls ju_realigned_call (realigned_call.h), which defines its CFA from
 * rbx, and that calls realigned_spin, which saves rbx, keeps changing it,
 * and spins until the process is killed. A Python target calls
 * realigned_run through ctypes. */
#include <stdint.h>

#include "realigned_call.h"

#if defined(__x86_64__)
static volatile int stop_spinning;

/* rbx holds the spin's state: the function saves the caller's rbx first. */
__attribute__((noinline)) static uint64_t realigned_spin(void)
{
    uint64_t x = 1;
    while (!stop_spinning) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        __asm__ volatile("mov %0, %%rbx" : : "r"(x) : "rbx");
    }
    return x;
}

uint64_t realigned_run(void);
uint64_t realigned_run(void)
{
    return ju_realigned_call(realigned_spin);
}
#endif
