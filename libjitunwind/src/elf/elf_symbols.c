/* Symbols and initialised data of ELF files on the host, via libelf. */
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <unistd.h>

#include "base/arch_facts.h"
#include "internal.h"
#include "base/host_files.h"
#include "elf/elf.h"
#include "elf/file_memo.h"

struct elf_file {
    int fd;
    Elf *elf;
};

int ju_elf_open(const char *path, int *fd, Elf **elf)
{
    elf_version(EV_CURRENT);
    *elf = NULL;
    /* Module paths come from the target (its maps, a core's note, debug
     * links): a FIFO or device there must not block us. */
    if (ju_open_host_file(path, 0, -1, NULL, fd) < 0)
        return JITUNWIND_EIO;
    *elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
    if (!*elf || elf_kind(*elf) != ELF_K_ELF) {
        ju_elf_close(*fd, *elf);
        *elf = NULL;
        *fd = -1;
        return JITUNWIND_EELF;
    }
    return 0;
}

void ju_elf_close(int fd, Elf *elf)
{
    if (elf)
        elf_end(elf);
    if (fd >= 0)
        close(fd);
}

int ju_elf_build_id_hex(Elf *elf, char *hex, size_t size)
{
    const void *id;
    ssize_t n = dwelf_elf_gnu_build_id(elf, &id), i;
    if (n <= 0 || (size_t)n * 2 >= size)
        return JITUNWIND_ENOTFOUND;
    for (i = 0; i < n; i++)
        snprintf(hex + 2 * i, size - 2 * (size_t)i, "%02x", ((const uint8_t *)id)[i]);
    return 0;
}

int ju_elf_arch(const char *path)
{
    GElf_Ehdr eh;
    int fd, arch = 0;
    Elf *elf;
    if (ju_elf_open(path, &fd, &elf) < 0)
        return 0;
    if (gelf_getehdr(elf, &eh))
        arch = ju_arch_for_elf_machine(eh.e_machine);
    ju_elf_close(fd, elf);
    return arch;
}

static int open_elf(const char *path, struct elf_file *f)
{
    return ju_elf_open(path, &f->fd, &f->elf);
}

static void close_elf(struct elf_file *f)
{
    ju_elf_close(f->fd, f->elf);
}

/* Each defined symbol of the tables of `type` in elf, to `each` until it
 * returns nonzero (returned). */
static int visit(Elf *elf, Elf64_Word type, ju_symbol_fn each, void *arg)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        Elf_Data *data;
        size_t i, count;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || sh.sh_entsize == 0)
            continue;
        data = elf_getdata(scn, NULL);
        if (!data)
            continue;
        count = sh.sh_size / sh.sh_entsize;
        for (i = 0; i < count && i <= INT32_MAX; i++) {
            GElf_Sym sym;
            const char *name;
            int stop;
            if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
                continue;
            name = elf_strptr(elf, sh.sh_link, sym.st_name);
            if (name && (stop = each(arg, name, &sym)) != 0)
                return stop;
        }
    }
    return 0;
}

static int has_section_of_type(Elf *elf, Elf64_Word type)
{
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(elf, scn)) != NULL)
        if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
            return 1;
    return 0;
}

static unsigned long symbol_passes;

unsigned long ju_elf_symbol_passes(void)
{
    return __atomic_load_n(&symbol_passes, __ATOMIC_RELAXED);
}

int ju_elf_each_symbol_noting(const char *path, unsigned flags, ju_symbol_fn each, void *arg,
                              char *debug, size_t debug_size, int *used_debug)
{
    struct elf_file f, sep;
    char debug_path[4096];
    int rc;
    *used_debug = 0;
    if ((rc = open_elf(path, &f)) < 0)
        return rc;
    __atomic_fetch_add(&symbol_passes, 1, __ATOMIC_RELAXED);
    rc = visit(f.elf, SHT_SYMTAB, each, arg);
    if (!rc)
        rc = visit(f.elf, SHT_DYNSYM, each, arg);
    /* A stripped file keeps its full table in its separate debug file, at
     * the same virtual addresses. */
    if (!rc && !has_section_of_type(f.elf, SHT_SYMTAB)) {
        *used_debug = 1;
        if (debug && debug_size)
            debug[0] = '\0';
        if (ju_debug_file_find(f.elf, path, flags, debug_path, sizeof debug_path, NULL, 0) == 0 &&
            open_elf(debug_path, &sep) == 0) {
            if (debug && debug_size)
                ju_strlcpy(debug, debug_path, debug_size);
            rc = visit(sep.elf, SHT_SYMTAB, each, arg);
            close_elf(&sep);
        }
    }
    close_elf(&f);
    return rc;
}

