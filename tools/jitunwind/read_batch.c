/* Many blocks of a live process in one system call: process_vm_readv with
 * one iovec per block. A sampler reads the same few pages at each sample
 * (the runtime, the thread states, the frames); asking for all of them at
 * once costs one call instead of one per page. */
#include <errno.h>
#include <sys/uio.h>

#include "read_batch.h"

long cli_read_blocks(int pid, const uint64_t *addrs, size_t n, size_t block, void *const *dst)
{
    struct iovec local[CLI_READ_BATCH_MAX], remote[CLI_READ_BATCH_MAX];
    size_t i;
    ssize_t got;
    if (n > CLI_READ_BATCH_MAX)
        n = CLI_READ_BATCH_MAX;
    for (i = 0; i < n; i++) {
        local[i].iov_base = dst[i];
        local[i].iov_len = block;
        remote[i].iov_base = (void *)(uintptr_t)addrs[i];
        remote[i].iov_len = block;
    }
    /* The kernel stops at the first remote block it cannot read: the
     * blocks before it are whole, the rest are left to be read one by one. */
    got = n ? process_vm_readv(pid, local, (unsigned long)n, remote, (unsigned long)n, 0) : 0;
    if (got < 0)
        return errno == EFAULT ? 0 : -errno;
    return (long)((size_t)got / block);
}
