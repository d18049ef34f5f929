/* Loading perf map files (/tmp/perf-PID.map): "<hex start> <hex size> <name>"
 * per line, as written by CPython's perf trampolines. Each entry's layout is
 * read from its machine code, never assumed. Bounded: lines are capped in
 * length and number; bad, unreadable and unknown entries are skipped and
 * counted. A later line wins over perf-map ranges it overlaps: the file is
 * appended to, so the code at that address was replaced, or the file holds
 * the lines of an earlier process with the same PID first (CPython opens it
 * with O_APPEND). A line overlapping a range of any other origin is skipped.
 * A read error mid-file returns EIO with the ranges added so far kept. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/arch_facts.h"
#include "internal.h"
#include "base/host_files.h"
#include "discovery/perf_files.h"
#include "ranges/registry_loaders.h"

#define MAX_LINE 4096u          /* longer lines are skipped */
#define MAX_LINES (4u << 20)    /* lines read from one file */
#define CODE_PEEK 32u           /* bytes read to classify a trampoline (AArch64 needs 24) */

/* One hex field followed by a space; no sign or leading blanks (strtoull
 * would accept them), an optional 0x (other tools write it). */
static int parse_hex(char **p, uint64_t *out)
{
    char *end;
    unsigned long long v;
    if (!isxdigit((unsigned char)**p))
        return -1;
    errno = 0;
    v = strtoull(*p, &end, 16);
    if (*end != ' ' || errno)
        return -1;
    *out = v;
    *p = end + 1;
    return 0;
}

/* `line` holds `len` bytes without the newline, NUL-terminated after them;
 * it may contain NUL bytes of its own (a name then ends at the first). */
static int parse_line(char *line, size_t len, uint64_t *start, uint64_t *size, char **name)
{
    if (len && line[len - 1] == '\r')
        line[--len] = '\0';
    if (parse_hex(&line, start) < 0 || parse_hex(&line, size) < 0 || *size == 0 ||
        *start + *size < *start)
        return -1;
    *name = line;
    return 0;
}

/* The next line of f into buf (at most cap - 1 bytes, counted, not found
 * with strchr: a line may hold NUL bytes); the rest of a longer line is
 * consumed and *overlong set. Returns 0 at the end of the file. */
static int next_line(FILE *f, char *buf, size_t cap, size_t *len, int *overlong)
{
    int c = EOF;
    size_t n = 0;
    *overlong = 0;
    while ((c = getc(f)) != EOF && c != '\n') {
        if (n < cap - 1)
            buf[n++] = (char)c;
        else
            *overlong = 1;
    }
    buf[n] = '\0';
    *len = n;
    return c != EOF || n > 0 || *overlong;
}

#define MAX_SUPERSEDED 16u /* perf-map ranges one line may replace */

long ju_perf_file_owner(const char *path)
{
    const char *base = strrchr(path, '/');
    char proc[64], tail;
    struct stat st;
    int pid;
    base = base ? base + 1 : path;
    if (!((sscanf(base, "perf-%d.ma%c", &pid, &tail) == 2 && tail == 'p') ||
          (sscanf(base, "jit-%d.dum%c", &pid, &tail) == 2 && tail == 'p')) || pid <= 0)
        return -1;
    snprintf(proc, sizeof proc, "/proc/%d", pid);
    return stat(proc, &st) == 0 ? (long)st.st_uid : -1;
}

JITUNWIND_API int jitunwind_registry_load_perf_map(jitunwind_registry *reg, const char *path,
                                                   int arch, const struct jitunwind_memory *mem,
                                                   size_t *added, size_t *skipped)
{
    char line[MAX_LINE];
    size_t n_added = 0, n_skipped = 0, lines = 0, len;
    int fd, rc, overlong;
    FILE *f;
    if (!reg || !path || !ju_memory_valid(mem))
        return JITUNWIND_EINVAL;
    if (!ju_arch_facts(arch))
        return ju_fail(ju_registry_error(reg), JITUNWIND_EINVAL, 0, "unknown architecture %d", arch);
    /* Any local user can create /tmp/perf-PID.map before the process does. */
    rc = ju_open_host_file(path, JU_OPEN_SHARED_PLACE, ju_perf_file_owner(path), ju_registry_error(reg), &fd);
    if (rc < 0)
        return rc;
    f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        return ju_fail(ju_registry_error(reg), JITUNWIND_ENOMEM, 0, "cannot read perf map %s",
                       path);
    }
    while (next_line(f, line, sizeof line, &len, &overlong)) {
        struct jitunwind_range r = {0};
        uint8_t code[CODE_PEEK];
        uint64_t start, size;
        size_t peek;
        char *name;
        int rule;
        if (++lines > MAX_LINES) {
            ju_log(JITUNWIND_LOG_WARNING, "perf map %s: stopped after %u lines", path, MAX_LINES);
            n_skipped++;
            break;
        }
        if (overlong || parse_line(line, len, &start, &size, &name) < 0) {
            n_skipped++;
            continue;
        }
        peek = size < CODE_PEEK ? (size_t)size : CODE_PEEK;
        if (ju_read(mem, start, code, peek) < 0) { /* unreadable code */
            n_skipped++;
            continue;
        }
        rule = jitunwind_classify_trampoline(arch, code, peek);
        if (rule < 0) { /* not a trampoline layout we know */
            n_skipped++;
            continue;
        }
        r.start = start;
        r.end = start + size;
        r.kind = JITUNWIND_KIND_TRAMPOLINE;
        r.rule = (uint32_t)rule;
        r.origin = JITUNWIND_ORIGIN_PERF_MAP;
        r.name = name;
        rc = ju_registry_supersede(reg, &r, JITUNWIND_ORIGIN_PERF_MAP, MAX_SUPERSEDED);
        if (rc < 0)
            n_skipped++;
        else
            n_added++;
    }
    if (added)
        *added = n_added;
    if (skipped)
        *skipped = n_skipped;
    if (ferror(f)) {
        fclose(f);
        return ju_fail(ju_registry_error(reg), JITUNWIND_EIO, 0,
                       "error reading perf map %s after %zu lines", path, lines);
    }
    fclose(f);
    ju_clear_error(ju_registry_error(reg));
    return 0;
}
