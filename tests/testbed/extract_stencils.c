/* Build-time extractor for the test bed's stencils: reads the stencil
 * object file with libelf and writes a header with each stencil's machine
 * code and holes (offset, symbol, addend), in a fixed order.
 *
 * Usage: extract_stencils STENCILS.o OUTPUT.h
 * Each hole has a kind the JIT patches (JITBED_RELOC_*):
 *   x86-64 (-mcmodel=large): R_X86_64_64 only, an absolute 64-bit value;
 *   AArch64 (-mcmodel=large -mpc-relative-literal-loads): R_AARCH64_ABS64 in
 *   the stencil's own literal pool, and R_AARCH64_JUMP26 / CALL26 for `b` and
 *   `bl`, which the JIT points at the target or at a veneer when it is out
 *   of the branch's +-128 MiB reach (as CPython's AArch64 JIT does).
 * Fails (exit 1, with a message) on anything it does not understand: another
 * relocation type, an unknown symbol, a missing stencil, or a _JIT_CONTINUE
 * hole that is not a tail jump (x86-64: an indirect jmp follows the hole;
 * AArch64: a JUMP26 `b`, never a `bl`): the continuation must never be a
 * call. */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const STENCILS[] = {"stencil_enter", "stencil_work", "stencil_call",
                                       "stencil_check", "stencil_exit"};
#define N_STENCILS (sizeof STENCILS / sizeof STENCILS[0])
static const char *const HOLES[] = {"_JIT_CONTINUE", "_JIT_OPERAND", "jitbed_call_python"};
#define N_HOLES (sizeof HOLES / sizeof HOLES[0])

static void die(const char *msg, const char *arg)
{
    fprintf(stderr, "extract_stencils: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    exit(1);
}

enum { RELOC_ABS64, RELOC_JUMP26, RELOC_CALL26 };

/* The hole kind of a relocation type of `machine`, or -1. */
static int reloc_kind(int machine, unsigned type)
{
    if (machine == EM_X86_64 && type == R_X86_64_64)
        return RELOC_ABS64;
    if (machine == EM_AARCH64 && type == R_AARCH64_ABS64)
        return RELOC_ABS64;
    if (machine == EM_AARCH64 && type == R_AARCH64_JUMP26)
        return RELOC_JUMP26;
    if (machine == EM_AARCH64 && type == R_AARCH64_CALL26)
        return RELOC_CALL26;
    return -1;
}

static int hole_index(const char *name)
{
    size_t i;
    for (i = 0; i < N_HOLES; i++)
        if (strcmp(name, HOLES[i]) == 0)
            return (int)i;
    return -1;
}

/* The code after a _JIT_CONTINUE hole must reach an indirect jmp (FF /4,
 * mod=11, optionally after REX.B) before any indirect call (FF /2) or ret;
 * the scheduler may put a few instructions in between. */
static int reaches_indirect_jmp(const unsigned char *p, size_t avail)
{
    size_t i, limit = avail < 24 ? avail : 24;
    for (i = 0; i + 1 < limit; i++) {
        if (p[i] == 0xc3)
            return 0;
        if (p[i] == 0xff && (p[i + 1] & 0xf8) == 0xd0)
            return 0;
        if (p[i] == 0xff && (p[i + 1] & 0xf8) == 0xe0)
            return 1;
    }
    return 0;
}

/* A _JIT_CONTINUE hole must be a tail jump. */
static int is_tail_jump(int machine, int kind, const unsigned char *code, size_t size,
                        size_t offset)
{
    if (machine == EM_AARCH64)
        return kind == RELOC_JUMP26;
    return offset + 8 <= size && reaches_indirect_jmp(code + offset + 8, size - offset - 8);
}

static void emit_stencil(FILE *out, Elf *elf, int machine, Elf_Scn *text, size_t text_index,
                         const char *name, size_t symtab_link, Elf_Data *symdata)
{
    Elf_Data *code = elf_getdata(text, NULL);
    Elf_Scn *scn = NULL;
    const unsigned char *bytes;
    size_t i, holes = 0;
    if (!code || code->d_size == 0)
        die("empty stencil", name);
    bytes = code->d_buf;
    fprintf(out, "static const unsigned char %s_code[%zu] = {", name, code->d_size);
    for (i = 0; i < code->d_size; i++)
        fprintf(out, "%s0x%02x", i ? "," : "", bytes[i]);
    fprintf(out, "};\nstatic const struct jitbed_hole %s_holes[] = {\n", name);
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        Elf_Data *rel;
        size_t n, r;
        if (!gelf_getshdr(scn, &sh) || sh.sh_info != text_index)
            continue;
        if (sh.sh_type == SHT_REL)
            die("SHT_REL relocations are not supported", name);
        if (sh.sh_type != SHT_RELA)
            continue;
        rel = elf_getdata(scn, NULL);
        n = sh.sh_size / sh.sh_entsize;
        for (r = 0; r < n; r++) {
            GElf_Rela ra;
            GElf_Sym sym;
            const char *sym_name;
            int hole, kind;
            gelf_getrela(rel, (int)r, &ra);
            kind = reloc_kind(machine, (unsigned)GELF_R_TYPE(ra.r_info));
            if (kind < 0)
                die("unsupported relocation type", name);
            gelf_getsym(symdata, (int)GELF_R_SYM(ra.r_info), &sym);
            sym_name = elf_strptr(elf, symtab_link, sym.st_name);
            hole = sym_name ? hole_index(sym_name) : -1;
            if (hole < 0)
                die("reference to an unknown symbol", sym_name ? sym_name : "(section)");
            if (hole == 0 && !is_tail_jump(machine, kind, bytes, code->d_size, (size_t)ra.r_offset))
                die("_JIT_CONTINUE is not reached by a tail jump", name);
            fprintf(out, "    {%llu, JITBED_HOLE_%d, %d, %lld},\n", (unsigned long long)ra.r_offset,
                    hole, kind, (long long)ra.r_addend);
            holes++;
        }
    }
    if (holes == 0)
        fprintf(out, "    {0, -1, 0, 0},\n");
    fprintf(out, "};\n#define %s_nholes %zu\n\n", name, holes);
}

