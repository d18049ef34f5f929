/* Checked reads through the caller's jitunwind_memory. */
#include "base/sized.h"
#include "internal.h"
#include "base/read.h"

int ju_memory_valid(const struct jitunwind_memory *mem)
{
    return mem &&
           ju_sized_valid(mem, mem->size, sizeof *mem, JU_OFFSETOFEND(struct jitunwind_memory, arg)) &&
           mem->read;
}

int ju_memory_copy(struct jitunwind_memory *dst, const struct jitunwind_memory *src)
{
    if (!ju_memory_valid(src))
        return JITUNWIND_EINVAL;
    memset(dst, 0, sizeof *dst);
    memcpy(dst, src, src->size < sizeof *dst ? src->size : sizeof *dst);
    dst->size = sizeof *dst;
    return 0;
}

uint64_t ju_memory_pac_mask(const struct jitunwind_memory *mem)
{
    return JU_SIZED_GET(mem, struct jitunwind_memory, pac_mask, 0);
}

int ju_read(const struct jitunwind_memory *mem, uint64_t addr, void *dst, size_t len)
{
    int rc;
    if ((!dst && len) || !ju_memory_valid(mem))
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
