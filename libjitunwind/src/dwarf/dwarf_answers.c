/* The cache file of DWARF answers (dwarf_answers.h). The text, line by line:
 *
 *   jitunwind-dwarf-answers VERSION
 *   key BUILD-ID
 *   source BUILD-ID SIZE PATH
 *   answer KIND RC VALUE TYPE PATH      (PATH "-" for a size query)
 *   ...
 *   end COUNT CHECKSUM
 *
 * CHECKSUM is FNV-1a (64 bits, hex) of every byte before the end line. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf/dwarf_answers.h"
#include "base/hash.h"

#define MAGIC "jitunwind-dwarf-answers"

static int is_name(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n == 0 || n >= max)
        return 0;
    for (; *s; s++)
        if (*s <= ' ' || *s > '~')
            return 0;
    return 1;
}

static int is_hex_id(const char *s)
{
    size_t n = strspn(s, "0123456789abcdef");
    return n > 0 && n < JU_BUILD_ID_HEX_MAX && s[n] == 0;
}

const struct ju_dwarf_answer *ju_dwarf_answers_find(const struct ju_dwarf_answers *a, int kind,
                                                    const char *type, const char *path)
{
    unsigned i;
    for (i = 0; i < a->count; i++) {
        const struct ju_dwarf_answer *x = &a->answers[i];
        if (x->kind == kind && strcmp(x->type, type) == 0 && strcmp(x->path, path) == 0)
            return x;
    }
    return NULL;
}

void ju_dwarf_answers_add(struct ju_dwarf_answers *a, int kind, const char *type,
                          const char *path, int rc, uint64_t value)
{
    struct ju_dwarf_answer *x;
    if (ju_dwarf_answers_find(a, kind, type, path))
        return;
    if (a->count >= JU_DWARF_ANSWERS_MAX || !is_name(type, JU_DWARF_NAME_MAX) ||
        (*path && !is_name(path, JU_DWARF_NAME_MAX)) || strcmp(path, "-") == 0) {
        a->full = 1;
        return;
    }
    x = &a->answers[a->count++];
    x->kind = (uint8_t)kind;
    x->rc = rc;
    x->value = rc == 0 ? value : 0;
    ju_strlcpy(x->type, type, sizeof x->type);
    ju_strlcpy(x->path, path, sizeof x->path);
}

int ju_dwarf_answers_file(char *out, size_t size, const char *dir, const char *key)
{
    int n = snprintf(out, size, "%s/dwarf-%s", dir, key);
    return n < 0 || (size_t)n >= size ? JITUNWIND_EINVAL : 0;
}

int ju_dwarf_answers_format(const struct ju_dwarf_answers *a, char *out, size_t size)
{
    size_t len;
    unsigned i;
    int n = snprintf(out, size, MAGIC " %d\nkey %s\nsource %s %" PRIu64 " %s\n",
                     JU_DWARF_ANSWERS_VERSION, a->key, a->source_id, a->source_size, a->source);
    if (n < 0 || (size_t)n >= size)
        return JITUNWIND_ELIMIT;
    len = (size_t)n;
    for (i = 0; i < a->count; i++) {
        const struct ju_dwarf_answer *x = &a->answers[i];
        n = snprintf(out + len, size - len, "answer %u %d %" PRIu64 " %s %s\n", x->kind, x->rc,
                     x->value, x->type, x->path[0] ? x->path : "-");
        if (n < 0 || (size_t)n >= size - len)
            return JITUNWIND_ELIMIT;
        len += (size_t)n;
    }
    n = snprintf(out + len, size - len, "end %u %016" PRIx64 "\n", a->count, ju_fnv1a(out, len));
    if (n < 0 || (size_t)n >= size - len)
        return JITUNWIND_ELIMIT;
    return (int)(len + (size_t)n);
}

/* Next line of text[*at..len) into line (NUL-terminated, without its
 * newline): 0, or -1 at the end or for a line without a newline or too
 * long. */
static int next_line(const char *text, size_t len, size_t *at, char *line, size_t size)
{
    const char *nl;
    size_t n;
    if (*at >= len)
        return -1;
    nl = memchr(text + *at, '\n', len - *at);
    if (!nl)
        return -1;
    n = (size_t)(nl - (text + *at));
    if (n >= size || memchr(text + *at, 0, n))
        return -1;
    memcpy(line, text + *at, n);
    line[n] = 0;
    *at += n + 1;
    return 0;
}

static int parse_answer(struct ju_dwarf_answers *a, const char *line)
{
    char type[JU_DWARF_NAME_MAX], path[JU_DWARF_NAME_MAX], tail;
    unsigned kind;
    int rc;
    uint64_t value;
    if (a->count >= JU_DWARF_ANSWERS_MAX ||
        sscanf(line, "answer %u %d %" SCNu64 " %95s %95s%c", &kind, &rc, &value, type, path,
               &tail) != 5 ||
        kind >= JU_DWARF_QUERY_KINDS || rc > 0 || rc < -1000 || (rc != 0 && value != 0) ||
        (kind == JU_DWARF_TYPE_SIZE) != (strcmp(path, "-") == 0))
        return -1;
    if (ju_dwarf_answers_find(a, (int)kind, type, kind == JU_DWARF_TYPE_SIZE ? "" : path))
        return -1;
    ju_dwarf_answers_add(a, (int)kind, type, kind == JU_DWARF_TYPE_SIZE ? "" : path, rc, value);
    return a->full ? -1 : 0;
}

