/* An array that never moves: one reservation of address space (PROT_NONE:
 * no memory, no commit charge), made readable and writable as it grows.
 * In-process registration keeps its published slot array and its private
 * per-slot state in these (jit_inprocess.c), so that growing copies and
 * retires nothing, and a slot costs memory only when its page is first
 * written; its name buffers and its overlap index's chunks are cut from
 * two more, used as arenas (ju_reserved_array_take).
 *
 * Large tables are faulted in by 2 MiB pages where the kernel allows it
 * (MADV_HUGEPAGE; Linux's transparent huge pages in "madvise" or "always"
 * mode): one page fault per 2 MiB instead of 512, which was half the cost
 * of registering a million ranges. A table under 2 MiB (the pages made
 * writable do not cover a whole aligned 2 MiB) stays in 4 KiB pages.
 *
 * The address space is not free everywhere: it counts against RLIMIT_AS
 * (ulimit -v), so the caller asks for less when a reservation fails.
 *
 * The reservation lives as long as the process. Clearing it (on
 * jitunwind_jit_reset) zeroes the first JU_RESERVED_KEEP bytes written and
 * gives the rest back to the system, as a heap keeps its top: refilling a
 * table of up to about 40,000 slots (130,000 short names, 120,000 spans)
 * then touches no fresh page. (At 256 KiB, refilling 100,000 ranges after
 * a reset paid 2 to 3 ms of page faults more than the heap it replaced,
 * which kept what was freed.) Not thread-safe. */
#ifndef JU_RESERVED_ARRAY_H
#define JU_RESERVED_ARRAY_H

#include <stddef.h>

#include "internal.h"

#define JU_RESERVED_KEEP (2u * 1024u * 1024u)

struct ju_reserved_array {
    void *base;      /* NULL until reserved */
    size_t reserved; /* bytes of address space */
    size_t writable; /* bytes made readable and writable, from base */
    size_t written;  /* bytes the user may have written (for clearing) */
    int refused;     /* ju_reserved_arena_take could not reserve it (until a clear) */
};

/* Reserve `bytes` of address space (rounded up to pages): 0 or ENOMEM. */
JU_HIDDEN int ju_reserved_array_open(struct ju_reserved_array *a, size_t bytes);
/* Make the first `bytes` writable (reading as zero where never written):
 * 0, ELIMIT past the reservation, ENOMEM. */
JU_HIDDEN int ju_reserved_array_grow(struct ju_reserved_array *a, size_t bytes);
/* Use the array as an arena: the next `bytes` after the `written` ones,
 * made writable as needed (the writable part at least doubling, so that
 * cutting many small pieces makes few system calls). NULL when the
 * reservation has no room left or the system refuses the memory. */
JU_HIDDEN void *ju_reserved_array_take(struct ju_reserved_array *a, size_t bytes);
/* The same for an arena reserved on first use (`reserve` bytes of address
 * space): NULL also when that reservation was refused, which is not tried
 * again until the array is cleared (the caller then takes from the heap). */
JU_HIDDEN void *ju_reserved_arena_take(struct ju_reserved_array *a, size_t reserve,
                                       size_t bytes);
/* Give the reservation back (base NULL again). */
JU_HIDDEN void ju_reserved_array_close(struct ju_reserved_array *a);
/* Back to zero writable bytes, every byte zero again (see above); an
 * arena that could not be reserved is tried again. */
JU_HIDDEN void ju_reserved_array_clear(struct ju_reserved_array *a);

#endif
