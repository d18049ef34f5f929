/* A core file: the memory its PT_LOAD segments hold, and for file-backed
 * mappings the core did not dump (read-only code and data, which the
 * kernel leaves out by default) the bytes of the mapped file itself, found
 * through the NT_FILE note. The files must still exist at their recorded
 * paths and match the process that dumped; a file that cannot be opened
 * only makes its addresses unreadable. */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "base/host_files.h"
#include "elf/elf.h"

struct core_segment {
    uint64_t vaddr;
    uint64_t filesz; /* bytes present in the core from `offset` */
    uint64_t offset;
};

struct core_file_map {
    uint64_t start, end, file_offset;
    uint32_t name; /* index into names[] */
};

struct jitunwind_core_reader {
    int fd;
    Elf *elf;
    const uint8_t *raw; /* the whole core, mapped by libelf */
    size_t raw_size;
    struct core_segment *segs;
    size_t n_segs;
    struct core_file_map *maps;
    size_t n_maps;
    char **names;  /* NT_FILE paths */
    int *name_fds; /* -2 not tried, -1 unusable */
    size_t n_names;
    struct jitunwind_error err;
};

static int load_segments(jitunwind_core_reader *r)
{
    size_t phnum, i;
    if (elf_getphdrnum(r->elf, &phnum) != 0)
        return JITUNWIND_EELF;
    r->segs = calloc(phnum ? phnum : 1, sizeof *r->segs);
    if (!r->segs)
        return JITUNWIND_ENOMEM;
    for (i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        struct core_segment *s;
        if (!gelf_getphdr(r->elf, (int)i, &ph) || ph.p_type != PT_LOAD || ph.p_filesz == 0)
            continue;
        if (ph.p_offset > r->raw_size)
            continue; /* a truncated core: nothing of this segment is present */
        s = &r->segs[r->n_segs++];
        s->vaddr = ph.p_vaddr;
        s->offset = ph.p_offset;
        s->filesz = ph.p_filesz < r->raw_size - ph.p_offset ? ph.p_filesz
                                                            : r->raw_size - ph.p_offset;
    }
    return 0;
}

/* NT_FILE: count, page size, count x (start, end, page offset), names. */
static int load_file_maps(jitunwind_core_reader *r)
{
    const uint8_t *desc;
    const char *names;
    size_t size, names_len, pos = 0;
    uint64_t count, page, i;
    if (ju_core_nt_file(r->elf, &desc, &size) < 0 || size < 16)
        return 0; /* no note: only the dumped segments are readable */
    count = ju_load_u64(desc);
    page = ju_load_u64(desc + 8);
    if (count > JU_MAX_NT_FILE_ENTRIES || 16 + count * 24 > size || page > (1u << 24))
        return JITUNWIND_ECORRUPT;
    r->maps = calloc(count ? count : 1, sizeof *r->maps);
    r->names = calloc(count ? count : 1, sizeof *r->names);
    r->name_fds = calloc(count ? count : 1, sizeof *r->name_fds);
    if (!r->maps || !r->names || !r->name_fds)
        return JITUNWIND_ENOMEM;
    names = (const char *)desc + 16 + count * 24;
    names_len = size - (size_t)(16 + count * 24);
    for (i = 0; i < count; i++) {
        const uint8_t *e = desc + 16 + i * 24;
        size_t n = strnlen(names + pos, names_len - pos), j;
        struct core_file_map *m = &r->maps[r->n_maps];
        if (pos + n >= names_len)
            return JITUNWIND_ECORRUPT;
        for (j = 0; j < r->n_names && strcmp(r->names[j], names + pos) != 0; j++)
            ;
        if (j == r->n_names) {
            if (!(r->names[j] = strdup(names + pos)))
                return JITUNWIND_ENOMEM;
            r->name_fds[j] = -2;
            r->n_names++;
        }
        m->start = ju_load_u64(e);
        m->end = ju_load_u64(e + 8);
        m->file_offset = ju_load_u64(e + 16) * page;
        m->name = (uint32_t)j;
        if (m->end > m->start)
            r->n_maps++;
        pos += n + 1;
    }
    return 0;
}

