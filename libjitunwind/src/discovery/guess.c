/* Last-resort ranges from anonymous executable mappings, marked as guesses. */
#include <stdio.h>

#include "base/arch_facts.h"
#include "base/trampoline_stride.h"
#include "elf/elf.h"
#include "internal.h"
#include "unwind/arch/rules.h"

JITUNWIND_API int jitunwind_anonymous_exec_mappings(int pid, struct jitunwind_mapping *out,
                                                    size_t max, size_t *count)
{
    char path[64], line[4096];
    FILE *f;
    size_t n = 0, lines = 0;
    if (!count || (!out && max) || pid <= 0)
        return JITUNWIND_EINVAL;
    *count = 0;
    snprintf(path, sizeof path, "/proc/%d/maps", pid);
    f = fopen(path, "re");
    if (!f)
        return JITUNWIND_EIO;
    while (fgets(line, sizeof line, f) && ++lines <= JITUNWIND_MAX_MAPPINGS) {
        unsigned long long start, end;
        char perms[5];
        int name_at = 0;
        if (sscanf(line, "%llx-%llx %4s %*x %*x:%*x %*u %n", &start, &end, perms, &name_at) < 3)
            continue;
        if (perms[2] != 'x' || (name_at && line[name_at] != '\n' && line[name_at] != '\0' &&
                                strncmp(line + name_at, "[anon", 5) != 0))
            continue; /* file-backed, [vdso], [vsyscall] ... */
        if (n >= max) {
            fclose(f);
            *count = n;
            return JITUNWIND_ELIMIT;
        }
        out[n].start = start;
        out[n].end = end;
        n++;
    }
    fclose(f);
    *count = n;
    return 0;
}

/* Length of the trampoline copy of `rule` at `code`: its head, if any,
 * and its template. */
static uint64_t copy_size(int arch, const uint8_t *code, size_t len, int rule)
{
    const struct ju_arch_facts *a = ju_arch_facts(arch);
    int head = ju_code_head(a, code, len);
    const struct ju_rule_layout *l = ju_rule_layout(arch, (uint32_t)rule, head);
    return l ? ju_rule_copy_len(a, l, head) : 0;
}

static int overlaps(const jitunwind_registry *reg, uint64_t start, uint64_t end)
{
    size_t i, n = jitunwind_registry_count(reg);
    for (i = 0; i < n; i++) {
        const struct jitunwind_range *r = jitunwind_registry_at(reg, i);
        if (r->start < end && start < r->end)
            return 1;
    }
    return 0;
}

/* CPython (3.12+) makes trampoline arenas of 64 KiB; the kernel merges
 * neighbouring ones into one mapping, so a mapping is classified piece by
 * piece at that size when it starts with a trampoline. */
#define ARENA_SIZE (64u * 1024u)

static int guess_one(jitunwind_registry *reg, const struct jitunwind_memory *mem, int arch,
                     uint64_t start, uint64_t end)
{
    struct jitunwind_range r = {0};
    uint8_t code[32];
    int rule;
    if (overlaps(reg, start, end) || ju_read(mem, start, code, sizeof code) < 0)
        return 0;
    r.start = start;
    r.end = end;
    r.origin = JITUNWIND_ORIGIN_GUESS;
    rule = jitunwind_classify_trampoline(arch, code, sizeof code);
    if (rule > 0) {
        uint64_t size = copy_size(arch, code, sizeof code, rule);
        uint64_t stride = ju_trampoline_stride(mem, start, end, code, size);
        if (stride == 0 || stride > UINT32_MAX)
            return 0;
        r.kind = JITUNWIND_KIND_TRAMPOLINE;
        r.rule = (uint32_t)rule;
        r.stride = (uint32_t)stride;
        r.name = "guess: trampoline arena";
    } else {
        r.kind = JITUNWIND_KIND_JIT;
        r.rule = JITUNWIND_RULE_FP_PRESERVING;
        r.name = "guess: anonymous executable code"; /* rule shown: fp-preserving */
    }
    return jitunwind_registry_add(reg, &r) == 0;
}

