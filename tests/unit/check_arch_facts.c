/* The per-architecture facts table: each architecture's facts agree with
 * what the rest of the library does with them, and an architecture it
 * does not know is refused everywhere. */
#include <elf.h>
#include <stddef.h>
#include <string.h>

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
    ck_assert_uint_eq(ju_arch_strip_pac(a, 0, 0x002a00000040abcdull), 0x000000000040abcdull);
    ck_assert_uint_eq(ju_arch_strip_pac(a, 0, 0x000000000040abcdull), 0x000000000040abcdull);
    ck_assert_uint_eq(ju_arch_strip_pac(a, 0, 0xffff80000040abcdull), 0xffff80000040abcdull);
    ck_assert_uint_eq(ju_arch_strip_pac(x, 0, 0x002a00000040abcdull), 0x002a00000040abcdull);
}
END_TEST

/* A target with 52-bit user addresses signs bits 52-63 only: with its mask a
 * signed address keeps bits 48-51, which the 48-bit default would clear. */
START_TEST(pointer_authentication_uses_the_callers_mask)
{
    const struct ju_arch_facts *a = ju_arch_facts(JITUNWIND_ARCH_AARCH64);
    const uint64_t va52 = 0xfff0000000000000ull;
    ck_assert_uint_eq(ju_arch_strip_pac(a, va52, 0x005f00000040abcdull), 0x000f00000040abcdull);
    ck_assert_uint_eq(ju_arch_strip_pac(a, 0, 0x005f00000040abcdull), 0x000000000040abcdull);
    ck_assert_uint_eq(ju_arch_strip_pac(a, va52, 0x000f00000040abcdull), 0x000f00000040abcdull);
    ck_assert_uint_eq(ju_arch_strip_pac(a, va52, 0xfff080000040abcdull), 0xfff080000040abcdull);
}
END_TEST

static int record_read(void *arg, uint64_t addr, void *buf, size_t len)
{
    const uint64_t *record = arg; /* a frame record at 0x1000: {fp, lr} */
    if (addr < 0x1000 || addr + len > 0x1010)
        return -1;
    memcpy(buf, (const char *)record + (addr - 0x1000), len);
    return 0;
}

/* A frame-pointer step on AArch64 strips the saved x30 with the mask the
 * caller put in its memory description, the default when it gave none. */
START_TEST(the_memory_carries_the_targets_pac_mask)
{
    uint64_t record[2] = {0x2000, 0x005f00000040abcdull};
    struct jitunwind_memory mem = {sizeof(struct jitunwind_memory), record_read, record, 0xfff0000000000000ull};
    struct jitunwind_regs in = {0x400000, 0x0ff0, 0x1000, 0,
                                JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP, 0};
    struct jitunwind_regs out;
    int stop;
    ck_assert_int_eq(jitunwind_step_fp(JITUNWIND_ARCH_AARCH64, &mem, &in, &out, &stop), 0);
    ck_assert_uint_eq(out.pc, 0x000f00000040abcdull);
    mem.pac_mask = 0;
    ck_assert_int_eq(jitunwind_step_fp(JITUNWIND_ARCH_AARCH64, &mem, &in, &out, &stop), 0);
    ck_assert_uint_eq(out.pc, 0x000000000040abcdull);
}
END_TEST

/* The memory description is checked by its size: a caller built against
 * its first version (read and arg) keeps working, and the library reads
 * nothing past that size (the pac_mask there is not the caller's); a newer,
 * larger one is accepted when the members this library does not know are
 * 0, refused when one is set; a size below the first version is refused. */
START_TEST(the_memory_description_is_read_by_its_size)
{
    uint64_t record[2] = {0x2000, 0x005f00000040abcdull};
    struct {
        struct jitunwind_memory mem;
        uint64_t unknown;
    } newer = {{sizeof newer, record_read, record, 0xfff0000000000000ull, NULL}, 0};
    struct jitunwind_memory first = {offsetof(struct jitunwind_memory, arg) + sizeof(void *),
                                      record_read, record, 0xfff0000000000000ull, NULL};
    struct jitunwind_regs in = {0x400000, 0x0ff0, 0x1000, 0,
                                JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP, 0};
    struct jitunwind_regs out;
    int stop;
    ck_assert_int_eq(jitunwind_step_fp(JITUNWIND_ARCH_AARCH64, &first, &in, &out, &stop), 0);
    ck_assert_uint_eq(out.pc, 0x000000000040abcdull); /* the default mask */
    ck_assert_int_eq(jitunwind_step_fp(JITUNWIND_ARCH_AARCH64, &newer.mem, &in, &out, &stop), 0);
    ck_assert_uint_eq(out.pc, 0x000f00000040abcdull);
    newer.unknown = 1;
    ck_assert_int_eq(jitunwind_step_fp(JITUNWIND_ARCH_AARCH64, &newer.mem, &in, &out, &stop),
                     JITUNWIND_EINVAL);
    first.size = sizeof(void *);
    ck_assert_int_eq(jitunwind_step_fp(JITUNWIND_ARCH_AARCH64, &first, &in, &out, &stop),
                     JITUNWIND_EINVAL);
    first.size = 0;
    ck_assert_int_eq(jitunwind_step_fp(JITUNWIND_ARCH_AARCH64, &first, &in, &out, &stop),
                     JITUNWIND_EINVAL);
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
                                               pointer_authentication_uses_the_callers_mask,
                                               the_memory_carries_the_targets_pac_mask,
                                               the_memory_description_is_read_by_its_size,
                                               dwarf_registers));
}
