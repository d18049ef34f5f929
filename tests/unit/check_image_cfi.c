/* The ELF images of image.h read back with libdw: for every byte offset of
 * every range, innermost and (at return points) as a caller frame, the
 * image's CFI must give the caller registers that the range's rule gives
 * (jitunwind_step_range) on the same synthetic registers and stack; every
 * range is one symbol named by its label; rules with no static CFI get no
 * FDE. Both architectures, every rule each has, with and without landing
 * pads, multi-copy ranges with padding. */
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "builder.h"
#include "internal.h"
#include "suite.h"
#include "trampoline_code.h"

#define SP 0x7ff000ull
#define FP 0x7ff100ull
#define LR 0x404444ull

/* One range of the test image and its code, written at every copy. */
struct spec {
    struct jitunwind_range r;
    const uint8_t *code; /* NULL: JIT code, nothing to read */
    size_t code_len;
    uint64_t return_point; /* offset of the return address in a copy (0: any offset) */
};

static const uint8_t ENDBR_SUB8[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x48, 0x83, 0xec, 0x08,
                                     0xff, 0xd1, 0x48, 0x83, 0xc4, 0x08, 0xc3};
static const uint8_t ENDBR_FRAMED[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89,
                                       0xe5, 0xff, 0xd1, 0x5d, 0xc3};
static uint8_t A64_FRAMED[20], A64_BTI_FRAMED[24], A64_PAC_FRAMED[28];

static struct jitunwind_range make(uint64_t start, uint64_t size, uint32_t kind, uint32_t rule,
                                   uint32_t stride, uint32_t frame_size, const char *name)
{
    struct jitunwind_range r = {0};
    r.start = start;
    r.end = start + size;
    r.kind = kind;
    r.rule = rule;
    r.stride = stride;
    r.frame_size = frame_size;
    r.name = name;
    return r;
}

static struct ju_builder *b;
static struct jitunwind_memory mem;
static char path[64];
static jitunwind_modules *mods;
static Elf *elf;
static Dwarf_CFI *cfi;
static int image_fd = -1;

/* Write the image of `specs` to a file, load it as a module at its own
 * addresses (ET_EXEC: no bias), and open its .eh_frame with libdw. */
static void load(int arch, const struct spec *specs, size_t n,
                 struct jitunwind_elf_image_info *info)
{
    jitunwind_registry *reg;
    size_t i;
    uint64_t lo = UINT64_MAX, hi = 0;
    b = ju_builder_new();
    mem = ju_builder_memory(b);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    for (i = 0; i < n; i++) {
        const struct spec *s = &specs[i];
        uint64_t at, step = s->r.stride ? s->r.stride : s->r.end - s->r.start;
        ck_assert_int_eq(jitunwind_registry_add(reg, &s->r), 0);
        for (at = s->r.start; s->code && at < s->r.end; at += step)
            ju_builder_write(b, at, s->code, s->code_len);
        lo = s->r.start < lo ? s->r.start : lo;
        hi = s->r.end > hi ? s->r.end : hi;
    }
    for (i = 0; i < 64; i++) { /* the stack: distinct words everywhere */
        ju_builder_u64(b, SP + 8 * i, 0x410000 + 8 * i);
        ju_builder_u64(b, FP + 8 * i, i == 0 ? FP + 0x200 : 0x420000 + 8 * i);
    }
    snprintf(path, sizeof path, "/tmp/check_image_cfi.XXXXXX");
    ck_assert_int_ge(image_fd = mkstemp(path), 0);
    ck_assert_int_eq(jitunwind_elf_image_write_file(arch, reg, &mem, path, info), 0);
    jitunwind_registry_free(reg);
    ck_assert_int_eq(jitunwind_modules_new(&mods), 0);
    ck_assert_int_eq(jitunwind_modules_add_mapping(mods, path, lo, hi, 0), 0);
    close(image_fd);
    ck_assert_int_ge(image_fd = open(path, O_RDONLY), 0);
    elf_version(EV_CURRENT);
    ck_assert_ptr_nonnull(elf = elf_begin(image_fd, ELF_C_READ, NULL));
    ck_assert_ptr_nonnull(cfi = dwarf_getcfi_elf(elf));
}

static void unload(void)
{
    dwarf_cfi_end(cfi);
    elf_end(elf);
    close(image_fd);
    unlink(path);
    jitunwind_modules_free(mods);
    ju_builder_free(b);
}

static int has_fde(uint64_t pc)
{
    Dwarf_Frame *frame = NULL;
    int ok = dwarf_cfi_addrframe(cfi, pc, &frame) == 0;
    free(frame);
    return ok;
}

