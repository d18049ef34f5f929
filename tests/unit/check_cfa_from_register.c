/* A walk through a function that realigns its stack and so defines its
 * CFA from rbx (as ld.so's lazy-binding resolver does), from a stack copy
 * alone, as a perf sample gives it. The function it calls saved rbx and
 * changed it: the walk needs the sampled rbx (jitunwind_cursor_set_registers)
 * and must restore it from that callee's save slot, or take it as it is
 * once the callee has popped it. Without the register the walk stops
 * saying so (NEED_REGISTER). */
#include <string.h>
#include <unistd.h>

#include "realigned_call.h"
#include "suite.h"
#include "jitunwind/modules.h"

#if defined(__x86_64__)
/* ju_saving, called by ju_realigned_call: push rbx; rbx = 7;
 * (ju_saving_at) nop; pop rbx; (ju_saving_popped) ret. */
__asm__(".text\n"
        ".globl ju_saving\n"
        ".type ju_saving, @function\n"
        "ju_saving:\n"
        ".cfi_startproc\n"
        "push %rbx\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset %rbx, -16\n"
        "mov $7, %ebx\n"
        ".globl ju_saving_at\n"
        "ju_saving_at:\n"
        "nop\n"
        "pop %rbx\n"
        ".globl ju_saving_popped\n"
        "ju_saving_popped:\n"
        ".cfi_def_cfa_offset 8\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size ju_saving, .-ju_saving\n");
extern char ju_saving_at[], ju_saving_popped[];

#define COPY_AT 0x7ff000001000ull
#define REALIGNED_RBX (COPY_AT + 64) /* ju_realigned_call's sp after its push */

/* Memory that is a stack copy and nothing else: [COPY_AT, +128). */
struct copy {
    unsigned char bytes[128];
};

static int copy_read(void *arg, uint64_t addr, void *dst, size_t len)
{
    struct copy *c = arg;
    if (addr < COPY_AT || addr - COPY_AT > sizeof c->bytes ||
        len > sizeof c->bytes - (addr - COPY_AT))
        return JITUNWIND_EREAD;
    memcpy(dst, c->bytes + (addr - COPY_AT), len);
    return 0;
}

static void put(struct copy *c, uint64_t addr, uint64_t value)
{
    memcpy(c->bytes + (addr - COPY_AT), &value, 8);
}

/* The stack at ju_saving_at: ju_saving's save of rbx at sp, its return
 * address above, ju_realigned_call's aligned area, then at REALIGNED_RBX its
 * own save of rbx and its return address, 0 (the walk's end). */
static struct jitunwind_memory stack_copy(struct copy *c)
{
    struct jitunwind_memory mem;
    memset(c, 0, sizeof *c);
    put(c, COPY_AT, REALIGNED_RBX);
    put(c, COPY_AT + 8, (uint64_t)(uintptr_t)ju_realigned_call_ret);
    put(c, REALIGNED_RBX, 0x5151);
    put(c, REALIGNED_RBX + 8, 0);
    memset(&mem, 0, sizeof mem);
    mem.size = sizeof mem;
    mem.read = copy_read;
    mem.arg = c;
    return mem;
}

/* A walk from pc and sp (fp not known, as after a frameless function),
 * with rbx = `rbx` when `give` is set; its frames' pcs into pcs (at most
 * 4), their count returned, the stop reason in *stop. */
static int walk(jitunwind_modules *mods, const struct jitunwind_memory *mem, uint64_t pc,
                uint64_t sp, int give, uint64_t rbx, uint64_t *pcs, int *stop)
{
    struct jitunwind_cursor cursor;
    struct jitunwind_regs regs = {pc, sp, 0, 0, JITUNWIND_REG_PC | JITUNWIND_REG_SP, 0};
    struct jitunwind_dwarf_regs all;
    struct jitunwind_frame f;
    int n = 0;
    memset(&all, 0, sizeof all);
    all.value[3] = rbx;
    all.valid = 1ull << 3;
    ck_assert_int_eq(jitunwind_cursor_init(&cursor, JITUNWIND_ARCH_X86_64, NULL, mem, &regs,
                                           16, JITUNWIND_UNWIND_NO_FP_FALLBACK),
                     0);
    jitunwind_cursor_set_modules(&cursor, mods);
    if (give)
        ck_assert_int_eq(jitunwind_cursor_set_registers(&cursor, &all), 0);
    while (n < 4 && jitunwind_cursor_step(&cursor, &f) == 1)
        pcs[n++] = f.regs.pc;
    *stop = jitunwind_cursor_stop_reason(&cursor);
    return n;
}

