/* A live process: process_vm_readv, falling back to pread on /proc/PID/mem
 * where process_vm_readv is unavailable or not permitted; writes, for the
 * callers that ask for them, with process_vm_writev only. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

#include "internal.h"

struct jitunwind_process_reader {
    int pid;
    int mem_fd;       /* /proc/PID/mem, opened on first fallback; -1 if unusable */
    int use_fallback; /* process_vm_readv failed with ENOSYS/EPERM */
};

JITUNWIND_API int jitunwind_process_reader_new(jitunwind_process_reader **out, int pid)
{
    char path[64];
    jitunwind_process_reader *r;
    if (!out)
        return JITUNWIND_EINVAL;
    if (pid <= 0)
        return ju_constructed((void **)out, NULL, JITUNWIND_EINVAL, NULL);
    snprintf(path, sizeof path, "/proc/%d", pid);
    if (access(path, F_OK) != 0)
        return ju_constructed((void **)out, NULL, JITUNWIND_ENOTFOUND, NULL);
    r = calloc(1, sizeof *r);
    if (r) {
        r->pid = pid;
        r->mem_fd = -2; /* not tried yet */
    }
    return ju_constructed((void **)out, r, r ? 0 : JITUNWIND_ENOMEM, NULL);
}

JITUNWIND_API void jitunwind_process_reader_free(jitunwind_process_reader *r)
{
    if (!r)
        return;
    if (r->mem_fd >= 0)
        close(r->mem_fd);
    free(r);
}

static int read_proc_mem(jitunwind_process_reader *r, uint64_t addr, void *dst, size_t len)
{
    ssize_t n;
    if (r->mem_fd == -2) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/mem", r->pid);
        r->mem_fd = open(path, O_RDONLY | O_CLOEXEC);
        if (r->mem_fd < 0)
            r->mem_fd = -1;
    }
    if (r->mem_fd < 0 || addr > (uint64_t)INT64_MAX)
        return JITUNWIND_EREAD;
    n = pread(r->mem_fd, dst, len, (off_t)addr);
    return n == (ssize_t)len ? 0 : JITUNWIND_EREAD;
}

static int process_read(void *arg, uint64_t addr, void *dst, size_t len)
{
    jitunwind_process_reader *r = arg;
    struct iovec local = {dst, len}, remote = {(void *)(uintptr_t)addr, len};
    ssize_t n;
    if (!r) /* the memory of a NULL reader (an unchecked failed constructor) */
        return JITUNWIND_EINVAL;
    if (!r->use_fallback) {
        n = process_vm_readv(r->pid, &local, 1, &remote, 1, 0);
        if (n == (ssize_t)len)
            return 0;
        if (n >= 0 || (errno != ENOSYS && errno != EPERM))
            return JITUNWIND_EREAD; /* short read or unmapped: all-or-nothing */
        r->use_fallback = 1;
    }
    return read_proc_mem(r, addr, dst, len);
}

JITUNWIND_API struct jitunwind_memory jitunwind_process_reader_memory(jitunwind_process_reader *r)
{
    struct jitunwind_memory m = {sizeof(struct jitunwind_memory), process_read, r};
    return m;
}

static int process_write(void *arg, uint64_t addr, const void *src, size_t len)
{
    jitunwind_process_reader *r = arg;
    struct iovec local = {(void *)(uintptr_t)src, len}, remote = {(void *)(uintptr_t)addr, len};
    if (!r)
        return JITUNWIND_EINVAL;
    return process_vm_writev(r->pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0
                                                                              : JITUNWIND_EIO;
}

JITUNWIND_API struct jitunwind_memory
jitunwind_process_reader_writable_memory(jitunwind_process_reader *r)
{
    struct jitunwind_memory m = jitunwind_process_reader_memory(r);
    m.write = process_write;
    return m;
}
