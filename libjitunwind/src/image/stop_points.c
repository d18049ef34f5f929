/* Rows of one stop for ranges whose rule no static CFI can state (SCAN):
 * the caller the unwinder found for each such frame, written as the CFA
 * and register rules that give that caller at that pc with that stack. */
#include <stdlib.h>

#include "image/image_internal.h"

#define MAX_DEPTH 512u   /* frames walked per thread */
#define MAX_POINTS 4096u /* rows per image */

static int by_pc(const void *a, const void *b)
{
    const struct ju_stop_point *x = a, *y = b;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* The row that turns `f` into `caller`, or 0 when CFI cannot say it (the
 * return address is not just below the caller's sp, or the caller's sp is
 * not above the frame's). */
static int row_for(const struct ju_arch_facts *a, const struct jitunwind_memory *mem,
                   const struct jitunwind_frame *f, const struct jitunwind_frame *caller,
                   struct ju_cfi_row *row)
{
    uint64_t cfa = caller->regs.sp, ra, saved_fp;
    if (cfa <= f->regs.sp || cfa - f->regs.sp > UINT32_MAX || cfa < 16 ||
        ju_read_u64(mem, cfa - 8, &ra) < 0 ||
        ju_arch_strip_pac(a, ju_memory_pac_mask(mem), ra) != caller->regs.pc)
        return 0;
    *row = (struct ju_cfi_row){0};
    row->cfa_offset = (uint32_t)(cfa - f->regs.sp);
    row->ra_at = -8;
    if (!(caller->regs.valid & JITUNWIND_REG_FP) || caller->regs.fp == f->regs.fp)
        return 1; /* fp kept: same value */
    if (ju_read_u64(mem, cfa - 16, &saved_fp) == 0 && saved_fp == caller->regs.fp) {
        row->fp_at = -16;
        return 1;
    }
    if (caller->regs.fp > cfa + (uint64_t)INT32_MAX || cfa > caller->regs.fp + (uint64_t)INT32_MAX ||
        (caller->regs.fp - cfa) % 8)
        return 0;
    row->fp_is_value = 1;
    row->fp_at = (int32_t)(int64_t)(caller->regs.fp - cfa);
    return 1;
}

int ju_stop_points(int arch, const jitunwind_registry *reg, struct jitunwind_modules *mods,
                   const struct jitunwind_memory *mem, const struct jitunwind_regs *threads,
                   size_t n, struct ju_stop_point **points, size_t *count)
{
    const struct ju_arch_facts *a = ju_arch_facts(arch);
    struct jitunwind_frame *frames;
    struct ju_stop_point *out = NULL, *grown;
    size_t cap = 0, used = 0, t, i, k;
    *points = NULL;
    *count = 0;
    if (!a)
        return JITUNWIND_EINVAL;
    if (!(frames = malloc(MAX_DEPTH * sizeof *frames)))
        return JITUNWIND_ENOMEM;
    for (t = 0; t < n; t++) {
        int stop, got = jitunwind_unwind(arch, reg, mods, mem, &threads[t], frames, MAX_DEPTH, 0,
                                         &stop);
        for (i = 0; got > 0 && i + 1 < (size_t)got && used < MAX_POINTS; i++) {
            const struct jitunwind_range *r = frames[i].range;
            struct ju_cfi_plan plan;
            struct ju_stop_point p;
            if (!r || frames[i + 1].source != JITUNWIND_SOURCE_RULE ||
                ju_cfi_plan_for(a, r->rule, r->frame_size, 0, &plan) == 0 ||
                !row_for(a, mem, &frames[i], &frames[i + 1], &p.row))
                continue;
            p.pc = ju_arch_lookup_pc(a, frames[i].regs.pc, i == 0);
            if (!(grown = ju_reserve_one(out, &cap, used, sizeof *out, 16)))
                goto nomem;
            out = grown;
            out[used++] = p;
        }
    }
    free(frames);
    if (used)
        qsort(out, used, sizeof *out, by_pc);
    for (i = k = 0; i < used; i++) /* one row per pc */
        if (k == 0 || out[k - 1].pc != out[i].pc)
            out[k++] = out[i];
    *points = out;
    *count = k;
    return 0;
nomem:
    free(frames);
    free(out);
    return JITUNWIND_ENOMEM;
}
