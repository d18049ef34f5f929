/* read_batch.c: blocks of a live process read in one system call. */
#ifndef JITUNWIND_CLI_READ_BATCH_H
#define JITUNWIND_CLI_READ_BATCH_H

#include <stddef.h>
#include <stdint.h>

#define CLI_READ_BATCH_MAX 128u

/* Read n (at most CLI_READ_BATCH_MAX) blocks of `block` bytes at addrs[i]
 * into dst[i]: the number of leading blocks read whole (the first
 * unreadable one and those after it are not), or -errno when the call
 * itself is refused (EPERM, ENOSYS, ESRCH). */
long cli_read_blocks(int pid, const uint64_t *addrs, size_t n, size_t block, void *const *dst);

/* The same with lens[i] bytes at addrs[i] (a piece of a block). */
long cli_read_pieces(int pid, const uint64_t *addrs, const size_t *lens, size_t n, void *const *dst);

#endif
