#include "faulty.h"

static int faulty_read(void *arg, uint64_t addr, void *dst, size_t len)
{
    struct ju_faulty *f = arg;
    if (++f->reads == f->fail_at)
        return JITUNWIND_EREAD;
    return f->inner.read(f->inner.arg, addr, dst, len);
}

struct jitunwind_memory ju_faulty_memory(struct ju_faulty *f)
{
    struct jitunwind_memory m = {sizeof(struct jitunwind_memory), faulty_read, f};
    return m;
}
