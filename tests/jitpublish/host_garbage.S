/* void host_garbage(void (*trampoline)(void), void (*callee)(void)):
 * calls `trampoline` with %rcx = callee (CPython's perf-trampoline
 * convention) and garbage in %rbp, so that no frame-pointer walk gets
 * through the frames above it; its own CFI says where the real %rbp is. */
    .text
    .globl host_garbage
    .type host_garbage, @function
host_garbage:
    .cfi_startproc
    push %rbp
    .cfi_def_cfa_offset 16
    .cfi_offset %rbp, -16
    movabs $0xdeadbeefcafef00d, %rbp
    mov %rsi, %rcx
    call *%rdi
    pop %rbp
    .cfi_def_cfa_offset 8
    ret
    .cfi_endproc
    .size host_garbage, .-host_garbage
    .section .note.GNU-stack, "", @progbits
