/* The perf event of record --perf (perf_attr.h). */
#include <string.h>
#include <time.h>

#include "jitunwind/jitunwind.h"
#include "perf_attr.h"

/* A register a sample carries: its perf number, its DWARF number, and
 * what the walk's jitunwind_regs makes of it. x86-64: the frame pointer,
 * sp and ip, and rbx and r12-r15, which a function that realigns its
 * stack may define its CFA from (ld.so's lazy-binding resolver uses rbx);
 * AArch64: x19-x28, x29, lr, sp and pc. */
enum { REG_OTHER, REG_PC, REG_SP, REG_FP, REG_LR };
struct perf_reg {
    uint8_t perf, dwarf, role;
};
static const struct perf_reg X86_64_REGS[] = {
    {1, 3, REG_OTHER},   {6, 6, REG_FP},      {7, 7, REG_SP},      {8, 16, REG_PC},
    {20, 12, REG_OTHER}, {21, 13, REG_OTHER}, {22, 14, REG_OTHER}, {23, 15, REG_OTHER},
};
static const struct perf_reg AARCH64_REGS[] = {
    {19, 19, REG_OTHER}, {20, 20, REG_OTHER}, {21, 21, REG_OTHER}, {22, 22, REG_OTHER},
    {23, 23, REG_OTHER}, {24, 24, REG_OTHER}, {25, 25, REG_OTHER}, {26, 26, REG_OTHER},
    {27, 27, REG_OTHER}, {28, 28, REG_OTHER}, {29, 29, REG_FP},    {30, 30, REG_LR},
    {31, 31, REG_SP},    {32, 32, REG_PC},
};

_Static_assert(sizeof X86_64_REGS / sizeof *X86_64_REGS <= CLI_PERF_MAX_REGS &&
                   sizeof AARCH64_REGS / sizeof *AARCH64_REGS <= CLI_PERF_MAX_REGS,
               "a sample's registers must fit CLI_PERF_MAX_REGS");

static const struct perf_reg *regs_of(int arch, unsigned *n)
{
    if (arch == JITUNWIND_ARCH_AARCH64) {
        *n = sizeof AARCH64_REGS / sizeof *AARCH64_REGS;
        return AARCH64_REGS;
    }
    *n = sizeof X86_64_REGS / sizeof *X86_64_REGS;
    return X86_64_REGS;
}

uint64_t cli_perf_regs_mask(int arch, unsigned *n)
{
    const struct perf_reg *r = regs_of(arch, n);
    uint64_t mask = 0;
    unsigned i;
    for (i = 0; i < *n; i++)
        mask |= 1ull << r[i].perf;
    return mask;
}

void cli_perf_regs_fill(int arch, const uint64_t *values, struct jitunwind_regs *regs,
                        struct jitunwind_dwarf_regs *all)
{
    static const uint32_t valid_of[] = {0, JITUNWIND_REG_PC, JITUNWIND_REG_SP, JITUNWIND_REG_FP,
                                        JITUNWIND_REG_LR};
    unsigned n, i;
    const struct perf_reg *r = regs_of(arch, &n);
    memset(regs, 0, sizeof *regs);
    memset(all, 0, sizeof *all);
    for (i = 0; i < n; i++) {
        uint64_t v = values[i];
        switch (r[i].role) {
        case REG_PC: regs->pc = v; all->pc = v; break;
        case REG_SP: regs->sp = v; break;
        case REG_FP: regs->fp = v; break;
        case REG_LR: regs->lr = v; break;
        default: break;
        }
        regs->valid |= valid_of[r[i].role];
        if (r[i].role != REG_PC && r[i].dwarf < JITUNWIND_DWARF_REGS) {
            all->value[r[i].dwarf] = v;
            all->valid |= 1ull << r[i].dwarf;
        }
    }
}

size_t cli_perf_ring_pages(unsigned stack_size, unsigned samples, size_t page)
{
    size_t pages = 8;
    while (pages * page < samples * (stack_size + 512u)) /* 512: the rest of a sample */
        pages *= 2;
    return pages;
}

void cli_perf_attr(struct perf_event_attr *a, int arch, int every_process, double hz,
                   unsigned stack_size)
{
    unsigned n;
    memset(a, 0, sizeof *a);
    a->size = sizeof *a;
    a->type = PERF_TYPE_SOFTWARE;
    a->config = PERF_COUNT_SW_CPU_CLOCK;
    if (every_process) { /* a CPU: a fixed period of its time, whoever runs */
        a->sample_period = (uint64_t)(1e9 / hz + 0.5);
    } else {
        a->freq = 1;
        a->sample_freq = (uint64_t)(hz + 0.5);
    }
    a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER |
                     PERF_SAMPLE_STACK_USER;
    a->sample_regs_user = cli_perf_regs_mask(arch, &n);
    a->sample_stack_user = stack_size;
    a->exclude_kernel = 1;
    a->exclude_hv = 1;
    a->mmap = 1;
    a->mmap2 = 1;
    a->sample_id_all = 1;
    a->use_clockid = 1;
    a->clockid = CLOCK_MONOTONIC;
    a->wakeup_events = CLI_PERF_WAKE_SAMPLES;
    if (every_process) {
        a->task = 1;
        a->comm = 1;
        a->comm_exec = 1;
    }
}