JITUNWIND_API int jitunwind_registry_add_guesses(jitunwind_registry *reg,
                                                 const struct jitunwind_memory *mem, int arch,
                                                 const struct jitunwind_mapping *maps, size_t n,
                                                 size_t *added)
{
    size_t i, count = 0;
    if (!reg || !ju_memory_valid(mem) || (!maps && n) || n > JITUNWIND_MAX_MAPPINGS || !ju_arch_facts(arch))
        return JITUNWIND_EINVAL;
    for (i = 0; i < n; i++) {
        uint64_t start = maps[i].start, end = maps[i].end;
        uint8_t code[32];
        /* Found by fuzzing (fuzz_trampolines): a mapping of 2^60 bytes was
         * split into 2^44 arenas. No range from a target is that large. */
        if (end <= start || end - start > JITUNWIND_MAX_TARGET_RANGE)
            continue;
        if ((end - start) % ARENA_SIZE == 0 && end - start > ARENA_SIZE &&
            ju_read(mem, start, code, sizeof code) == 0 &&
            jitunwind_classify_trampoline(arch, code, sizeof code) > 0) {
            uint64_t at;
            for (at = start; at < end; at += ARENA_SIZE)
                count += (size_t)guess_one(reg, mem, arch, at, at + ARENA_SIZE);
        } else {
            count += (size_t)guess_one(reg, mem, arch, start, end);
        }
    }
    if (added)
        *added = count;
    return 0;
}

/* Addresses from here up are the kernel's on every 64-bit architecture
 * supported; a core (gdb's gcore) may still hold a page of them. */
#define KERNEL_HALF (1ull << 63)

/* Is [start, end) overlapped by any mapping of the NT_FILE note? */
static int file_backed(const uint8_t *desc, size_t size, uint64_t start, uint64_t end)
{
    uint64_t count, i;
    if (size < 16)
        return 0;
    count = ju_load_u64(desc);
    if (count > JU_MAX_NT_FILE_ENTRIES || 16 + count * 24 > size)
        return 0;
    for (i = 0; i < count; i++) {
        const uint8_t *e = desc + 16 + i * 24;
        if (ju_load_u64(e) < end && start < ju_load_u64(e + 8))
            return 1;
    }
    return 0;
}

JITUNWIND_API int jitunwind_core_anonymous_exec_mappings(const char *core_path,
                                                         struct jitunwind_mapping *out,
                                                         size_t max, size_t *count)
{
    int fd, rc;
    Elf *elf;
    const uint8_t *desc = NULL;
    size_t size = 0, phnum, i, n = 0;
    if (!core_path || !count || (!out && max))
        return JITUNWIND_EINVAL;
    *count = 0;
    if ((rc = ju_core_open(core_path, &fd, &elf)) < 0)
        return rc;
    if (ju_core_nt_file(elf, &desc, &size) < 0)
        desc = NULL; /* no note: every executable segment counts as anonymous */
    rc = 0;
    if (elf_getphdrnum(elf, &phnum) != 0)
        rc = JITUNWIND_EELF;
    for (i = 0; rc == 0 && i < phnum && i < JITUNWIND_MAX_MAPPINGS; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) ||
            ph.p_filesz == 0 || ph.p_vaddr + ph.p_memsz < ph.p_vaddr)
            continue; /* not executable, or its contents were not dumped */
        if (desc && file_backed(desc, size, ph.p_vaddr, ph.p_vaddr + ph.p_memsz))
            continue;
        if (ph.p_vaddr >= KERNEL_HALF)
            continue; /* the kernel's, not the process's: x86-64's [vsyscall] page */
        if (ph.p_filesz >= 4) { /* an ELF image (the vDSO) is not JIT code */
            Elf_Data *head = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, 4, ELF_T_BYTE);
            if (head && head->d_buf && memcmp(head->d_buf, "\177ELF", 4) == 0)
                continue;
        }
        if (n >= max) {
            rc = JITUNWIND_ELIMIT;
            break;
        }
        out[n].start = ph.p_vaddr;
        out[n].end = ph.p_vaddr + ph.p_memsz;
        n++;
    }
    ju_elf_close(fd, elf);
    *count = n;
    return rc;
}
