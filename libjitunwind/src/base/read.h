/* Bounded reads of target memory through the caller's reader (read.c),
 * and little-endian loads from a local copy. Not installed. */
#ifndef JITUNWIND_BASE_READ_H
#define JITUNWIND_BASE_READ_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/status.h"

/* All return 0 or a negative status (EREAD for a failed or wrapping read,
 * EINVAL for len > READ_MAX or a reader struct ju_memory_valid refuses). */
JU_HIDDEN int ju_read(const struct jitunwind_memory *mem, uint64_t addr, void *dst, size_t len);
JU_HIDDEN int ju_read_u64(const struct jitunwind_memory *mem, uint64_t addr, uint64_t *out);
JU_HIDDEN int ju_read_u32(const struct jitunwind_memory *mem, uint64_t addr, uint32_t *out);
/* The caller's reader struct (memory.h) checked by its size: 1 when it has
 * at least `read` and `arg` (the first version), no unknown member set, and
 * a read callback. */
JU_HIDDEN int ju_memory_valid(const struct jitunwind_memory *mem);
/* *dst = *src at this library's size: members past the caller's size are
 * 0. Returns 0, or EINVAL when !ju_memory_valid(src). */
JU_HIDDEN int ju_memory_copy(struct jitunwind_memory *dst, const struct jitunwind_memory *src);
/* The caller's pac_mask, 0 (the default) when its struct ends before it. */
JU_HIDDEN uint64_t ju_memory_pac_mask(const struct jitunwind_memory *mem);

/* Little-endian loads from a local buffer (no alignment requirement). */
static inline uint64_t ju_load_u64(const void *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline uint32_t ju_load_u32(const void *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint16_t ju_load_u16(const void *p) { uint16_t v; memcpy(&v, p, 2); return v; }

#endif
