/* Benchmark (not a test): prints
 *   - ns per frame unwinding a 64-frame synthetic stack whose frames return
 *     into registered ranges (FP_PRESERVING JIT code and framed trampolines,
 *     mixed with native code) vs a raw frame-pointer walk of the same stack,
 *     in the same run;
 *   - registry lookup ns at 1k / 100k / 1M ranges (random pcs, half hits);
 *   - registration ns: debugger-side jitunwind_registry_add (ranges sorted,
 *     as the descriptor reader adds them) and in-process
 *     jitunwind_jit_register / unregister (addresses descending, as mmap
 *     hands them out), and heap bytes per range of each; and
 *     jitunwind_jit_register with the table at its size (ranges spread over
 *     it unregistered, then registered again: a JIT's steady state).
 * Figures are medians of several runs, in thread CPU time; the last lines
 * compare them with the hot-path goals as ratios.
 * Run: build/tests/bench/bench_unwind */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jitunwind/jitunwind.h"

#define FRAMES 64
#define RUNS 5
#define STACK_BASE 0x7f0000000000ull
#define CODE_BASE 0x500000000000ull
#define TRAMP_BASE (CODE_BASE + 0x1000000)

static uint8_t stack[FRAMES * 64];

static int stack_read(void *arg, uint64_t addr, void *dst, size_t len)
{
    (void)arg;
    if (addr < STACK_BASE || addr - STACK_BASE > sizeof stack || len > sizeof stack - (addr - STACK_BASE))
        return JITUNWIND_EREAD;
    memcpy(dst, stack + (addr - STACK_BASE), len);
    return 0;
}

/* CPU time of this thread (page faults included): on a machine shared with
 * other work, time spent descheduled is not ours to count. */
static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static size_t heap_bytes(void)
{
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd; /* small chunks + mmap'd large arrays */
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return v[n / 2];
}

/* Record i at STACK_BASE + i*64 holds {record i+1, return address i}. Return
 * addresses alternate: into a JIT range (rule FP_PRESERVING), native code,
 * and every fourth into a framed trampoline at its return point (offset 6). */
static uint64_t return_address(int i)
{
    if (i % 4 == 3)
        return TRAMP_BASE + (uint64_t)i * 0x40 + 6;
    if (i % 2 == 1)
        return CODE_BASE + (uint64_t)i * 0x1000 + 0x40;
    return 0x400000 + (uint64_t)i * 0x10;
}

/* Medians of the walk, for the goal ratios. */
static double walk_ranges_ns, walk_raw_ns;

static void bench_walk(void)
{
    struct jitunwind_memory mem = {sizeof(struct jitunwind_memory), stack_read, NULL};
    struct jitunwind_frame frames[FRAMES + 2];
    struct jitunwind_regs start = {0x401000, STACK_BASE - 0x100, STACK_BASE, 0,
                                   JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP, 0};
    double with_ranges[RUNS], raw[RUNS], t0;
    jitunwind_registry *reg;
    int i, run, iters = 100000, stop = 0, n = 0, in_ranges = 0;
    for (i = 0; i < FRAMES; i++) {
        uint64_t rec = STACK_BASE + (uint64_t)i * 64;
        uint64_t next = i + 1 < FRAMES ? rec + 64 : 0, pc = return_address(i);
        memcpy(stack + (rec - STACK_BASE), &next, 8);
        memcpy(stack + (rec - STACK_BASE) + 8, &pc, 8);
    }
    jitunwind_registry_new(&reg);
    for (i = 0; i < 1000; i++) { /* 1000 JIT ranges, then 1000 trampolines */
        struct jitunwind_range r = {CODE_BASE + (uint64_t)i * 0x1000, CODE_BASE + (uint64_t)i * 0x1000 + 0x800,
                                    JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING, 0, 0, 0, "py::jit:x"};
        jitunwind_registry_add(reg, &r);
    }
    for (i = 0; i < 1000; i++) {
        struct jitunwind_range r = {TRAMP_BASE + (uint64_t)i * 0x40, TRAMP_BASE + (uint64_t)i * 0x40 + 8,
                                    JITUNWIND_KIND_TRAMPOLINE, JITUNWIND_RULE_TRAMPOLINE_FRAMED, 0, 0, 0,
                                    "py::f"};
        jitunwind_registry_add(reg, &r);
    }
    for (run = 0; run < RUNS; run++) {
        t0 = now_ns();
        for (i = 0; i < iters; i++)
            n = jitunwind_unwind(JITUNWIND_ARCH_X86_64, reg, NULL, &mem, &start, frames, FRAMES + 2, 0, &stop);
        with_ranges[run] = (now_ns() - t0) / ((double)iters * n);
    }
    for (i = 0; i < n; i++)
        in_ranges += frames[i].range != NULL;
    printf("Unwinding %d frames (%d in registered ranges; stop: %s), 2000 ranges registered:\n", n,
           in_ranges, jitunwind_stop_reason_string(stop));
    for (run = 0; run < RUNS; run++) {
        t0 = now_ns();
        for (i = 0; i < iters; i++)
            n = jitunwind_unwind(JITUNWIND_ARCH_X86_64, NULL, NULL, &mem, &start, frames, FRAMES + 2, 0, &stop);
        raw[run] = (now_ns() - t0) / ((double)iters * n);
    }
    walk_ranges_ns = median(with_ranges, RUNS);
    walk_raw_ns = median(raw, RUNS);
    printf("  %-44s %7.1f ns/frame\n", "through registered ranges (rules + lookups)", walk_ranges_ns);
    printf("  %-44s %7.1f ns/frame (%d frames, %s)\n\n", "raw frame-pointer walk, no registry",
           walk_raw_ns, n, jitunwind_stop_reason_string(stop));
    jitunwind_registry_free(reg);
}

