/* The perf event of record --perf (perf_attr.h). */
#include <string.h>
#include <time.h>

#include "jitunwind/jitunwind.h"
#include "perf_attr.h"

uint64_t cli_perf_regs_mask(int arch, unsigned *n)
{
    *n = 3;
    if (arch == JITUNWIND_ARCH_AARCH64) { /* x29, lr, sp, pc */
        *n = 4;
        return (1ull << 29) | (1ull << 30) | (1ull << 31) | (1ull << 32);
    }
    return (1ull << 6) | (1ull << 7) | (1ull << 8); /* x86-64: bp, sp, ip */
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
