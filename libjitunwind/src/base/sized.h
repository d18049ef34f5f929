/* Structs the caller passes in with a leading `size_t size` (the memory
 * reader, options structs), checked as libbpf checks its opts: a size from
 * an older, smaller version of the struct is accepted and the members past
 * it read as 0; a size from a newer, larger version is accepted only when
 * every byte this library does not know is 0 (a caller asking for
 * something this version cannot do is refused, not ignored); a size below
 * the struct's first version is refused. */
#ifndef JU_BASE_SIZED_H
#define JU_BASE_SIZED_H

#include <stddef.h>

#define JU_OFFSETOFEND(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))

/* 1 when `size` (the caller's `s->size`) is at least `first` (the end of the
 * struct's first version) and no byte of `s` from `known` (this library's
 * sizeof) up to `size` is set; else 0. */
static inline int ju_sized_valid(const void *s, size_t size, size_t known, size_t first)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i;
    if (size < first)
        return 0;
    for (i = known; i < size; i++)
        if (p[i])
            return 0;
    return 1;
}

/* The caller's `member` of `*s` (a struct of `type`), or `fallback` when
 * `s` is NULL or its size ends before the member. */
#define JU_SIZED_GET(s, type, member, fallback)                                       \
    ((s) && (s)->size >= JU_OFFSETOFEND(type, member) ? (s)->member : (fallback))

/* 1 when options struct `s` of `type` is NULL (every default) or valid. */
#define JU_OPTS_VALID(s, type)                                                          \
    (!(s) || ju_sized_valid((s), (s)->size, sizeof(type), JU_OFFSETOFEND(type, size)))

#endif
