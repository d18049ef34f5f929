/* One table of facts per architecture (see arch_facts.h). */
#include <elf.h>

#include "base/arch_facts.h"

static const struct ju_arch_facts X86_64 = {
    .arch = JITUNWIND_ARCH_X86_64,
    .name = "x86-64",
    .elf_machine = EM_X86_64,
    /* System V psABI: rbp 6, rsp 7, the return address column 16 (rip). */
    .dwarf_pc = 16, .dwarf_sp = 7, .dwarf_fp = 6, .dwarf_lr = -1, .dwarf_ra = 16,
    .dwarf_callee_saved = (1ull << 3) | (1ull << 6) | (0xfull << 12), /* rbx, rbp, r12-r15 */
    .return_address_adjust = 1,
    .insn_align = 1,
    .sp_align = 0, /* 16 only at calls: any other point may have 8 pushed */
    .frame_record_size = 16,
    .frame_record_cfa_fixed = 1,
    .landing_pad = {4, {0xf3, 0x0f, 0x1e, 0xfa}}, /* endbr64 */
    /* push %rbp; mov %rsp,%rbp; call *%rcx; pop %rbp; ret */
    .trampoline_framed = {8, {0x55, 0x48, 0x89, 0xe5, 0xff, 0xd1, 0x5d, 0xc3}},
    /* sub $8,%rsp; call *%rcx; add $8,%rsp; ret */
    .trampoline_sub8 = {11, {0x48, 0x83, 0xec, 0x08, 0xff, 0xd1, 0x48, 0x83, 0xc4, 0x08, 0xc3}},
    .pac_mask_default = 0,
};

static const struct ju_arch_facts AARCH64 = {
    .arch = JITUNWIND_ARCH_AARCH64,
    .name = "AArch64",
    .elf_machine = EM_AARCH64,
    /* DWARF for the Arm 64-bit architecture: x29 29, x30 30, sp 31; no pc
     * column (the return address is x30's). */
    .dwarf_pc = -1, .dwarf_sp = 31, .dwarf_fp = 29, .dwarf_lr = 30, .dwarf_ra = 30,
    .dwarf_callee_saved = 0x7ffull << 19, /* x19-x29 */
    .return_address_adjust = 1, /* any byte of the 4-byte bl/blr will do */
    .insn_align = 4,
    .sp_align = 16, /* the architecture faults on a misaligned sp */
    .frame_record_size = 16,
    .frame_record_cfa_fixed = 0,
    .landing_pad = {4, {0x5f, 0x24, 0x03, 0xd5}}, /* bti c */
    /* stp x29,x30,[sp,#-16]!; mov x29,sp; blr x3; ldp x29,x30,[sp],#16; ret */
    .trampoline_framed = {20, {0xfd, 0x7b, 0xbf, 0xa9, 0xfd, 0x03, 0x00, 0x91, 0x60, 0x00,
                               0x3f, 0xd6, 0xfd, 0x7b, 0xc1, 0xa8, 0xc0, 0x03, 0x5f, 0xd6}},
    .trampoline_sub8 = {0, {0}},
    /* With -mbranch-protection (CPython's `hint 25` / `hint 29`):
     * paciasp; stp; mov; blr x3; ldp; autiasp; ret */
    .trampoline_framed_pac = {28, {0x3f, 0x23, 0x03, 0xd5, 0xfd, 0x7b, 0xbf, 0xa9, 0xfd, 0x03,
                                   0x00, 0x91, 0x60, 0x00, 0x3f, 0xd6, 0xfd, 0x7b, 0xc1, 0xa8,
                                   0xbf, 0x23, 0x03, 0xd5, 0xc0, 0x03, 0x5f, 0xd6}},
    /* 48-bit user virtual addresses: the top 16 bits carry a signature.
     * Targets with 52-bit VAs or top-byte tags need their own mask. */
    .pac_mask_default = 0xffff000000000000ull,
};

static const struct ju_arch_facts *const ALL[] = {&X86_64, &AARCH64};

const struct ju_arch_facts *ju_arch_facts(int arch)
{
    size_t i;
    for (i = 0; i < sizeof ALL / sizeof ALL[0]; i++)
        if (ALL[i]->arch == arch)
            return ALL[i];
    return NULL;
}

int ju_arch_for_elf_machine(unsigned e_machine)
{
    size_t i;
    for (i = 0; i < sizeof ALL / sizeof ALL[0]; i++)
        if (ALL[i]->elf_machine == e_machine)
            return ALL[i]->arch;
    return 0;
}