/* The rule's answer and the CFI's, for one pc. Returns 1 when they were
 * compared (the rule gave a caller), 0 when the rule refused the pc (not
 * an instruction boundary, or padding), which a debugger never stops at. */
static int compare_at(int arch, const struct jitunwind_range *r, uint64_t pc, int innermost)
{
    struct jitunwind_regs in = {pc, SP, FP, LR, JITUNWIND_REG_PC | JITUNWIND_REG_SP |
                                                    JITUNWIND_REG_FP, 0};
    struct jitunwind_regs by_rule, by_cfi;
    int stop, rc;
    if (arch == JITUNWIND_ARCH_AARCH64 && innermost)
        in.valid |= JITUNWIND_REG_LR;
    if (jitunwind_step_range(arch, r, &mem, &in, innermost, &by_rule, &stop) < 0)
        return 0;
    rc = jitunwind_step_cfi(arch, mods, &mem, &in, innermost, &by_cfi, &stop);
    ck_assert_msg(rc == 0, "%s +%#llx (innermost %d): no CFI step (%d, stop %d)", r->name,
                  (unsigned long long)(pc - r->start), innermost, rc, stop);
    ck_assert_msg(by_cfi.pc == by_rule.pc && by_cfi.sp == by_rule.sp,
                  "%s +%#llx (innermost %d): CFI pc %#llx sp %#llx, rule pc %#llx sp %#llx",
                  r->name, (unsigned long long)(pc - r->start), innermost,
                  (unsigned long long)by_cfi.pc, (unsigned long long)by_cfi.sp,
                  (unsigned long long)by_rule.pc, (unsigned long long)by_rule.sp);
    ck_assert_msg(!!(by_cfi.valid & JITUNWIND_REG_FP) == !!(by_rule.valid & JITUNWIND_REG_FP) &&
                      by_cfi.fp == by_rule.fp,
                  "%s +%#llx (innermost %d): CFI fp %#llx, rule fp %#llx", r->name,
                  (unsigned long long)(pc - r->start), innermost, (unsigned long long)by_cfi.fp,
                  (unsigned long long)by_rule.fp);
    return 1;
}

/* Every offset of every range; returns how many (pc, innermost) pairs were
 * compared. */
static size_t check_ranges(int arch, const struct spec *specs, size_t n)
{
    size_t i, compared = 0;
    for (i = 0; i < n; i++) {
        const struct spec *s = &specs[i];
        uint64_t off, stride = s->r.stride ? s->r.stride : s->r.end - s->r.start;
        char name[JITUNWIND_NAME_MAX];
        uint64_t sym_off;
        for (off = 0; off < s->r.end - s->r.start; off++) {
            uint64_t pc = s->r.start + off, in_copy = off % stride;
            size_t got = compare_at(arch, &s->r, pc, 1);
            if (s->r.rule == JITUNWIND_RULE_SCAN)
                ck_assert_msg(!has_fde(pc), "a SCAN range has no static CFI");
            else if (s->code && in_copy >= s->code_len)
                ck_assert_msg(!got && !has_fde(pc), "%s +%#llx: padding has no FDE", s->r.name,
                              (unsigned long long)off);
            else
                ck_assert_msg(has_fde(pc), "%s +%#llx: no FDE", s->r.name,
                              (unsigned long long)off);
            compared += got;
            /* As a caller frame: pc is a return address. */
            if (off > 0 && (s->return_point == 0 || in_copy == s->return_point))
                compared += (size_t)compare_at(arch, &s->r, pc, 0);
        }
        if (s->r.rule == JITUNWIND_RULE_SCAN)
            continue;
        /* The range's symbol, named by its label, covers all of it. */
        ck_assert_int_eq(jitunwind_modules_symbolize(mods, s->r.end - 1, name, sizeof name,
                                                     &sym_off), 0);
        {
            char want[JITUNWIND_NAME_MAX];
            jitunwind_range_label(&s->r, want, sizeof want);
            ck_assert_str_eq(name, want);
        }
        ck_assert_uint_eq(sym_off, s->r.end - 1 - s->r.start);
    }
    return compared;
}

