/* The image writer's growable byte buffer. */
#include <stdlib.h>

#include "image/image_internal.h"

void ju_bytes_put(struct ju_bytes *b, const void *p, size_t n)
{
    if (b->failed)
        return;
    if (n > b->cap - b->len) {
        size_t cap = b->cap ? b->cap : 256;
        uint8_t *d;
        while (cap - b->len < n) {
            if (cap > SIZE_MAX / 2) {
                b->failed = 1;
                return;
            }
            cap *= 2;
        }
        if (!(d = realloc(b->data, cap))) {
            b->failed = 1;
            return;
        }
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void ju_bytes_u8(struct ju_bytes *b, uint8_t v)
{
    ju_bytes_put(b, &v, 1);
}

void ju_bytes_u32(struct ju_bytes *b, uint32_t v)
{
    ju_bytes_put(b, &v, 4); /* host order: images are written for the host's arch family (LE) */
}

void ju_bytes_u64(struct ju_bytes *b, uint64_t v)
{
    ju_bytes_put(b, &v, 8);
}

void ju_bytes_uleb(struct ju_bytes *b, uint64_t v)
{
    do {
        uint8_t byte = v & 0x7f;
        v >>= 7;
        ju_bytes_u8(b, (uint8_t)(byte | (v ? 0x80 : 0)));
    } while (v);
}

void ju_bytes_sleb(struct ju_bytes *b, int64_t v)
{
    for (;;) {
        uint8_t byte = (uint8_t)(v & 0x7f);
        v >>= 7; /* arithmetic shift: gcc and clang on every supported target */
        if ((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40))) {
            ju_bytes_u8(b, byte);
            return;
        }
        ju_bytes_u8(b, (uint8_t)(byte | 0x80));
    }
}

void ju_bytes_free(struct ju_bytes *b)
{
    free(b->data);
    *b = (struct ju_bytes){0};
}
