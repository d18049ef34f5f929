/* A small .eh_frame encoder: one CIE per image, one FDE per code copy,
 * each row written out in full (def_cfa, then the return address and the
 * frame pointer), which keeps the encoder free of state and the output
 * easy to check with readelf --debug-dump=frames. */
#include <dwarf.h>

#include "image/image_internal.h"

#define DATA_ALIGN (-8)
#define EH_PE_ABSPTR 0x00

static void patch_u32(struct ju_bytes *b, size_t at, uint32_t v)
{
    if (!b->failed)
        memcpy(b->data + at, &v, 4);
}

/* Pad the entry that starts at `start` (its length field) to a multiple of
 * the address size and fill in its length. */
static void close_entry(struct ju_bytes *b, size_t start)
{
    while ((b->len - start) % 8)
        ju_bytes_u8(b, DW_CFA_nop);
    patch_u32(b, start, (uint32_t)(b->len - start - 4));
}

static void def_cfa(struct ju_bytes *b, int reg, uint32_t offset)
{
    ju_bytes_u8(b, DW_CFA_def_cfa);
    ju_bytes_uleb(b, (uint64_t)reg);
    ju_bytes_uleb(b, offset);
}

/* Saved at CFA + at (at < 0, a multiple of 8), or still in its register. */
static void saved_at(struct ju_bytes *b, int reg, int32_t at)
{
    if (at < 0) {
        ju_bytes_u8(b, (uint8_t)(DW_CFA_offset | reg));
        ju_bytes_uleb(b, (uint64_t)(at / DATA_ALIGN));
    } else {
        ju_bytes_u8(b, DW_CFA_same_value);
        ju_bytes_uleb(b, (uint64_t)reg);
    }
}

/* The caller's value of `reg` is sp + offset, a value rather than a save
 * slot. Written as DW_CFA_val_expression {DW_OP_breg<sp> offset}, not
 * DW_CFA_val_offset: LLDB 19 ignores val_offset rules. */
static void value_at(struct ju_bytes *b, int reg, int sp, int64_t offset)
{
    struct ju_bytes expr = {0};
    ju_bytes_u8(&expr, (uint8_t)(DW_OP_breg0 + sp));
    ju_bytes_sleb(&expr, offset);
    ju_bytes_u8(b, DW_CFA_val_expression);
    ju_bytes_uleb(b, (uint64_t)reg);
    ju_bytes_uleb(b, expr.len);
    ju_bytes_put(b, expr.data, expr.len);
    if (expr.failed)
        b->failed = 1;
    ju_bytes_free(&expr);
}

static void advance(struct ju_bytes *b, const struct ju_arch_facts *a, uint64_t delta)
{
    uint64_t units = delta / a->insn_align;
    if (units < 0x40) {
        ju_bytes_u8(b, (uint8_t)(DW_CFA_advance_loc | units));
    } else if (units <= 0xff) {
        ju_bytes_u8(b, DW_CFA_advance_loc1);
        ju_bytes_u8(b, (uint8_t)units);
    } else if (units <= 0xffff) {
        uint16_t v = (uint16_t)units;
        ju_bytes_u8(b, DW_CFA_advance_loc2);
        ju_bytes_put(b, &v, 2);
    } else {
        ju_bytes_u8(b, DW_CFA_advance_loc4);
        ju_bytes_u32(b, (uint32_t)units);
    }
}

size_t ju_eh_frame_cie(struct ju_bytes *b, const struct ju_arch_facts *a)
{
    size_t start = b->len;
    ju_bytes_u32(b, 0); /* length, patched */
    ju_bytes_u32(b, 0); /* CIE id */
    ju_bytes_u8(b, 1);  /* version */
    ju_bytes_put(b, "zR", 3);
    ju_bytes_uleb(b, a->insn_align);
    ju_bytes_sleb(b, DATA_ALIGN);
    ju_bytes_u8(b, (uint8_t)a->dwarf_ra);
    ju_bytes_uleb(b, 1); /* augmentation data: the FDE address encoding */
    ju_bytes_u8(b, EH_PE_ABSPTR);
    /* At a function's first instruction: the return address is on the
     * stack (x86-64) or in the link register (AArch64). */
    if (a->dwarf_lr < 0) {
        def_cfa(b, a->dwarf_sp, 8);
        saved_at(b, a->dwarf_ra, -8);
    } else {
        def_cfa(b, a->dwarf_sp, 0);
    }
    close_entry(b, start);
    return start;
}

void ju_eh_frame_fde(struct ju_bytes *b, size_t cie, const struct ju_arch_facts *a, uint64_t pc,
                     uint64_t len, const struct ju_cfi_row *rows, size_t nrows)
{
    size_t start = b->len, i;
    uint64_t at = 0;
    ju_bytes_u32(b, 0);                             /* length, patched */
    ju_bytes_u32(b, (uint32_t)(b->len - cie));      /* back to the CIE */
    ju_bytes_u64(b, pc);
    ju_bytes_u64(b, len);
    ju_bytes_uleb(b, 0); /* no augmentation data */
    for (i = 0; i < nrows; i++) {
        const struct ju_cfi_row *r = &rows[i];
        if (r->at >= len)
            break;
        if (r->at > at)
            advance(b, a, r->at - at);
        at = r->at;
        def_cfa(b, r->cfa_on_fp ? a->dwarf_fp : a->dwarf_sp, r->cfa_offset);
        saved_at(b, a->dwarf_ra, r->ra_at);
        if (r->fp_is_value && !r->cfa_on_fp)
            value_at(b, a->dwarf_fp, a->dwarf_sp, (int64_t)r->cfa_offset + r->fp_at);
        else
            saved_at(b, a->dwarf_fp, r->fp_at);
    }
    close_entry(b, start);
}

void ju_eh_frame_end(struct ju_bytes *b)
{
    ju_bytes_u32(b, 0);
}