START_TEST(x86_64_every_rule_every_offset)
{
    struct spec specs[] = {
        {make(0x500000, 0x40, JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING, 0, 0,
              "py::jit:hot"), NULL, 0, 0},
        /* adjacent: the same code section */
        {make(0x500040, 0x20, JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING, 0, 48,
              "py::jit:wide"), NULL, 0, 0},
        {make(0x500100, 0x40, JITUNWIND_KIND_TRAMPOLINE, JITUNWIND_RULE_TRAMPOLINE_SUB8, 16, 0,
              "py::f4:app.py"), JU_X86_SUB8, sizeof JU_X86_SUB8, 6},
        {make(0x500200, 0x40, JITUNWIND_KIND_TRAMPOLINE, JITUNWIND_RULE_TRAMPOLINE_SUB8, 16, 0,
              "py::cet:app.py"), ENDBR_SUB8, sizeof ENDBR_SUB8, 10},
        {make(0x500300, 0x40, JITUNWIND_KIND_TRAMPOLINE, JITUNWIND_RULE_TRAMPOLINE_FRAMED, 16,
              0, "py::framed:app.py"), JU_X86_FRAMED, sizeof JU_X86_FRAMED, 6},
        {make(0x500400, 0x40, JITUNWIND_KIND_TRAMPOLINE, JITUNWIND_RULE_TRAMPOLINE_FRAMED, 16,
              0, "py::framed-cet:app.py"), ENDBR_FRAMED, sizeof ENDBR_FRAMED, 10},
        /* one copy, stride 0 */
        {make(0x500500, 11, JITUNWIND_KIND_TRAMPOLINE, JITUNWIND_RULE_TRAMPOLINE_SUB8, 0, 0,
              "py::one"), JU_X86_SUB8, sizeof JU_X86_SUB8, 6},
        {make(0x500600, 0x40, JITUNWIND_KIND_JIT, JITUNWIND_RULE_SCAN, 0, 0, "py::jit:scan"),
         NULL, 0, 0},
    };
    struct jitunwind_elf_image_info info;
    size_t n = sizeof specs / sizeof specs[0], compared;
    specs[n - 1].r.scan_start = 0x600000; /* where its callers' return addresses point */
    specs[n - 1].r.scan_end = 0x600100;
    load(JITUNWIND_ARCH_X86_64, specs, n, &info);
    ck_assert_uint_eq(info.ranges, n);
    ck_assert_uint_eq(info.with_cfi, n - 1);
    ck_assert_uint_eq(info.without_cfi, 1);
    ck_assert_uint_eq(info.fdes, 2 + 4 * 4 + 1);
    ck_assert_uint_eq(info.sections, n - 1); /* the two adjacent JIT ranges share one */
    compared = check_ranges(JITUNWIND_ARCH_X86_64, specs, n);
    /* 0x60 fp-preserving offsets twice, 4 valid trampoline states per copy
     * (x4 layouts x4 copies), the one-copy range's, the return points. */
    ck_assert_uint_ge(compared, 0x60 * 2 - 2 + 16 * 4);
    unload();
}
END_TEST

START_TEST(aarch64_every_rule_every_offset)
{
    static const uint8_t bti[4] = {0x5f, 0x24, 0x03, 0xd5};
    const struct spec specs[] = {
        {make(0x500000, 0x40, JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING, 0, 0,
              "py::jit:hot"), NULL, 0, 0},
        {make(0x500100, 0x40, JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING, 0, 96,
              "py::jit:shim96"), NULL, 0, 0},
        {make(0x500200, 0x80, JITUNWIND_KIND_TRAMPOLINE, JITUNWIND_RULE_TRAMPOLINE_FRAMED, 32,
              0, "py::f4:app.py"), A64_FRAMED, sizeof A64_FRAMED, 12},
        {make(0x500300, 0x80, JITUNWIND_KIND_TRAMPOLINE, JITUNWIND_RULE_TRAMPOLINE_FRAMED, 32,
              0, "py::bti:app.py"), A64_BTI_FRAMED, sizeof A64_BTI_FRAMED, 16},
        /* CPython's branch-protected template: paciasp ... autiasp; ret */
        {make(0x500400, 0x80, JITUNWIND_KIND_TRAMPOLINE, JITUNWIND_RULE_TRAMPOLINE_FRAMED, 32,
              0, "py::pac:app.py"), A64_PAC_FRAMED, sizeof A64_PAC_FRAMED, 16},
    };
    static const uint8_t paciasp[4] = {0x3f, 0x23, 0x03, 0xd5}, autiasp[4] = {0xbf, 0x23, 0x03, 0xd5};
    struct jitunwind_elf_image_info info;
    size_t n = sizeof specs / sizeof specs[0];
    memcpy(A64_FRAMED, JU_A64_FRAMED, sizeof A64_FRAMED);
    memcpy(A64_BTI_FRAMED, bti, 4);
    memcpy(A64_BTI_FRAMED + 4, JU_A64_FRAMED, sizeof A64_FRAMED);
    memcpy(A64_PAC_FRAMED, paciasp, 4);
    memcpy(A64_PAC_FRAMED + 4, JU_A64_FRAMED, 16); /* stp, mov, blr, ldp */
    memcpy(A64_PAC_FRAMED + 20, autiasp, 4);
    memcpy(A64_PAC_FRAMED + 24, (const uint8_t *)JU_A64_FRAMED + 16, 4); /* ret */
    load(JITUNWIND_ARCH_AARCH64, specs, n, &info);
    ck_assert_uint_eq(info.fdes, 2 + 4 + 4 + 4);
    /* and the 7 instructions of each of the 4 branch-protected copies */
    ck_assert_uint_ge(check_ranges(JITUNWIND_ARCH_AARCH64, specs, n), 0x80 * 2 - 2 + 8 * 5 + 4 * 7);
    unload();
}
END_TEST

