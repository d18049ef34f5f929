/* The perf event record --perf opens (perf_attr.c): one place, so that
 * tests/bench/bench_perf_rings.c measures the kernel's side of the very
 * same event. Needs only <linux/perf_event.h> and the library's headers. */
#ifndef JITUNWIND_CLI_PERF_ATTR_H
#define JITUNWIND_CLI_PERF_ATTR_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

#include "jitunwind/unwind.h"

/* The kernel wakes the reader at every CLI_PERF_WAKE_SAMPLES-th sample of
 * an event, and the reader reads the rings then or CLI_PERF_POLL_MS after
 * its last reading, whichever comes first: a sample's Python frames are
 * read about that soon after it. A wake-up is the kernel's work in the
 * sampled thread's context; at every 8th sample it measured no cost to the
 * target against a reader never woken (bench_perf_slowdown.py), while
 * reading later leaves more samples' Python frames not matching them on a
 * target whose stack changes every few milliseconds. */
#define CLI_PERF_WAKE_SAMPLES 8u
#define CLI_PERF_POLL_MS 10

/* A thread's ring holds this many samples (room for when the reader falls
 * behind). */
#define CLI_PERF_RING_SAMPLES 32u
/* The pages of a ring (after its header page) with room for `samples`
 * samples copying `stack_size` bytes of stack: a power of two, at least 8. */
size_t cli_perf_ring_pages(unsigned stack_size, unsigned samples, size_t page);

/* The user registers a sample carries for `arch` (JITUNWIND_ARCH_*), as
 * perf numbers them; *n their count (a sample holds them in increasing
 * order of these numbers). */
uint64_t cli_perf_regs_mask(int arch, unsigned *n);
/* A sample's registers (`values`: the *n of cli_perf_regs_mask, in its
 * order) as the walk starts from them: *regs its pc, sp, fp (and lr), and
 * *all every one by DWARF number (jitunwind_cursor_set_registers). */
void cli_perf_regs_fill(int arch, const uint64_t *values, struct jitunwind_regs *regs,
                        struct jitunwind_dwarf_regs *all);
/* The most registers a sample carries, on any architecture. */
#define CLI_PERF_MAX_REGS 16u
/* The event on one thread (`every_process` 0: at `hz` of its CPU time, the
 * kernel's frequency mode) or on one CPU for every process (a fixed period
 * of its time, with the records that say when a process starts, runs
 * another program or ends), each sample copying the user registers and
 * `stack_size` bytes of the user stack; times are CLOCK_MONOTONIC's. */
void cli_perf_attr(struct perf_event_attr *a, int arch, int every_process, double hz,
                   unsigned stack_size);

#endif