int main(int argc, char **argv)
{
    int fd;
    Elf *elf;
    size_t shstrndx, s;
    Elf_Scn *scn = NULL, *symtab = NULL;
    GElf_Shdr symsh;
    GElf_Ehdr eh;
    FILE *out;
    if (argc != 3)
        die("usage: extract_stencils STENCILS.o OUTPUT.h", NULL);
    elf_version(EV_CURRENT);
    fd = open(argv[1], O_RDONLY);
    if (fd < 0)
        die("cannot open", argv[1]);
    elf = elf_begin(fd, ELF_C_READ, NULL);
    if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx) != 0)
        die("not an ELF object", argv[1]);
    if (!gelf_getehdr(elf, &eh) || (eh.e_machine != EM_X86_64 && eh.e_machine != EM_AARCH64))
        die("not an x86-64 or AArch64 object", argv[1]);
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
            symtab = scn;
    }
    if (!symtab || !gelf_getshdr(symtab, &symsh))
        die("no symbol table", argv[1]);
    out = fopen(argv[2], "w");
    if (!out)
        die("cannot write", argv[2]);
    fprintf(out, "/* Generated by extract_stencils from %s. Do not edit. */\n", argv[1]);
    fprintf(out, "struct jitbed_hole { unsigned offset; int symbol; int kind; long long addend; };\n");
    fprintf(out, "#define JITBED_RELOC_ABS64 %d\n#define JITBED_RELOC_JUMP26 %d\n"
                 "#define JITBED_RELOC_CALL26 %d\n", RELOC_ABS64, RELOC_JUMP26, RELOC_CALL26);
    for (s = 0; s < N_HOLES; s++)
        fprintf(out, "#define JITBED_HOLE_%zu %zu /* %s */\n", s, s, HOLES[s]);
    for (s = 0; s < N_STENCILS; s++) {
        char want[128];
        int found = 0;
        snprintf(want, sizeof want, ".text.%s", STENCILS[s]);
        scn = NULL;
        while ((scn = elf_nextscn(elf, scn)) != NULL) {
            GElf_Shdr sh;
            const char *name;
            if (!gelf_getshdr(scn, &sh))
                continue;
            name = elf_strptr(elf, shstrndx, sh.sh_name);
            if (name && strcmp(name, want) == 0) {
                emit_stencil(out, elf, eh.e_machine, scn, elf_ndxscn(scn), STENCILS[s], symsh.sh_link,
                             elf_getdata(symtab, NULL));
                found = 1;
                break;
            }
        }
        if (!found)
            die("missing stencil section", want);
    }
    fprintf(out, "struct jitbed_stencil { const unsigned char *code; unsigned size; "
                 "const struct jitbed_hole *holes; unsigned nholes; };\n");
    fprintf(out, "static const struct jitbed_stencil JITBED_STENCILS[] = {\n");
    for (s = 0; s < N_STENCILS; s++)
        fprintf(out, "    {%s_code, sizeof %s_code, %s_holes, %s_nholes},\n", STENCILS[s],
                STENCILS[s], STENCILS[s], STENCILS[s]);
    fprintf(out, "};\n#define JITBED_N_STENCILS %zu\n", N_STENCILS);
    fclose(out);
    elf_end(elf);
    close(fd);
    return 0;
}
