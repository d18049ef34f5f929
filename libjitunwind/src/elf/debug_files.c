/* Separate debug files (jitunwind/debug_files.h): the debug roots, and the
 * search by build id, by .gnu_debuglink and through debuginfod, with every
 * candidate checked before it is used. A debug link's name comes from the
 * file (a target's module): one with a '/' is refused, so that a search
 * never leaves the places listed. */
#include <elfutils/libdwelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "jitunwind/debug_files.h"
#include "elf/elf.h"

static pthread_mutex_t roots_lock = PTHREAD_MUTEX_INITIALIZER;
static char roots[JITUNWIND_DEBUG_DIRS_MAX] = JITUNWIND_DEBUG_ROOT_DEFAULT;

JITUNWIND_API int jitunwind_set_debug_file_directories(const char *dirs)
{
    if (!dirs)
        dirs = JITUNWIND_DEBUG_ROOT_DEFAULT;
    if (strlen(dirs) >= sizeof roots)
        return JITUNWIND_EINVAL;
    pthread_mutex_lock(&roots_lock);
    ju_strlcpy(roots, dirs, sizeof roots);
    pthread_mutex_unlock(&roots_lock);
    return 0;
}

JITUNWIND_API int jitunwind_debug_file_directories(char *buf, size_t size)
{
    int cut;
    if (!buf || size == 0)
        return JITUNWIND_EINVAL;
    pthread_mutex_lock(&roots_lock);
    cut = ju_strlcpy(buf, roots, size);
    pthread_mutex_unlock(&roots_lock);
    return cut ? JITUNWIND_ELIMIT : 0;
}

