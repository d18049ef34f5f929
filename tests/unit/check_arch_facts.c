/* The per-architecture facts table: each architecture's facts agree with
 * what the rest of the library does with them, and an architecture it
 * does not know is refused everywhere. */
#include <elf.h>

#include "base/arch_facts.h"
#include "jitunwind/jitunwind.h"
#include "suite.h"

static const int ARCHES[] = {JITUNWIND_ARCH_X86_64, JITUNWIND_ARCH_AARCH64};

START_TEST(elf_machines_name_their_architecture)
{
    size_t i;
    ck_assert_int_eq(ju_arch_facts(JITUNWIND_ARCH_X86_64)->elf_machine, EM_X86_64);
    ck_assert_int_eq(ju_arch_facts(JITUNWIND_ARCH_AARCH64)->elf_machine, EM_AARCH64);
    for (i = 0; i < 2; i++)
        ck_assert_int_eq(ju_arch_for_elf_machine(ju_arch_facts(ARCHES[i])->elf_machine),
                         ARCHES[i]);
    ck_assert_int_eq(ju_arch_for_elf_machine(EM_386), 0);
    ck_assert_ptr_null(ju_arch_facts(0));
    ck_assert_ptr_null(ju_arch_facts(3));
}
END_TEST

/* The return address of a call ending a function is looked up inside the
 * call; the innermost pc as it is. */
START_TEST(return_addresses_are_looked_up_inside_the_call)
{
    size_t i;
    for (i = 0; i < 2; i++) {
        ck_assert_uint_eq(jitunwind_lookup_address(ARCHES[i], 0x401000, 1), 0x401000);
        ck_assert_uint_eq(jitunwind_lookup_address(ARCHES[i], 0x401000, 0), 0x400fff);
    }
    ck_assert_uint_eq(jitunwind_lookup_address(0, 0x401000, 0), 0x401000);
}
END_TEST

/* Each template in the table, with and without the landing pad, is what
 * the classifier recognises, and nothing shorter is. */
START_TEST(templates_classify_as_their_rule)
{
    size_t i;
    for (i = 0; i < 2; i++) {
        const struct ju_arch_facts *a = ju_arch_facts(ARCHES[i]);
        const struct {
            const struct ju_code_bytes *t;
            int rule;
        } T[] = {{&a->trampoline_framed, JITUNWIND_RULE_TRAMPOLINE_FRAMED},
                 {&a->trampoline_sub8, JITUNWIND_RULE_TRAMPOLINE_SUB8}};
        size_t k;
        for (k = 0; k < 2; k++) {
            uint8_t code[2 * JU_MAX_TEMPLATE];
            if (!T[k].t->len)
                continue; /* AArch64 has no frameless template */
            ck_assert_uint_eq(T[k].t->len % a->insn_align, 0);
            ck_assert_int_eq(jitunwind_classify_trampoline(ARCHES[i], T[k].t->bytes, T[k].t->len),
                             T[k].rule);
            ck_assert_int_eq(
                jitunwind_classify_trampoline(ARCHES[i], T[k].t->bytes, T[k].t->len - 1u),
                JITUNWIND_ENOTFOUND);
            memcpy(code, a->landing_pad.bytes, a->landing_pad.len);
            memcpy(code + a->landing_pad.len, T[k].t->bytes, T[k].t->len);
            ck_assert_int_eq(jitunwind_classify_trampoline(ARCHES[i], code,
                                                           a->landing_pad.len + T[k].t->len),
                             T[k].rule);
        }
    }
    ck_assert_int_eq(jitunwind_classify_trampoline(3, (const uint8_t *)"x", 1), JITUNWIND_EINVAL);
}
END_TEST

START_TEST(pointer_authentication_is_stripped_where_it_exists)
{
    const struct ju_arch_facts *x = ju_arch_facts(JITUNWIND_ARCH_X86_64);
    const struct ju_arch_facts *a = ju_arch_facts(JITUNWIND_ARCH_AARCH64);
    ck_assert_uint_eq(ju_arch_strip_pac(a, 0x002a00000040abcdull), 0x000000000040abcdull);
    ck_assert_uint_eq(ju_arch_strip_pac(a, 0x000000000040abcdull), 0x000000000040abcdull);
    ck_assert_uint_eq(ju_arch_strip_pac(a, 0xffff80000040abcdull), 0xffff80000040abcdull);
    ck_assert_uint_eq(ju_arch_strip_pac(x, 0x002a00000040abcdull), 0x002a00000040abcdull);
}
END_TEST

/* DWARF register numbers of the psABIs (what CFI from compilers uses). */
START_TEST(dwarf_registers)
{
    const struct ju_arch_facts *x = ju_arch_facts(JITUNWIND_ARCH_X86_64);
    const struct ju_arch_facts *a = ju_arch_facts(JITUNWIND_ARCH_AARCH64);
    ck_assert_int_eq(x->dwarf_fp, 6);
    ck_assert_int_eq(x->dwarf_sp, 7);
    ck_assert_int_eq(x->dwarf_ra, 16);
    ck_assert_int_eq(a->dwarf_fp, 29);
    ck_assert_int_eq(a->dwarf_lr, 30);
    ck_assert_int_eq(a->dwarf_ra, 30);
    ck_assert_int_eq(a->dwarf_sp, 31);
}
END_TEST

int main(void)
{
    return ju_run_tests("arch_facts", JU_TESTS(elf_machines_name_their_architecture,
                                               return_addresses_are_looked_up_inside_the_call,
                                               templates_classify_as_their_rule,
                                               pointer_authentication_is_stripped_where_it_exists,
                                               dwarf_registers));
}
