/* Symbols and initialised data of ELF files on the host, via libelf. */
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <unistd.h>

#include "base/arch_facts.h"
#include "internal.h"

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

int ju_elf_build_id_debug_path(Elf *elf, char *path, size_t size)
{
    char hex[JU_BUILD_ID_HEX_MAX];
    int len;
    if (ju_elf_build_id_hex(elf, hex, sizeof hex) < 0 || strlen(hex) < 4)
        return JITUNWIND_ENOTFOUND;
    len = snprintf(path, size, JU_DEBUG_ROOT "/.build-id/%.2s/%s.debug", hex, hex + 2);
    return len > 0 && (size_t)len < size ? 0 : JITUNWIND_ENOTFOUND;
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

/* The defined symbols named names[0..n) in the symbol tables of `type`, in
 * one pass: sets values[i], sizes[i] and found[i] for each one not yet
 * found; returns how many are still missing. */
static size_t find_in(Elf *elf, Elf64_Word type, const char *const *names, size_t n,
                      uint64_t *values, uint64_t *sizes, uint8_t *found, size_t missing)
{
    Elf_Scn *scn = NULL;
    while (missing && (scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        Elf_Data *data;
        size_t i, k, count;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || sh.sh_entsize == 0)
            continue;
        data = elf_getdata(scn, NULL);
        if (!data)
            continue;
        count = sh.sh_size / sh.sh_entsize;
        for (i = 0; missing && i < count; i++) {
            GElf_Sym sym;
            const char *s;
            if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
                continue;
            s = elf_strptr(elf, sh.sh_link, sym.st_name);
            for (k = 0; s && k < n; k++) {
                if (found[k] || strcmp(s, names[k]) != 0)
                    continue;
                values[k] = sym.st_value;
                sizes[k] = sym.st_size;
                found[k] = 1;
                missing--;
            }
        }
    }
    return missing;
}

int ju_elf_symbols(const char *path, const char *const *names, size_t n, uint64_t *values,
                   uint64_t *sizes, uint8_t *found)
{
    struct elf_file f;
    size_t missing = n;
    int rc;
    memset(found, 0, n);
    if ((rc = open_elf(path, &f)) < 0)
        return rc;
    missing = find_in(f.elf, SHT_SYMTAB, names, n, values, sizes, found, missing);
    find_in(f.elf, SHT_DYNSYM, names, n, values, sizes, found, missing);
    close_elf(&f);
    return 0;
}

JITUNWIND_API int jitunwind_elf_symbol(const char *path, const char *name, uint64_t *value,
                                       uint64_t *size)
{
    uint64_t v, sz;
    uint8_t found;
    int rc;
    if (!path || !name || !value)
        return JITUNWIND_EINVAL;
    if ((rc = ju_elf_symbols(path, &name, 1, &v, &sz, &found)) < 0)
        return rc;
    if (!found)
        return JITUNWIND_ENOTFOUND;
    *value = v;
    if (size)
        *size = sz;
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
