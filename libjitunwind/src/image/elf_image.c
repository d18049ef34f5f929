/* The ELF image of a set of ranges (image.h), written with libelf into an
 * anonymous file and copied out. Layout: [1, k] one SHT_NOBITS code section
 * per run of adjacent ranges, then .eh_frame (not allocated: its FDEs use
 * absolute addresses, so it needs no address, and a loaded image claims
 * only the code's addresses), .symtab, .strtab, .shstrtab, the marker. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "image/image_internal.h"

#define MAX_SECTIONS (SHN_LORESERVE - 8u) /* plain section numbers, no extended numbering */

/* Section names in .shstrtab. The empty JITUNWIND_IMAGE_MARKER section says
 * who wrote the image: readers of the GDB JIT interface (discovery/gdb_jit.c)
 * skip such images, whose ranges they have from the jitunwind descriptor. */
static const char SHSTRTAB[] = "\0.text\0.eh_frame\0.symtab\0.strtab\0.shstrtab\0" JITUNWIND_IMAGE_MARKER;
enum { NAME_TEXT = 1, NAME_EH_FRAME = 7, NAME_SYMTAB = 17, NAME_STRTAB = 25, NAME_SHSTRTAB = 33,
       NAME_MARKER = 43 };

struct run {
    uint64_t start, end;
};

struct writer {
    const struct ju_arch_facts *a;
    const struct jitunwind_memory *mem;
    const struct ju_stop_point *points; /* sorted by pc */
    size_t npoints, next_point;
    struct ju_bytes eh, strtab, syms;
    struct run *runs;
    size_t nruns, runs_cap;
    struct jitunwind_elf_image_info info;
};

/* The FDEs of one range: one for an FP_PRESERVING range, one per copy of a
 * trampoline range. */
static int describe(struct writer *w, size_t cie, const struct jitunwind_range *r)
{
    struct ju_cfi_plan plan;
    uint64_t copy, stride = r->stride ? r->stride : r->end - r->start;
    if (ju_cfi_plan_for(w->a, r->rule, r->frame_size, 0, &plan) < 0) {
        w->info.without_cfi++;
        while (w->next_point < w->npoints && w->points[w->next_point].pc < r->start)
            w->next_point++;
        for (; w->next_point < w->npoints && w->points[w->next_point].pc < r->end; w->next_point++) {
            const struct ju_stop_point *p = &w->points[w->next_point];
            ju_eh_frame_fde(&w->eh, cie, w->a, p->pc, 1, &p->row, 1);
            w->info.fdes++;
            w->info.stop_rows++;
        }
        return 0;
    }
    w->info.with_cfi++;
    if (plan.len == 0) {
        ju_eh_frame_fde(&w->eh, cie, w->a, r->start, r->end - r->start, plan.rows, plan.nrows);
        w->info.fdes++;
        return 0;
    }
    for (copy = r->start; copy < r->end && copy >= r->start; copy += stride) {
        uint64_t len;
        if (w->info.fdes >= JITUNWIND_ELF_IMAGE_MAX_FDES)
            return JITUNWIND_ELIMIT;
        ju_cfi_plan_for(w->a, r->rule, r->frame_size, ju_copy_head(w->a, w->mem, copy), &plan);
        len = plan.len;
        if (len > stride)
            len = stride;
        if (len > r->end - copy)
            len = r->end - copy;
        ju_eh_frame_fde(&w->eh, cie, w->a, copy, len, plan.rows, plan.nrows);
        w->info.fdes++;
    }
    return 0;
}

static void add_symbol(struct writer *w, const struct jitunwind_range *r, size_t section)
{
    char label[JITUNWIND_NAME_MAX + 64];
    Elf64_Sym sym = {0};
    sym.st_name = (Elf64_Word)w->strtab.len;
    sym.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
    sym.st_shndx = (Elf64_Section)section;
    sym.st_value = r->start;
    sym.st_size = r->end - r->start;
    jitunwind_range_label(r, label, sizeof label);
    ju_bytes_put(&w->strtab, label, strlen(label) + 1);
    ju_bytes_put(&w->syms, &sym, sizeof sym);
    w->info.ranges++;
}

