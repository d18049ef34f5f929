/* Trampoline templates for AArch64, copied into executable arenas by
 * trampolines.c: called as trampoline(tstate, frame, throwflag, evaluator),
 * they call the evaluator (in x3) with the first three arguments untouched.
 * CPython 3.12-3.14's Python/asm_trampoline.S has one AArch64 template, a
 * frame record ("framed" here). The "bti" layout is the same after a
 * `bti c` landing pad, what a branch-protected build would need; the
 * library accepts both. */
    .text
    .globl jitbed_trampoline_bti_start
    .globl jitbed_trampoline_bti_end
    .globl jitbed_trampoline_framed_start
    .globl jitbed_trampoline_framed_end

/* CPython 3.12+ on AArch64. */
.macro FRAME_RECORD_CALL
    stp x29, x30, [sp, -16]!
    mov x29, sp
    blr x3
    ldp x29, x30, [sp], 16
    ret
.endm

jitbed_trampoline_bti_start:
    bti c
    FRAME_RECORD_CALL
jitbed_trampoline_bti_end:

jitbed_trampoline_framed_start:
    FRAME_RECORD_CALL
jitbed_trampoline_framed_end:

    .section .note.GNU-stack,"",@progbits
