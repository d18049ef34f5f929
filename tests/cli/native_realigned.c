/* A library whose walk needs a register a call preserves: realigned_run
 * calls realigned_call, which realigns its stack and so defines its CFA
 * from rbx (as ld.so's lazy-binding resolver does), and that calls
 * realigned_spin, which saves rbx, keeps changing it, and spins until the
 * process is killed. A Python target calls realigned_run through ctypes. */
#include <stdint.h>

#if defined(__x86_64__)
/* realigned_call(fn): push rbx; rbx = sp; sp aligned down to 64; call fn. */
__asm__(".text\n"
        ".globl realigned_call\n"
        ".hidden realigned_call\n"
        ".type realigned_call, @function\n"
        "realigned_call:\n"
        ".cfi_startproc\n"
        "push %rbx\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset %rbx, -16\n"
        "mov %rsp, %rbx\n"
        ".cfi_def_cfa_register %rbx\n"
        "and $-64, %rsp\n"
        "call *%rdi\n"
        "mov %rbx, %rsp\n"
        ".cfi_def_cfa_register %rsp\n"
        "pop %rbx\n"
        ".cfi_def_cfa_offset 8\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size realigned_call, .-realigned_call\n");
uint64_t realigned_call(uint64_t (*fn)(void));

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
    return realigned_call(realigned_spin);
}
#endif