/* Does range r still fit the image's caps: a section if it starts a run,
 * and its FDEs (one per trampoline copy, else one; a SCAN range's rows of
 * this stop are checked as they are written)? */
static int fits(const struct writer *w, const struct jitunwind_range *r)
{
    uint64_t len = r->end - r->start, stride = r->stride ? r->stride : len;
    uint64_t fdes = (len + stride - 1) / stride;
    int new_run = !(w->nruns && w->runs[w->nruns - 1].end == r->start);
    if (new_run && w->nruns >= MAX_SECTIONS)
        return 0;
    return fdes <= JITUNWIND_ELF_IMAGE_MAX_FDES - w->info.fdes;
}

/* Group adjacent ranges into runs; every range becomes a symbol of its run's
 * section and, where its rule allows, FDEs. */
static int collect(struct writer *w, const struct jitunwind_range *ranges, size_t n)
{
    Elf64_Sym null_sym = {0};
    size_t cie, i;
    int rc;
    ju_bytes_u8(&w->strtab, 0);
    ju_bytes_put(&w->syms, &null_sym, sizeof null_sym);
    cie = ju_eh_frame_cie(&w->eh, w->a);
    for (i = 0; i < n; i++) {
        const struct jitunwind_range *r = &ranges[i];
        if (r->end <= r->start || (i > 0 && r->start < ranges[i - 1].end))
            return JITUNWIND_EINVAL;
        if (!fits(w, r)) {
            w->info.left_out = n - i; /* those before make a whole image */
            break;
        }
        if (w->nruns && w->runs[w->nruns - 1].end == r->start) {
            w->runs[w->nruns - 1].end = r->end;
        } else {
            struct run *runs;
            if (!(runs = ju_reserve_one(w->runs, &w->runs_cap, w->nruns, sizeof *runs, 16)))
                return JITUNWIND_ENOMEM;
            w->runs = runs;
            w->runs[w->nruns++] = (struct run){r->start, r->end};
        }
        add_symbol(w, r, w->nruns);
        if ((rc = describe(w, cie, r)) < 0)
            return rc;
    }
    ju_eh_frame_end(&w->eh);
    w->info.sections = w->nruns;
    return (w->eh.failed || w->strtab.failed || w->syms.failed) ? JITUNWIND_ENOMEM : 0;
}

static Elf_Scn *section(Elf *e, uint32_t name, uint32_t type, uint64_t flags, uint64_t addr,
                        const void *bytes, size_t size, Elf_Type dtype)
{
    Elf_Scn *scn = elf_newscn(e);
    Elf_Data *d = scn ? elf_newdata(scn) : NULL;
    Elf64_Shdr *sh = scn ? elf64_getshdr(scn) : NULL;
    if (!d || !sh)
        return NULL;
    d->d_buf = (void *)bytes;
    d->d_size = size;
    d->d_type = dtype;
    d->d_align = dtype == ELF_T_BYTE ? 1 : 8;
    sh->sh_name = name;
    sh->sh_type = type;
    sh->sh_flags = flags;
    sh->sh_addr = addr;
    sh->sh_addralign = d->d_align;
    return scn;
}

