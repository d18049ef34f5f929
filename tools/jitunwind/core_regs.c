/* Registers of a core's threads (NT_PRSTATUS notes, one per thread, the
 * faulting thread first) and the process it was dumped from (NT_PRPSINFO). */
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <sys/procfs.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static void regs_from_prstatus(const prstatus_t *st, struct cli_thread *t)
{
#if defined(__x86_64__)
    /* elf_gregset_t is struct user_regs_struct's order. */
    t->regs.pc = (uint64_t)st->pr_reg[16]; /* rip */
    t->regs.sp = (uint64_t)st->pr_reg[19]; /* rsp */
    t->regs.fp = (uint64_t)st->pr_reg[4];  /* rbp */
    t->regs.valid = JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP;
    t->all.valid = 0;
    cli_thread_dwarf_reg(t, 3, (uint64_t)st->pr_reg[5]);  /* rbx */
    cli_thread_dwarf_reg(t, 12, (uint64_t)st->pr_reg[3]); /* r12 */
    cli_thread_dwarf_reg(t, 13, (uint64_t)st->pr_reg[2]); /* r13 */
    cli_thread_dwarf_reg(t, 14, (uint64_t)st->pr_reg[1]); /* r14 */
    cli_thread_dwarf_reg(t, 15, (uint64_t)st->pr_reg[0]); /* r15 */
#elif defined(__aarch64__)
    t->regs.pc = (uint64_t)st->pr_reg[32];
    t->regs.sp = (uint64_t)st->pr_reg[31];
    t->regs.fp = (uint64_t)st->pr_reg[29];
    t->regs.lr = (uint64_t)st->pr_reg[30];
    t->regs.valid = JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP | JITUNWIND_REG_LR;
    t->all.valid = 0;
    for (unsigned n = 19; n <= 28; n++)
        cli_thread_dwarf_reg(t, n, (uint64_t)st->pr_reg[n]);
#endif
    t->have_regs = 1;
}

int cli_core_threads(const char *core_path, struct cli_thread *out, size_t max, size_t *count,
                     char *err, size_t err_len)
{
    int fd;
    Elf *elf;
    GElf_Ehdr eh;
    size_t phnum, i, n = 0;
    char why[128];
    *count = 0;
    elf_version(EV_CURRENT);
    if ((fd = cli_open_regular(core_path, why, sizeof why)) < 0) {
        snprintf(err, err_len, "cannot open %s: %s", core_path, why);
        return -1;
    }
    elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (!elf || !gelf_getehdr(elf, &eh) || eh.e_type != ET_CORE ||
        elf_getphdrnum(elf, &phnum) != 0) {
        snprintf(err, err_len, "%s is not an ELF core", core_path);
        goto fail;
    }
    if ((jitunwind_host_arch() == JITUNWIND_ARCH_X86_64 && eh.e_machine != EM_X86_64) ||
        (jitunwind_host_arch() == JITUNWIND_ARCH_AARCH64 && eh.e_machine != EM_AARCH64)) {
        snprintf(err, err_len, "%s is a core of another architecture (ELF machine %u)",
                 core_path, eh.e_machine);
        goto fail;
    }
    for (i = 0; i < phnum && n < max; i++) {
        GElf_Phdr ph;
        GElf_Nhdr nh;
        Elf_Data *data;
        size_t off = 0, name_off, desc_off;
        if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
            continue;
        if (!(data = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR)))
            continue;
        while (n < max && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
            prstatus_t st;
            if (nh.n_type != NT_PRSTATUS || nh.n_descsz < sizeof st ||
                memcmp((const char *)data->d_buf + name_off, "CORE", 4) != 0)
                continue;
            memcpy(&st, (const char *)data->d_buf + desc_off, sizeof st);
            memset(&out[n], 0, sizeof out[n]);
            out[n].tid = st.pr_pid;
            regs_from_prstatus(&st, &out[n]);
            n++;
        }
    }
    elf_end(elf);
    close(fd);
    *count = n;
    if (n == 0) {
        snprintf(err, err_len, "%s has no thread (NT_PRSTATUS) notes", core_path);
        return -1;
    }
    return 0;
fail:
    if (elf)
        elf_end(elf);
    close(fd);
    return -1;
}

/* The GNU build id of an ELF image read through `read(arg, offset, dst,
 * len)` (file offsets from the image's start). */
int cli_core_pid(const char *core_path)
{
    int fd, pid = 0;
    Elf *elf;
    size_t phnum, i;
    char why[128];
    elf_version(EV_CURRENT);
    if ((fd = cli_open_regular(core_path, why, sizeof why)) < 0)
        return 0;
    elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (elf && elf_getphdrnum(elf, &phnum) == 0) {
        for (i = 0; i < phnum && !pid; i++) {
            GElf_Phdr ph;
            GElf_Nhdr nh;
            Elf_Data *data;
            size_t off = 0, name_off, desc_off;
            if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE ||
                !(data = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
                                              ELF_T_NHDR)))
                continue;
            while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
                prpsinfo_t ps;
                if (nh.n_type != NT_PRPSINFO || nh.n_descsz < sizeof ps)
                    continue;
                memcpy(&ps, (const char *)data->d_buf + desc_off, sizeof ps);
                pid = ps.pr_pid;
                break;
            }
        }
    }
    if (elf)
        elf_end(elf);
    close(fd);
    return pid;
}

int cli_core_notes_cut(const char *core_path)
{
    int fd, cut = 0;
    Elf *elf;
    size_t phnum, i;
    struct stat st;
    char why[128];
    elf_version(EV_CURRENT);
    if ((fd = cli_open_regular(core_path, why, sizeof why)) < 0)
        return 0; /* said by whoever opens it next */
    elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (elf && fstat(fd, &st) == 0 && elf_getphdrnum(elf, &phnum) == 0) {
        for (i = 0; i < phnum && !cut; i++) {
            GElf_Phdr ph;
            if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_NOTE &&
                (ph.p_offset > (uint64_t)st.st_size ||
                 ph.p_filesz > (uint64_t)st.st_size - ph.p_offset))
                cut = 1;
        }
    }
    if (elf)
        elf_end(elf);
    close(fd);
    return cut;
}
