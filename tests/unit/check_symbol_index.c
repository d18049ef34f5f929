/* The sorted symbol index (elf/symbol_index.c) against the rule it
 * replaces, a pass over the whole table: among the defined, named
 * functions containing an address (a size of 0 counting as 1), the one
 * with the highest value, and of those the first in the table. Over
 * functions of every shape made here (one inside another, one of size 0,
 * two at one address, an object over them all) and over real tables, at
 * every address around each function's start and end. */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "elf/elf.h"
#include "elf/symbol_index.h"
#include "suite.h"

/* outer [0, 64) holds inner [16, 24) and empty at 40 (size 0); twin_a and
 * twin_b both start at 48; blob, an object, covers them all. */
__asm__(".text\n"
        ".globl si_outer, si_inner, si_empty, si_twin_a, si_twin_b, si_blob\n"
        ".type si_outer,@function\n.type si_inner,@function\n.type si_empty,@function\n"
        ".type si_twin_a,@function\n.type si_twin_b,@function\n.type si_blob,@object\n"
        ".p2align 6\n"
        "si_outer:\nsi_blob:\n.fill 16,1,0x90\n"
        "si_inner:\n.fill 8,1,0x90\n.fill 16,1,0x90\n"
        "si_empty:\n.fill 8,1,0x90\n"
        "si_twin_a:\nsi_twin_b:\n.fill 16,1,0x90\n"
        ".size si_outer, 64\n.size si_inner, 8\n.size si_empty, 0\n"
        ".size si_twin_a, 4\n.size si_twin_b, 12\n.size si_blob, 128\n");

/* The rule, as one pass over the table. */
static int model_find(Elf *elf, Elf_Scn *scn, uint64_t vaddr, const char **name,
                      uint64_t *offset)
{
    GElf_Shdr sh;
    Elf_Data *data = elf_getdata(scn, NULL);
    size_t i, n;
    int found = 0;
    uint64_t best = 0;
    if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize || !data)
        return 0;
    n = sh.sh_size / sh.sh_entsize;
    for (i = 0; i < n; i++) {
        GElf_Sym sym;
        const char *s;
        if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
            sym.st_shndx == SHN_UNDEF || sym.st_value > vaddr ||
            vaddr >= sym.st_value + (sym.st_size ? sym.st_size : 1) ||
            (found && sym.st_value <= best))
            continue;
        s = elf_strptr(elf, sh.sh_link, sym.st_name);
        if (!s || !*s)
            continue;
        found = 1;
        best = sym.st_value;
        *name = s;
        *offset = vaddr - sym.st_value;
    }
    return found;
}

/* Each address within 3 bytes of `at` looked up both ways. */
static size_t compare_near(Elf *elf, Elf_Scn *scn, const struct ju_symbol_index *ix, uint64_t at)
{
    int d;
    for (d = -3; d <= 3; d++) {
        uint64_t vaddr = at + (uint64_t)(int64_t)d, want_off = 0, got_off = 0;
        const char *want = NULL;
        char got[256] = "";
        int w = model_find(elf, scn, vaddr, &want, &want_off);
        int g = ju_symbol_index_find(ix, vaddr, got, sizeof got, &got_off);
        ck_assert_msg(w == g, "at %#llx: the table says %s, the index %s",
                      (unsigned long long)vaddr, w ? want : "none", g ? got : "none");
        if (w) {
            ck_assert_str_eq(got, want);
            ck_assert_uint_eq(got_off, want_off);
        }
    }
    return 7;
}

/* Every address within 3 bytes of the start and end of each function (of
 * at most PROBED of them, spread over the table: the model is a pass over
 * it) and of `extra`, looked up both ways; returns how many were compared. */
#define PROBED 1500u
static size_t compare_table(Elf *elf, Elf_Scn *scn, const uint64_t *extra, size_t n_extra)
{
    struct ju_symbol_index ix;
    GElf_Shdr sh;
    Elf_Data *data = elf_getdata(scn, NULL);
    size_t i, n, compared = 0;
    ck_assert_int_eq(ju_symbol_index_build(elf, scn, &ix), 0);
    ck_assert(gelf_getshdr(scn, &sh) && sh.sh_entsize && data);
    n = sh.sh_size / sh.sh_entsize;
    for (i = 0; i < n; i += n > PROBED ? n / PROBED : 1) {
        GElf_Sym sym;
        if (gelf_getsym(data, (int)i, &sym) && GELF_ST_TYPE(sym.st_info) == STT_FUNC)
            compared += compare_near(elf, scn, &ix, sym.st_value) +
                        compare_near(elf, scn, &ix, sym.st_value + sym.st_size);
    }
    for (i = 0; i < n_extra; i++)
        compared += compare_near(elf, scn, &ix, extra[i]);
    ju_symbol_index_free(&ix);
    return compared;
}

