/* The realigning function of realigned_call.h. */
#include "realigned_call.h"

#if defined(__x86_64__)
__asm__(".text\n"
        ".globl ju_realigned_call\n"
        ".hidden ju_realigned_call\n"
        ".type ju_realigned_call, @function\n"
        "ju_realigned_call:\n"
        ".cfi_startproc\n"
        "push %rbx\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset %rbx, -16\n"
        "mov %rsp, %rbx\n"
        ".cfi_def_cfa_register %rbx\n"
        "and $-64, %rsp\n"
        "call *%rdi\n"
        ".globl ju_realigned_call_ret\n"
        ".hidden ju_realigned_call_ret\n"
        "ju_realigned_call_ret:\n"
        "mov %rbx, %rsp\n"
        ".cfi_def_cfa_register %rsp\n"
        "pop %rbx\n"
        ".cfi_def_cfa_offset 8\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size ju_realigned_call, .-ju_realigned_call\n");
#endif
