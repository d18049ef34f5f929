/* Checked reads through the caller's jitunwind_memory. */
#include "internal.h"
#include "base/read.h"

int ju_read(const struct jitunwind_memory *mem, uint64_t addr, void *dst, size_t len)
{
    int rc;
    if (!mem || !mem->read || (!dst && len))
        return JITUNWIND_EINVAL;
    if (len > JITUNWIND_READ_MAX)
        return JITUNWIND_EINVAL;
    if (len == 0)
        return 0;
    if (addr + len < addr) /* wraps */
        return JITUNWIND_EREAD;
    rc = mem->read(mem->arg, addr, dst, len);
    if (rc > 0) /* a misbehaving reader: treat anything but 0 as failure */
        rc = JITUNWIND_EREAD;
    return rc;
}

int ju_read_u64(const struct jitunwind_memory *mem, uint64_t addr, uint64_t *out)
{
    uint8_t buf[8];
    int rc = ju_read(mem, addr, buf, sizeof buf);
    if (rc == 0)
        *out = ju_load_u64(buf);
    return rc;
}

int ju_read_u32(const struct jitunwind_memory *mem, uint64_t addr, uint32_t *out)
{
    uint8_t buf[4];
    int rc = ju_read(mem, addr, buf, sizeof buf);
    if (rc == 0)
        *out = ju_load_u32(buf);
    return rc;
}
