/* Loading perf map files (/tmp/perf-PID.map): "<hex start> <hex size> <name>"
 * per line, as written by CPython's perf trampolines. Each entry's layout is
 * read from its machine code, never assumed. */
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

#define MAX_LINE 4096u          /* longer lines are skipped */
#define MAX_LINES (4u << 20)    /* lines read from one file */
#define CODE_PEEK 16u           /* bytes read to classify a trampoline */

static int parse_line(char *line, uint64_t *start, uint64_t *size, char **name)
{
    char *end;
    unsigned long long v;
    errno = 0;
    v = strtoull(line, &end, 16);
    if (end == line || *end != ' ' || errno)
        return -1;
    *start = v;
    line = end + 1;
    v = strtoull(line, &end, 16);
    if (end == line || *end != ' ' || errno || v == 0)
        return -1;
    *size = v;
    *name = end + 1;
    (*name)[strcspn(*name, "\r\n")] = '\0';
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
        return JITUNWIND_EINVAL;
    f = fopen(path, "re");
    if (!f)
        return ju_fail(ju_registry_error(reg), errno == ENOENT ? JITUNWIND_ENOTFOUND : JITUNWIND_EIO,
                       0, "cannot open perf map %s: %s", path, strerror(errno));
    while (fgets(line, sizeof line, f)) {
        struct jitunwind_range r = {0};
        uint8_t code[CODE_PEEK];
        uint64_t start, size;
        char *name;
        int rule;
        if (++lines > MAX_LINES) {
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
        if (parse_line(line, &start, &size, &name) < 0 || start + size < start) {
            n_skipped++;
            continue;
        }
        if (ju_read(mem, start, code, size < CODE_PEEK ? (size_t)size : CODE_PEEK) < 0) {
            n_skipped++;
            continue;
        }
        rule = jitunwind_classify_trampoline(arch, code, size < CODE_PEEK ? (size_t)size : CODE_PEEK);
        if (rule < 0) {
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
    fclose(f);
    ju_clear_error(ju_registry_error(reg));
    if (added)
        *added = n_added;
    if (skipped)
        *skipped = n_skipped;
    return 0;
}
