/* The never-moving arrays of reserved_array.h. */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jit/reserved_array.h"

static size_t page_round(size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (bytes + page - 1) / page * page;
}

int ju_reserved_array_open(struct ju_reserved_array *a, size_t bytes)
{
    void *p;
    bytes = page_round(bytes);
    p = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return JITUNWIND_ENOMEM;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, bytes, MADV_HUGEPAGE); /* advice: without it, 4 KiB pages */
#endif
    a->base = p;
    a->reserved = bytes;
    a->writable = a->written = 0;
    return 0;
}

void ju_reserved_array_close(struct ju_reserved_array *a)
{
    if (a->base)
        munmap(a->base, a->reserved);
    memset(a, 0, sizeof *a);
}

int ju_reserved_array_grow(struct ju_reserved_array *a, size_t bytes)
{
    if (bytes > a->reserved)
        return JITUNWIND_ELIMIT;
    if (bytes > a->writable) {
        size_t to = page_round(bytes);
        if (mprotect((char *)a->base + a->writable, to - a->writable, PROT_READ | PROT_WRITE) < 0)
            return JITUNWIND_ENOMEM;
        a->writable = to;
    }
    if (bytes > a->written)
        a->written = bytes;
    return 0;
}

void *ju_reserved_array_take(struct ju_reserved_array *a, size_t bytes)
{
    size_t at = a->written, want;
    if (!a->base || bytes > a->reserved - at)
        return NULL;
    want = at + bytes;
    if (want > a->writable) {
        size_t doubled = 2 * a->writable;
        if (ju_reserved_array_grow(a, doubled > want && doubled <= a->reserved ? doubled : want) < 0)
            return NULL;
    }
    a->written = want;
    return (char *)a->base + at;
}

void *ju_reserved_arena_take(struct ju_reserved_array *a, size_t reserve, size_t bytes)
{
    if (!a->base && (a->refused || ju_reserved_array_open(a, reserve) < 0)) {
        a->refused = 1; /* address space short (ulimit -v) */
        return NULL;
    }
    return ju_reserved_array_take(a, bytes);
}

void ju_reserved_array_clear(struct ju_reserved_array *a)
{
    size_t keep = a->writable < JU_RESERVED_KEEP ? a->writable : JU_RESERVED_KEEP;
    a->refused = 0;
    if (!a->base)
        return;
    memset(a->base, 0, a->written < keep ? a->written : keep);
    if (a->writable > keep) {
        /* Back to the system, and to no access: the pages read as zero if
         * made writable again. */
        (void)madvise((char *)a->base + keep, a->writable - keep, MADV_DONTNEED);
        (void)mprotect((char *)a->base + keep, a->writable - keep, PROT_NONE);
    }
    a->writable = keep;
    a->written = 0;
}
