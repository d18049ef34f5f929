/* GNU build ids of an executable file and of the executable image a core
 * holds: whether a core was dumped from a given executable (--exe). */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

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
    char why[128];
    int fd = cli_open_regular(path, why, sizeof why), rc;
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

int cli_core_image_build_id(const struct cli_target *t, uint64_t start, uint64_t end,
                            char *out, size_t len)
{
    struct memory_image img = {&t->mem, start, end - start};
    return end > start ? image_build_id(memory_read, &img, out, len) : -1;
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
        if (jitunwind_modules_info(mods, pick, &info) == 0)
            rc = cli_core_image_build_id(t, info.start, info.end, out, len);
    }
done:
    jitunwind_modules_free(mods);
    return rc;
}
