/* Ranges from the GDB JIT interface: each registered in-memory ELF object's
 * .text bounds and first function symbol, with the unwind rule read from its
 * .eh_frame through libdw. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdlib.h>

#include "base/arch_facts.h"
#include "internal.h"
#include "base/cycle.h"
#include "ranges/registry_loaders.h"

struct object_info {
    uint64_t start, end;
    char name[JITUNWIND_NAME_MAX];
    int rule; /* JITUNWIND_RULE_*, or < 0: not a rule we have */
    uint32_t frame_size; /* FP_PRESERVING: the CFA's offset from the frame pointer */
};

/* Does the CFI at `pc` find the frame from the frame pointer, and how far
 * above it is the caller's sp? The frame record at the frame pointer is the
 * ABI's on both architectures; CPython 3.15's executors say CFA = fp + 16 on
 * x86-64 and CFA = x29 + 96 on AArch64 (the shim's whole frame). */
static int rule_from_cfi(Elf *elf, uint64_t pc, int arch, uint32_t *frame_size)
{
    Dwarf_CFI *cfi = dwarf_getcfi_elf(elf);
    Dwarf_Frame *frame = NULL;
    Dwarf_Op *ops;
    Dwarf_Sword offset = 0;
    size_t nops;
    int rule = JITUNWIND_RULE_FP_PRESERVING;
    const struct ju_arch_facts *a = ju_arch_facts(arch);
    int fp_reg = a->dwarf_fp;
    *frame_size = 0;
    if (!cfi || dwarf_cfi_addrframe(cfi, pc, &frame) != 0) {
        if (cfi)
            dwarf_cfi_end(cfi);
        return rule; /* no CFI: the frame-pointer rule is all there is */
    }
    if (dwarf_frame_cfa(frame, &ops, &nops) != 0 || nops != 1 ||
        !((ops[0].atom == DW_OP_bregx && ops[0].number == (Dwarf_Word)fp_reg) ||
          ops[0].atom == DW_OP_breg0 + fp_reg))
        rule = JITUNWIND_ENOTFOUND;
    else
        offset = (Dwarf_Sword)(ops[0].atom == DW_OP_bregx ? ops[0].number2 : ops[0].number);
    if (rule > 0 && (a->frame_record_cfa_fixed ? offset != a->frame_record_size
                                               : offset < a->frame_record_size ||
                                                     offset > JITUNWIND_MAX_FRAME_SIZE ||
                                                     (offset & 7)))
        rule = JITUNWIND_ENOTFOUND;
    if (rule > 0)
        *frame_size = (uint32_t)offset;
    free(frame);
    dwarf_cfi_end(cfi);
    return rule;
}

static int parse_object(uint8_t *image, size_t size, int arch, struct object_info *out)
{
    Elf *elf = elf_memory((char *)image, size);
    Elf_Scn *scn = NULL;
    GElf_Ehdr eh;
    size_t shstrndx;
    int found = 0;
    if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx) != 0 ||
        !gelf_getehdr(elf, &eh) ||
        eh.e_machine != ju_arch_facts(arch)->elf_machine) {
        if (elf)
            elf_end(elf);
        return JITUNWIND_EELF; /* not an ELF object, or not for this architecture */
    }
    out->name[0] = '\0';
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        const char *name;
        if (!gelf_getshdr(scn, &sh))
            continue;
        name = elf_strptr(elf, shstrndx, sh.sh_name);
        if (name && strcmp(name, JITUNWIND_IMAGE_MARKER) == 0) {
            elf_end(elf);
            return JITUNWIND_EUNSUPPORTED; /* ours: its ranges are in our descriptor */
        }
        if (name && strcmp(name, ".text") == 0 && sh.sh_size && !found) {
            out->start = sh.sh_addr;
            out->end = sh.sh_addr + sh.sh_size;
            found = out->end > out->start;
        } else if (sh.sh_type == SHT_SYMTAB && sh.sh_entsize && !out->name[0]) {
            Elf_Data *data = elf_getdata(scn, NULL);
            size_t i, n = sh.sh_size / sh.sh_entsize;
            for (i = 0; data && i < n; i++) {
                GElf_Sym sym;
                const char *s;
                if (gelf_getsym(data, (int)i, &sym) && GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
                    (s = elf_strptr(elf, sh.sh_link, sym.st_name)) != NULL && *s) {
                    ju_strlcpy(out->name, s, sizeof out->name);
                    break;
                }
            }
        }
    }
    out->rule = found ? rule_from_cfi(elf, out->start, arch, &out->frame_size)
                      : JITUNWIND_ENOTFOUND;
    elf_end(elf);
    return found ? 0 : JITUNWIND_ENOTFOUND;
}

