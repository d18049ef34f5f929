/* Trampoline templates, copied into executable arenas by trampolines.c, in
 * the two layouts CPython has used on x86-64 (Python/asm_trampoline.S):
 * called as trampoline(tstate, frame, throwflag, evaluator), they call the
 * evaluator (in %rcx) with the first three arguments untouched. */
    .text
    .globl jitbed_trampoline_sub8_start
    .globl jitbed_trampoline_sub8_end
    .globl jitbed_trampoline_framed_start
    .globl jitbed_trampoline_framed_end

/* CPython 3.12 / 3.13: no frame, an 8-byte pad keeps the stack aligned. */
jitbed_trampoline_sub8_start:
    sub $8, %rsp
    call *%rcx
    add $8, %rsp
    ret
jitbed_trampoline_sub8_end:

/* CPython 3.14+: a frame record. */
jitbed_trampoline_framed_start:
    push %rbp
    mov %rsp, %rbp
    call *%rcx
    pop %rbp
    ret
jitbed_trampoline_framed_end:

    .section .note.GNU-stack,"",@progbits
