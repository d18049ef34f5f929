/* record --perf --all: what the rings say of the processes that started
 * (fork) or ran another program (execve) while recording: their
 * executable file mappings and their name. A process that ends before it
 * could be opened through /proc leaves only these and its samples; the
 * files it mapped are still on disk and each sample carries its registers
 * and its stack's copy, so its samples are unwound natively from them
 * (no Python frames: its memory is gone).
 *
 * Each process is known from its start (the fork or execve's time) to its
 * end: a mapping recorded before its start belongs to what the PID held
 * before, and a sample taken outside that span is not unwound with it. A
 * process that ran before recording is known from its /proc files read at
 * the start (perf_running.c), its start the one /proc says; a process
 * whose start was neither seen nor read is never used: its mappings would
 * be only those made since. */
#include <stdlib.h>
#include <string.h>

#include "perf_events.h"

/* Processes remembered at once (perf_events.h); the mappings kept of each
 * (a Python process maps about 60 executable files); module sets built at
 * once (each holds its files' symbols and CFI once used). */
#define RECS_MAX CLI_PERF_RECS_MAX
#define MAPS_MAX 128u
#define BUILT_MAX 8u

struct rec_map {
    char *path;
    uint64_t start, end, offset;
    double at;
};

struct rec {
    int pid;               /* 0: a free entry */
    int born;              /* its start was seen: its mappings are all there */
    int read_running;      /* its start and mappings read from /proc, not the rings */
    double since;          /* its start, CLOCK_MONOTONIC seconds */
    double ended;          /* its end, or 0 */
    double touched;        /* its newest record or use, for eviction */
    char comm[16];
    struct rec_map maps[MAPS_MAX];
    size_t n;
    struct cli_perf_proc *proc; /* its module set, built at its first use, or NULL */
    double built_at;
};

struct cli_perf_records {
    struct rec r[RECS_MAX];
    size_t built;
    jitunwind_module_files *files;
};

struct cli_perf_records *cli_perf_records_new(jitunwind_module_files *files)
{
    struct cli_perf_records *rs = calloc(1, sizeof *rs);
    if (rs)
        rs->files = files;
    return rs;
}

static void unbuild(struct cli_perf_records *rs, struct rec *e)
{
    if (!e->proc)
        return;
    cli_target_close(&e->proc->t);
    free(e->proc);
    e->proc = NULL;
    rs->built--;
}

static void drop_maps(struct rec *e, double before)
{
    size_t i, kept = 0;
    for (i = 0; i < e->n; i++) {
        if (e->maps[i].at < before)
            free(e->maps[i].path);
        else
            e->maps[kept++] = e->maps[i];
    }
    e->n = kept;
}

static void forget(struct cli_perf_records *rs, struct rec *e)
{
    unbuild(rs, e);
    drop_maps(e, 1e300);
    memset(e, 0, sizeof *e);
}

void cli_perf_records_free(struct cli_perf_records *rs)
{
    size_t i;
    if (!rs)
        return;
    for (i = 0; i < RECS_MAX; i++)
        forget(rs, &rs->r[i]);
    free(rs);
}

static struct rec *find(struct cli_perf_records *rs, int pid)
{
    size_t i;
    for (i = 0; i < RECS_MAX; i++)
        if (rs->r[i].pid == pid)
            return &rs->r[i];
    return NULL;
}

/* Process `pid`'s entry, a new one (a free or the least recently touched
 * entry) when it has none. */
static struct rec *entry(struct cli_perf_records *rs, int pid, double at)
{
    struct rec *e = find(rs, pid), *oldest = &rs->r[0];
    size_t i;
    if (!e) {
        for (i = 0; i < RECS_MAX && rs->r[i].pid; i++)
            if (rs->r[i].touched < oldest->touched)
                oldest = &rs->r[i];
        e = i < RECS_MAX ? &rs->r[i] : oldest;
        forget(rs, e);
        e->pid = pid;
    }
    if (at > e->touched)
        e->touched = at;
    return e;
}

static void add_map(struct rec *e, const char *path, uint64_t start, uint64_t end,
                    uint64_t offset, double at)
{
    struct rec_map *m = &e->maps[e->n];
    if (e->n >= MAPS_MAX || !(m->path = strdup(path)))
        return;
    m->start = start;
    m->end = end;
    m->offset = offset;
    m->at = at;
    e->n++;
    if (e->proc)
        jitunwind_modules_add_mapping(e->proc->t.mods, path, start, end, offset);
}

