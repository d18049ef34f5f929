/* record and top on a live process: when the JIT and trampoline ranges are
 * read again. A warming-up process keeps making code (perf trampolines, JIT
 * executors, a JIT publishing through the jitunwind descriptor) and frees
 * some, so ranges read once at the start leave new code unnamed (frames cut
 * short, "?? (anonymous)") and can name new code by a freed range. They are
 * read again, before a sample, when
 *   - the jitunwind descriptor's generation changed (one 8-byte read),
 *   - /tmp/perf-PID.map's size or modification time changed (one stat),
 *   - the interpreter's executors changed (their addresses, code and code
 *     objects: polled every EXECUTOR_POLL seconds, a list walk), or
 *   - a sampled pc lay outside every range, module and the vDSO: at once
 *     while that finds the code, else after a gap that doubles up to
 *     OUTSIDE_GAP_MAX seconds (code that nothing describes stays so).
 * A reading replaces every range (jitunwind_registry_clear first), so a freed
 * one names nothing after it. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

#define EXECUTOR_POLL 0.1
#define OUTSIDE_GAP_MIN 0.01
#define OUTSIDE_GAP_MAX 1.0
#define EXECUTORS_SEEN 512u /* the newest executors (the list's head end) */

static uint64_t descriptor_generation(struct cli_target *t)
{
    uint64_t g = 0;
    if (t->jit_descriptor)
        t->raw.read(t->raw.arg, t->jit_descriptor +
                                    offsetof(struct jitunwind_jit_descriptor, generation),
                    &g, sizeof g);
    return g;
}

/* The perf map's and the jitdump file's (-X perf_jit) sizes added, and the
 * later of their modification times; -1 for a file that is not there. */
static void perf_map_state(const struct cli_target *t, long long *size, long long *mtime_ns)
{
    static const char *const names[] = {"/tmp/perf-%d.map", "/tmp/jit-%d.dump"};
    char path[64];
    struct stat st;
    size_t i;
    *size = *mtime_ns = -1;
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        long long m;
        snprintf(path, sizeof path, names[i], t->pid);
        if (stat(path, &st) != 0)
            continue;
        m = (long long)st.st_mtim.tv_sec * 1000000000ll + st.st_mtim.tv_nsec;
        *size = (*size < 0 ? 0 : *size) + (long long)st.st_size;
        *mtime_ns = m > *mtime_ns ? m : *mtime_ns;
    }
}

/* The [vdso] mapping of the process, from /proc/PID/maps. */
static void find_vdso(const struct cli_target *t, struct cli_range_watch *w)
{
    char path[64], line[512];
    FILE *f;
    snprintf(path, sizeof path, "/proc/%d/maps", t->pid);
    if (!(f = fopen(path, "re")))
        return;
    while (fgets(line, sizeof line, f)) {
        unsigned long long lo, hi;
        if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &lo, &hi) == 2) {
            w->vdso_start = lo;
            w->vdso_end = hi;
            break;
        }
    }
    fclose(f);
}

static uint64_t executors_fingerprint(struct cli_target *t, struct cli_range_watch *w)
{
    uint64_t h = 0xcbf29ce484222325ull;
    size_t n = 0, i;
    int rc;
    if (!t->py || w->executors_unsupported || !w->scratch)
        return 0;
    rc = jitunwind_pyreader_executors(t->py, w->scratch, EXECUTORS_SEEN, &n);
    if (rc == JITUNWIND_EUNSUPPORTED || rc == JITUNWIND_ENOTFOUND) {
        w->executors_unsupported = 1;
        return 0;
    }
    for (i = 0; i < n && i < EXECUTORS_SEEN; i++) {
        const struct jitunwind_py_executor *e = &w->scratch[i];
        uint64_t parts[4] = {e->address, e->jit_code, e->jit_size, e->code};
        size_t k;
        for (k = 0; k < 4; k++)
            h = (h ^ parts[k]) * 0x100000001b3ull;
    }
    return h ^ n;
}

static void note_sources(struct cli_target *t, struct cli_range_watch *w, double now)
{
    w->generation = descriptor_generation(t);
    perf_map_state(t, &w->map_size, &w->map_mtime_ns);
    w->executors = executors_fingerprint(t, w);
    w->executors_at = now;
}

void cli_range_watch_init(struct cli_target *t, struct cli_range_watch *w, double now)
{
    memset(w, 0, sizeof *w);
    w->scratch = calloc(EXECUTORS_SEEN, sizeof *w->scratch);
    if (t->live)
        find_vdso(t, w);
    note_sources(t, w, now);
}

int cli_range_watch_check(struct cli_target *t, struct cli_range_watch *w, double now)
{
    long long size, mtime_ns;
    int changed = 0;
    if (!t->live)
        return 0;
    if (t->jit_descriptor && descriptor_generation(t) != w->generation)
        changed = 1;
    perf_map_state(t, &size, &mtime_ns);
    if (size != w->map_size || mtime_ns != w->map_mtime_ns)
        changed = 1;
    if (!changed && !w->executors_unsupported && now - w->executors_at >= EXECUTOR_POLL) {
        w->executors_at = now;
        changed = executors_fingerprint(t, w) != w->executors;
    }
    if (t->pc_outside >= w->vdso_start && t->pc_outside < w->vdso_end)
        t->pc_outside = 0; /* the vDSO: known code, though no module's */
    if (!t->pc_outside) {
        w->outside_gap = 0; /* the last reading found what it lacked */
    } else if (!changed && now - w->outside_at >= w->outside_gap) {
        if (w->outside_at > 0 && w->outside_reread) /* read again, still outside */
            w->outside_gap = w->outside_gap * 2 > OUTSIDE_GAP_MAX ? OUTSIDE_GAP_MAX
                             : w->outside_gap * 2 < OUTSIDE_GAP_MIN ? OUTSIDE_GAP_MIN
                                                                    : w->outside_gap * 2;
        w->outside_at = now;
        changed = 1;
    }
    w->outside_reread = changed && t->pc_outside;
    t->pc_outside = 0;
    if (!changed)
        return 0;
    cli_target_forget_reads(t);
    cli_target_load_ranges(t);
    note_sources(t, w, now);
    w->reloads++;
    return 1;
}

void cli_range_watch_free(struct cli_range_watch *w)
{
    free(w->scratch);
    w->scratch = NULL;
}
