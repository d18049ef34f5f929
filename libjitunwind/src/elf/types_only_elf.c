/* An ELF file opened for type lookups only: the DWARF sections that hold no
 * type (line tables, location and range lists, address tables, CFI, macros,
 * name indexes) are marked SHT_NOBITS in a private copy-on-write mapping of
 * the file, which libdw then skips. libdw inflates every compressed debug
 * section it knows when the Dwarf is opened; on a distribution's separate
 * debug file (Debian's python3.11: 9.6 MB of compressed sections) those
 * sections are more than half of that work, and a type lookup never reads
 * them.
 *
 * The compressed sections libdw does read are inflated here, when built
 * with libdeflate (zlib_inflate.c: twice zlib's speed), into anonymous
 * memory right after the file's mapping, advised for huge pages; their
 * headers then point there, uncompressed. The file's bytes are not copied.
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
#include "elf/elf.h"

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

/* An ELF64 image whose header, section header table and section names
 * checked out. */
struct image {
    uint8_t *bytes;
    size_t size;
    Elf64_Ehdr eh;
    const uint8_t *strtab;
    size_t strtab_size;
};

static void get_shdr(const struct image *im, size_t i, Elf64_Shdr *sh)
{
    memcpy(sh, im->bytes + im->eh.e_shoff + i * sizeof *sh, sizeof *sh);
}

static void put_shdr(struct image *im, size_t i, const Elf64_Shdr *sh)
{
    memcpy(im->bytes + im->eh.e_shoff + i * sizeof *sh, sh, sizeof *sh);
}

/* 1 when the image is one this handles (every section named, no dwz
 * alternate), 0 when the caller opens it plainly. */
static int check_image(uint8_t *bytes, size_t size, struct image *im)
{
    Elf64_Shdr strtab_hdr;
    size_t i;
    im->bytes = bytes;
    im->size = size;
    if (size < sizeof im->eh || memcmp(bytes, ELFMAG, SELFMAG) != 0 ||
        bytes[EI_CLASS] != ELFCLASS64)
        return 0;
    memcpy(&im->eh, bytes, sizeof im->eh);
    if (im->eh.e_shentsize != sizeof(Elf64_Shdr) || im->eh.e_shnum == 0 ||
        im->eh.e_shstrndx >= im->eh.e_shnum || im->eh.e_shoff > size ||
        (size - im->eh.e_shoff) / sizeof(Elf64_Shdr) < im->eh.e_shnum)
        return 0; /* also SHN_XINDEX numbering (e_shnum 0 or e_shstrndx past it) */
    get_shdr(im, im->eh.e_shstrndx, &strtab_hdr);
    if (strtab_hdr.sh_type != SHT_STRTAB || strtab_hdr.sh_offset > size ||
        strtab_hdr.sh_size > size - strtab_hdr.sh_offset)
        return 0;
    im->strtab = bytes + strtab_hdr.sh_offset;
    im->strtab_size = strtab_hdr.sh_size;
    for (i = 0; i < im->eh.e_shnum; i++) {
        Elf64_Shdr sh;
        const char *name;
        get_shdr(im, i, &sh);
        if (!(name = name_at(im->strtab, im->strtab_size, sh.sh_name)))
            return 0;
        if (strcmp(name, ".gnu_debugaltlink") == 0 || strcmp(name, ".debug_sup") == 0)
            return 0;
    }
    return 1;
}

static const char *section_name(const struct image *im, const Elf64_Shdr *sh)
{
    return name_at(im->strtab, im->strtab_size, sh->sh_name); /* checked by check_image */
}

static void hide_unread_sections(struct image *im)
{
    size_t i;
    for (i = 0; i < im->eh.e_shnum; i++) {
        Elf64_Shdr sh;
        get_shdr(im, i, &sh);
        if (unread_section(section_name(im, &sh))) {
            sh.sh_type = SHT_NOBITS;
            put_shdr(im, i, &sh);
        }
    }
}

/* A compressed debug section libdw would read, inflated here instead: its
 * section index, the stream, and where its bytes go past the file's. */
struct inflation {
    size_t section;
    uint64_t in_off, in_size, out_size, out_off;
};

#define MAX_INFLATIONS 16
#define HUGE_PAGE (2u << 20)
#define MAX_INFLATED_TOTAL (16ull << 30)
#define DEFLATE_MAX_RATIO 1032u /* no zlib stream inflates further */

static uint64_t round_up(uint64_t v, uint64_t to)
{
    return (v + to - 1) / to * to;
}

/* Plan the inflation of the SHF_COMPRESSED/ELFCOMPRESS_ZLIB .debug_*
 * sections libdw reads: how many (0 when none), each one's place in an
 * image of *image_size bytes that starts with the file's (those of a
 * huge page or more in whole huge pages, for fewer page faults). A
 * section whose header does not check out is left to libelf. */
