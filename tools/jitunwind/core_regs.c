/* Registers of a core's threads (NT_PRSTATUS notes, one per thread, the
 * faulting thread first) and the build ids that tell whether a core was
 * dumped from a given executable. */
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <sys/procfs.h>
#include <unistd.h>

#include "cli.h"

#define PAGE 4096u
#define MAX_NOTE_BYTES (1u << 20)

static void regs_from_prstatus(const prstatus_t *st, struct cli_thread *t)
{
#if defined(__x86_64__)
    /* elf_gregset_t is struct user_regs_struct's order. */
    t->regs.pc = (uint64_t)st->pr_reg[16]; /* rip */
    t->regs.sp = (uint64_t)st->pr_reg[19]; /* rsp */
    t->regs.fp = (uint64_t)st->pr_reg[4];  /* rbp */
    t->regs.valid = JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP;
#elif defined(__aarch64__)
    t->regs.pc = (uint64_t)st->pr_reg[32];
    t->regs.sp = (uint64_t)st->pr_reg[31];
    t->regs.fp = (uint64_t)st->pr_reg[29];
    t->regs.lr = (uint64_t)st->pr_reg[30];
    t->regs.valid = JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP | JITUNWIND_REG_LR;
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
    *count = 0;
    elf_version(EV_CURRENT);
    if ((fd = open(core_path, O_RDONLY | O_CLOEXEC)) < 0) {
        snprintf(err, err_len, "cannot open %s", core_path);
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
static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

typedef int (*image_read_fn)(void *arg, uint64_t offset, void *dst, size_t len);

static int image_build_id(image_read_fn read, void *arg, char *out, size_t len)
{
    Elf64_Ehdr eh;
    unsigned i;
    if (read(arg, 0, &eh, sizeof eh) < 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
        eh.e_phnum > 256)
        return -1;
    for (i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        static uint8_t notes[65536];
        size_t at = 0, size;
        if (read(arg, eh.e_phoff + i * sizeof ph, &ph, sizeof ph) < 0 || ph.p_type != PT_NOTE)
            continue;
        size = ph.p_filesz < sizeof notes ? (size_t)ph.p_filesz : sizeof notes;
        if (read(arg, ph.p_offset, notes, size) < 0)
            continue;
        while (at + 12 <= size) {
            uint32_t namesz = le32(notes + at), descsz = le32(notes + at + 4),
                     type = le32(notes + at + 8);
            size_t name_at = at + 12, desc_at = name_at + ((namesz + 3u) & ~3u), k;
            if (desc_at + descsz > size)
                break;
            if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(notes + name_at, "GNU", 4) == 0) {
                out[0] = '\0';
                for (k = 0; k < descsz && 2 * k + 2 < len; k++)
                    snprintf(out + 2 * k, 3, "%02x", notes[desc_at + k]);
                return 0;
            }
            at = desc_at + ((descsz + 3u) & ~3u);
        }
    }
    return -1;
}

static int file_read(void *arg, uint64_t offset, void *dst, size_t len)
{
    return pread(*(int *)arg, dst, len, (off_t)offset) == (ssize_t)len ? 0 : -1;
}

int cli_file_build_id(const char *path, char *out, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC), rc;
    if (fd < 0)
        return -1;
    rc = image_build_id(file_read, &fd, out, len);
    close(fd);
    return rc;
}

struct memory_image {
    const struct jitunwind_memory *mem;
    uint64_t base;
    uint64_t size;
};

static int memory_read(void *arg, uint64_t offset, void *dst, size_t len)
{
    const struct memory_image *m = arg;
    if (offset > m->size || len > m->size - offset)
        return -1;
    return m->mem->read(m->mem->arg, m->base + offset, dst, len);
}

/* The executable's mapping: the first file mapped from offset 0 whose name
 * matches `exe_name`'s, else the first file of the note (the kernel and
 * gcore list the executable first). */
int cli_core_exe_build_id(const struct cli_target *t, const char *exe_name, char *out,
                          size_t len)
{
    size_t i, n = 0, pick;
    const char *base = strrchr(exe_name, '/');
    jitunwind_modules *mods = NULL;
    int rc = -1;
    base = base ? base + 1 : exe_name;
    if (jitunwind_modules_new(&mods) < 0 || jitunwind_modules_load_core(mods, t->core_path) < 0)
        goto done;
    n = jitunwind_modules_count(mods);
    pick = n;
    for (i = 0; i < n && pick == n; i++) {
        struct jitunwind_module_info info;
        const char *name;
        if (jitunwind_modules_info(mods, i, &info) < 0 || !info.path)
            continue;
        name = strrchr(info.path, '/');
        if (strcmp(name ? name + 1 : info.path, base) == 0)
            pick = i;
    }
    if (pick == n)
        pick = 0;
    if (n) {
        struct jitunwind_module_info info;
        struct memory_image img = {&t->mem, 0, 0};
        if (jitunwind_modules_info(mods, pick, &info) == 0) {
            img.base = info.start;
            img.size = info.end - info.start;
            rc = image_build_id(memory_read, &img, out, len);
        }
    }
done:
    jitunwind_modules_free(mods);
    return rc;
}

int cli_core_pid(const char *core_path)
{
    int fd, pid = 0;
    Elf *elf;
    size_t phnum, i;
    elf_version(EV_CURRENT);
    if ((fd = open(core_path, O_RDONLY | O_CLOEXEC)) < 0)
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
