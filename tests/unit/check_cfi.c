/* Native unwinding from CFI on this very process: a chain of functions built
 * without frame pointers is walked with jitunwind_step_cfi, using the
 * modules of /proc/self/maps and memory read with process_vm_readv. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "internal.h"
#include "suite.h"
#include "jitunwind/modules.h"

#define NOFP __attribute__((noinline, noclone, optimize("omit-frame-pointer")))

static int self_read(void *arg, uint64_t addr, void *dst, size_t len)
{
    struct iovec local = {dst, len}, remote = {(void *)(uintptr_t)addr, len};
    (void)arg;
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)len ? 0
                                                                               : JITUNWIND_EREAD;
}

static struct jitunwind_regs captured;
static volatile int sink;

/* Results of a walk done while the captured frames are still live. */
#define WALK_MAX 8
static char walked[WALK_MAX][128];
static int walked_stop[WALK_MAX];
static int walked_rc[WALK_MAX];
static int walked_sp_up[WALK_MAX];
static int walked_count;
static void walk_now(void);

#if defined(__x86_64__)
NOFP static void capture_here(void)
{
    uint64_t pc, sp, fp;
    __asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
                     : "=r"(pc), "=r"(sp), "=r"(fp));
    captured = (struct jitunwind_regs){pc, sp, fp, 0, JITUNWIND_REG_PC | JITUNWIND_REG_SP |
                                                          JITUNWIND_REG_FP, 0};
    walk_now();
    sink++;
}
#define HOST_ARCH JITUNWIND_ARCH_X86_64
#elif defined(__aarch64__)
NOFP static void capture_here(void)
{
    uint64_t pc, sp, fp, lr;
    __asm__ volatile("adr %0, .\n\tmov %1, sp\n\tmov %2, x29\n\tmov %3, x30"
                     : "=r"(pc), "=r"(sp), "=r"(fp), "=r"(lr));
    captured = (struct jitunwind_regs){pc, sp, fp, lr, JITUNWIND_REG_PC | JITUNWIND_REG_SP |
                                                           JITUNWIND_REG_FP | JITUNWIND_REG_LR, 0};
    walk_now();
    sink++;
}
#define HOST_ARCH JITUNWIND_ARCH_AARCH64
#endif

#ifdef HOST_ARCH
NOFP void ju_cfi_level3(void);
NOFP void ju_cfi_level2(void);
NOFP void ju_cfi_level1(void);
NOFP void ju_cfi_level3(void) { char pad[40]; memset(pad, 3, sizeof pad); sink += pad[7]; capture_here(); sink++; }
NOFP void ju_cfi_level2(void) { char pad[24]; memset(pad, 2, sizeof pad); sink += pad[5]; ju_cfi_level3(); sink++; }
NOFP void ju_cfi_level1(void) { char pad[8]; memset(pad, 1, sizeof pad); sink += pad[3]; ju_cfi_level2(); sink++; }

/* Walk from `captured` with CFI only, symbolizing each frame. */
__attribute__((noinline)) static void walk_now(void)
{
    jitunwind_modules *mods;
    struct jitunwind_memory mem = {sizeof(struct jitunwind_memory), self_read, NULL};
    struct jitunwind_regs regs = captured, next;
    uint64_t off;
    int i;
    walked_count = 0;
    if (jitunwind_modules_new(&mods) < 0 || jitunwind_modules_load_proc(mods, getpid()) < 0)
        return;
    for (i = 0; i < WALK_MAX; i++) {
        if (jitunwind_modules_symbolize(mods, jitunwind_lookup_address(HOST_ARCH, regs.pc, i == 0),
                                        walked[i], sizeof walked[i], &off) < 0)
            strcpy(walked[i], "?");
        walked_count = i + 1;
        walked_rc[i] = jitunwind_step_cfi(HOST_ARCH, mods, &mem, &regs, i == 0, &next,
                                          &walked_stop[i]);
        if (walked_rc[i] < 0)
            break;
        walked_sp_up[i] = next.sp > regs.sp;
        regs = next;
    }
    jitunwind_modules_free(mods);
}

START_TEST(cfi_walks_own_stack_without_frame_pointers)
{
    const char *want[] = {"capture_here", "ju_cfi_level3", "ju_cfi_level2", "ju_cfi_level1",
                          "cfi_walks_own_stack_without_frame_pointers_fn"};
    int i;
    ju_cfi_level1();
    ck_assert_int_ge(walked_count, 5);
    for (i = 0; i < 5; i++) {
        ck_assert_str_eq(walked[i], want[i]);
        ck_assert_int_eq(walked_rc[i], 0);
        ck_assert_int_eq(walked_stop[i], JITUNWIND_STOP_NONE);
        ck_assert_msg(walked_sp_up[i], "frame %d: sp did not increase", i);
    }
}
END_TEST

