/* What the library knows about each target architecture, in one table per
 * architecture (arch_facts.c): register numbers, the ELF machine, how a
 * return address is turned into a lookup address, instruction and
 * trampoline-template sizes, pointer-authentication defaults. Readers and
 * unwinders ask this table; they do not write these constants themselves.
 * It sits in base/ because every floor above asks it (elf/ for the ELF
 * machine, unwind/ for registers, discovery/ for templates).
 *
 * A new architecture is one more table in arch_facts.c (and its rules in
 * unwind/arch/); a new fact is one more member here, filled in every table. */
#ifndef JITUNWIND_ARCH_FACTS_H
#define JITUNWIND_ARCH_FACTS_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

#define JU_MAX_TEMPLATE 32u /* bytes of the longest trampoline template */

/* A byte sequence: a trampoline template or one instruction. len 0: none. */
struct ju_code_bytes {
    uint8_t len;
    uint8_t bytes[JU_MAX_TEMPLATE];
};

struct ju_arch_facts {
    int arch;             /* enum jitunwind_arch */
    const char *name;     /* for messages: "x86-64", "AArch64" */
    uint16_t elf_machine; /* e_machine of its ELF files (EM_*) */

    /* DWARF register numbers; -1: the architecture has no such register.
     * dwarf_ra is the return-address column of CFI. */
    int dwarf_pc, dwarf_sp, dwarf_fp, dwarf_lr, dwarf_ra;
    /* The DWARF registers a call preserves (bit n: register n), besides
     * sp: a caller's value is the callee's unless its CFI saved it. */
    uint64_t dwarf_callee_saved;

    /* A caller's pc is a return address, just past its call; it is looked
     * up (ranges, CFI, symbols) this many bytes lower, inside the call. */
    uint8_t return_address_adjust;
    uint8_t insn_align;   /* every instruction starts at a multiple of this */
    uint8_t sp_align;     /* an sp not a multiple of this is garbage (0: no such rule) */
    /* The frame record {saved fp, return address} at fp: its size, and
     * whether the CFA is always fp + that size (x86-64) or may lie further
     * up, at fp + the frame's size (AArch64 frames keep the record at the
     * bottom). */
    uint8_t frame_record_size;
    uint8_t frame_record_cfa_fixed;

    /* The landing pad a branch-protected copy may start with (endbr64,
     * `bti c`), and CPython's perf-trampoline templates after it
     * (Python/asm_trampoline.S): with a frame record, and x86-64's
     * frameless `sub $8,%rsp` one (none on AArch64). */
    struct ju_code_bytes landing_pad;
    struct ju_code_bytes trampoline_framed;
    struct ju_code_bytes trampoline_sub8;
    /* The framed template of a build with pointer authentication or BTI
     * (AArch64: `paciasp` (itself a landing pad) before it and `autiasp`
     * before its `ret`); none on x86-64, whose CET build only adds endbr64. */
    struct ju_code_bytes trampoline_framed_pac;

    /* Pointer authentication: the bits of a saved return address that may
     * hold a signature when the target's own mask (NT_ARM_PAC_MASK) is
     * unknown. 0: no pointer authentication. */
    uint64_t pac_mask_default;
};

/* The registers a call preserves that a walk carries besides pc, sp, fp
 * and lr (x86-64: rbx, r12-r15; AArch64: x19-x28), each in a slot: the
 * k-th of them in DWARF order is slot k. */
#define JU_CARRIED_MAX 10
struct ju_carried {
    uint64_t value[JU_CARRIED_MAX];
    uint32_t valid; /* bit k: value[k] is known */
};

static inline uint64_t ju_carried_mask(const struct ju_arch_facts *a)
{
    return a->dwarf_callee_saved & ~(1ull << a->dwarf_fp);
}

/* The slot of DWARF register `regno`, or -1 when the walk does not carry it. */
static inline int ju_carried_slot(const struct ju_arch_facts *a, int regno)
{
    uint64_t mask = ju_carried_mask(a);
    int k;
    if (regno < 0 || regno >= 64 || !(mask & (1ull << regno)))
        return -1;
    k = __builtin_popcountll(mask & ((1ull << regno) - 1));
    return k < JU_CARRIED_MAX ? k : -1;
}

/* The facts of `arch` (enum jitunwind_arch), or NULL for an architecture
 * the library does not know. */
JU_HIDDEN const struct ju_arch_facts *ju_arch_facts(int arch);
/* The architecture whose ELF machine is `e_machine`, or 0. */
JU_HIDDEN int ju_arch_for_elf_machine(unsigned e_machine);

/* The address to look `pc` up at: itself for the innermost frame (it may be
 * stopped at any instruction), else just inside the call that returns to
 * it, so that a call ending a range or a function is attributed to it. */
static inline uint64_t ju_arch_lookup_pc(const struct ju_arch_facts *a, uint64_t pc,
                                         int innermost)
{
    return innermost ? pc : pc - a->return_address_adjust;
}

/* A return address without its pointer-authentication signature. The PAC
 * bits are `mask` (the target's, from the caller's memory description), or
 * the architecture's default when it is 0; a value whose PAC bits are
 * neither all clear nor all set (a user or a kernel address) is taken as
 * signed and the bits cleared. */
static inline uint64_t ju_arch_strip_pac(const struct ju_arch_facts *a, uint64_t mask,
                                         uint64_t pc)
{
    uint64_t bits = mask ? mask : a->pac_mask_default;
    uint64_t top = pc & bits;
    return (bits && top != 0 && top != bits) ? (pc & ~bits) : pc;
}

/* Does `code` (len bytes) start with `pattern`? */
static inline int ju_code_starts_with(const uint8_t *code, size_t len,
                                      const struct ju_code_bytes *pattern)
{
    return pattern->len && len >= pattern->len && memcmp(code, pattern->bytes, pattern->len) == 0;
}

#endif
