/* An AArch64 eval loop with a `.cold` part, as GCC lays one out under
 * -freorder-blocks-and-partition: the part is a LOCAL function in
 * .text.unlikely with its own FDE, reached only by branches from the
 * function. FORM picks the one branch form used, so that each decoder case
 * is checked alone: two branches of it land in the part (the votes needed),
 * one in the function itself and one in another, named function (neither
 * may count for the part). The part lies before the function, as GNU ld
 * places .text.unlikely (backward branches), or with COLD_AFTER after it
 * (forward branches). Built once per form and side by tests/CMakeLists.txt. */
#define FORM_B 1
#define FORM_BCOND 2
#define FORM_CBZ 3
#define FORM_CBNZ 4
#define FORM_TBZ 5
#define FORM_TBNZ 6

#if FORM == FORM_B
#define JUMP(to) b to
#elif FORM == FORM_BCOND
#define JUMP(to) b.ne to
#elif FORM == FORM_CBZ
#define JUMP(to) cbz x0, to
#elif FORM == FORM_CBNZ
#define JUMP(to) cbnz w1, to
#elif FORM == FORM_TBZ
#define JUMP(to) tbz x2, #40, to /* bit number >= 32: b5 is the word's top bit */
#elif FORM == FORM_TBNZ
#define JUMP(to) tbnz w3, #3, to
#else
#error FORM must name a branch form
#endif

    .macro cold_part
    .p2align 2
    .type _PyEval_EvalFrameDefault.cold, %function
_PyEval_EvalFrameDefault.cold:
    .cfi_startproc
.Lcold_first:
    add x0, x0, #1
.Lcold_second:
    sub x0, x0, #1
    JUMP(.Lback)
    ret
    .cfi_endproc
    .size _PyEval_EvalFrameDefault.cold, .-_PyEval_EvalFrameDefault.cold
    .endm

#ifndef COLD_AFTER
    .section .text.unlikely,"ax",%progbits
    cold_part
#endif

    .text
    .p2align 2
    .globl _PyEval_EvalFrameDefault
    .type _PyEval_EvalFrameDefault, %function
_PyEval_EvalFrameDefault:
    .cfi_startproc
    cmp x0, x1
    JUMP(.Lcold_first)
    JUMP(.Linside)
    JUMP(eval_cold_a64_other)
.Linside:
    cmp x1, #7
    JUMP(.Lcold_second)
.Lback:
    ret
    .cfi_endproc
    .size _PyEval_EvalFrameDefault, .-_PyEval_EvalFrameDefault

    .p2align 2
    .globl eval_cold_a64_other
    .type eval_cold_a64_other, %function
eval_cold_a64_other:
    .cfi_startproc
    mov x0, #0
    ret
    .cfi_endproc
    .size eval_cold_a64_other, .-eval_cold_a64_other

#ifdef COLD_AFTER
    cold_part
#endif

    .section .note.GNU-stack,"",%progbits
