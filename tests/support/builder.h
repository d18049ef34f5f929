/* A sparse, page-granular synthetic target for unit tests: write words at any
 * address (pages appear on first write), drop pages to make them unreadable,
 * and read it all through a jitunwind_memory. Also counts reads so tests can
 * assert that a walk stayed bounded. */
#ifndef JU_TEST_BUILDER_H
#define JU_TEST_BUILDER_H

#include <stddef.h>
#include <stdint.h>

#include "jitunwind/jitunwind.h"

#define JU_BUILDER_PAGE 4096u

struct ju_builder;

struct ju_builder *ju_builder_new(void);
void ju_builder_free(struct ju_builder *b);
void ju_builder_write(struct ju_builder *b, uint64_t addr, const void *bytes, size_t len);
void ju_builder_u64(struct ju_builder *b, uint64_t addr, uint64_t value);
void ju_builder_u32(struct ju_builder *b, uint64_t addr, uint32_t value);
void ju_builder_u16(struct ju_builder *b, uint64_t addr, uint16_t value);
void ju_builder_u8(struct ju_builder *b, uint64_t addr, uint8_t value);
/* Make the page containing addr unreadable (drops its contents). */
void ju_builder_unmap(struct ju_builder *b, uint64_t addr);
/* Fail every read that touches [addr, addr+len) from now on. */
void ju_builder_poison(struct ju_builder *b, uint64_t addr, size_t len);
struct jitunwind_memory ju_builder_memory(struct ju_builder *b);
uint64_t ju_builder_reads(const struct ju_builder *b);
/* Every page that exists (JU_BUILDER_PAGE bytes at base), in no order. */
void ju_builder_each_page(const struct ju_builder *b,
                          void (*fn)(void *arg, uint64_t base, const uint8_t *bytes), void *arg);

#endif
