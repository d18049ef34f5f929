/* One fuzz input is a whole hostile process: a header naming what the
 * harness looks at (the CPython version, _PyRuntime's address, two more
 * addresses), the target's memory as segments, and a tail of free bytes
 * (a perf map's text, a list of API calls). Little-endian:
 *
 *   u32 version_hex, u32 flags, u64 runtime, u64 aux0, u64 aux1
 *   { u64 addr, u16 len (0 ends the list), len bytes }  at most 512 times
 *   tail
 *
 * Segments land in page-granular memory (ju_builder): the rest of a page a
 * segment touches reads as zeros; other pages are unreadable. The corpus
 * generator (make_corpus.c) writes synthetic targets in this format. */
#ifndef JU_FUZZ_TARGET_H
#define JU_FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "builder.h"

#define FUZZ_MAX_SEGMENTS 512u
#define FUZZ_HEADER 32u

struct fuzz_target {
    struct ju_builder *b;
    struct jitunwind_memory mem;
    uint32_t version_hex, flags;
    uint64_t runtime, aux0, aux1;
    const uint8_t *tail;
    size_t tail_len;
};

/* Always succeeds (short inputs give an empty target). */
void fuzz_target_parse(struct fuzz_target *t, const uint8_t *data, size_t size);
void fuzz_target_free(struct fuzz_target *t);

/* Write the header and every page of b as segments (runs of non-zero
 * bytes), then `tail`. */
void fuzz_target_write(FILE *f, uint32_t version_hex, uint32_t flags, uint64_t runtime,
                       uint64_t aux0, uint64_t aux1, const struct ju_builder *b,
                       const void *tail, size_t tail_len);

/* Write the tail to a private file of this process (/tmp/ju-fuzz-<kind>-PID)
 * whose path goes to path[size]: 0, or -1 if it cannot be written. */
int fuzz_tail_to_file(const struct fuzz_target *t, const char *kind, char *path, size_t size);

/* Consume bytes of the tail (zeros once it runs out). */
uint64_t fuzz_take(struct fuzz_target *t, size_t n);

/* libFuzzer's entry point, which every harness defines. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
