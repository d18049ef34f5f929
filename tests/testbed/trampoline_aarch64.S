/* Trampoline templates for AArch64, copied into executable arenas by
 * trampolines.c: called as trampoline(tstate, frame, throwflag, evaluator),
 * they call the evaluator (in x3) with the first three arguments untouched.
 * CPython 3.12-3.14's Python/asm_trampoline.S has one AArch64 template, a
 * frame record ("framed" here); a build with -mbranch-protection (pac-ret
 * or bti) wraps it in `hint 25` (paciasp, also a BTI landing pad) and
 * `hint 29` (autiasp) before ret ("pac" here). The library accepts both
 * (and the framed one after a plain `bti c`). */
    .text
    .globl jitbed_trampoline_pac_start
    .globl jitbed_trampoline_pac_end
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

jitbed_trampoline_pac_start:
    hint 25 /* paciasp */
    stp x29, x30, [sp, -16]!
    mov x29, sp
    blr x3
    ldp x29, x30, [sp], 16
    hint 29 /* autiasp */
    ret
jitbed_trampoline_pac_end:

jitbed_trampoline_framed_start:
    FRAME_RECORD_CALL
jitbed_trampoline_framed_end:

    .section .note.GNU-stack,"",@progbits
