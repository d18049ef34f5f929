/* Loading perf map files (/tmp/perf-PID.map): "<hex start> <hex size> <name>"
 * per line, as written by CPython's perf trampolines. Each entry's layout is
 * read from its machine code, never assumed. Bounded: lines are capped in
 * length and number; bad, unreadable, unknown and overlapping entries are
 * skipped and counted. A read error mid-file returns EIO with the ranges
 * added so far kept. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

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

static int parse_line(char *line, uint64_t *start, uint64_t *size, char **name)
{
    if (parse_hex(&line, start) < 0 || parse_hex(&line, size) < 0 || *size == 0 ||
        *start + *size < *start)
        return -1;
    *name = line;
    line[strcspn(line, "\r\n")] = '\0';
    return 0;
}

JITUNWIND_API int jitunwind_registry_load_perf_map(jitunwind_registry *reg, const char *path,
                                                   int arch, const struct jitunwind_memory *mem,
                                                   size_t *added, size_t *skipped)
{
    char line[MAX_LINE];
    size_t n_added = 0, n_skipped = 0, lines = 0;
    FILE *f;
    if (!reg || !path || !mem || !mem->read)
        return JITUNWIND_EINVAL;
    if (arch != JITUNWIND_ARCH_X86_64 && arch != JITUNWIND_ARCH_AARCH64)
        return ju_fail(ju_registry_error(reg), JITUNWIND_EINVAL, 0, "unknown architecture %d", arch);
    f = fopen(path, "re");
    if (!f)
        return ju_fail(ju_registry_error(reg), errno == ENOENT ? JITUNWIND_ENOTFOUND : JITUNWIND_EIO,
                       0, "cannot open perf map %s: %s", path, strerror(errno));
    while (fgets(line, sizeof line, f)) {
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
        if (!strchr(line, '\n') && !feof(f)) { /* overlong: skip the rest of it */
            int c;
            while ((c = fgetc(f)) != EOF && c != '\n')
                ;
            n_skipped++;
            continue;
        }
        if (parse_line(line, &start, &size, &name) < 0) {
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
        if (jitunwind_registry_add(reg, &r) < 0)
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