int ju_elf_each_symbol(const char *path, unsigned flags, ju_symbol_fn each, void *arg)
{
    int used_debug;
    return ju_elf_each_symbol_noting(path, flags, each, arg, NULL, 0, &used_debug);
}

int ju_elf_take_wanted(void *arg, const char *name, const GElf_Sym *sym)
{
    struct ju_wanted_symbols *w = arg;
    size_t k;
    if (w->missing == 0)
        return 1;
    for (k = 0; k < w->n; k++) {
        if (w->found[k] || strcmp(name, w->names[k]) != 0)
            continue;
        w->values[k] = sym->st_value;
        w->sizes[k] = sym->st_size;
        w->found[k] = 1;
        w->missing--;
    }
    return w->missing == 0;
}

static int find_symbols(const char *path, unsigned flags, const char *const *names, size_t n,
                        uint64_t *values, uint64_t *sizes, uint8_t *found)
{
    struct ju_wanted_symbols w = {names, n, n, values, sizes, found};
    int rc;
    memset(found, 0, n);
    rc = ju_elf_each_symbol(path, flags, ju_elf_take_wanted, &w);
    return rc < 0 ? rc : 0;
}

int ju_elf_symbols(const char *path, const char *const *names, size_t n, uint64_t *values,
                   uint64_t *sizes, uint8_t *found)
{
    return find_symbols(path, JU_DEBUG_REMOTE, names, n, values, sizes, found);
}

void ju_elf_debug_file_now(const char *path, unsigned flags, char *out, size_t size)
{
    struct elf_file f;
    out[0] = '\0';
    if (open_elf(path, &f) < 0)
        return;
    if (ju_debug_file_find(f.elf, path, flags, out, size, NULL, 0) < 0)
        out[0] = '\0';
    close_elf(&f);
}

/* Answers of jitunwind_elf_symbol, kept per file and name: a profiler of
 * every process asks each process's modules for the same few names (the
 * JIT descriptors, _PyRuntime). */
struct symbol_answer {
    int rc; /* 0 (found) or ENOTFOUND */
    uint64_t value, size;
};
JU_FILE_MEMO(symbol_answers, 256, struct symbol_answer);

JITUNWIND_API int jitunwind_elf_symbol(const char *path, const char *name, uint64_t *value,
                                       uint64_t *size)
{
    struct symbol_answer a = {JITUNWIND_ENOTFOUND, 0, 0};
    struct ju_wanted_symbols w = {&name, 1, 1, &a.value, &a.size, NULL};
    char debug[4096];
    uint8_t found = 0;
    int rc, used_debug;
    if (!path || !name || !value)
        return JITUNWIND_EINVAL;
    if (ju_file_memo_find(&symbol_answers, path, name, 0, &a))
        goto answer;
    w.found = &found;
    rc = ju_elf_each_symbol_noting(path, 0, ju_elf_take_wanted, &w, debug, sizeof debug,
                                   &used_debug);
    if (rc < 0)
        return rc;
    a.rc = found ? 0 : JITUNWIND_ENOTFOUND;
    ju_file_memo_keep(&symbol_answers, path, name, used_debug ? debug : NULL, &a);
answer:
    if (a.rc < 0)
        return a.rc;
    *value = a.value;
    if (size)
        *size = a.size;
    return 0;
}

int ju_elf_read_vaddr(const char *path, uint64_t vaddr, void *dst, size_t len)
{
    struct elf_file f;
    Elf_Scn *scn = NULL;
    int rc;
    if ((rc = open_elf(path, &f)) < 0)
        return rc;
    rc = JITUNWIND_ENOTFOUND;
    while ((scn = elf_nextscn(f.elf, scn)) != NULL) {
        GElf_Shdr sh;
        Elf_Data *data;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || vaddr < sh.sh_addr ||
            vaddr - sh.sh_addr > sh.sh_size || len > sh.sh_size - (vaddr - sh.sh_addr))
            continue;
        data = elf_getdata(scn, NULL);
        if (data && data->d_buf && data->d_size >= (vaddr - sh.sh_addr) + len) {
            memcpy(dst, (const char *)data->d_buf + (vaddr - sh.sh_addr), len);
            rc = 0;
        }
        break;
    }
    close_elf(&f);
    return rc;
}