int ju_dwarf_answers_parse(struct ju_dwarf_answers *a, const char *text, size_t len,
                           const char *key)
{
    char line[1280], id[JU_BUILD_ID_HEX_MAX + 1];
    size_t at = 0, body;
    unsigned version, count;
    uint64_t checksum;
    int n = 0;
    memset(a, 0, sizeof *a);
    if (len > JU_DWARF_ANSWERS_FILE_MAX || next_line(text, len, &at, line, sizeof line) < 0 ||
        sscanf(line, MAGIC " %u%n", &version, &n) != 1 || line[n] ||
        version != JU_DWARF_ANSWERS_VERSION)
        return JITUNWIND_ECORRUPT;
    if (next_line(text, len, &at, line, sizeof line) < 0 || strncmp(line, "key ", 4) != 0 ||
        strcmp(line + 4, key) != 0 || !is_hex_id(key))
        return JITUNWIND_ECORRUPT;
    ju_strlcpy(a->key, key, sizeof a->key);
    n = 0;
    if (next_line(text, len, &at, line, sizeof line) < 0 ||
        sscanf(line, "source %129s %" SCNu64 " %n", id, &a->source_size, &n) != 2 || n == 0 ||
        !is_hex_id(id) || !line[n] || strlen(line + n) >= sizeof a->source)
        return JITUNWIND_ECORRUPT;
    ju_strlcpy(a->source_id, id, sizeof a->source_id);
    ju_strlcpy(a->source, line + n, sizeof a->source);
    for (;;) {
        body = at;
        if (next_line(text, len, &at, line, sizeof line) < 0)
            return JITUNWIND_ECORRUPT;
        if (strncmp(line, "answer ", 7) != 0)
            break;
        if (parse_answer(a, line) < 0)
            return JITUNWIND_ECORRUPT;
    }
    n = 0;
    if (sscanf(line, "end %u %16" SCNx64 "%n", &count, &checksum, &n) != 2 || line[n] ||
        n != (int)strlen(line) || at != len || count != a->count ||
        checksum != ju_fnv1a(text, body))
        return JITUNWIND_ECORRUPT;
    return 0;
}

int ju_dwarf_answers_load(struct ju_dwarf_answers *a, const char *dir, const char *key)
{
    char file[1200], *text;
    struct stat st;
    ssize_t got;
    int fd, rc;
    if (ju_dwarf_answers_file(file, sizeof file, dir, key) < 0)
        return JITUNWIND_EINVAL;
    fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return JITUNWIND_ENOTFOUND;
    /* Only an entry this user wrote, that nobody else may change, is
     * trusted (a shared or inherited HOME, a cache folder of another user). */
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > JU_DWARF_ANSWERS_FILE_MAX ||
        st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
        close(fd);
        return JITUNWIND_ECORRUPT;
    }
    text = malloc((size_t)st.st_size + 1);
    if (!text) {
        close(fd);
        return JITUNWIND_ENOMEM;
    }
    got = read(fd, text, (size_t)st.st_size + 1); /* +1: a file that grew is not whole */
    close(fd);
    rc = got == st.st_size ? ju_dwarf_answers_parse(a, text, (size_t)got, key)
                           : JITUNWIND_ECORRUPT;
    free(text);
    return rc;
}

/* mkdir -p, the directories created 0700. */
static int make_dirs(const char *dir)
{
    char path[1200];
    char *p;
    if (ju_strlcpy(path, dir, sizeof path))
        return JITUNWIND_EINVAL;
    for (p = path + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(path, 0700) < 0 && errno != EEXIST)
                return JITUNWIND_EIO;
            *p = '/';
        }
    return mkdir(path, 0700) < 0 && errno != EEXIST ? JITUNWIND_EIO : 0;
}

int ju_dwarf_answers_save(const struct ju_dwarf_answers *a, const char *dir)
{
    char file[1200], temp[1200], *text;
    int fd, len, ok;
    if (a->full || !is_hex_id(a->key) || !is_hex_id(a->source_id) || strchr(a->source, '\n') ||
        ju_dwarf_answers_file(file, sizeof file, dir, a->key) < 0 ||
        snprintf(temp, sizeof temp, "%s/.dwarf-XXXXXX", dir) >= (int)sizeof temp)
        return JITUNWIND_EINVAL;
    text = malloc(JU_DWARF_ANSWERS_FILE_MAX);
    if (!text)
        return JITUNWIND_ENOMEM;
    if ((len = ju_dwarf_answers_format(a, text, JU_DWARF_ANSWERS_FILE_MAX)) < 0) {
        free(text);
        return len;
    }
    if (make_dirs(dir) < 0) {
        free(text);
        return JITUNWIND_EIO;
    }
    fd = mkstemp(temp);
    if (fd < 0) {
        free(text);
        return JITUNWIND_EIO;
    }
    ok = write(fd, text, (size_t)len) == len;
    ok = close(fd) == 0 && ok;
    free(text);
    if (!ok || rename(temp, file) < 0) {
        unlink(temp);
        return JITUNWIND_EIO;
    }
    return 0;
}
