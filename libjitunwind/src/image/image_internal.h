/* Internals of the ELF-image writer: a growable byte buffer, the CFI rows
 * that describe one range rule, and the .eh_frame encoder. */
#ifndef JITUNWIND_IMAGE_INTERNAL_H
#define JITUNWIND_IMAGE_INTERNAL_H

#include "base/arch_facts.h"
#include "internal.h"
#include "jitunwind/image.h"
#include "unwind/arch/rules.h"

/* A growable byte buffer; after an allocation failure every put is a no-op
 * and `failed` stays set, so callers check once at the end. */
struct ju_bytes {
    uint8_t *data;
    size_t len, cap;
    int failed;
};

JU_HIDDEN void ju_bytes_put(struct ju_bytes *b, const void *p, size_t n);
JU_HIDDEN void ju_bytes_u8(struct ju_bytes *b, uint8_t v);
JU_HIDDEN void ju_bytes_u32(struct ju_bytes *b, uint32_t v);
JU_HIDDEN void ju_bytes_u64(struct ju_bytes *b, uint64_t v);
JU_HIDDEN void ju_bytes_uleb(struct ju_bytes *b, uint64_t v);
JU_HIDDEN void ju_bytes_sleb(struct ju_bytes *b, int64_t v);
JU_HIDDEN void ju_bytes_free(struct ju_bytes *b);

/* One CFI row, in force from byte `at` of a copy of the code: the CFA is
 * sp or fp plus cfa_offset; the return address and the caller's frame
 * pointer are saved at CFA + ra_at / fp_at (negative), or 0: still in
 * their register (AArch64's x30 before the frame record is stored; a frame
 * pointer not yet pushed or already restored). */
struct ju_cfi_row {
    uint32_t at;
    uint8_t cfa_on_fp;
    uint8_t fp_is_value; /* the caller's fp is CFA + fp_at itself, not saved there
                            (sp-based CFA only) */
    uint32_t cfa_offset;
    int32_t ra_at;
    int32_t fp_at;
};

#define JU_CFI_MAX_ROWS JU_RULE_MAX_ROWS

/* The rows of one copy of a rule's code and the bytes they cover. */
struct ju_cfi_plan {
    uint64_t len; /* 0: the whole range (FP_PRESERVING) */
    uint32_t nrows;
    struct ju_cfi_row rows[JU_CFI_MAX_ROWS];
};

/* The rows of `rule` (frame_size for FP_PRESERVING) on `a`, for a copy
 * that starts as `head` (enum ju_copy_head, unwind/arch/rules.h) says: the
 * states of the unwinder's rules (rules.c), written as CFI.
 * JITUNWIND_EUNSUPPORTED: the rule has no static CFI (SCAN, which depends
 * on the stack; SUB8 on AArch64). */
JU_HIDDEN int ju_cfi_plan_for(const struct ju_arch_facts *a, uint32_t rule, uint32_t frame_size,
                              int head, struct ju_cfi_plan *out);

/* .eh_frame: one CIE for the architecture (returns its offset in b), FDEs
 * that refer to it with absolute 8-byte addresses (so the section needs no
 * address of its own), and the zero terminator. */
JU_HIDDEN size_t ju_eh_frame_cie(struct ju_bytes *b, const struct ju_arch_facts *a);
JU_HIDDEN void ju_eh_frame_fde(struct ju_bytes *b, size_t cie, const struct ju_arch_facts *a,
                               uint64_t pc, uint64_t len, const struct ju_cfi_row *rows,
                               size_t nrows);
JU_HIDDEN void ju_eh_frame_end(struct ju_bytes *b);

/* The row of one pc at one stop: what the unwinder found for a frame of a
 * range whose rule has no static CFI. The FDE covers [pc, pc + 1), pc being
 * the address debuggers look the frame up at. */
struct ju_stop_point {
    uint64_t pc;
    struct ju_cfi_row row;
};

/* Walk each thread from `threads` (n of them) with the ranges and modules'
 * CFI, and turn every frame of a range without static CFI whose caller was
 * found into a point, sorted by pc (one per pc: of two threads stopped at
 * one pc with different stacks, one row is kept).
 * *points is malloc'd (NULL when none). */
JU_HIDDEN int ju_stop_points(int arch, const jitunwind_registry *reg,
                             struct jitunwind_modules *mods, const struct jitunwind_memory *mem,
                             const struct jitunwind_regs *threads, size_t n,
                             struct ju_stop_point **points, size_t *count);

/* The image of `ranges` plus the stop points (sorted) inside ranges that
 * have no static CFI. */
JU_HIDDEN int ju_elf_image_build(int arch, const struct jitunwind_range *ranges, size_t n,
                                 const struct jitunwind_memory *mem,
                                 const struct ju_stop_point *points, size_t npoints,
                                 void **image, size_t *size,
                                 struct jitunwind_elf_image_info *info);

#endif
