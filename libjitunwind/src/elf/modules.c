/* Native modules: the ELF files a target maps and their load bias; what
 * is read of each file (symbols, CFI handles) is module_file.c's, a file
 * shared by the sets of a jitunwind_module_files module_files.c's. A
 * file is opened when first added and kept for the life of the set. */
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "elf/modules_internal.h"
#include "elf/elf.h"
#include "unwind/cfi_row_cache.h"

#define MAX_MODULES 4096u            /* distinct files in one target */
#define MAX_MAPS_LINE 4096u          /* bytes in one /proc/PID/maps line */

struct jitunwind_modules {
    struct ju_module *mods;
    size_t count, cap;
    struct jitunwind_error err;
    struct ju_cfi_row_cache *rows; /* made at the first CFI step */
    int rows_off;                  /* ju_modules_use_row_cache(mods, 0) */
    struct jitunwind_module_files *pool; /* jitunwind_modules_share_files, or NULL */
};

JITUNWIND_API int jitunwind_modules_new(jitunwind_modules **out)
{
    jitunwind_modules *mods;
    if (!out)
        return JITUNWIND_EINVAL;
    elf_version(EV_CURRENT);
    mods = calloc(1, sizeof *mods);
    return ju_constructed((void **)out, mods, mods ? 0 : JITUNWIND_ENOMEM, NULL);
}

static void module_close(struct ju_module *m)
{
    ju_module_file_put(m->file);
    free(m->path);
}

JITUNWIND_API void jitunwind_modules_free(jitunwind_modules *mods)
{
    size_t i;
    if (!mods)
        return;
    for (i = 0; i < mods->count; i++)
        module_close(&mods->mods[i]);
    free(mods->mods);
    ju_cfi_row_cache_free(mods->rows);
    ju_module_files_drop(mods->pool);
    free(mods);
}

JITUNWIND_API int jitunwind_modules_share_files(jitunwind_modules *mods,
                                                jitunwind_module_files *files)
{
    if (!mods)
        return JITUNWIND_EINVAL;
    ju_module_files_hold(files);
    ju_module_files_drop(mods->pool);
    mods->pool = files;
    return 0;
}

JITUNWIND_API const struct jitunwind_error *
jitunwind_modules_last_error(const jitunwind_modules *mods)
{
    return mods ? &mods->err : jitunwind_last_error();
}

/* Load bias from a PT_LOAD segment and a mapping of it; 0 for ET_EXEC.
 * The first segment decides from any mapping that covers its file offset
 * (a maps file lists them all). A later one decides only from a mapping
 * that starts on its own first page: a perf MMAP2 record says only the
 * executable mapping, and a mapping that merely covers a later segment's
 * offset may be the previous segment's page, loaded elsewhere. Returns 0
 * when it cannot be decided yet. */