/* A new start of `pid` at `at`: what came before it is another program's. */
static struct rec *start(struct cli_perf_records *rs, int pid, double at)
{
    struct rec *e = entry(rs, pid, at);
    if (e->born && at < e->since)
        return NULL; /* read after a later start (another ring) */
    unbuild(rs, e);
    drop_maps(e, at);
    e->born = 1;
    e->read_running = 0;
    e->since = at;
    e->ended = 0;
    return e;
}

void cli_perf_records_mapping(struct cli_perf_records *rs, int pid, const char *path,
                              uint64_t start_addr, uint64_t end, uint64_t offset, double at)
{
    struct rec *e = entry(rs, pid, at);
    if (!e->born || at >= e->since)
        add_map(e, path, start_addr, end, offset, at);
}

void cli_perf_records_forked(struct cli_perf_records *rs, int pid, int ppid, double at)
{
    struct rec *parent, *e;
    size_t i;
    if (!(e = start(rs, pid, at)))
        return;
    /* The child has its parent's mappings until it runs execve; a parent
     * whose own start was not seen cannot say them all. */
    if (!(parent = find(rs, ppid)) || !parent->born) {
        e->born = 0;
        return;
    }
    snprintf(e->comm, sizeof e->comm, "%s", parent->comm);
    for (i = 0; i < parent->n; i++)
        if (parent->maps[i].at <= at)
            add_map(e, parent->maps[i].path, parent->maps[i].start, parent->maps[i].end,
                    parent->maps[i].offset, at);
}

void cli_perf_records_exec(struct cli_perf_records *rs, int pid, const char *comm, double at)
{
    struct rec *e = start(rs, pid, at);
    if (e)
        snprintf(e->comm, sizeof e->comm, "%s", comm);
}

void cli_perf_records_running(struct cli_perf_records *rs, int pid, const char *comm,
                              double since)
{
    struct rec *e = start(rs, pid, since);
    if (!e)
        return;
    snprintf(e->comm, sizeof e->comm, "%s", comm);
    e->read_running = 1;
}

void cli_perf_records_forget(struct cli_perf_records *rs, int pid)
{
    struct rec *e = find(rs, pid);
    if (e)
        forget(rs, e);
}

void cli_perf_records_exited(struct cli_perf_records *rs, int pid, double at)
{
    struct rec *e = find(rs, pid);
    if (e && e->born && at >= e->since)
        e->ended = at;
}

/* Its module set from its mappings, at most BUILT_MAX at once (the one
 * built longest ago given up for it). */
static struct cli_perf_proc *build(struct cli_perf_records *rs, struct rec *e, double now)
{
    size_t i;
    if (rs->built >= BUILT_MAX) {
        struct rec *oldest = NULL;
        for (i = 0; i < RECS_MAX; i++)
            if (rs->r[i].proc && (!oldest || rs->r[i].built_at < oldest->built_at))
                oldest = &rs->r[i];
        if (oldest)
            unbuild(rs, oldest);
    }
    if (!(e->proc = calloc(1, sizeof *e->proc)))
        return NULL;
    if (cli_target_open_files(&e->proc->t, e->pid, rs->files) < 0) {
        cli_target_close(&e->proc->t);
        free(e->proc);
        e->proc = NULL;
        return NULL;
    }
    rs->built++;
    e->built_at = now;
    e->proc->pid = e->pid;
    e->proc->state = CLI_PERF_PROC_RECORDS;
    e->proc->started = e->since;
    snprintf(e->proc->comm, sizeof e->proc->comm, "%s", e->comm);
    for (i = 0; i < e->n; i++)
        jitunwind_modules_add_mapping(e->proc->t.mods, e->maps[i].path, e->maps[i].start,
                                      e->maps[i].end, e->maps[i].offset);
    return e->proc;
}

int cli_perf_records_read_at_start(struct cli_perf_records *rs, int pid)
{
    struct rec *e = find(rs, pid);
    return e && e->read_running;
}

struct cli_perf_proc *cli_perf_records_proc(struct cli_perf_records *rs, int pid,
                                            double sampled, double now)
{
    struct rec *e = find(rs, pid);
    if (!e || !e->born || e->n == 0 || sampled < e->since || (e->ended && sampled > e->ended))
        return NULL;
    if (now > e->touched)
        e->touched = now;
    return e->proc ? e->proc : build(rs, e, now);
}