START_TEST(labels_and_bad_input)
{
    struct jitunwind_range r = make(0x1000, 16, JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING,
                                    0, 96, "py::jit:hot");
    struct jitunwind_range two[2];
    char buf[64];
    void *image = NULL;
    size_t size;
    ck_assert_int_eq(jitunwind_range_label(&r, buf, sizeof buf), 34);
    ck_assert_str_eq(buf, "py::jit:hot [jit fp-preserving/96]");
    r = make(0x1000, 16, JITUNWIND_KIND_TRAMPOLINE, JITUNWIND_RULE_TRAMPOLINE_SUB8, 0, 0,
             "py::f4:app.py");
    jitunwind_range_label(&r, buf, sizeof buf);
    ck_assert_str_eq(buf, "py::f4:app.py [trampoline sub8]");
    r.name = NULL;
    jitunwind_range_label(&r, buf, 8); /* truncated, terminated */
    ck_assert_str_eq(buf, "?? [tra");
    ck_assert_int_eq(jitunwind_range_label(NULL, buf, sizeof buf), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_range_label(&r, NULL, 8), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_range_label(&r, NULL, 0), 20); /* "?? [trampoline sub8]" */
    two[0] = make(0x2000, 16, JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING, 0, 0, "a");
    two[1] = make(0x1000, 16, JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING, 0, 0, "b");
    ck_assert_int_eq(jitunwind_elf_image_write(JITUNWIND_ARCH_X86_64, two, 2, NULL, &image, &size,
                                               NULL), JITUNWIND_EINVAL);
    two[1] = make(0x2008, 16, JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING, 0, 0, "b");
    ck_assert_int_eq(jitunwind_elf_image_write(JITUNWIND_ARCH_X86_64, two, 2, NULL, &image, &size,
                                               NULL), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_elf_image_write(7, two, 1, NULL, &image, &size, NULL),
                     JITUNWIND_EINVAL);
    ck_assert_ptr_null(image);
    /* An empty set is a valid (empty) image. */
    ck_assert_int_eq(jitunwind_elf_image_write(JITUNWIND_ARCH_X86_64, NULL, 0, NULL, &image, &size,
                                               NULL), 0);
    ck_assert_uint_gt(size, 64);
    ck_assert_mem_eq(image, ELFMAG, SELFMAG);
    jitunwind_elf_image_free(image);
}
END_TEST

/* SCAN: no static CFI, but this stop's rows: the caller the unwinder found
 * by scanning the stack (a return address into the scanned-for function,
 * whose frame pointer it recovers from that function's prologue) is what
 * the image's one-byte FDE gives, including the recovered frame pointer
 * (a DW_CFA_val_expression). */