static int compute_bias(struct ju_module *m, uint64_t start, uint64_t end, uint64_t offset)
{
    GElf_Ehdr eh;
    size_t phnum, i;
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    int first = 1;
    if (!gelf_getehdr(m->file->elf, &eh) || elf_getphdrnum(m->file->elf, &phnum) != 0)
        return 0;
    if (eh.e_type == ET_EXEC) {
        m->bias = 0;
        return 1;
    }
    for (i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(m->file->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
            continue;
        if (offset <= ph.p_offset && ph.p_offset < offset + (end - start) &&
            (first || (ph.p_offset - offset < page && start % page == 0 &&
                       (ph.p_offset - offset) == ph.p_vaddr % page))) {
            m->bias = start + (ph.p_offset - offset) - ph.p_vaddr;
            return 1;
        }
        first = 0;
    }
    return 0;
}

static struct ju_module *find_path(jitunwind_modules *mods, const char *path)
{
    size_t i;
    for (i = 0; i < mods->count; i++)
        if (strcmp(mods->mods[i].path, path) == 0)
            return &mods->mods[i];
    return NULL;
}

static int open_module(jitunwind_modules *mods, const char *path, struct ju_module **out)
{
    struct ju_module m = {0}, *grown;
    int rc;
    *out = NULL;
    if (mods->count >= MAX_MODULES)
        return ju_fail(&mods->err, JITUNWIND_ELIMIT, 0, "more than %u modules", MAX_MODULES);
    if ((rc = ju_module_file_get(mods->pool, path, &m.file)) < 0) /* deleted, inaccessible */
        return rc == JITUNWIND_ENOMEM ? rc : 0; /* or not ELF: not a module we can use */
    m.path = strdup(path);
    if (!m.path) {
        ju_module_file_put(m.file);
        return JITUNWIND_ENOMEM;
    }
    m.start = UINT64_MAX;
    grown = ju_reserve_one(mods->mods, &mods->cap, mods->count, sizeof *mods->mods, 32);
    if (!grown) {
        module_close(&m);
        return JITUNWIND_ENOMEM;
    }
    mods->mods = grown;
    mods->mods[mods->count] = m;
    *out = &mods->mods[mods->count++];
    return 0;
}

JITUNWIND_API int jitunwind_modules_add_mapping(jitunwind_modules *mods, const char *path,
                                                uint64_t start, uint64_t end,
                                                uint64_t offset)
{
    struct ju_module *m;
    int rc;
    if (!mods || !path || end <= start)
        return JITUNWIND_EINVAL;
    m = find_path(mods, path);
    if (!m) {
        rc = open_module(mods, path, &m);
        if (rc < 0 || !m)
            return rc;
    }
    if (start < m->start)
        m->start = start;
    if (end > m->end)
        m->end = end;
    if (!m->bias_known)
        m->bias_known = compute_bias(m, start, end, offset);
    return 0;
}

JITUNWIND_API int jitunwind_modules_load_proc(jitunwind_modules *mods, int pid)
{
    char path[64], line[MAX_MAPS_LINE];
    FILE *f;
    int rc = 0;
    if (!mods || pid <= 0)
        return JITUNWIND_EINVAL;
    snprintf(path, sizeof path, "/proc/%d/maps", pid);
    f = fopen(path, "re");
    if (!f)
        return ju_fail(&mods->err, JITUNWIND_EIO, 0, "cannot open %s", path);
    while (rc >= 0 && fgets(line, sizeof line, f)) {
        unsigned long long start, end, offset;
        int name_at = 0;
        char *name;
        if (sscanf(line, "%llx-%llx %*4s %llx %*x:%*x %*u %n", &start, &end, &offset,
                   &name_at) < 3 || name_at == 0)
            continue;
        name = line + name_at;
        name[strcspn(name, "\n")] = '\0';
        if (name[0] != '/')
            continue; /* anonymous, [heap], [stack], [vdso] ... */
        rc = jitunwind_modules_add_mapping(mods, name, start, end, offset);
    }
    fclose(f);
    return rc < 0 ? rc : 0;
}

/* Walk the NT_FILE note of a core: count, page size, count x (start, end,
 * page offset), then count NUL-terminated names. */
static int add_nt_file(jitunwind_modules *mods, const uint8_t *desc, size_t size)
{
    uint64_t count, page, i;
    const char *names;
    size_t names_len, pos = 0;
    if (size < 16)
        return JITUNWIND_ECORRUPT;
    count = ju_load_u64(desc);
    page = ju_load_u64(desc + 8);
    if (count > JU_MAX_NT_FILE_ENTRIES || 16 + count * 24 > size)
        return JITUNWIND_ECORRUPT;
    names = (const char *)desc + 16 + count * 24;
    names_len = size - (size_t)(16 + count * 24);
    for (i = 0; i < count; i++) {
        const uint8_t *e = desc + 16 + i * 24;
        size_t n = strnlen(names + pos, names_len - pos);
        int rc;
        if (pos + n >= names_len)
            return JITUNWIND_ECORRUPT;
        rc = jitunwind_modules_add_mapping(mods, names + pos, ju_load_u64(e),
                                           ju_load_u64(e + 8), ju_load_u64(e + 16) * page);
        if (rc < 0 && rc != JITUNWIND_EINVAL)
            return rc;
        pos += n + 1;
    }
    return 0;
}

int ju_core_open(const char *core_path, int *fd, Elf **elf)
{
    size_t phnum;
    int rc = ju_elf_open(core_path, fd, elf);
    if (rc == 0 && elf_getphdrnum(*elf, &phnum) != 0) {
        ju_elf_close(*fd, *elf);
        *elf = NULL;
        *fd = -1;
        rc = JITUNWIND_EELF;
    }
    return rc;
}

int ju_core_nt_file(Elf *elf, const uint8_t **desc, size_t *size)
{
    size_t phnum, i;
    if (elf_getphdrnum(elf, &phnum) != 0)
        return JITUNWIND_EELF;
    for (i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        Elf_Data *data;
        size_t off = 0, name_off, desc_off;
        GElf_Nhdr nh;
        if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
            continue;
        data = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR);
        if (!data)
            continue;
        while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
            if (nh.n_type == NT_FILE && nh.n_namesz == 5 &&
                memcmp((const char *)data->d_buf + name_off, "CORE", 4) == 0) {
                *desc = (const uint8_t *)data->d_buf + desc_off;
                *size = nh.n_descsz;
                return 0;
            }
        }
    }
    return JITUNWIND_ENOTFOUND;
}