/* The first table of `type` in the ELF file at `path`, opened. */
static Elf_Scn *table(const char *path, Elf64_Word type, int *fd, Elf **elf)
{
    Elf_Scn *scn = NULL;
    if (ju_elf_open(path, fd, elf) < 0)
        return NULL;
    while ((scn = elf_nextscn(*elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
            return scn;
    }
    ju_elf_close(*fd, *elf);
    return NULL;
}

/* The functions made above, through the test's own .symtab: each shape's
 * answer spelled out, then every address near them against the rule. */
START_TEST(index_answers_each_shape_as_the_table_does)
{
    extern char si_outer[];
    uint64_t base = 0, off = 0;
    struct ju_symbol_index ix;
    char name[64];
    int fd;
    Elf *elf;
    Elf_Scn *scn = table("/proc/self/exe", SHT_SYMTAB, &fd, &elf);
    ck_assert_msg(scn != NULL, "the test binary has no .symtab");
    ck_assert_int_eq(ju_symbol_index_build(elf, scn, &ix), 0);
    { /* si_outer's link-time address: the executable may be loaded anywhere */
        GElf_Shdr sh;
        Elf_Data *data = elf_getdata(scn, NULL);
        size_t i;
        gelf_getshdr(scn, &sh);
        for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Sym sym;
            const char *s;
            if (gelf_getsym(data, (int)i, &sym) &&
                (s = elf_strptr(elf, sh.sh_link, sym.st_name)) && strcmp(s, "si_outer") == 0)
                base = sym.st_value;
        }
    }
    ck_assert(base != 0 && si_outer != NULL);
    ck_assert(ju_symbol_index_find(&ix, base + 20, name, sizeof name, &off));
    ck_assert_str_eq(name, "si_inner"); /* the innermost: highest value */
    ck_assert_uint_eq(off, 4);
    ck_assert(ju_symbol_index_find(&ix, base + 30, name, sizeof name, &off));
    ck_assert_str_eq(name, "si_outer"); /* past inner: the outer one, which starts lower */
    ck_assert_uint_eq(off, 30);
    ck_assert(ju_symbol_index_find(&ix, base + 40, name, sizeof name, &off));
    ck_assert_str_eq(name, "si_empty"); /* a size of 0 holds its own address */
    ck_assert(ju_symbol_index_find(&ix, base + 41, name, sizeof name, &off));
    ck_assert_str_eq(name, "si_outer");
    ck_assert(ju_symbol_index_find(&ix, base + 50, name, sizeof name, &off));
    ck_assert(strcmp(name, "si_twin_a") == 0 || strcmp(name, "si_twin_b") == 0);
    ck_assert(ju_symbol_index_find(&ix, base + 56, name, sizeof name, &off));
    ck_assert_str_eq(name, "si_twin_b"); /* past twin_a's 4 bytes */
    ck_assert(!ju_symbol_index_find(&ix, base + 100, name, sizeof name, &off) ||
              strcmp(name, "si_blob") != 0); /* an object names no code */
    ju_symbol_index_free(&ix);
    {
        uint64_t near[128];
        size_t i;
        for (i = 0; i < 128; i++)
            near[i] = base + i;
        ck_assert_uint_gt(compare_table(elf, scn, near, 128), 0);
    }
    ju_elf_close(fd, elf);
}
END_TEST

/* Real tables: libc's dynamic one, and the full ones of the interpreter's
 * and libc's separate debug files when installed. */
START_TEST(index_answers_real_tables_as_the_table_does)
{
    static const struct {
        const char *path;
        Elf64_Word type;
    } files[] = {{"/lib/x86_64-linux-gnu/libc.so.6", SHT_DYNSYM},
                 {"/lib/aarch64-linux-gnu/libc.so.6", SHT_DYNSYM},
                 {"/usr/bin/python3.11", SHT_DYNSYM}};
    size_t i, files_read = 0;
    for (i = 0; i < sizeof files / sizeof files[0]; i++) {
        int fd;
        Elf *elf;
        Elf_Scn *scn = table(files[i].path, files[i].type, &fd, &elf);
        char debug[4096];
        if (!scn)
            continue;
        ck_assert_uint_gt(compare_table(elf, scn, NULL, 0), 1000);
        files_read++;
        if (ju_debug_file_find(elf, files[i].path, 0, debug, sizeof debug, NULL, 0) == 0) {
            int dfd;
            Elf *delf;
            Elf_Scn *dscn = table(debug, SHT_SYMTAB, &dfd, &delf);
            if (dscn) {
                ck_assert_uint_gt(compare_table(delf, dscn, NULL, 0), 1000);
                ju_elf_close(dfd, delf);
            }
        }
        ju_elf_close(fd, elf);
    }
    if (!files_read)
        ju_skip("neither libc.so.6 nor /usr/bin/python3.11 at their Debian paths");
}
END_TEST

int main(void)
{
    return ju_run_tests("symbol_index", JU_TESTS(index_answers_each_shape_as_the_table_does,
                                                 index_answers_real_tables_as_the_table_does));
}