START_TEST(x86_64_scan_rows_of_one_stop)
{
    static const uint8_t prologue[] = {0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x20};
    struct jitunwind_range r = make(0x500000, 0x100, JITUNWIND_KIND_JIT, JITUNWIND_RULE_SCAN, 0, 0,
                                    "py::jit:scan");
    struct jitunwind_regs in = {0x500010, SP, 0xdead0, 0, JITUNWIND_REG_PC | JITUNWIND_REG_SP |
                                                              JITUNWIND_REG_FP, 0};
    struct jitunwind_regs by_rule, by_cfi;
    struct jitunwind_elf_image_info info;
    jitunwind_registry *reg;
    int stop;
    r.scan_start = 0x600000;
    r.scan_end = 0x600100;
    b = ju_builder_new();
    mem = ju_builder_memory(b);
    ju_builder_write(b, 0x600000, prologue, sizeof prologue);
    ju_builder_u8(b, 0x600040, 0xe8); /* call rel32, returning to 0x600045 */
    ju_builder_u8(b, 0x700010, 0xe8); /* the scanned-for function's own caller */
    ju_builder_u64(b, SP, 0x1234);
    ju_builder_u64(b, SP + 8, 0x5678);
    ju_builder_u64(b, SP + 16, 0x600045);       /* the return address: caller sp = SP + 24 */
    ju_builder_u64(b, SP + 24 + 0x20, 0);       /* its frame record: fp = SP + 24 + 0x20 */
    ju_builder_u64(b, SP + 24 + 0x28, 0x700015);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    ck_assert_int_eq(jitunwind_registry_add(reg, &r), 0);
    ck_assert_int_eq(jitunwind_step_range_in(JITUNWIND_ARCH_X86_64, reg, &r, &mem, &in, 1,
                                             &by_rule, &stop), 0);
    ck_assert_uint_eq(by_rule.pc, 0x600045);
    ck_assert_uint_eq(by_rule.fp, SP + 24 + 0x20); /* recovered, not passed on */
    snprintf(path, sizeof path, "/tmp/check_image_cfi.XXXXXX");
    ck_assert_int_ge(image_fd = mkstemp(path), 0);
    close(image_fd);
    ck_assert_int_eq(jitunwind_elf_image_write_file_at_stop(JITUNWIND_ARCH_X86_64, reg, NULL, &mem,
                                                            &in, 1, path, &info), 0);
    ck_assert_uint_eq(info.stop_rows, 1);
    ck_assert_uint_eq(info.without_cfi, 1);
    ck_assert_int_eq(jitunwind_modules_new(&mods), 0);
    ck_assert_int_eq(jitunwind_modules_add_mapping(mods, path, r.start, r.end, 0), 0);
    ck_assert_int_eq(jitunwind_step_cfi(JITUNWIND_ARCH_X86_64, mods, &mem, &in, 1, &by_cfi, &stop), 0);
    ck_assert_uint_eq(by_cfi.pc, by_rule.pc);
    ck_assert_uint_eq(by_cfi.sp, by_rule.sp);
    ck_assert_uint_eq(by_cfi.fp, by_rule.fp);
    /* The row is this pc's alone. */
    in.pc += 1;
    ck_assert_int_eq(jitunwind_step_cfi(JITUNWIND_ARCH_X86_64, mods, &mem, &in, 1, &by_cfi, &stop),
                     JITUNWIND_ENOTFOUND);
    jitunwind_modules_free(mods);
    jitunwind_registry_free(reg);
    unlink(path);
    ju_builder_free(b);
}
END_TEST

/* More runs of ranges than an ELF file numbers sections: the image holds
 * the first ones (in address order) and says how many were left out,
 * rather than no image at all. */
START_TEST(past_the_section_cap_ranges_are_left_out)
{
    const size_t n = 70000;
    struct jitunwind_range *many = calloc(n, sizeof *many);
    struct jitunwind_elf_image_info info;
    void *image = NULL;
    size_t size, i;
    ck_assert_ptr_nonnull(many);
    for (i = 0; i < n; i++) /* 16 bytes each, 32 apart: every range its own run */
        many[i] = make(0x10000000 + i * 32, 16, JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING,
                       0, 0, NULL);
    ck_assert_int_eq(jitunwind_elf_image_write(JITUNWIND_ARCH_X86_64, many, n, NULL, &image,
                                               &size, &info), 0);
    ck_assert_uint_eq(info.sections, SHN_LORESERVE - 8u);
    ck_assert_uint_eq(info.ranges, info.sections);
    ck_assert_uint_eq(info.left_out, n - info.sections);
    ck_assert_mem_eq(image, ELFMAG, SELFMAG);
    jitunwind_elf_image_free(image);
    /* Under the caps nothing is left out. */
    ck_assert_int_eq(jitunwind_elf_image_write(JITUNWIND_ARCH_X86_64, many, 1000, NULL, &image,
                                               &size, &info), 0);
    ck_assert_uint_eq(info.ranges, 1000);
    ck_assert_uint_eq(info.left_out, 0);
    jitunwind_elf_image_free(image);
    free(many);
}
END_TEST

int main(void)
{
    return ju_run_tests("image_cfi", JU_TESTS(x86_64_every_rule_every_offset,
                                               aarch64_every_rule_every_offset,
                                               x86_64_scan_rows_of_one_stop,
                                               labels_and_bad_input,
                                               past_the_section_cap_ranges_are_left_out));
}