JITUNWIND_API int jitunwind_modules_load_core(jitunwind_modules *mods, const char *core_path)
{
    int fd, rc;
    Elf *elf;
    const uint8_t *desc;
    size_t size;
    if (!mods || !core_path)
        return JITUNWIND_EINVAL;
    if ((rc = ju_core_open(core_path, &fd, &elf)) < 0)
        return ju_fail(&mods->err, rc, 0,
                       rc == JITUNWIND_EIO ? "cannot open core %s" : "%s is not an ELF core",
                       core_path);
    rc = ju_core_nt_file(elf, &desc, &size);
    if (rc == 0)
        rc = add_nt_file(mods, desc, size);
    ju_elf_close(fd, elf);
    if (rc == JITUNWIND_ENOTFOUND)
        return ju_fail(&mods->err, rc, 0, "%s has no NT_FILE note", core_path);
    if (rc < 0)
        return ju_fail(&mods->err, rc, 0, "%s: malformed NT_FILE note", core_path);
    return 0;
}

JITUNWIND_API size_t jitunwind_modules_count(const jitunwind_modules *mods)
{
    return mods ? mods->count : 0;
}

/* Whether `elf` holds CFI, told from its headers: the tables are parsed
 * (and a compressed .debug_frame inflated, with the rest of the file's
 * DWARF) only when a frame needs them. */
static int has_cfi(Elf *elf)
{
    size_t phnum, shstrndx, i;
    Elf_Scn *scn = NULL;
    if (elf_getphdrnum(elf, &phnum) == 0)
        for (i = 0; i < phnum; i++) {
            GElf_Phdr ph;
            if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_GNU_EH_FRAME)
                return 1;
        }
    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        return 0;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        const char *name;
        if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
            (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
            (strcmp(name, ".eh_frame") == 0 || strcmp(name, ".debug_frame") == 0))
            return 1;
    }
    return 0;
}

JITUNWIND_API int jitunwind_modules_info(const jitunwind_modules *mods, size_t index,
                                         struct jitunwind_module_info *out)
{
    const struct ju_module *m;
    if (!mods || !out || index >= mods->count)
        return JITUNWIND_EINVAL;
    m = &mods->mods[index];
    out->path = m->path;
    out->start = m->start;
    out->end = m->end;
    out->bias = m->bias;
    out->has_cfi = has_cfi(m->file->elf);
    out->reserved = 0;
    return 0;
}

JITUNWIND_API long jitunwind_modules_find(const jitunwind_modules *mods, uint64_t addr)
{
    size_t i;
    if (!mods)
        return -1;
    for (i = 0; i < mods->count; i++) {
        const struct ju_module *m = &mods->mods[i];
        if (m->bias_known && addr >= m->start && addr < m->end)
            return (long)i;
    }
    return -1;
}

struct ju_module *ju_modules_lookup(jitunwind_modules *mods, uint64_t addr)
{
    size_t index;
    return ju_modules_lookup_at(mods, addr, &index);
}

struct ju_module *ju_modules_lookup_at(jitunwind_modules *mods, uint64_t addr, size_t *index)
{
    long i = jitunwind_modules_find(mods, addr);
    if (i < 0)
        return NULL;
    *index = (size_t)i;
    return &mods->mods[i];
}

struct ju_cfi_row_cache *ju_modules_row_cache(jitunwind_modules *mods)
{
    if (!mods->rows && !mods->rows_off)
        mods->rows = ju_cfi_row_cache_new();
    return mods->rows_off ? NULL : mods->rows;
}

void ju_modules_use_row_cache(jitunwind_modules *mods, int on)
{
    mods->rows_off = !on;
}

JITUNWIND_API int jitunwind_modules_symbolize(jitunwind_modules *mods, uint64_t addr,
                                              char *buf, size_t len, uint64_t *offset)
{
    struct ju_module *m;
    uint64_t off = 0;
    int rc;
    if (!mods || !buf || len == 0)
        return JITUNWIND_EINVAL;
    m = ju_modules_lookup(mods, addr);
    if (!m)
        return JITUNWIND_ENOTFOUND;
    if ((rc = ju_module_file_symbol(m->file, addr - m->bias, buf, len, &off)) == 0 && offset)
        *offset = off;
    return rc == JITUNWIND_ENOMEM ? ju_fail(&mods->err, rc, 0, "no memory for a symbol index")
                                  : rc;
}
