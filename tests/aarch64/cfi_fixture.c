/* Fixture for check_aarch64_cfi: a function GCC compiles for AArch64 with
 * -mbranch-protection=pac-ret (paciasp; stp x29, x30; mov x29, sp; bl; ...),
 * so its CFI has the real DW_CFA_AARCH64_negate_ra_state and x30 rules. */
void jitbed_cfi_callee(void);
__attribute__((noinline)) void jitbed_cfi_signed(void)
{
    jitbed_cfi_callee();
    __asm__ volatile("" ::: "memory");
}
