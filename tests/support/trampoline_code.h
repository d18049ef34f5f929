/* CPython's perf-trampoline templates (Python/asm_trampoline.S) as tests
 * write them into synthetic targets. */
#ifndef JU_TEST_TRAMPOLINE_CODE_H
#define JU_TEST_TRAMPOLINE_CODE_H

#include <stdint.h>

/* x86-64, 3.12/3.13: sub $8,%rsp; call *%rcx; add $8,%rsp; ret (11 bytes). */
extern const uint8_t JU_X86_SUB8[11];
/* x86-64, 3.14+: push %rbp; mov %rsp,%rbp; call *%rcx; pop %rbp; ret (8 bytes). */
extern const uint8_t JU_X86_FRAMED[8];
/* AArch64: stp x29,x30,[sp,#-16]!; mov x29,sp; blr x3; ldp x29,x30,[sp],#16; ret. */
extern const uint32_t JU_A64_FRAMED[5];

#endif