/* The CRC-32 of .gnu_debuglink (the IEEE polynomial, reflected, as zlib's). */
static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void make_crc_table(void)
{
    uint32_t i, k, c;
    for (i = 0; i < 256; i++) {
        for (c = i, k = 0; k < 8; k++)
            c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

uint32_t ju_crc32(uint32_t crc, const void *data, size_t len)
{
    const uint8_t *p = data;
    pthread_once(&crc_once, make_crc_table);
    crc = ~crc;
    while (len--)
        crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

/* The last file whose CRC was computed: a debuglink search repeats for
 * every symbol lookup of a stripped file, and a debug file is large. */
static pthread_mutex_t crc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    uint32_t crc;
    int valid;
} crc_memo;

static int same_file_state(const struct stat *st)
{
    return crc_memo.valid && crc_memo.dev == st->st_dev && crc_memo.ino == st->st_ino &&
           crc_memo.size == st->st_size && crc_memo.mtime.tv_sec == st->st_mtim.tv_sec &&
           crc_memo.mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* The CRC-32 of the whole open file fd: 0, or EIO. */
static int file_crc(int fd, uint32_t *out)
{
    static const size_t chunk = 1u << 16;
    struct stat st;
    uint8_t *buf;
    uint32_t crc = 0;
    off_t at = 0;
    int rc = 0;
    if (fstat(fd, &st) != 0)
        return JITUNWIND_EIO;
    pthread_mutex_lock(&crc_lock);
    if (same_file_state(&st)) {
        *out = crc_memo.crc;
        pthread_mutex_unlock(&crc_lock);
        return 0;
    }
    pthread_mutex_unlock(&crc_lock);
    if (!(buf = malloc(chunk)))
        return JITUNWIND_ENOMEM;
    for (;;) {
        ssize_t n = pread(fd, buf, chunk, at);
        if (n < 0) {
            rc = JITUNWIND_EIO;
            break;
        }
        if (n == 0)
            break;
        crc = ju_crc32(crc, buf, (size_t)n);
        at += n;
    }
    free(buf);
    if (rc == 0) {
        pthread_mutex_lock(&crc_lock);
        crc_memo.dev = st.st_dev;
        crc_memo.ino = st.st_ino;
        crc_memo.size = st.st_size;
        crc_memo.mtime = st.st_mtim;
        crc_memo.crc = crc;
        crc_memo.valid = 1;
        pthread_mutex_unlock(&crc_lock);
        *out = crc;
    }
    return rc;
}

/* One search: the file searched for, what it is checked against, and the
 * note of refusals. */
struct search {
    const char *hex;   /* the file's build id in hex, or NULL */
    struct stat self;  /* the file itself, never its own debug file */
    char *note;
    size_t note_size;
};

static void refuse(struct search *s, const char *candidate, const char *fmt, ...)
    JU_PRINTF(3, 4);

static void refuse(struct search *s, const char *candidate, const char *fmt, ...)
{
    char why[256];
    va_list ap;
    size_t used;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    ju_log(JITUNWIND_LOG_WARNING, "separate debug file %s refused: %s", candidate, why);
    if (!s->note || s->note_size == 0)
        return;
    used = strlen(s->note);
    snprintf(s->note + used, s->note_size - used, "%s%s refused: %s",
             used ? "; " : "separate debug file ", candidate, why);
    /* Paths come from the target's module names: no control character
     * reaches a terminal that shows the note. */
    for (; s->note[used]; used++)
        if ((unsigned char)s->note[used] < 0x20 || s->note[used] == 0x7f)
            s->note[used] = '?';
}

/* Whether `candidate` is a separate debug file of the searched file: it is
 * an ELF file other than the searched one, with the same build id (when
 * the searched file has one) and, for a debuglink (`crc` non-NULL), the
 * CRC the link records. 1 yes, 0 no (absent, or refused with a note). */
static int acceptable(struct search *s, const char *candidate, const uint32_t *crc)
{
    char hex[JU_BUILD_ID_HEX_MAX];
    struct stat st;
    uint32_t got;
    int fd, ok = 0;
    Elf *elf;
    if (stat(candidate, &st) != 0)
        return 0;
    if (st.st_dev == s->self.st_dev && st.st_ino == s->self.st_ino)
        return 0;
    if (ju_elf_open(candidate, &fd, &elf) < 0) {
        refuse(s, candidate, "not a readable ELF file");
        return 0;
    }
    if (s->hex && ju_elf_build_id_hex(elf, hex, sizeof hex) == 0 && strcmp(hex, s->hex) != 0)
        refuse(s, candidate, "its build id is %s, not %s", hex, s->hex);
    else if (s->hex && !crc && ju_elf_build_id_hex(elf, hex, sizeof hex) < 0)
        refuse(s, candidate, "it has no build id");
    else if (crc && file_crc(fd, &got) < 0)
        refuse(s, candidate, "cannot be read");
    else if (crc && got != *crc)
        refuse(s, candidate, "its CRC is %08x, the debug link says %08x", got, *crc);
    else
        ok = 1;
    ju_elf_close(fd, elf);
    return ok;
}

/* `list` (':'-separated) split into its entries, each passed to `each`
 * until it returns 1. */
static int each_root(const char *list, int (*each)(void *arg, const char *root), void *arg)
{
    const char *p = list;
    while (*p) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char root[JITUNWIND_DEBUG_DIRS_MAX];
        if (len > 0 && len < sizeof root) {
            memcpy(root, p, len);
            root[len] = '\0';
            while (len > 1 && root[len - 1] == '/')
                root[--len] = '\0';
            if (each(arg, root))
                return 1;
        }
        if (!end)
            break;
        p = end + 1;
    }
    return 0;
}

struct attempt {
    struct search *s;
    char *out;
    size_t size;
    const char *rest;     /* what follows the root */
    const uint32_t *crc;  /* a debuglink's, or NULL */
};

static int try_root(void *arg, const char *root)
{
    struct attempt *a = arg;
    char candidate[4096];
    int n = snprintf(candidate, sizeof candidate, "%s%s", root, a->rest);
    if (n <= 0 || (size_t)n >= sizeof candidate || (size_t)n >= a->size ||
        !acceptable(a->s, candidate, a->crc))
        return 0;
    ju_strlcpy(a->out, candidate, a->size);
    return 1;
}

/* The directory of `path` with symbolic links resolved into dir[size]
 * ("." for a bare name). */
static void file_dir(const char *path, char *dir, size_t size)
{
    const char *slash = strrchr(path, '/');
    char *real;
    if (!slash) {
        ju_strlcpy(dir, ".", size);
        return;
    }
    snprintf(dir, size, "%.*s", (int)(slash == path ? 1 : slash - path), path);
    if ((real = realpath(dir, NULL)) != NULL) {
        ju_strlcpy(dir, real, size);
        free(real);
    }
}

static int by_debuglink(struct search *s, Elf *elf, const char *path, const char *list,
                        char *out, size_t size)
{
    char dir[2048], rest[4096];
    GElf_Word crc;
    const char *link = dwelf_elf_gnu_debuglink(elf, &crc);
    struct attempt a = {s, out, size, rest, NULL};
    uint32_t want;
    if (!link || !*link)
        return 0;
    if (strchr(link, '/') || strcmp(link, ".") == 0 || strcmp(link, "..") == 0) {
        refuse(s, link, "a debug link names a file, not a path");
        return 0;
    }
    want = crc;
    a.crc = &want;
    file_dir(path, dir, sizeof dir);
    snprintf(rest, sizeof rest, "/%s", link);
    if (try_root(&a, dir))
        return 1;
    snprintf(rest, sizeof rest, "/.debug/%s", link);
    if (try_root(&a, dir))
        return 1;
    snprintf(rest, sizeof rest, "%s/%s", dir[0] == '/' && dir[1] ? dir : "", link);
    return dir[0] == '/' && each_root(list, try_root, &a);
}

/* The debug file a debuginfod client fetched for the searched file's build
 * id: from the client's cache, or (`remote`) from the servers. */
static int from_debuginfod(struct search *s, Elf *elf, int remote, char *out, size_t size)
{
    char candidate[4096];
    const void *id;
    ssize_t len = dwelf_elf_gnu_build_id(elf, &id);
    if (len <= 0)
        return 0;
    if (ju_debuginfod_cached(s->hex, candidate, sizeof candidate) == 0 &&
        access(candidate, F_OK) == 0) {
        if (strlen(candidate) >= size || !acceptable(s, candidate, NULL))
            return 0;
    } else if (!remote || ju_debuginfod_find(id, (size_t)len, candidate, sizeof candidate) < 0 ||
               strlen(candidate) >= size || !acceptable(s, candidate, NULL)) {
        return 0;
    }
    ju_strlcpy(out, candidate, size);
    return 1;
}

/* Whether ELF carries its own DWARF (a .debug_info with contents): such a
 * file needs no separate debug file, and no server is asked for one (a
 * debugger on an unstripped interpreter would download one nothing
 * reads). */
static int carries_dwarf(Elf *elf)
{
    size_t shstrndx;
    Elf_Scn *scn = NULL;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        return 0;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        const char *name;
        if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS && sh.sh_size > 0 &&
            (name = elf_strptr(elf, shstrndx, sh.sh_name)) && strcmp(name, ".debug_info") == 0)
            return 1;
    }
    return 0;
}