JITUNWIND_API int jitunwind_registry_load_gdb_jit(jitunwind_registry *reg,
                                                  const struct jitunwind_memory *mem,
                                                  uint64_t descriptor_addr, int arch,
                                                  size_t *added, size_t *skipped)
{
    uint8_t head[24], entry[32];
    uint64_t addr;
    struct ju_cycle seen = {0, 1, 0};
    size_t n = 0, n_added = 0, n_skipped = 0;
    uint64_t read_bytes = 0; /* the objects' sizes summed, against JITUNWIND_GDB_JIT_MAX_BYTES */
    uint8_t *image = NULL;
    int rc = 0;
    if (!reg || !ju_memory_valid(mem) || !ju_arch_facts(arch))
        return JITUNWIND_EINVAL;
    elf_version(EV_CURRENT);
    if (ju_read(mem, descriptor_addr, head, sizeof head) < 0)
        return ju_fail(ju_registry_error(reg), JITUNWIND_EREAD, descriptor_addr,
                       "__jit_debug_descriptor at %#llx is unreadable",
                       (unsigned long long)descriptor_addr);
    if (ju_load_u32(head) != 1)
        return ju_fail(ju_registry_error(reg), JITUNWIND_EVERSION, descriptor_addr,
                       "GDB JIT interface version %u (expected 1)", ju_load_u32(head));
    addr = ju_load_u64(head + 16);
    while (addr) {
        uint64_t symfile, size, at = addr;
        struct object_info info;
        struct jitunwind_range r = {0};
        int prc = 0;
        if (ju_cycle_seen(&seen, addr)) {
            rc = ju_fail(ju_registry_error(reg), JITUNWIND_ELOOP, addr,
                         "the GDB JIT entry list loops");
            break;
        }
        if (++n > JITUNWIND_GDB_JIT_MAX_ENTRIES) {
            rc = ju_fail(ju_registry_error(reg), JITUNWIND_ELIMIT, addr,
                         "more than %u GDB JIT entries", JITUNWIND_GDB_JIT_MAX_ENTRIES);
            break;
        }
        if (ju_read(mem, addr, entry, sizeof entry) < 0) {
            rc = ju_fail(ju_registry_error(reg), JITUNWIND_EREAD, addr,
                         "GDB JIT entry %#llx is unreadable", (unsigned long long)addr);
            break;
        }
        addr = ju_load_u64(entry);
        symfile = ju_load_u64(entry + 16);
        size = ju_load_u64(entry + 24);
        if (size < 64 || size > JITUNWIND_GDB_JIT_MAX_OBJECT) {
            n_skipped++;
            continue;
        }
        if (read_bytes + size > JITUNWIND_GDB_JIT_MAX_BYTES) {
            rc = ju_fail(ju_registry_error(reg), JITUNWIND_ELIMIT, at,
                         "GDB JIT objects of more than %u MiB in all: the list is left out "
                         "from entry %zu on", JITUNWIND_GDB_JIT_MAX_BYTES >> 20, n);
            break;
        }
        read_bytes += size;
        if (!image && !(image = malloc(JITUNWIND_GDB_JIT_MAX_OBJECT))) {
            rc = JITUNWIND_ENOMEM;
            break;
        }
        if (ju_read(mem, symfile, image, (size_t)size) < 0 ||
            (prc = parse_object(image, (size_t)size, arch, &info)) < 0 || info.rule < 0) {
            n_skipped += prc != JITUNWIND_EUNSUPPORTED;
            continue;
        }
        r.start = info.start;
        r.end = info.end;
        r.kind = JITUNWIND_KIND_JIT;
        r.rule = (uint32_t)info.rule;
        r.frame_size = info.frame_size;
        r.origin = JITUNWIND_ORIGIN_INTERPRETER;
        r.name = info.name[0] ? info.name : "py::jit";
        if (jitunwind_registry_add(reg, &r) == 0)
            n_added++;
        else
            n_skipped++;
    }
    free(image);
    if (added)
        *added = n_added;
    if (skipped)
        *skipped = n_skipped;
    return rc;
}