JITUNWIND_API void jitunwind_core_reader_free(jitunwind_core_reader *r)
{
    size_t i;
    if (!r)
        return;
    for (i = 0; i < r->n_names; i++) {
        if (r->name_fds[i] >= 0)
            close(r->name_fds[i]);
        free(r->names[i]);
    }
    free(r->names);
    free(r->name_fds);
    free(r->maps);
    free(r->segs);
    ju_elf_close(r->fd, r->elf);
    free(r);
}

JITUNWIND_API int jitunwind_core_reader_new(jitunwind_core_reader **out, const char *core_path)
{
    jitunwind_core_reader *r;
    GElf_Ehdr eh;
    int rc;
    if (!out)
        return JITUNWIND_EINVAL;
    if (!core_path)
        return ju_constructed((void **)out, NULL, JITUNWIND_EINVAL, NULL);
    r = calloc(1, sizeof *r);
    if (!r)
        return ju_constructed((void **)out, NULL, JITUNWIND_ENOMEM, NULL);
    r->fd = -1;
    rc = ju_core_open(core_path, &r->fd, &r->elf);
    if (rc < 0) {
        ju_fail(&r->err, rc, 0, rc == JITUNWIND_EELF ? "%s is not an ELF file"
                                                     : "cannot open %s", core_path);
    } else if (!gelf_getehdr(r->elf, &eh) || eh.e_type != ET_CORE) {
        rc = ju_fail(&r->err, JITUNWIND_EELF, 0, "%s is not a core file", core_path);
    } else if (!(r->raw = (const uint8_t *)elf_rawfile(r->elf, &r->raw_size))) {
        rc = ju_fail(&r->err, JITUNWIND_EELF, 0, "%s: cannot map its contents", core_path);
    } else if ((rc = load_segments(r)) < 0 || (rc = load_file_maps(r)) < 0) {
        ju_fail(&r->err, rc, 0, "%s: %s", core_path,
                rc == JITUNWIND_ENOMEM ? "out of memory" : "malformed program headers or NT_FILE");
    }
    if (rc < 0) {
        struct jitunwind_error detail = r->err;
        jitunwind_core_reader_free(r);
        return ju_constructed((void **)out, NULL, rc, &detail);
    }
    return ju_constructed((void **)out, r, 0, NULL);
}

/* Bytes at [addr, addr + *len) from the core, or from a mapped file when no
 * dumped segment holds addr; *len is cut to what one source holds. */
static int read_piece(jitunwind_core_reader *r, uint64_t addr, uint8_t *dst, size_t *len)
{
    size_t i;
    for (i = 0; i < r->n_segs; i++) {
        const struct core_segment *s = &r->segs[i];
        if (addr >= s->vaddr && addr - s->vaddr < s->filesz) {
            uint64_t avail = s->filesz - (addr - s->vaddr);
            if (*len > avail)
                *len = (size_t)avail;
            memcpy(dst, r->raw + s->offset + (addr - s->vaddr), *len);
            return 0;
        }
    }
    for (i = 0; i < r->n_maps; i++) {
        const struct core_file_map *m = &r->maps[i];
        int *fd = &r->name_fds[m->name];
        uint64_t off;
        if (addr < m->start || addr >= m->end)
            continue;
        if (*len > m->end - addr)
            *len = (size_t)(m->end - addr);
        if (*fd == -2 && ju_open_host_file(r->names[m->name], 0, -1, NULL, fd) < 0)
            *fd = -1;
        off = m->file_offset + (addr - m->start);
        if (*fd < 0 || off > (uint64_t)INT64_MAX ||
            pread(*fd, dst, *len, (off_t)off) != (ssize_t)*len)
            return JITUNWIND_EREAD;
        return 0;
    }
    return JITUNWIND_EREAD;
}

static int core_read(void *arg, uint64_t addr, void *dst, size_t len)
{
    jitunwind_core_reader *r = arg;
    uint8_t *out = dst;
    if (!r || (!dst && len))
        return JITUNWIND_EINVAL;
    if (addr + len < addr)
        return JITUNWIND_EREAD;
    while (len > 0) { /* a read may span adjacent segments */
        size_t piece = len;
        if (read_piece(r, addr, out, &piece) < 0 || piece == 0)
            return JITUNWIND_EREAD;
        addr += piece;
        out += piece;
        len -= piece;
    }
    return 0;
}

JITUNWIND_API struct jitunwind_memory jitunwind_core_reader_memory(jitunwind_core_reader *r)
{
    struct jitunwind_memory m = {sizeof(struct jitunwind_memory), core_read, r};
    return m;
}