int ju_debug_file_find(Elf *elf, const char *path, unsigned flags, char *out, size_t size,
                       char *note, size_t note_size)
{
    char hex[JU_BUILD_ID_HEX_MAX], rest[JU_BUILD_ID_HEX_MAX + 32];
    char *list = malloc(JITUNWIND_DEBUG_DIRS_MAX);
    struct search s = {NULL, {0}, note, note_size};
    struct attempt a = {&s, out, size, rest, NULL};
    int found = 0;
    if (note && note_size)
        note[0] = '\0';
    if (!list)
        return JITUNWIND_ENOMEM;
    jitunwind_debug_file_directories(list, JITUNWIND_DEBUG_DIRS_MAX);
    if (stat(path, &s.self) != 0)
        memset(&s.self, 0, sizeof s.self);
    if (ju_elf_build_id_hex(elf, hex, sizeof hex) == 0 && strlen(hex) >= 4) {
        s.hex = hex;
        snprintf(rest, sizeof rest, "/.build-id/%.2s/%s.debug", hex, hex + 2);
        found = each_root(list, try_root, &a);
    }
    if (!found)
        found = by_debuglink(&s, elf, path, list, out, size);
    if (!found && s.hex)
        found = from_debuginfod(&s, elf, (flags & JU_DEBUG_REMOTE) != 0 && !carries_dwarf(elf),
                                out, size);
    free(list);
    return found ? 0 : JITUNWIND_ENOTFOUND;
}

JITUNWIND_API int jitunwind_debug_file_find(const char *elf_path, char *path, size_t size,
                                            char *note, size_t note_size)
{
    int fd, rc;
    Elf *elf;
    if (note && note_size)
        note[0] = '\0';
    if (!elf_path || !path || size == 0)
        return JITUNWIND_EINVAL;
    if ((rc = ju_elf_open(elf_path, &fd, &elf)) < 0)
        return rc;
    rc = ju_debug_file_find(elf, elf_path, JU_DEBUG_REMOTE, path, size, note, note_size);
    ju_elf_close(fd, elf);
    return rc;
}
