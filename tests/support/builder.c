#include "builder.h"

#include <stdlib.h>
#include <string.h>

struct page {
    uint64_t base;
    uint8_t bytes[JU_BUILDER_PAGE];
};

struct ju_builder {
    struct page **pages;
    size_t count, cap;
    uint64_t poison_addr;
    size_t poison_len;
    uint64_t reads;
};

struct ju_builder *ju_builder_new(void)
{
    struct ju_builder *b = calloc(1, sizeof *b);
    if (!b)
        abort();
    return b;
}

void ju_builder_free(struct ju_builder *b)
{
    size_t i;
    if (!b)
        return;
    for (i = 0; i < b->count; i++)
        free(b->pages[i]);
    free(b->pages);
    free(b);
}

static struct page *find(const struct ju_builder *b, uint64_t base)
{
    size_t i;
    for (i = 0; i < b->count; i++)
        if (b->pages[i]->base == base)
            return b->pages[i];
    return NULL;
}

static struct page *find_or_add(struct ju_builder *b, uint64_t base)
{
    struct page *p = find(b, base);
    if (p)
        return p;
    if (b->count == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 16;
        b->pages = realloc(b->pages, b->cap * sizeof *b->pages);
        if (!b->pages)
            abort();
    }
    p = calloc(1, sizeof *p);
    if (!p)
        abort();
    p->base = base;
    b->pages[b->count++] = p;
    return p;
}

void ju_builder_write(struct ju_builder *b, uint64_t addr, const void *bytes, size_t len)
{
    const uint8_t *src = bytes;
    while (len > 0) {
        uint64_t base = addr & ~(uint64_t)(JU_BUILDER_PAGE - 1);
        size_t off = (size_t)(addr - base);
        size_t n = JU_BUILDER_PAGE - off;
        if (n > len)
            n = len;
        memcpy(find_or_add(b, base)->bytes + off, src, n);
        src += n;
        addr += n;
        len -= n;
    }
}

void ju_builder_u64(struct ju_builder *b, uint64_t addr, uint64_t v) { ju_builder_write(b, addr, &v, 8); }
void ju_builder_u32(struct ju_builder *b, uint64_t addr, uint32_t v) { ju_builder_write(b, addr, &v, 4); }
void ju_builder_u16(struct ju_builder *b, uint64_t addr, uint16_t v) { ju_builder_write(b, addr, &v, 2); }
void ju_builder_u8(struct ju_builder *b, uint64_t addr, uint8_t v) { ju_builder_write(b, addr, &v, 1); }

void ju_builder_unmap(struct ju_builder *b, uint64_t addr)
{
    uint64_t base = addr & ~(uint64_t)(JU_BUILDER_PAGE - 1);
    size_t i;
    for (i = 0; i < b->count; i++) {
        if (b->pages[i]->base == base) {
            free(b->pages[i]);
            b->pages[i] = b->pages[--b->count];
            return;
        }
    }
}

void ju_builder_poison(struct ju_builder *b, uint64_t addr, size_t len)
{
    b->poison_addr = addr;
    b->poison_len = len;
}

static int builder_read(void *arg, uint64_t addr, void *dst, size_t len)
{
    struct ju_builder *b = arg;
    uint8_t *out = dst;
    b->reads++;
    if (addr + len < addr)
        return JITUNWIND_EREAD;
    if (b->poison_len && addr < b->poison_addr + b->poison_len && b->poison_addr < addr + len)
        return JITUNWIND_EREAD;
    while (len > 0) {
        uint64_t base = addr & ~(uint64_t)(JU_BUILDER_PAGE - 1);
        size_t off = (size_t)(addr - base);
        size_t n = JU_BUILDER_PAGE - off;
        const struct page *p = find(b, base);
        if (!p)
            return JITUNWIND_EREAD;
        if (n > len)
            n = len;
        memcpy(out, p->bytes + off, n);
        out += n;
        addr += n;
        len -= n;
    }
    return 0;
}

struct jitunwind_memory ju_builder_memory(struct ju_builder *b)
{
    struct jitunwind_memory m = {sizeof(struct jitunwind_memory), builder_read, b};
    return m;
}

uint64_t ju_builder_reads(const struct ju_builder *b) { return b->reads; }

void ju_builder_each_page(const struct ju_builder *b,
                          void (*fn)(void *arg, uint64_t base, const uint8_t *bytes), void *arg)
{
    size_t i;
    for (i = 0; i < b->count; i++)
        fn(arg, b->pages[i]->base, b->pages[i]->bytes);
}
