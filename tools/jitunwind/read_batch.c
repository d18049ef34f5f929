/* Many blocks of a live process in one system call: process_vm_readv with
 * one iovec per block. A sampler reads the same few pages at each sample
 * (the runtime, the thread states, the frames); asking for all of them at
 * once costs one call instead of one per page. */
#include <errno.h>
#include <sys/uio.h>

#include "read_batch.h"

/* lens NULL: every piece is `block` bytes. */
static long read_pieces(int pid, const uint64_t *addrs, const size_t *lens, size_t block, size_t n,
                        void *const *dst)
{
    struct iovec local[CLI_READ_BATCH_MAX], remote[CLI_READ_BATCH_MAX];
    size_t i, whole = 0;
    ssize_t got;
    if (n > CLI_READ_BATCH_MAX)
        n = CLI_READ_BATCH_MAX;
    for (i = 0; i < n; i++) {
        local[i].iov_base = dst[i];
        local[i].iov_len = lens ? lens[i] : block;
        remote[i].iov_base = (void *)(uintptr_t)addrs[i];
        remote[i].iov_len = local[i].iov_len;
    }
    /* The kernel stops at the first remote block it cannot read: the
     * blocks before it are whole, the rest are left to be read one by one. */
    got = n ? process_vm_readv(pid, local, (unsigned long)n, remote, (unsigned long)n, 0) : 0;
    if (got < 0)
        return errno == EFAULT ? 0 : -errno;
    for (i = 0; i < n && (size_t)got >= whole + local[i].iov_len; i++)
        whole += local[i].iov_len;
    return (long)i;
}

long cli_read_blocks(int pid, const uint64_t *addrs, size_t n, size_t block, void *const *dst)
{
    return read_pieces(pid, addrs, NULL, block, n, dst);
}

long cli_read_pieces(int pid, const uint64_t *addrs, const size_t *lens, size_t n, void *const *dst)
{
    return read_pieces(pid, addrs, lens, 0, n, dst);
}
