/* The eval loop's out-of-line part when no symbol names it: a stripped
 * interpreter without its debug file keeps `_PyEval_EvalFrameDefault` in
 * .dynsym (it is exported) but not the LOCAL `_PyEval_EvalFrameDefault.cold`
 * GCC split the unlikely paths into (GCC 16 with LTO on x86-64: 844 bytes of
 * function, 82 KB of `.cold`, where calls into JIT code return). The
 * function jumps into that part, and GCC gives the part an .eh_frame FDE of
 * its own: the FDE that the function's jumps land in most often, which no
 * symbol of the file starts in, is taken as the part.
 * - x86-64 (jmp/jcc rel32): bytes are scanned at every offset (no
 *   instruction decoding): a byte sequence that only looks like a jump lands
 *   at random, mostly in no FDE, and is outvoted.
 * - AArch64 (B, B.cond, CBZ/CBNZ, TBZ/TBNZ): every aligned word is decoded.
 *   GCC splits functions on AArch64 only when asked
 *   (-freorder-blocks-and-partition is off by default there); Debian's
 *   arm64 CPython has no such part, and nothing is found in it.
 * FDEs are found through .eh_frame_hdr's sorted table in the encodings GNU
 * ld writes (anything else: no part found). */
#include <stdlib.h>

#include "internal.h"
#include "elf/elf.h"
#include "python/pyreader.h"

#define MAX_MAIN (1u << 20)      /* bytes of the function scanned at most */
#define MAX_HDR (16u << 20)      /* .eh_frame_hdr read at most */
#define MAX_PART (16u << 20)     /* a larger FDE is not one function's part */
#define MAX_CANDIDATES 64u       /* distinct FDEs counted */
#define MAX_TARGETS 4096u        /* jumps out of the function counted at most */
#define MIN_VOTES 2u             /* jumps that must land in the part */

/* .eh_frame_hdr: version 1; eh_frame_ptr pcrel|sdata4, fde_count udata4,
 * table datarel|sdata4 (pairs of initial location and FDE address). */
#define HDR_ENCODINGS 0x3b031b01u

struct fde_table {
    const char *module;
    uint64_t hdr;        /* its file address */
    uint8_t *data;
    uint32_t count;
};

static int load_table(const char *module, struct fde_table *t)
{
    GElf_Phdr ph;
    Elf *elf = NULL;
    int fd = -1;
    size_t i, n = 0;
    uint64_t size = 0;
    t->module = module;
    t->data = NULL;
    if (ju_elf_open(module, &fd, &elf) < 0)
        return JITUNWIND_ENOTFOUND;
    if (elf_getphdrnum(elf, &n) == 0)
        for (i = 0; i < n; i++)
            if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_GNU_EH_FRAME) {
                t->hdr = ph.p_vaddr;
                size = ph.p_filesz;
            }
    ju_elf_close(fd, elf);
    if (size < 12 || size > MAX_HDR || !(t->data = malloc((size_t)size)))
        return JITUNWIND_ENOTFOUND;
    if (ju_elf_read_vaddr(module, t->hdr, t->data, (size_t)size) < 0 ||
        ju_load_u32(t->data) != HDR_ENCODINGS ||
        (t->count = ju_load_u32(t->data + 8)) > (size - 12) / 8) {
        free(t->data);
        t->data = NULL;
        return JITUNWIND_ENOTFOUND;
    }
    return 0;
}

/* The table entry whose FDE may cover file address `pc` (the last whose
 * initial location is <= pc), or -1. */
static long entry_at(const struct fde_table *t, uint64_t pc)
{
    uint32_t lo = 0, hi = t->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->hdr + (uint64_t)(int64_t)(int32_t)ju_load_u32(t->data + 12 + 8 * (size_t)mid) <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (long)lo - 1;
}

/* The code range [*start, *end) of the FDE of table entry `i`: 0, or
 * ENOTFOUND. */
static int fde_range(const struct fde_table *t, long i, uint64_t *start, uint64_t *end)
{
    uint8_t fde[16];
    uint64_t begin = t->hdr + (uint64_t)(int64_t)(int32_t)ju_load_u32(t->data + 12 + 8 * (size_t)i);
    uint64_t at = t->hdr + (uint64_t)(int64_t)(int32_t)ju_load_u32(t->data + 16 + 8 * (size_t)i);
    /* Length, CIE pointer, pc_begin (pcrel|sdata4: checked against the
     * table's), pc_range. */
    if (ju_elf_read_vaddr(t->module, at, fde, sizeof fde) < 0 || ju_load_u32(fde) == 0xffffffffu ||
        at + 8 + (uint64_t)(int64_t)(int32_t)ju_load_u32(fde + 8) != begin)
        return JITUNWIND_ENOTFOUND;
    *start = begin;
    *end = begin + ju_load_u32(fde + 12);
    return 0;
}

struct symbol_inside {
    uint64_t start, end; /* an FDE */
    int named;
};

static int starts_inside(void *arg, const char *name, const GElf_Sym *sym)
{
    struct symbol_inside *o = arg;
    (void)name;
    if (sym->st_shndx != SHN_UNDEF && sym->st_value >= o->start && sym->st_value < o->end &&
        (GELF_ST_TYPE(sym->st_info) == STT_FUNC || GELF_ST_TYPE(sym->st_info) == STT_NOTYPE)) {
        o->named = 1;
        return 1;
    }
    return 0;
}