/* Lay the image out with libelf into the anonymous file `fd`. */
static int emit(struct writer *w, int fd)
{
    Elf *e = elf_begin(fd, ELF_C_WRITE, NULL);
    Elf64_Ehdr *eh = e ? elf64_newehdr(e) : NULL;
    Elf_Scn *symtab, *strtab, *shstrtab;
    Elf64_Shdr *sh;
    size_t i;
    int rc = JITUNWIND_EELF;
    if (!eh)
        goto out;
    eh->e_ident[EI_DATA] = ELFDATA2LSB;
    eh->e_ident[EI_OSABI] = ELFOSABI_NONE;
    eh->e_type = ET_EXEC;
    eh->e_machine = w->a->elf_machine;
    eh->e_version = EV_CURRENT;
    for (i = 0; i < w->nruns; i++)
        if (!section(e, NAME_TEXT, SHT_NOBITS, SHF_ALLOC | SHF_EXECINSTR, w->runs[i].start, NULL,
                     w->runs[i].end - w->runs[i].start, ELF_T_BYTE))
            goto out;
    if (!section(e, NAME_EH_FRAME, SHT_PROGBITS, 0, 0, w->eh.data, w->eh.len, ELF_T_BYTE) ||
        !(symtab = section(e, NAME_SYMTAB, SHT_SYMTAB, 0, 0, w->syms.data, w->syms.len,
                           ELF_T_SYM)) ||
        !(strtab = section(e, NAME_STRTAB, SHT_STRTAB, 0, 0, w->strtab.data, w->strtab.len,
                           ELF_T_BYTE)) ||
        !(shstrtab = section(e, NAME_SHSTRTAB, SHT_STRTAB, 0, 0, SHSTRTAB, sizeof SHSTRTAB,
                             ELF_T_BYTE)) ||
        !section(e, NAME_MARKER, SHT_PROGBITS, 0, 0, NULL, 0, ELF_T_BYTE))
        goto out;
    sh = elf64_getshdr(symtab);
    sh->sh_link = (Elf64_Word)elf_ndxscn(strtab);
    sh->sh_info = 1; /* every symbol after the null one is global */
    sh->sh_entsize = sizeof(Elf64_Sym);
    eh->e_shstrndx = (Elf64_Half)elf_ndxscn(shstrtab);
    if (elf_update(e, ELF_C_WRITE) >= 0)
        rc = 0;
out:
    if (e)
        elf_end(e);
    return rc;
}

static int read_back(int fd, void **image, size_t *size)
{
    off_t end = lseek(fd, 0, SEEK_END);
    uint8_t *buf;
    size_t got = 0;
    if (end <= 0 || !(buf = malloc((size_t)end)))
        return end <= 0 ? JITUNWIND_EIO : JITUNWIND_ENOMEM;
    while (got < (size_t)end) {
        ssize_t k = pread(fd, buf + got, (size_t)end - got, (off_t)got);
        if (k <= 0) {
            free(buf);
            return JITUNWIND_EIO;
        }
        got += (size_t)k;
    }
    *image = buf;
    *size = got;
    return 0;
}

JITUNWIND_API int jitunwind_elf_image_write(int arch, const struct jitunwind_range *ranges,
                                            size_t n, const struct jitunwind_memory *mem,
                                            void **image, size_t *size,
                                            struct jitunwind_elf_image_info *info)
{
    return ju_elf_image_build(arch, ranges, n, mem, NULL, 0, image, size, info);
}

int ju_elf_image_build(int arch, const struct jitunwind_range *ranges, size_t n,
                       const struct jitunwind_memory *mem, const struct ju_stop_point *points,
                       size_t npoints, void **image, size_t *size,
                       struct jitunwind_elf_image_info *info)
{
    struct writer w = {0};
    int fd = -1, rc;
    if (!image || !size || (n && !ranges) || !(w.a = ju_arch_facts(arch)))
        return JITUNWIND_EINVAL;
    *image = NULL;
    *size = 0;
    w.mem = mem;
    w.points = points;
    w.npoints = npoints;
    if ((rc = collect(&w, ranges, n)) < 0)
        goto out;
    if (elf_version(EV_CURRENT) == EV_NONE) {
        rc = JITUNWIND_EELF;
        goto out;
    }
    if ((fd = memfd_create("jitunwind-elf-image", MFD_CLOEXEC)) < 0) {
        rc = JITUNWIND_EIO;
        goto out;
    }
    if ((rc = emit(&w, fd)) == 0)
        rc = read_back(fd, image, size);
out:
    if (fd >= 0)
        close(fd);
    if (info)
        *info = w.info;
    ju_bytes_free(&w.eh);
    ju_bytes_free(&w.strtab);
    ju_bytes_free(&w.syms);
    free(w.runs);
    return rc;
}

