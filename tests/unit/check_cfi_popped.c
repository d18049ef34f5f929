/* A CFI step from an epilogue after the frame pointer was popped: the CFI
 * (as GCC emits it) still says the caller's fp is saved at CFA-16, a slot
 * now below sp. A perf sample's stack copy starts at sp, so that slot is
 * not in it; the register holds the caller's value again, and the step
 * must take it from there rather than stop unreadable. */
#include <string.h>
#include <unistd.h>

#include "suite.h"
#include "jitunwind/modules.h"

#if defined(__x86_64__)
/* push rbp; pop rbp; ret, with GCC-style CFI that leaves rbp's rule in place. */
__asm__(".text\n"
        ".globl ju_popped_fn\n"
        ".type ju_popped_fn, @function\n"
        "ju_popped_fn:\n"
        ".cfi_startproc\n"
        "push %rbp\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset %rbp, -16\n"
        "mov $1, %eax\n"
        "pop %rbp\n"
        ".globl ju_popped_at\n"
        "ju_popped_at:\n"
        ".cfi_def_cfa_offset 8\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size ju_popped_fn, .-ju_popped_fn\n");
void ju_popped_fn(void);
extern char ju_popped_at[];

/* Memory that is a stack copy and nothing else. */
struct copy {
    uint64_t start;
    unsigned char bytes[32];
};

static int copy_read(void *arg, uint64_t addr, void *dst, size_t len)
{
    struct copy *c = arg;
    if (addr < c->start || addr - c->start > sizeof c->bytes ||
        len > sizeof c->bytes - (addr - c->start))
        return JITUNWIND_EREAD;
    memcpy(dst, c->bytes + (addr - c->start), len);
    return 0;
}

START_TEST(cfi_step_after_pop_takes_the_restored_register)
{
    jitunwind_modules *mods;
    struct copy c;
    struct jitunwind_memory mem;
    struct jitunwind_regs regs, next;
    uint64_t ra = 0x401234;
    int stop = -1;
    memset(&c, 0, sizeof c);
    memset(&mem, 0, sizeof mem);
    c.start = 0x7ff000001000;
    memcpy(c.bytes, &ra, 8); /* the return address at sp */
    mem.size = sizeof mem;
    mem.read = copy_read;
    mem.arg = &c;
    memset(&regs, 0, sizeof regs);
    regs.pc = (uint64_t)(uintptr_t)ju_popped_at;
    regs.sp = c.start;
    regs.fp = 0x7ff000009990; /* the caller's, restored by the pop */
    regs.valid = JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP;
    ck_assert_int_eq(jitunwind_modules_new(&mods), 0);
    ck_assert_int_eq(jitunwind_modules_load_proc(mods, getpid()), 0);
    ck_assert_int_eq(jitunwind_step_cfi(JITUNWIND_ARCH_X86_64, mods, &mem, &regs, 1, &next,
                                        &stop), 0);
    ck_assert_int_eq(stop, JITUNWIND_STOP_NONE);
    ck_assert_uint_eq(next.pc, ra);
    ck_assert_uint_eq(next.sp, c.start + 8);
    ck_assert(next.valid & JITUNWIND_REG_FP);
    ck_assert_uint_eq(next.fp, regs.fp);
    jitunwind_modules_free(mods);
}
END_TEST

/* Before the pop the slot is at sp and is read from memory, not taken
 * from the register. */
START_TEST(cfi_step_before_pop_reads_the_slot)
{
    jitunwind_modules *mods;
    struct copy c;
    struct jitunwind_memory mem;
    struct jitunwind_regs regs, next;
    uint64_t saved = 0x7ff000008880, ra = 0x405678;
    int stop = -1;
    memset(&c, 0, sizeof c);
    memset(&mem, 0, sizeof mem);
    c.start = 0x7ff000001000;
    memcpy(c.bytes, &saved, 8);
    memcpy(c.bytes + 8, &ra, 8);
    mem.size = sizeof mem;
    mem.read = copy_read;
    mem.arg = &c;
    memset(&regs, 0, sizeof regs);
    regs.pc = (uint64_t)(uintptr_t)ju_popped_at - 1; /* at the pop */
    regs.sp = c.start;
    regs.fp = 0x1111;
    regs.valid = JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP;
    ck_assert_int_eq(jitunwind_modules_new(&mods), 0);
    ck_assert_int_eq(jitunwind_modules_load_proc(mods, getpid()), 0);
    ck_assert_int_eq(jitunwind_step_cfi(JITUNWIND_ARCH_X86_64, mods, &mem, &regs, 1, &next,
                                        &stop), 0);
    ck_assert_uint_eq(next.pc, ra);
    ck_assert_uint_eq(next.sp, c.start + 16);
    ck_assert_uint_eq(next.fp, saved);
    jitunwind_modules_free(mods);
}
END_TEST
#endif

#if !defined(__x86_64__)
START_TEST(cfi_popped_needs_x86_64)
{
    ju_skip("the epilogue is written in x86-64 assembly");
}
END_TEST
#endif

int main(void)
{
#if defined(__x86_64__)
    return ju_run_tests("cfi_popped", JU_TESTS(cfi_step_after_pop_takes_the_restored_register,
                                               cfi_step_before_pop_reads_the_slot));
#else
    return ju_run_tests("cfi_popped", JU_TESTS(cfi_popped_needs_x86_64));
#endif
}