static size_t plan_inflations(const struct image *im, struct inflation *plan, size_t *image_size)
{
    long page_size = sysconf(_SC_PAGESIZE);
    uint64_t page = page_size > 0 ? (uint64_t)page_size : HUGE_PAGE;
    uint64_t files_end = round_up(im->size, page), end = files_end;
    size_t i, n = 0;
    if (!ju_zlib_inflate_available())
        return 0;
    for (i = 0; i < im->eh.e_shnum && n < MAX_INFLATIONS; i++) {
        Elf64_Shdr sh;
        Elf64_Chdr ch;
        const char *name;
        get_shdr(im, i, &sh);
        name = section_name(im, &sh);
        if (sh.sh_type == SHT_NOBITS || !(sh.sh_flags & SHF_COMPRESSED) ||
            strncmp(name, ".debug_", 7) != 0 || unread_section(name) ||
            sh.sh_offset > im->size || sh.sh_size > im->size - sh.sh_offset ||
            sh.sh_size <= sizeof ch)
            continue;
        memcpy(&ch, im->bytes + sh.sh_offset, sizeof ch);
        if (ch.ch_type != ELFCOMPRESS_ZLIB || ch.ch_size == 0 ||
            ch.ch_size / DEFLATE_MAX_RATIO > sh.sh_size ||
            ch.ch_size > MAX_INFLATED_TOTAL - (end - files_end))
            continue;
        if (ch.ch_size >= HUGE_PAGE)
            end = round_up(end, HUGE_PAGE);
        plan[n++] = (struct inflation){i, sh.sh_offset + sizeof ch, sh.sh_size - sizeof ch,
                                       ch.ch_size, end};
        end = round_up(end + ch.ch_size, ch.ch_size >= HUGE_PAGE ? HUGE_PAGE : page);
    }
    if (end > SIZE_MAX / 2)
        return 0;
    *image_size = (size_t)end;
    return n;
}

/* Inflate each planned section into the image and point its header there,
 * uncompressed; one that does not inflate stays as it is, for libelf to
 * inflate or refuse as it would the file. Returns how many were taken. */
static unsigned inflate_sections(struct image *im, const struct inflation *plan, size_t n)
{
    unsigned taken = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        const struct inflation *p = &plan[i];
        Elf64_Shdr sh;
        if (p->out_size >= HUGE_PAGE) /* its whole huge pages; where refused, small ones */
            (void)madvise(im->bytes + p->out_off, (size_t)round_up(p->out_size, HUGE_PAGE),
                          MADV_HUGEPAGE);
        if (ju_zlib_inflate(im->bytes + p->in_off, (size_t)p->in_size, im->bytes + p->out_off,
                            (size_t)p->out_size) < 0)
            continue;
        get_shdr(im, p->section, &sh);
        sh.sh_flags &= ~(uint64_t)SHF_COMPRESSED;
        sh.sh_offset = p->out_off;
        sh.sh_size = p->out_size;
        put_shdr(im, p->section, &sh);
        taken++;
    }
    return taken;
}

/* A private mapping of the file at a huge-page boundary in an anonymous
 * reservation of reserve_size bytes (freed whole by munmap of *reserve):
 * the image base, or NULL. */
static uint8_t *map_into_reservation(int fd, size_t file_size, size_t reserve_size,
                                     void **reserve)
{
    uint8_t *base;
    *reserve = mmap(NULL, reserve_size, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (*reserve == MAP_FAILED)
        return NULL;
    base = (uint8_t *)round_up((uintptr_t)*reserve, HUGE_PAGE);
    if (mmap(base, file_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) ==
        MAP_FAILED) {
        munmap(*reserve, reserve_size);
        return NULL;
    }
    return base;
}

/* Give `out` an in-memory ELF over `bytes` (image_size bytes; `map` of
 * map_size to unmap at close): 1, or 0 when libelf refuses it. */
static int adopt_image(struct ju_types_elf *out, uint8_t *bytes, size_t image_size, void *map,
                       size_t map_size)
{
    Elf *in_memory = elf_memory((char *)bytes, image_size);
    if (!in_memory || elf_kind(in_memory) != ELF_K_ELF) {
        if (in_memory)
            elf_end(in_memory);
        return 0;
    }
    elf_end(out->elf); /* the descriptor stays: a caller reads the file's notes */
    out->elf = in_memory;
    out->map = map;
    out->map_size = map_size;
    return 1;
}

int ju_elf_open_for_types(const char *path, struct ju_types_elf *out)
{
    struct inflation plan[MAX_INFLATIONS];
    struct image im;
    struct stat st;
    size_t size, image_size, n;
    void *map, *reserve;
    uint8_t *base;
    int rc;
    memset(out, 0, sizeof *out);
    out->fd = -1;
    if ((rc = ju_elf_open(path, &out->fd, &out->elf)) < 0)
        return rc;
    if (fstat(out->fd, &st) != 0 || st.st_size <= 0 || (uint64_t)st.st_size > SIZE_MAX / 2)
        return 0;
    size = (size_t)st.st_size;
    map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, out->fd, 0);
    if (map == MAP_FAILED)
        return 0;
    if (!check_image(map, size, &im)) {
        munmap(map, size);
        return 0;
    }
    n = plan_inflations(&im, plan, &image_size);
    if (n && (base = map_into_reservation(out->fd, size, image_size + HUGE_PAGE, &reserve))) {
        munmap(map, size);
        if (check_image(base, size, &im)) { /* the same bytes: checked again for its pointers */
            hide_unread_sections(&im);
            out->inflated = inflate_sections(&im, plan, n);
            if (adopt_image(out, base, image_size, reserve, image_size + HUGE_PAGE))
                return 0;
        }
        out->inflated = 0;
        munmap(reserve, image_size + HUGE_PAGE);
        return 0;
    }
    hide_unread_sections(&im);
    if (!adopt_image(out, map, size, map, size))
        munmap(map, size);
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