/* The registry's ranges as an array (names borrowed from the registry). */
static int registry_ranges(const jitunwind_registry *reg, struct jitunwind_range **out,
                           size_t *n)
{
    size_t i, count = jitunwind_registry_count(reg);
    *out = NULL;
    *n = count;
    if (count == 0)
        return 0;
    if (!(*out = calloc(count, sizeof **out)))
        return JITUNWIND_ENOMEM;
    for (i = 0; i < count; i++)
        (*out)[i] = *jitunwind_registry_at(reg, i);
    return 0;
}

static int build_registry(int arch, const jitunwind_registry *reg,
                          const struct jitunwind_memory *mem, const struct ju_stop_point *points,
                          size_t npoints, void **image, size_t *size,
                          struct jitunwind_elf_image_info *info)
{
    struct jitunwind_range *ranges;
    size_t n;
    int rc;
    if (!reg)
        return JITUNWIND_EINVAL;
    if ((rc = registry_ranges(reg, &ranges, &n)) < 0)
        return rc;
    rc = ju_elf_image_build(arch, ranges, n, mem, points, npoints, image, size, info);
    free(ranges);
    return rc;
}

JITUNWIND_API int jitunwind_elf_image_write_registry(int arch, const jitunwind_registry *reg,
                                                     const struct jitunwind_memory *mem,
                                                     void **image, size_t *size,
                                                     struct jitunwind_elf_image_info *info)
{
    return build_registry(arch, reg, mem, NULL, 0, image, size, info);
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return JITUNWIND_EIO;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int write_file(const char *path, const void *image, size_t size)
{
    char tmp[4096];
    int fd, rc;
    if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp)
        return JITUNWIND_EINVAL;
    if ((fd = mkstemp(tmp)) < 0)
        return JITUNWIND_EIO;
    rc = write_all(fd, image, size);
    if (close(fd) != 0 && rc == 0)
        rc = JITUNWIND_EIO;
    if (rc == 0 && rename(tmp, path) != 0)
        rc = JITUNWIND_EIO;
    if (rc < 0)
        unlink(tmp);
    return rc;
}

JITUNWIND_API int jitunwind_elf_image_write_file(int arch, const jitunwind_registry *reg,
                                                 const struct jitunwind_memory *mem,
                                                 const char *path,
                                                 struct jitunwind_elf_image_info *info)
{
    void *image = NULL;
    size_t size = 0;
    int rc;
    if (!path)
        return JITUNWIND_EINVAL;
    if ((rc = build_registry(arch, reg, mem, NULL, 0, &image, &size, info)) == 0)
        rc = write_file(path, image, size);
    free(image);
    return rc;
}

JITUNWIND_API int jitunwind_elf_image_write_file_at_stop(
    int arch, const jitunwind_registry *reg, jitunwind_modules *mods,
    const struct jitunwind_memory *mem, const struct jitunwind_regs *threads, size_t nthreads,
    const char *path, struct jitunwind_elf_image_info *info)
{
    struct ju_stop_point *points = NULL;
    void *image = NULL;
    size_t size = 0, npoints = 0;
    int rc;
    if (!path || !reg || !ju_memory_valid(mem) || (nthreads && !threads))
        return JITUNWIND_EINVAL;
    if ((rc = ju_stop_points(arch, reg, mods, mem, threads, nthreads, &points, &npoints)) == 0 &&
        (rc = build_registry(arch, reg, mem, points, npoints, &image, &size, info)) == 0)
        rc = write_file(path, image, size);
    free(points);
    free(image);
    return rc;
}

JITUNWIND_API void jitunwind_elf_image_free(void *image)
{
    free(image);
}
