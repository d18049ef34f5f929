/* The perf event record --perf opens (perf_attr.c): one place, so that
 * tests/bench/bench_perf_rings.c measures the kernel's side of the very
 * same event. Needs only <linux/perf_event.h> and the library's header. */
#ifndef JITUNWIND_CLI_PERF_ATTR_H
#define JITUNWIND_CLI_PERF_ATTR_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

/* The reader reads the rings every CLI_PERF_READ_MS on its own clock, the
 * kernel waking it earlier only for a ring half full (cli_perf_attr): a
 * sample's Python frames are read at most about this long after it while
 * the reader keeps up. */
#define CLI_PERF_READ_MS 10

/* A thread's ring holds this many samples (room for when the reader falls
 * behind: a ring half full wakes it early). */
#define CLI_PERF_RING_SAMPLES 32u
/* The pages of a ring (after its header page) with room for `samples`
 * samples copying `stack_size` bytes of stack: a power of two, at least 8. */
size_t cli_perf_ring_pages(unsigned stack_size, unsigned samples, size_t page);

/* The user registers a sample carries for `arch` (JITUNWIND_ARCH_*), as
 * perf numbers them; *n their count (a sample holds them in increasing
 * order of these numbers). */
uint64_t cli_perf_regs_mask(int arch, unsigned *n);
/* The event on one thread (`every_process` 0: at `hz` of its CPU time, the
 * kernel's frequency mode) or on one CPU for every process (a fixed period
 * of its time, with the records that say when a process starts, runs
 * another program or ends), each sample copying the user registers and
 * `stack_size` bytes of the user stack; times are CLOCK_MONOTONIC's. The
 * reader is woken only when a ring is `wake_bytes` full. */
void cli_perf_attr(struct perf_event_attr *a, int arch, int every_process, double hz,
                   unsigned stack_size, uint64_t wake_bytes);

#endif