struct sizes_row {
    double add_ns, lookup_ns, register_ns, unregister_ns, add_bytes, register_bytes, churn_ns,
        gap_ns;
};

#define CHURN 100    /* ranges unregistered and registered again per round */
#define CHURN_ROUNDS 20

/* The cost of reading the clock (a system call for thread CPU time), taken
 * off the short timed loops of churn_register_ns. */
static double clock_cost_ns(void)
{
    double v[101], t0;
    int i;
    for (i = 0; i < 101; i++) {
        t0 = now_ns();
        v[i] = now_ns() - t0;
    }
    return median(v, 101);
}

/* jitunwind_jit_register with n ranges registered (ids[i] at
 * CODE_BASE + (n - i) * 0x100): CHURN ranges spread over the table are
 * unregistered (untimed) and registered again (timed), CHURN_ROUNDS times. */
static double churn_register_ns(size_t n, jitunwind_jit_id *ids)
{
    size_t picks[CHURN], j, stride = n / CHURN;
    double total = 0, t0, clock_cost = clock_cost_ns();
    int round;
    for (round = 0; round < CHURN_ROUNDS; round++) {
        size_t base = (size_t)rand() % stride;
        for (j = 0; j < CHURN; j++) {
            picks[j] = base + j * stride;
            jitunwind_jit_unregister(ids[picks[j]]);
        }
        t0 = now_ns();
        for (j = 0; j < CHURN; j++)
            jitunwind_jit_register((void *)(uintptr_t)(CODE_BASE + (n - picks[j]) * 0x100), 0x80,
                                   JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING, "py::jit:f", 0,
                                   &ids[picks[j]]);
        total += now_ns() - t0 - clock_cost;
    }
    return total / (CHURN * CHURN_ROUNDS);
}

/* jitunwind_jit_register into gaps with nothing removed next to them: with
 * n ranges registered as above (ids[i] at CODE_BASE + (n - i) * 0x100,
 * 0x80 long), CHURN new ranges in the gaps after ranges spread over the
 * table are registered (timed) and unregistered (untimed), CHURN_ROUNDS
 * times. Unlike churn_register_ns, no range was just removed from where the
 * new ones go. */
static double gap_register_ns(size_t n)
{
    jitunwind_jit_id gap_ids[CHURN];
    size_t j, stride = n / CHURN;
    double total = 0, t0, clock_cost = clock_cost_ns();
    int round;
    for (round = 0; round < CHURN_ROUNDS; round++) {
        size_t base = (size_t)rand() % stride;
        t0 = now_ns();
        for (j = 0; j < CHURN; j++)
            jitunwind_jit_register((void *)(uintptr_t)(CODE_BASE + (n - base - j * stride) * 0x100 + 0x80),
                                   0x40, JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING, "py::jit:g",
                                   0, &gap_ids[j]);
        total += now_ns() - t0 - clock_cost;
        for (j = 0; j < CHURN; j++)
            jitunwind_jit_unregister(gap_ids[j]);
    }
    return total / (CHURN * CHURN_ROUNDS);
}

