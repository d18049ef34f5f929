/* CFI steps on real AArch64 code (a GCC-built pac-ret function, see
 * cfi_fixture.c) with synthetic registers and stack: stopped on its first
 * instructions the caller's pc is x30 and sp is unchanged (a link-register
 * step); after it saved x30, the saved value's pointer-authentication code is
 * stripped. Exits 77 when no AArch64 cross compiler built the fixture. */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jitunwind/jitunwind.h"
#include "suite.h"

#define BASE 0x5500000000ull   /* where the fixture is "mapped" */
#define STACK 0x7ffff0000000ull
#define RETURN 0x5500aabbccull /* the caller's return address */
#define SIGNED(a) ((a) | (0x2aull << 48))
#define FUNCTION "jitbed_cfi_signed"

static uint8_t stack[256];

static int read_stack(void *arg, uint64_t addr, void *dst, size_t len)
{
    (void)arg;
    if (addr < STACK || addr + len > STACK + sizeof stack)
        return -1;
    memcpy(dst, stack + (addr - STACK), len);
    return 0;
}

static void put_u64(uint64_t addr, uint64_t v) { memcpy(stack + (addr - STACK), &v, 8); }

/* The function's offset in the fixture, from its symbol table. */
static uint64_t function_offset(const char *path)
{
    int fd = open(path, O_RDONLY);
    Elf *elf;
    Elf_Scn *scn = NULL;
    uint64_t found = 0;
    ck_assert_int_ge(fd, 0);
    elf_version(EV_CURRENT);
    elf = elf_begin(fd, ELF_C_READ, NULL);
    ck_assert_ptr_nonnull(elf);
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        Elf_Data *data;
        size_t i;
        if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
            continue;
        data = elf_getdata(scn, NULL);
        for (i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Sym sym;
            const char *name;
            if (gelf_getsym(data, (int)i, &sym) &&
                (name = elf_strptr(elf, sh.sh_link, sym.st_name)) && strcmp(name, FUNCTION) == 0)
                found = sym.st_value;
        }
    }
    elf_end(elf);
    close(fd);
    ck_assert_uint_ne(found, 0);
    return found;
}

/* Walk from pc = function + `offset` with the given lr; the stack holds a
 * terminating frame record at fp. Returns the number of frames. */
static int walk(uint64_t offset, uint64_t lr, struct jitunwind_frame *f)
{
    struct jitunwind_memory mem = {sizeof(struct jitunwind_memory), read_stack, NULL};
    struct jitunwind_regs regs = {0};
    jitunwind_modules *mods = NULL;
    int n, stop;
    ck_assert_int_eq(jitunwind_modules_new(&mods), 0);
    ck_assert_int_eq(jitunwind_modules_add_mapping(mods, JU_AARCH64_FIXTURE, BASE, BASE + 0x10000, 0),
                     0);
    regs.pc = BASE + function_offset(JU_AARCH64_FIXTURE) + offset;
    regs.sp = STACK;
    regs.fp = STACK + 128; /* a record {0, 0}: the end of the stack */
    regs.lr = lr;
    regs.valid = JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP | JITUNWIND_REG_LR;
    n = jitunwind_unwind(JITUNWIND_ARCH_AARCH64, NULL, mods, &mem, &regs, f, 4, 0, &stop);
    jitunwind_modules_free(mods);
    return n;
}

START_TEST(at_entry_the_caller_is_x30_and_keeps_sp)
{
    struct jitunwind_frame f[4];
    memset(stack, 0, sizeof stack);
    ck_assert_int_ge(walk(0, RETURN, f), 2);
    ck_assert_uint_eq(f[1].regs.pc, RETURN);
    ck_assert_uint_eq(f[1].regs.sp, STACK);
    ck_assert_int_eq(f[1].source, JITUNWIND_SOURCE_LR);
}
END_TEST

START_TEST(after_paciasp_the_signed_x30_is_stripped)
{
    struct jitunwind_frame f[4];
    memset(stack, 0, sizeof stack);
    ck_assert_int_ge(walk(4, SIGNED(RETURN), f), 2);
    ck_assert_uint_eq(f[1].regs.pc, RETURN);
    ck_assert_int_eq(f[1].source, JITUNWIND_SOURCE_LR);
}
END_TEST

START_TEST(after_stp_the_saved_signed_x30_is_stripped)
{
    struct jitunwind_frame f[4];
    memset(stack, 0, sizeof stack);
    put_u64(STACK, STACK + 128);        /* saved x29 */
    put_u64(STACK + 8, SIGNED(RETURN)); /* saved x30, signed */
    ck_assert_int_ge(walk(8, 0, f), 2);
    ck_assert_uint_eq(f[1].regs.pc, RETURN);
    ck_assert_uint_eq(f[1].regs.sp, STACK + 16);
    ck_assert_uint_eq(f[1].regs.fp, STACK + 128);
    ck_assert_int_eq(f[1].source, JITUNWIND_SOURCE_CFI);
}
END_TEST

int main(void)
{
    if (!JU_AARCH64_FIXTURE[0]) {
        printf("SKIP: no AArch64 cross compiler built the CFI fixture "
               "(apt-get install gcc-aarch64-linux-gnu)\n");
        return 77;
    }
    return ju_run_tests("aarch64_cfi", JU_TESTS(at_entry_the_caller_is_x30_and_keeps_sp,
                                                after_paciasp_the_signed_x30_is_stripped,
                                                after_stp_the_saved_signed_x30_is_stripped));
}