static int64_t sign_extend(uint32_t v, unsigned bits)
{
    return (int64_t)((uint64_t)v << (64 - bits)) >> (64 - bits);
}

/* The target of an x86-64 jmp/jcc rel32 whose first byte is at `at` (the
 * function ends at `hi`): 1, or 0 when the bytes are not one. */
static int x86_64_jump(const uint8_t *p, uint64_t at, uint64_t hi, uint64_t *target)
{
    if (at + 5 <= hi && p[0] == 0xe9) /* jmp rel32 */
        *target = at + 5 + (uint64_t)(int64_t)(int32_t)ju_load_u32(p + 1);
    else if (at + 6 <= hi && p[0] == 0x0f && (p[1] & 0xf0) == 0x80) /* jcc rel32 */
        *target = at + 6 + (uint64_t)(int64_t)(int32_t)ju_load_u32(p + 2);
    else
        return 0;
    return 1;
}

/* The target of the AArch64 branch at `at` (offsets count words from the
 * instruction): 1, or 0 when the word is none of B, B.cond/BC.cond,
 * CBZ/CBNZ, TBZ/TBNZ. */
static int aarch64_jump(const uint8_t *p, uint64_t at, uint64_t hi, uint64_t *target)
{
    uint32_t w;
    int64_t words;
    if (at + 4 > hi)
        return 0;
    w = ju_load_u32(p);
    if ((w & 0xfc000000u) == 0x14000000u) /* B imm26 */
        words = sign_extend(w & 0x3ffffffu, 26);
    else if ((w & 0xff000000u) == 0x54000000u || (w & 0x7e000000u) == 0x34000000u)
        words = sign_extend((w >> 5) & 0x7ffffu, 19); /* B.cond, CBZ/CBNZ imm19 */
    else if ((w & 0x7e000000u) == 0x36000000u) /* TBZ/TBNZ imm14 */
        words = sign_extend((w >> 5) & 0x3fffu, 14);
    else
        return 0;
    *target = at + (uint64_t)(words * 4);
    return 1;
}

/* The part's file addresses from the function's bytes at [lo, hi): 0, or
 * ENOTFOUND. Jumps are counted by table entry (no reads); only the entry
 * with the most is read, and its FDE must hold MIN_VOTES of them. */
static int find_part(const struct fde_table *t, int arch, const uint8_t *code, uint64_t lo,
                     uint64_t hi, uint64_t *start, uint64_t *end)
{
    struct { long entry; unsigned votes; } v[MAX_CANDIDATES];
    uint64_t targets[MAX_TARGETS];
    struct symbol_inside o;
    size_t n = 0, nt = 0, i, best = 0;
    unsigned inside = 0, step = arch == JITUNWIND_ARCH_AARCH64 ? 4 : 1;
    uint64_t at;
    if (lo % step)
        return JITUNWIND_ENOTFOUND;
    for (at = lo; at < hi && nt < MAX_TARGETS; at += step) {
        const uint8_t *p = code + (at - lo);
        uint64_t target;
        long e;
        if (!(step == 4 ? aarch64_jump(p, at, hi, &target) : x86_64_jump(p, at, hi, &target)))
            continue;
        if ((target >= lo && target < hi) || (e = entry_at(t, target)) < 0)
            continue;
        targets[nt++] = target;
        for (i = 0; i < n && v[i].entry != e; i++)
            ;
        if (i < n)
            v[i].votes++;
        else if (n < MAX_CANDIDATES)
            v[n].entry = e, v[n].votes = 1, n++;
    }
    for (i = 1; i < n; i++)
        if (v[i].votes > v[best].votes)
            best = i;
    if (n == 0 || v[best].votes < MIN_VOTES || fde_range(t, v[best].entry, start, end) < 0 ||
        *end - *start > MAX_PART || (*start < hi && *end > lo))
        return JITUNWIND_ENOTFOUND;
    for (i = 0; i < nt; i++)
        inside += targets[i] >= *start && targets[i] < *end;
    if (inside < MIN_VOTES)
        return JITUNWIND_ENOTFOUND;
    o.start = *start, o.end = *end, o.named = 0;
    if (ju_elf_each_symbol(t->module, 0, starts_inside, &o) < 0 || o.named)
        return JITUNWIND_ENOTFOUND; /* another function's code, not an unnamed part */
    return 0;
}

void ju_py_find_eval_outlined(const char *module, int arch, struct jitunwind_py_code_range *parts,
                              size_t *n)
{
    struct fde_table t;
    uint64_t lo, hi, start, end;
    uint8_t *code;
    if ((arch != JITUNWIND_ARCH_X86_64 && arch != JITUNWIND_ARCH_AARCH64) || *n != 1 ||
        !parts[0].main)
        return;
    lo = parts[0].start;
    hi = parts[0].end;
    if (hi <= lo || hi - lo > MAX_MAIN || !(code = malloc((size_t)(hi - lo))))
        return;
    if (ju_elf_read_vaddr(module, lo, code, (size_t)(hi - lo)) == 0 && load_table(module, &t) == 0) {
        if (find_part(&t, arch, code, lo, hi, &start, &end) == 0) {
            struct jitunwind_py_code_range part = {start, end, 0, 0};
            if (start < lo) { /* kept by start */
                parts[1] = parts[0];
                parts[0] = part;
            } else {
                parts[1] = part;
            }
            *n = 2;
        }
        free(t.data);
    }
    free(code);
}