static void bench_sizes(size_t n, struct sizes_row *row)
{
    jitunwind_registry *reg;
    jitunwind_jit_id *ids = malloc(n * sizeof *ids);
    uint64_t *probes = malloc(4096 * sizeof *probes);
    size_t i, before, found = 0;
    double t0;
    const size_t lookups = 2000000;
    before = heap_bytes();
    jitunwind_registry_new(&reg);
    t0 = now_ns();
    for (i = 0; i < n; i++) {
        struct jitunwind_range r = {CODE_BASE + i * 0x100, CODE_BASE + i * 0x100 + 0x80,
                                    JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING, 0, 0, 0, "py::jit:f"};
        jitunwind_registry_add(reg, &r);
    }
    row->add_ns = (now_ns() - t0) / (double)n;
    row->add_bytes = (double)(heap_bytes() - before) / (double)n;
    srand(1);
    for (i = 0; i < 4096; i++)
        probes[i] = CODE_BASE + ((uint64_t)rand() % n) * 0x100 + (uint64_t)(rand() % 0x100);
    t0 = now_ns();
    for (i = 0; i < lookups; i++)
        found += jitunwind_registry_lookup(reg, probes[i & 4095]) != NULL;
    row->lookup_ns = (now_ns() - t0) / (double)lookups;
    if (found == 0) /* keeps the loop; every run hits about half */
        printf("no lookup hit\n");
    jitunwind_registry_free(reg);
    jitunwind_jit_reset();
    memset(ids, 0, n * sizeof *ids); /* the bench's own page faults stay out of the timing */
    before = heap_bytes();
    t0 = now_ns();
    for (i = 0; i < n; i++)
        jitunwind_jit_register((void *)(uintptr_t)(CODE_BASE + (n - i) * 0x100), 0x80, JITUNWIND_KIND_JIT,
                               JITUNWIND_RULE_FP_PRESERVING, "py::jit:f", 0, &ids[i]);
    row->register_ns = (now_ns() - t0) / (double)n;
    row->register_bytes = (double)(heap_bytes() - before) / (double)n;
    row->churn_ns = churn_register_ns(n, ids);
    t0 = now_ns();
    for (i = 0; i < n; i++)
        jitunwind_jit_unregister(ids[i]);
    row->unregister_ns = (now_ns() - t0) / (double)n;
    jitunwind_jit_reset();
    for (i = 0; i < n; i++) /* the same table again, for the gaps */
        jitunwind_jit_register((void *)(uintptr_t)(CODE_BASE + (n - i) * 0x100), 0x80, JITUNWIND_KIND_JIT,
                               JITUNWIND_RULE_FP_PRESERVING, "py::jit:f", 0, &ids[i]);
    row->gap_ns = gap_register_ns(n);
    jitunwind_jit_reset();
    free(ids);
    free(probes);
}

int main(void)
{
    static const size_t sizes[] = {1000, 100000, 1000000};
    double lookup_med[3], register_med[3], churn_med[3];
    size_t k;
    int run;
    printf("libjitunwind %s benchmark (medians of %d runs)\n\n", jitunwind_version_string(), RUNS);
    bench_walk();
    printf("%9s %10s %8s %12s %16s %14s %17s %17s %12s\n", "ranges", "lookup ns", "add ns",
           "add B/range", "jit_register ns", "unregister ns", "register B/range",
           "at-size register", "gap register");
    for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        double v[8][RUNS];
        struct sizes_row row;
        int runs = sizes[k] >= 1000000 ? 3 : RUNS;
        for (run = 0; run < runs; run++) {
            bench_sizes(sizes[k], &row);
            v[0][run] = row.lookup_ns;
            v[1][run] = row.add_ns;
            v[2][run] = row.add_bytes;
            v[3][run] = row.register_ns;
            v[4][run] = row.unregister_ns;
            v[5][run] = row.register_bytes;
            v[6][run] = row.churn_ns;
            v[7][run] = row.gap_ns;
        }
        lookup_med[k] = median(v[0], runs);
        register_med[k] = median(v[3], runs);
        churn_med[k] = median(v[6], runs);
        printf("%9zu %10.1f %8.1f %12.1f %16.1f %14.1f %17.1f %17.1f %12.1f\n", sizes[k],
               median(v[0], runs), median(v[1], runs), median(v[2], runs), median(v[3], runs),
               median(v[4], runs), median(v[5], runs), median(v[6], runs),
               median(v[7], runs));
    }
    printf("\nadd: debugger-side registry (sorted input, includes the name copy); jit_register:\n"
           "in-process table + overlap index (descending input), the mean over filling an empty\n"
           "table; at-size register: with the table at that size (ranges spread over it\n"
           "unregistered, then registered again); gap register: new ranges into gaps spread\n"
           "over the table, with no range removed next to them. B/range: heap allocated per\n"
           "range (a growable array's unused tail included).\n");
    printf("\nGoals, ratios of the medians above:\n");
    printf("  %-47s %5.2f  (goal <= 1.00: %.1f / %.1f ns)\n",
           "lookup at 100k ranges / raw frame-pointer step", lookup_med[1] / walk_raw_ns,
           lookup_med[1], walk_raw_ns);
    printf("  %-47s %5.2f  (goal <= 1.30: %.1f / %.1f ns/frame)\n",
           "walk through ranges / raw frame-pointer walk", walk_ranges_ns / walk_raw_ns,
           walk_ranges_ns, walk_raw_ns);
    printf("  %-47s %5.2f  (goal <= 2.00: %.1f / %.1f ns)\n",
           "jit_register at 1M / at 1k ranges, filling", register_med[2] / register_med[0],
           register_med[2], register_med[0]);
    printf("  %-47s %5.2f  (goal <= 2.00: %.1f / %.1f ns)\n",
           "jit_register at 1M / at 1k ranges, at size", churn_med[2] / churn_med[0], churn_med[2],
           churn_med[0]);
    return 0;
}
