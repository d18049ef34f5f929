#include "fuzz_target.h"

#include <string.h>
#include <unistd.h>

static uint64_t load(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    memcpy(&v, p, n);
    return v;
}

void fuzz_target_parse(struct fuzz_target *t, const uint8_t *data, size_t size)
{
    size_t pos = FUZZ_HEADER, segments = 0;
    memset(t, 0, sizeof *t);
    t->b = ju_builder_new();
    t->mem = ju_builder_memory(t->b);
    if (size < FUZZ_HEADER) {
        t->tail = data;
        t->tail_len = 0;
        return;
    }
    t->version_hex = (uint32_t)load(data, 4);
    t->flags = (uint32_t)load(data + 4, 4);
    t->runtime = load(data + 8, 8);
    t->aux0 = load(data + 16, 8);
    t->aux1 = load(data + 24, 8);
    while (pos + 10 <= size && segments++ < FUZZ_MAX_SEGMENTS) {
        uint64_t addr = load(data + pos, 8);
        size_t len = (size_t)load(data + pos + 8, 2);
        pos += 10;
        if (len == 0)
            break;
        if (len > size - pos)
            len = size - pos;
        if (addr + len < addr)
            continue;
        ju_builder_write(t->b, addr, data + pos, len);
        pos += len;
    }
    t->tail = data + (pos < size ? pos : size);
    t->tail_len = pos < size ? size - pos : 0;
}

void fuzz_target_free(struct fuzz_target *t)
{
    ju_builder_free(t->b);
}

uint64_t fuzz_take(struct fuzz_target *t, size_t n)
{
    uint64_t v = 0;
    size_t k = n < t->tail_len ? n : t->tail_len;
    memcpy(&v, t->tail, k);
    t->tail += k;
    t->tail_len -= k;
    return v;
}

int fuzz_tail_to_file(const struct fuzz_target *t, const char *kind, char *path, size_t size)
{
    FILE *f;
    snprintf(path, size, "/tmp/ju-fuzz-%s-%d", kind, (int)getpid());
    if (!(f = fopen(path, "wb")))
        return -1;
    fwrite(t->tail, 1, t->tail_len, f);
    return fclose(f) == 0 ? 0 : -1;
}

struct writer {
    FILE *f;
};

static void put(FILE *f, uint64_t v, size_t n)
{
    fwrite(&v, 1, n, f);
}

/* Runs of non-zero bytes, joined across gaps shorter than a record. */
static void write_page(void *arg, uint64_t base, const uint8_t *bytes)
{
    FILE *f = ((struct writer *)arg)->f;
    size_t i = 0, n = JU_BUILDER_PAGE;
    int any = 0;
    while (i < n) {
        size_t start, end, gap;
        while (i < n && bytes[i] == 0)
            i++;
        if (i == n)
            break;
        start = i;
        end = i;
        for (;;) {
            while (end < n && bytes[end] != 0)
                end++;
            for (gap = end; gap < n && bytes[gap] == 0 && gap - end < 16; gap++)
                ;
            if (gap < n && bytes[gap] != 0)
                end = gap;
            else
                break;
        }
        put(f, base + start, 8);
        put(f, end - start, 2);
        fwrite(bytes + start, 1, end - start, f);
        any = 1;
        i = end;
    }
    if (!any) { /* an all-zero page still exists */
        put(f, base, 8);
        put(f, 1, 2);
        put(f, 0, 1);
    }
}

void fuzz_target_write(FILE *f, uint32_t version_hex, uint32_t flags, uint64_t runtime,
                       uint64_t aux0, uint64_t aux1, const struct ju_builder *b,
                       const void *tail, size_t tail_len)
{
    struct writer w = {f};
    put(f, version_hex, 4);
    put(f, flags, 4);
    put(f, runtime, 8);
    put(f, aux0, 8);
    put(f, aux1, 8);
    if (b)
        ju_builder_each_page(b, write_page, &w);
    put(f, 0, 8);
    put(f, 0, 2);
    if (tail_len)
        fwrite(tail, 1, tail_len, f);
}
