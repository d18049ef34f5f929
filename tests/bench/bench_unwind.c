/* Benchmark (not a test): prints
 *   - ns per frame unwinding a 64-frame stack through registered ranges vs a
 *     raw frame-pointer walk of the same stack, in the same run;
 *   - registry lookup ns at 1k / 100k / 1M ranges;
 *   - registration ns (in-process jitunwind_jit_register, debugger-side
 *     jitunwind_registry_add) at those sizes, and heap bytes per range.
 * Run: build/tests/bench/bench_unwind */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jitunwind/jitunwind.h"

#define FRAMES 64
#define STACK_BASE 0x7f0000000000ull
#define CODE_BASE 0x500000000000ull

static uint8_t stack[FRAMES * 64 + 64];

static int stack_read(void *arg, uint64_t addr, void *dst, size_t len)
{
    (void)arg;
    if (addr < STACK_BASE || addr - STACK_BASE > sizeof stack || len > sizeof stack - (addr - STACK_BASE))
        return JITUNWIND_EREAD;
    memcpy(dst, stack + (addr - STACK_BASE), len);
    return 0;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static size_t heap_bytes(void)
{
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd; /* small chunks + mmap'd large arrays */
}

/* Frame i's record at STACK_BASE + i*64 returns to pc_i; odd frames return
 * into JIT ranges (rule: FP_PRESERVING), every 4th into a framed trampoline. */
static uint64_t pc_of(int i)
{
    if (i % 4 == 3)
        return CODE_BASE + 0x100000 + (uint64_t)i * 0x1000 + 6;  /* trampoline return point */
    if (i % 2 == 1)
        return CODE_BASE + (uint64_t)i * 0x1000 + 0x40;          /* inside a JIT range */
    return 0x400000 + (uint64_t)i * 0x10;                         /* native */
}

static void bench_walk(void)
{
    struct jitunwind_memory mem = {stack_read, NULL};
    struct jitunwind_frame frames[FRAMES + 1];
    struct jitunwind_regs start = {0x401000, STACK_BASE - 0x100, STACK_BASE, 0,
                                   JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP, 0};
    jitunwind_registry *reg;
    int i, iters = 200000, stop, n = 0;
    double t0, with_ranges, raw;
    for (i = 0; i < FRAMES; i++) {
        uint64_t rec = STACK_BASE + (uint64_t)i * 64;
        uint64_t next = i + 1 < FRAMES ? rec + 64 : 0, pc = pc_of(i);
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
        struct jitunwind_range r = {CODE_BASE + 0x100000 + (uint64_t)i * 0x1000,
                                    CODE_BASE + 0x100000 + (uint64_t)i * 0x1000 + 8,
                                    JITUNWIND_KIND_TRAMPOLINE, JITUNWIND_RULE_TRAMPOLINE_FRAMED, 0, 0, 0, "py::f"};
        jitunwind_registry_add(reg, &r);
    }
    t0 = now_ns();
    for (i = 0; i < iters; i++)
        n = jitunwind_unwind(JITUNWIND_ARCH_X86_64, reg, NULL, &mem, &start, frames, FRAMES + 1, 0, &stop);
    with_ranges = (now_ns() - t0) / ((double)iters * n);
    t0 = now_ns();
    for (i = 0; i < iters; i++)
        n = jitunwind_unwind(JITUNWIND_ARCH_X86_64, NULL, NULL, &mem, &start, frames, FRAMES + 1, 0, &stop);
    raw = (now_ns() - t0) / ((double)iters * n);
    printf("unwind %d frames (%s):\n", n, jitunwind_stop_reason_string(stop));
    printf("  through registered ranges (2000 ranges): %6.1f ns/frame\n", with_ranges);
    printf("  raw frame-pointer walk, same stack:      %6.1f ns/frame\n", raw);
    jitunwind_registry_free(reg);
}

static void bench_sizes(size_t n)
{
    jitunwind_registry *reg;
    jitunwind_jit_id *ids = malloc(n * sizeof *ids);
    uint64_t *probes = malloc(4096 * sizeof *probes);
    size_t i, before, found = 0;
    double t0, add_ns, lookup_ns, reg_ns, unreg_ns;
    const int lookups = 2000000;
    /* Debugger side: ranges arrive sorted (the descriptor reader sorts). */
    before = heap_bytes();
    jitunwind_registry_new(&reg);
    t0 = now_ns();
    for (i = 0; i < n; i++) {
        struct jitunwind_range r = {CODE_BASE + i * 0x100, CODE_BASE + i * 0x100 + 0x80,
                                    JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING, 0, 0, 0, "py::jit:f"};
        jitunwind_registry_add(reg, &r);
    }
    add_ns = (now_ns() - t0) / (double)n;
    printf("%8zu ranges: registry_add %6.1f ns, %5.1f heap bytes/range;", n, add_ns,
           (double)(heap_bytes() - before) / (double)n);
    srand(1);
    for (i = 0; i < 4096; i++)
        probes[i] = CODE_BASE + ((uint64_t)rand() % n) * 0x100 + (uint64_t)(rand() % 0x100);
    t0 = now_ns();
    for (i = 0; i < (size_t)lookups; i++)
        found += jitunwind_registry_lookup(reg, probes[i & 4095]) != NULL;
    lookup_ns = (now_ns() - t0) / lookups;
    printf(" lookup %5.1f ns (%zu%% hits);", lookup_ns, found * 100 / (size_t)lookups);
    jitunwind_registry_free(reg);
    /* In-process side: addresses descending, as mmap hands them out. */
    before = heap_bytes();
    t0 = now_ns();
    for (i = 0; i < n; i++)
        jitunwind_jit_register((void *)(uintptr_t)(CODE_BASE + (n - i) * 0x100), 0x80, JITUNWIND_KIND_JIT,
                               JITUNWIND_RULE_FP_PRESERVING, "py::jit:f", 0, &ids[i]);
    reg_ns = (now_ns() - t0) / (double)n;
    printf(" jit_register %6.1f ns, %5.1f heap bytes/range;", reg_ns,
           (double)(heap_bytes() - before) / (double)n);
    t0 = now_ns();
    for (i = 0; i < n; i++)
        jitunwind_jit_unregister(ids[i]);
    unreg_ns = (now_ns() - t0) / (double)n;
    printf(" jit_unregister %6.1f ns\n", unreg_ns);
    jitunwind_jit_reset();
    free(ids);
    free(probes);
}

int main(void)
{
    printf("libjitunwind %s benchmark\n", jitunwind_version_string());
    bench_walk();
    bench_sizes(1000);
    bench_sizes(100000);
    bench_sizes(1000000);
    return 0;
}
