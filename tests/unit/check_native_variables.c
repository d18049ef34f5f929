/* A native frame's variable read through the library's own unwinding, on
 * this very process: holder() keeps its pointer argument live across a
 * call, so at that call its DWARF location is a register a call preserves
 * or a stack slot. From the registers captured two calls deeper,
 * jitunwind_step_cfi_registers carries them out to holder's frame (the
 * same pc and sp as jitunwind_step_cfi's walk) and jitunwind_native_variable
 * reads the argument there. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "suite.h"
#include "jitunwind/modules.h"
#include "jitunwind/native_variables.h"
#include "jitunwind/readers.h"

#if defined(__x86_64__)
#define NOINLINE __attribute__((noinline, noclone))

static struct jitunwind_dwarf_regs captured;
static volatile int sink;
static int ran;
static uint64_t read_back, held;
static int read_rc, steps_agree;

static void read_now(void);

/* rbx 3, rbp 6, rsp 7, r12-r15 12-15: the registers a call preserves. */
NOINLINE static void capture_here(void)
{
    uint64_t pc, sp, bx, bp, r12, r13, r14, r15;
    /* the registers first, into memory: a scratch register is taken last */
    __asm__ volatile("mov %%rsp, %1\n\tmov %%rbx, %2\n\tmov %%rbp, %3\n\tmov %%r12, %4\n\t"
                     "mov %%r13, %5\n\tmov %%r14, %6\n\tmov %%r15, %7\n\t"
                     "lea 0(%%rip), %%rax\n\tmov %%rax, %0"
                     : "=m"(pc), "=m"(sp), "=m"(bx), "=m"(bp), "=m"(r12), "=m"(r13), "=m"(r14),
                       "=m"(r15)
                     :
                     : "rax");
    memset(&captured, 0, sizeof captured);
    captured.pc = pc;
    captured.value[7] = sp;
    captured.value[3] = bx;
    captured.value[6] = bp;
    captured.value[12] = r12;
    captured.value[13] = r13;
    captured.value[14] = r14;
    captured.value[15] = r15;
    captured.valid = (1ull << 3) | (1ull << 6) | (1ull << 7) | (0xfull << 12);
    read_now();
    sink++;
}

NOINLINE static void middle(void)
{
    capture_here();
    sink++;
}

NOINLINE void ju_native_holder(const char *kept);

/* `kept` is used after the call: it lives on across it. */
NOINLINE void ju_native_holder(const char *kept)
{
    middle();
    sink += kept[0];
}

/* Step out capture_here and middle to ju_native_holder's frame, checking
 * each step against the pc/sp walk, and read `kept` there. */
NOINLINE static void read_now(void)
{
    jitunwind_modules *mods;
    jitunwind_process_reader *reader;
    struct jitunwind_memory mem;
    struct jitunwind_dwarf_regs regs = captured, caller;
    struct jitunwind_regs walk = {captured.pc, captured.value[7], captured.value[6], 0,
                                  JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP, 0};
    int i;
    ran = 1;
    if (jitunwind_modules_new(&mods) < 0 || jitunwind_modules_load_proc(mods, getpid()) < 0 ||
        jitunwind_process_reader_new(&reader, getpid()) < 0)
        return;
    mem = jitunwind_process_reader_memory(reader);
    steps_agree = 1;
    for (i = 0; i < 3; i++) { /* capture_here, middle, then ju_native_holder's caller */
        struct jitunwind_regs next;
        if (jitunwind_step_cfi_registers(JITUNWIND_ARCH_X86_64, mods, &mem, &regs, i == 0,
                                         &caller) < 0 ||
            jitunwind_step_cfi(JITUNWIND_ARCH_X86_64, mods, &mem, &walk, i == 0, &next,
                               NULL) < 0 ||
            caller.pc != next.pc || caller.value[7] != next.sp)
            steps_agree = 0;
        if (i == 2)
            break;
        regs = caller;
        walk = next;
    }
    /* regs: ju_native_holder's frame; caller's sp is its CFA */
    read_rc = jitunwind_native_variable(JITUNWIND_ARCH_X86_64, mods, &mem, &regs, 0,
                                        caller.value[7], "kept", &read_back);
    jitunwind_process_reader_free(reader);
    jitunwind_modules_free(mods);
}

START_TEST(argument_read_in_an_outer_frame)
{
    static const char text[] = "held";
    held = (uint64_t)(uintptr_t)text;
    ju_native_holder(text);
    ck_assert(ran);
    ck_assert_msg(steps_agree, "the all-registers steps left the pc/sp walk");
    ck_assert_int_eq(read_rc, 0);
    ck_assert_uint_eq(read_back, held);
}
END_TEST

START_TEST(unknown_names_and_pcs_are_not_found)
{
    jitunwind_modules *mods;
    jitunwind_process_reader *reader;
    struct jitunwind_memory mem;
    struct jitunwind_dwarf_regs regs = {0};
    uint64_t value;
    ju_native_holder("x");
    ck_assert_int_eq(jitunwind_modules_new(&mods), 0);
    ck_assert_int_eq(jitunwind_modules_load_proc(mods, getpid()), 0);
    ck_assert_int_eq(jitunwind_process_reader_new(&reader, getpid()), 0);
    mem = jitunwind_process_reader_memory(reader);
    regs = captured;
    ck_assert_int_eq(jitunwind_native_variable(JITUNWIND_ARCH_X86_64, mods, &mem, &regs, 1,
                                               regs.value[7], "no_such_variable", &value),
                     JITUNWIND_ENOTFOUND);
    regs.pc = 0x10; /* in no module */
    ck_assert_int_eq(jitunwind_native_variable(JITUNWIND_ARCH_X86_64, mods, &mem, &regs, 1,
                                               0, "kept", &value),
                     JITUNWIND_ENOTFOUND);
    ck_assert_int_eq(jitunwind_step_cfi_registers(JITUNWIND_ARCH_X86_64, mods, &mem, &regs, 1,
                                                  &regs),
                     JITUNWIND_ENOTFOUND);
    jitunwind_process_reader_free(reader);
    jitunwind_modules_free(mods);
}
END_TEST

int main(void)
{
    return ju_run_tests("native_variables", JU_TESTS(argument_read_in_an_outer_frame,
                                                     unknown_names_and_pcs_are_not_found));
}
#else
int main(void)
{
    printf("SKIP: the test captures x86-64 registers\n");
    return 77;
}
#endif
