/* An in-memory target image: sorted, non-overlapping segments. Reads are
 * all-or-nothing and may span adjacent segments. */
#include <stdlib.h>

#include "internal.h"

struct segment {
    uint64_t addr;
    size_t len;
    uint8_t *bytes;
};

struct jitunwind_image {
    struct segment *segs;
    size_t count;
    size_t cap;
};

JITUNWIND_API int jitunwind_image_new(jitunwind_image **out)
{
    jitunwind_image *img;
    if (!out)
        return JITUNWIND_EINVAL;
    img = calloc(1, sizeof *img);
    return ju_constructed((void **)out, img, img ? 0 : JITUNWIND_ENOMEM, NULL);
}

JITUNWIND_API void jitunwind_image_free(jitunwind_image *img)
{
    size_t i;
    if (!img)
        return;
    for (i = 0; i < img->count; i++)
        free(img->segs[i].bytes);
    free(img->segs);
    free(img);
}

/* Index of the first segment whose end is above addr. */
static size_t first_ending_above(const jitunwind_image *img, uint64_t addr)
{
    size_t lo = 0, hi = img->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct segment *s = &img->segs[mid];
        if (s->addr + s->len <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

JITUNWIND_API int jitunwind_image_add(jitunwind_image *img, uint64_t addr, const void *bytes,
                                      size_t len)
{
    size_t at;
    uint8_t *copy;
    struct segment *grown;
    if (!img || !bytes || len == 0 || addr + len < addr)
        return JITUNWIND_EINVAL;
    at = first_ending_above(img, addr);
    if (at < img->count && img->segs[at].addr < addr + len)
        return JITUNWIND_EOVERLAP;
    grown = ju_reserve_one(img->segs, &img->cap, img->count, sizeof *img->segs, 8);
    if (!grown)
        return JITUNWIND_ENOMEM;
    img->segs = grown;
    copy = malloc(len);
    if (!copy)
        return JITUNWIND_ENOMEM;
    memcpy(copy, bytes, len);
    memmove(&img->segs[at + 1], &img->segs[at], (img->count - at) * sizeof *img->segs);
    img->segs[at] = (struct segment){addr, len, copy};
    img->count++;
    return 0;
}

static int image_read(void *arg, uint64_t addr, void *dst, size_t len)
{
    const jitunwind_image *img = arg;
    uint8_t *out = dst;
    size_t i;
    if (!img) /* the memory of a NULL image (an unchecked failed constructor) */
        return JITUNWIND_EINVAL;
    if (addr + len < addr)
        return JITUNWIND_EREAD;
    i = first_ending_above(img, addr);
    while (len > 0) {
        const struct segment *s;
        size_t off, n;
        if (i >= img->count)
            return JITUNWIND_EREAD;
        s = &img->segs[i];
        if (s->addr > addr)
            return JITUNWIND_EREAD; /* a hole */
        off = (size_t)(addr - s->addr);
        n = s->len - off;
        if (n > len)
            n = len;
        memcpy(out, s->bytes + off, n);
        out += n;
        addr += n;
        len -= n;
        i++;
    }
    return 0;
}

JITUNWIND_API struct jitunwind_memory jitunwind_image_memory(jitunwind_image *img)
{
    struct jitunwind_memory m = {sizeof(struct jitunwind_memory), image_read, img};
    return m;
}