START_TEST(cfi_reports_unknown_pc_and_unreadable_stack)
{
    jitunwind_modules *mods;
    struct jitunwind_memory mem = {sizeof(struct jitunwind_memory), self_read, NULL};
    struct jitunwind_regs regs, next;
    int stop;
    ju_cfi_level1();
    ck_assert_int_eq(jitunwind_modules_new(&mods), 0);
    ck_assert_int_eq(jitunwind_modules_load_proc(mods, getpid()), 0);
    regs = captured;
    regs.pc = 0x10; /* in no module */
    ck_assert_int_eq(jitunwind_step_cfi(HOST_ARCH, mods, &mem, &regs, 1, &next, &stop),
                     JITUNWIND_ENOTFOUND);
    regs = captured;
    regs.sp = 0x1000; /* the return address would be read from an unmapped page */
    regs.fp = 0x1000;
    ck_assert_int_lt(jitunwind_step_cfi(HOST_ARCH, mods, &mem, &regs, 1, &next, &stop), 0);
    ck_assert_int_eq(stop, JITUNWIND_STOP_UNREADABLE);
    jitunwind_modules_free(mods);
}
END_TEST
#endif

START_TEST(modules_reject_bad_input)
{
    jitunwind_modules *mods;
    char buf[8];
    ck_assert_int_eq(jitunwind_modules_new(&mods), 0);
    ck_assert_int_eq(jitunwind_modules_add_mapping(mods, "/nonexistent/lib.so", 0x1000, 0x2000, 0), 0);
    ck_assert_uint_eq(jitunwind_modules_count(mods), 0);
    ck_assert_int_eq(jitunwind_modules_add_mapping(mods, "/etc/hostname", 0x1000, 0x2000, 0), 0);
    ck_assert_uint_eq(jitunwind_modules_count(mods), 0); /* not ELF */
    ck_assert_int_eq(jitunwind_modules_add_mapping(mods, "/bin/true", 0x2000, 0x1000, 0), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_modules_load_core(mods, "/etc/hostname"), JITUNWIND_EELF);
    ck_assert_int_eq(jitunwind_modules_load_core(mods, "/nonexistent.core"), JITUNWIND_EIO);
    ck_assert_int_eq(jitunwind_modules_symbolize(mods, 0x1234, buf, sizeof buf, NULL), JITUNWIND_ENOTFOUND);
    jitunwind_modules_free(mods);
}
END_TEST

/* A function of this test, named through a module set that holds only its
 * executable mapping: what a perf MMAP2 record says of a process. */
__attribute__((noinline, noclone)) static void bias_marker(void)
{
    sink++;
}

START_TEST(modules_bias_from_executable_mapping_only)
{
    char line[4096], exe[1024], name[64];
    uint64_t at = (uint64_t)(uintptr_t)&bias_marker, offset = 1;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    FILE *f = fopen("/proc/self/maps", "re");
    int added = 0;
    jitunwind_modules *mods;
    ck_assert(n > 0 && f != NULL);
    exe[n] = '\0';
    ck_assert_int_eq(jitunwind_modules_new(&mods), 0);
    while (fgets(line, sizeof line, f)) {
        unsigned long long start, end, off;
        char perms[8], path[1024] = "";
        if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %1023s", &start, &end, perms, &off,
                   path) >= 4 &&
            strcmp(path, exe) == 0 && perms[2] == 'x' && at >= start && at < end) {
            ck_assert_uint_ne(off, 0); /* the first segment is not the code's */
            ck_assert_int_eq(jitunwind_modules_add_mapping(mods, path, start, end, off), 0);
            added = 1;
        }
    }
    fclose(f);
    ck_assert(added);
    ck_assert_int_eq(jitunwind_modules_symbolize(mods, at, name, sizeof name, &offset), 0);
    ck_assert_str_eq(name, "bias_marker");
    ck_assert_uint_eq(offset, 0);
    jitunwind_modules_free(mods);
}
END_TEST

int main(void)
{
#ifdef HOST_ARCH
    return ju_run_tests("cfi", JU_TESTS(cfi_walks_own_stack_without_frame_pointers,
                                        cfi_reports_unknown_pc_and_unreadable_stack,
                                        modules_reject_bad_input,
                                        modules_bias_from_executable_mapping_only));
#else
    return ju_run_tests("cfi", JU_TESTS(modules_reject_bad_input,
                                        modules_bias_from_executable_mapping_only));
#endif
}