static jitunwind_modules *own_modules(void)
{
    jitunwind_modules *mods;
    ck_assert_int_eq(jitunwind_modules_new(&mods), 0);
    ck_assert_int_eq(jitunwind_modules_load_proc(mods, getpid()), 0);
    return mods;
}

START_TEST(rbx_restored_from_the_callee_defines_the_cfa)
{
    jitunwind_modules *mods = own_modules();
    struct copy c;
    struct jitunwind_memory mem = stack_copy(&c);
    uint64_t pcs[4];
    int stop, round;
    /* twice: the second walk takes the rows from the module set's cache */
    for (round = 0; round < 2; round++) {
        ck_assert_int_eq(walk(mods, &mem, (uint64_t)(uintptr_t)ju_saving_at, COPY_AT, 1, 7, pcs,
                              &stop),
                         2);
        ck_assert_uint_eq(pcs[1], (uint64_t)(uintptr_t)ju_realigned_call_ret);
        ck_assert_int_eq(stop, JITUNWIND_STOP_END);
    }
    jitunwind_modules_free(mods);
}
END_TEST

START_TEST(without_rbx_the_walk_says_it_needs_it)
{
    jitunwind_modules *mods = own_modules();
    struct copy c;
    struct jitunwind_memory mem = stack_copy(&c);
    uint64_t pcs[4];
    int stop;
    ck_assert_int_eq(walk(mods, &mem, (uint64_t)(uintptr_t)ju_saving_at, COPY_AT, 0, 0, pcs,
                          &stop),
                     2);
    ck_assert_int_eq(stop, JITUNWIND_STOP_NEED_REGISTER);
    jitunwind_modules_free(mods);
}
END_TEST

/* At ju_saving's ret its save slot is below sp, outside the copy: rbx
 * already holds ju_realigned_call's value and is taken as it is. */
START_TEST(rbx_popped_by_the_callee_is_taken_as_it_is)
{
    jitunwind_modules *mods = own_modules();
    struct copy c;
    struct jitunwind_memory mem = stack_copy(&c);
    uint64_t pcs[4];
    int stop;
    put(&c, COPY_AT, 0xdead0); /* what the slot holds now is not rbx's value */
    ck_assert_int_eq(walk(mods, &mem, (uint64_t)(uintptr_t)ju_saving_popped, COPY_AT + 8, 1,
                          REALIGNED_RBX, pcs, &stop),
                     2);
    ck_assert_int_eq(stop, JITUNWIND_STOP_END);
    jitunwind_modules_free(mods);
}
END_TEST

START_TEST(registers_refused_when_they_cannot_apply)
{
    struct copy c;
    struct jitunwind_memory mem = stack_copy(&c);
    struct jitunwind_cursor cursor;
    struct jitunwind_regs regs = {(uint64_t)(uintptr_t)ju_saving_at, COPY_AT, 0, 0,
                                  JITUNWIND_REG_PC | JITUNWIND_REG_SP, 0};
    struct jitunwind_dwarf_regs all;
    struct jitunwind_frame f;
    memset(&all, 0, sizeof all);
    ck_assert_int_eq(jitunwind_cursor_set_registers(NULL, &all), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_cursor_init(&cursor, JITUNWIND_ARCH_X86_64, NULL, &mem, &regs, 0,
                                           0),
                     0);
    ck_assert_int_eq(jitunwind_cursor_set_registers(&cursor, NULL), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_cursor_step(&cursor, &f), 1);
    /* the walk has begun: its first frame's registers are given */
    ck_assert_int_eq(jitunwind_cursor_set_registers(&cursor, &all), JITUNWIND_EINVAL);
}
END_TEST
#endif

#if !defined(__x86_64__)
START_TEST(cfa_from_register_needs_x86_64)
{
    ju_skip("the realigning function is written in x86-64 assembly");
}
END_TEST
#endif

int main(void)
{
#if defined(__x86_64__)
    return ju_run_tests("cfa_from_register",
                        JU_TESTS(rbx_restored_from_the_callee_defines_the_cfa,
                                 without_rbx_the_walk_says_it_needs_it,
                                 rbx_popped_by_the_callee_is_taken_as_it_is,
                                 registers_refused_when_they_cannot_apply));
#else
    return ju_run_tests("cfa_from_register", JU_TESTS(cfa_from_register_needs_x86_64));
#endif
}
