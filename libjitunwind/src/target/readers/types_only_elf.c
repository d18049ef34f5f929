/* An ELF file opened for type lookups only: the DWARF sections that hold no
 * type (line tables, location and range lists, address tables, CFI, macros,
 * name indexes) are marked SHT_NOBITS in a private copy-on-write mapping of
 * the file, which libdw then skips. libdw inflates every compressed debug
 * section it knows when the Dwarf is opened; on a distribution's separate
 * debug file (Debian's python3.11: 9.6 MB of compressed sections) those
 * sections are more than half of that work, and a type lookup never reads
 * them.
 *
 * The file is host data but parsed defensively: the header, the section
 * header table and every name are bounds-checked, and anything unexpected
 * (another ELF class, extended section numbering, a dwz alternate file,
 * which libdw finds only through a descriptor) gives the plain libelf open
 * instead. */
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* Sections a type lookup never reads, after ".debug_" or ".zdebug_". */
static const char *const UNREAD[] = {"line",    "loc",      "loclists", "ranges",
                                     "rnglists", "aranges", "frame",    "macro",
                                     "macinfo", "pubnames", "pubtypes", "gnu_pubnames",
                                     "gnu_pubtypes", "names"};

static int unread_section(const char *name)
{
    size_t i;
    if (strncmp(name, ".debug_", 7) == 0)
        name += 7;
    else if (strncmp(name, ".zdebug_", 8) == 0)
        name += 8;
    else
        return 0;
    for (i = 0; i < sizeof UNREAD / sizeof UNREAD[0]; i++)
        if (strcmp(name, UNREAD[i]) == 0)
            return 1;
    return 0;
}

/* The section name at `off` of the string table [strtab, strtab + size), or
 * NULL when it does not end inside it. */
static const char *name_at(const uint8_t *strtab, size_t size, uint64_t off)
{
    if (off >= size || !memchr(strtab + off, '\0', size - off))
        return NULL;
    return (const char *)strtab + off;
}

/* Mark the unread sections of the ELF64 image NOBITS: 1 when done, 0 when
 * the image is not one this handles (the caller opens it plainly). */
static int hide_unread_sections(uint8_t *image, size_t size)
{
    Elf64_Ehdr eh;
    Elf64_Shdr strtab_hdr;
    const uint8_t *strtab;
    size_t i;
    if (size < sizeof eh || memcmp(image, ELFMAG, SELFMAG) != 0 || image[EI_CLASS] != ELFCLASS64)
        return 0;
    memcpy(&eh, image, sizeof eh);
    if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
        eh.e_shstrndx >= eh.e_shnum || eh.e_shoff > size ||
        (size - eh.e_shoff) / sizeof(Elf64_Shdr) < eh.e_shnum)
        return 0; /* also SHN_XINDEX numbering (e_shnum 0 or e_shstrndx past it) */
    memcpy(&strtab_hdr, image + eh.e_shoff + (size_t)eh.e_shstrndx * sizeof(Elf64_Shdr),
           sizeof strtab_hdr);
    if (strtab_hdr.sh_type != SHT_STRTAB || strtab_hdr.sh_offset > size ||
        strtab_hdr.sh_size > size - strtab_hdr.sh_offset)
        return 0;
    strtab = image + strtab_hdr.sh_offset;
    for (i = 0; i < eh.e_shnum; i++) { /* refuse first: nothing is changed on failure */
        Elf64_Shdr sh;
        const char *name;
        memcpy(&sh, image + eh.e_shoff + i * sizeof sh, sizeof sh);
        if (!(name = name_at(strtab, strtab_hdr.sh_size, sh.sh_name)))
            return 0;
        if (strcmp(name, ".gnu_debugaltlink") == 0 || strcmp(name, ".debug_sup") == 0)
            return 0;
    }
    for (i = 0; i < eh.e_shnum; i++) {
        uint8_t *at = image + eh.e_shoff + i * sizeof(Elf64_Shdr);
        Elf64_Shdr sh;
        memcpy(&sh, at, sizeof sh);
        if (unread_section(name_at(strtab, strtab_hdr.sh_size, sh.sh_name))) {
            sh.sh_type = SHT_NOBITS;
            memcpy(at, &sh, sizeof sh);
        }
    }
    return 1;
}

int ju_elf_open_for_types(const char *path, struct ju_types_elf *out)
{
    struct stat st;
    void *map;
    int rc;
    memset(out, 0, sizeof *out);
    out->fd = -1;
    if ((rc = ju_elf_open(path, &out->fd, &out->elf)) < 0)
        return rc;
    if (fstat(out->fd, &st) != 0 || st.st_size <= 0 || (uint64_t)st.st_size > SIZE_MAX)
        return 0;
    map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, out->fd, 0);
    if (map == MAP_FAILED)
        return 0;
    if (hide_unread_sections(map, (size_t)st.st_size)) {
        Elf *in_memory = elf_memory(map, (size_t)st.st_size);
        if (in_memory && elf_kind(in_memory) == ELF_K_ELF) {
            elf_end(out->elf); /* the descriptor stays: a caller reads the file's notes */
            out->elf = in_memory;
            out->map = map;
            out->map_size = (size_t)st.st_size;
            return 0;
        }
        if (in_memory)
            elf_end(in_memory);
    }
    munmap(map, (size_t)st.st_size);
    return 0;
}

void ju_elf_close_for_types(struct ju_types_elf *f)
{
    ju_elf_close(f->fd, f->elf);
    if (f->map)
        munmap(f->map, f->map_size);
    memset(f, 0, sizeof *f);
    f->fd = -1;
}
