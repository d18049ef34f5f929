/* record --perf --all: the processes of the machine that samples came
 * from. A process is opened at its OPEN_AFTER-th sample (memory, modules,
 * ranges, and the Python reader when it runs CPython), at most PROCS_MAX at once:
 * the one sampled least recently is closed for a new one. A process is
 * known by its PID and its start time, so that a PID taken over by a new
 * process (or an execve, said by the events) opens the new one afresh,
 * and a sample taken before the process holding the PID now had started
 * is not unwound with its memory. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "perf_events.h"

/* Each open process holds its modules (symbols, CFI) and, for Python, the
 * caches: about 1 MiB. */
#define PROCS_MAX 48u
/* /proc's start times are in clock ticks: a sample this much before one
 * is still taken to be the process's own. */
#define START_SLACK 0.02
/* A process is opened at its OPEN_AFTER-th sample: opening is costly (its
 * symbols and CFI), and most processes of a busy machine (a compiler's
 * jobs) end before they could be read; their samples until then are
 * unwound from their records (native only: no JIT or trampoline ranges,
 * no Python frames), or left out and counted. A process already running
 * when recording started is not such a job: it is opened at its first
 * sample, so that its stacks have all their frames from the first. */
#define OPEN_AFTER 3u
/* A process that could not be opened is tried again after this long. */
#define RETRY_UNREADABLE 1.0
/* The module files the run's processes share (libpython, libc, ld.so...
 * opened, indexed and parsed once): about 60 a Python process, most of
 * them the same for all; one let go stays open for the next process until
 * its room is needed. */
#define FILES_MAX 512u

struct cli_perf_procs {
    const struct cli_options *opt;
    struct cli_perf_proc p[PROCS_MAX];
    struct cli_perf_records *recs;
    jitunwind_module_files *files;
    struct cli_perf_procs_counts counts;
};

struct cli_perf_procs *cli_perf_procs_new(const struct cli_options *opt)
{
    struct cli_perf_procs *ps = calloc(1, sizeof *ps);
    if (!ps || jitunwind_module_files_new(FILES_MAX, &ps->files) < 0 ||
        !(ps->recs = cli_perf_records_new(ps->files))) {
        if (ps)
            jitunwind_module_files_free(ps->files);
        free(ps);
        return NULL;
    }
    ps->opt = opt;
    return ps;
}

static void close_proc(struct cli_perf_procs *ps, struct cli_perf_proc *p)
{
    if (p->state == CLI_PERF_PROC_OPEN) {
        cli_range_watch_free(&p->watch);
        cli_exec_history_free(p->execs);
        jitunwind_py_chains_free(p->t.chains);
        cli_target_close(&p->t);
        if (p->vdso_path[0])
            unlink(p->vdso_path);
        ps->counts.closed++;
    }
    cli_py_memo_free(&p->py_listing.memo);
    memset(p, 0, sizeof *p);
}

void cli_perf_procs_free(struct cli_perf_procs *ps)
{
    size_t i;
    if (!ps)
        return;
    for (i = 0; i < PROCS_MAX; i++)
        close_proc(ps, &ps->p[i]);
    cli_perf_records_free(ps->recs);
    jitunwind_module_files_free(ps->files);
    free(ps);
}

/* A slot for a new process: a free one, else the least recently used. */
static struct cli_perf_proc *slot(struct cli_perf_procs *ps)
{
    struct cli_perf_proc *best = &ps->p[0];
    size_t i;
    for (i = 0; i < PROCS_MAX; i++) {
        if (ps->p[i].state == CLI_PERF_PROC_FREE)
            return &ps->p[i];
        if (ps->p[i].used < best->used)
            best = &ps->p[i];
    }
    if (best->state == CLI_PERF_PROC_OPEN)
        ps->counts.evicted++;
    close_proc(ps, best);
    return best;
}

static void open_target(struct cli_perf_procs *ps, struct cli_perf_proc *p, int pid, double now);

static double seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Opening is the costly part of --all (a process's symbols and CFI): its
 * time is counted, in wall time and in the reader's own CPU time (the
 * difference is the machine's load). */
static void open_proc(struct cli_perf_procs *ps, struct cli_perf_proc *p, int pid, double now)
{
    double wall = seconds(CLOCK_MONOTONIC), cpu = seconds(CLOCK_THREAD_CPUTIME_ID);
    open_target(ps, p, pid, now);
    ps->counts.open_seconds += seconds(CLOCK_MONOTONIC) - wall;
    ps->counts.open_cpu_seconds += seconds(CLOCK_THREAD_CPUTIME_ID) - cpu;
}

static void open_target(struct cli_perf_procs *ps, struct cli_perf_proc *p, int pid, double now)
{
    const struct cli_options *opt = ps->opt;
    memset(p, 0, sizeof *p);
    p->pid = pid;
    p->used = p->tried = now;
    p->state = CLI_PERF_PROC_UNREADABLE;
    if (cli_proc_stat(pid, p->comm, sizeof p->comm, &p->started) < 0 ||
        cli_target_open_any(&p->t, opt, pid, ps->files) != CLI_OK) {
        cli_target_close(&p->t);
        ps->counts.unreadable++;
        return;
    }
    p->state = CLI_PERF_PROC_OPEN;
    ps->counts.opened++;
    if (p->t.py) {
        ps->counts.python++;
        if (!opt->no_cache && (jitunwind_pyreader_cache_code(p->t.py, 1024) < 0 ||
                               cli_target_cache_reads(&p->t) < 0))
            ps->counts.uncached++;
    }
    cli_range_watch_init(&p->t, &p->watch, now);
    if (p->t.py)
        p->execs = cli_exec_history_new();
    cli_exec_history_update(p->execs, &p->t, &p->watch);
    cli_vdso_module(&p->t, p->watch.vdso_start, p->watch.vdso_end, p->vdso_path,
                    sizeof p->vdso_path);
}

/* Opened, and not known to have ended or run another program since: its
 * memory and modules are still the process's. */
static int open_and_current(const struct cli_perf_proc *p)
{
    return p->state == CLI_PERF_PROC_OPEN && !p->stale;
}

static struct cli_perf_proc *find(struct cli_perf_procs *ps, int pid)
{
    size_t i;
    for (i = 0; i < PROCS_MAX; i++)
        if (ps->p[i].state != CLI_PERF_PROC_FREE && ps->p[i].pid == pid)
            return &ps->p[i];
    return NULL;
}

struct cli_perf_proc *cli_perf_procs_get(struct cli_perf_procs *ps, int pid, double sampled,
                                         uint64_t pass, double now)
{
    struct cli_perf_proc *p = find(ps, pid);
    if (pid <= 0)
        return NULL;
    /* Known, but ended or replaced since (pidfd, execve), or the PID now
     * another's: opened again as what holds the PID now. */
    if (p && p->pass != pass && open_and_current(p) && cli_target_gone(&p->t))
        p->stale = 1;
    if (p && p->state == CLI_PERF_PROC_UNREADABLE && now - p->tried > RETRY_UNREADABLE)
        p->stale = 1; /* the PID may be another process's by now */
    if (p && p->stale) {
        close_proc(ps, p);
        p = NULL;
    }
    if (!p) {
        p = slot(ps);
        p->pid = pid;
        p->state = CLI_PERF_PROC_PENDING;
    }
    if (p->state == CLI_PERF_PROC_PENDING &&
        (++p->pending >= OPEN_AFTER || cli_perf_records_read_at_start(ps->recs, pid)))
        open_proc(ps, p, pid, now);
    p->used = now;
    if (p->state != CLI_PERF_PROC_OPEN) {
        /* Not opened (yet, or gone first): its records, when its start
         * was seen, still say the files it ran. */
        struct cli_perf_proc *r = cli_perf_records_proc(ps->recs, pid, sampled, now);
        if (r)
            ps->counts.record_samples++;
        else if (p->state == CLI_PERF_PROC_PENDING)
            ps->counts.pending_samples++;
        else
            ps->counts.unread_samples++;
        return r;
    }
    if (sampled + START_SLACK < p->started) { /* the PID's previous holder */
        ps->counts.earlier_samples++;
        return NULL;
    }
    if (p->pass != pass) { /* once per reading of the rings, as for one process */
        p->pass = pass;
        cli_range_watch_check(&p->t, &p->watch, now);
        cli_exec_history_update(p->execs, &p->t, &p->watch);
    }
    return p;
}

void cli_perf_procs_ended(void *arg, int pid)
{
    struct cli_perf_proc *p = find(arg, pid);
    if (p)
        p->stale = 1;
}

void cli_perf_procs_mapping(void *arg, int pid, const char *path, uint64_t start,
                            uint64_t end, uint64_t offset)
{
    struct cli_perf_proc *p = find(arg, pid);
    if (p && open_and_current(p))
        jitunwind_modules_add_mapping(p->t.mods, path, start, end, offset);
}

void cli_perf_procs_early_mapping(void *arg, int pid, const char *path, uint64_t start,
                                  uint64_t end, uint64_t offset, double at)
{
    cli_perf_records_mapping(((struct cli_perf_procs *)arg)->recs, pid, path, start, end,
                             offset, at);
}

void cli_perf_procs_read_running(struct cli_perf_procs *ps)
{
    ps->counts.running = cli_perf_records_read_running(ps->recs, (int)getpid());
}

void cli_perf_procs_forked(void *arg, int pid, int ppid, double at)
{
    cli_perf_records_forked(((struct cli_perf_procs *)arg)->recs, pid, ppid, at);
}

void cli_perf_procs_exec(void *arg, int pid, const char *comm, double at)
{
    cli_perf_records_exec(((struct cli_perf_procs *)arg)->recs, pid, comm, at);
}

void cli_perf_procs_exited(void *arg, int pid, double at)
{
    cli_perf_records_exited(((struct cli_perf_procs *)arg)->recs, pid, at);
}

const struct cli_perf_procs_counts *cli_perf_procs_counts(const struct cli_perf_procs *ps)
{
    return &ps->counts;
}

void cli_perf_procs_files(const struct cli_perf_procs *ps, struct jitunwind_module_files_stats *out)
{
    memset(out, 0, sizeof *out);
    jitunwind_module_files_stats(ps->files, out);
}

void cli_perf_procs_print_files(const struct cli_perf_procs *ps, FILE *f)
{
    struct jitunwind_module_files_stats st;
    struct jitunwind_module_file_info info;
    char shown[4 * 4096 + 1];
    size_t i;
    cli_perf_procs_files(ps, &st);
    fprintf(f, "module files opened: %llu\nmodule files reused: %llu\n"
               "module files opened unshared: %llu\n",
            (unsigned long long)st.opened, (unsigned long long)st.reused,
            (unsigned long long)st.unpooled);
    for (i = 0; i < st.held; i++)
        if (jitunwind_module_files_info(ps->files, i, &info) == 0 && info.users > 1)
            fprintf(f, "module file open once for %llu module sets: %s\n",
                    (unsigned long long)info.users, cli_shown(info.path, shown, sizeof shown));
}

/* A process whose threads may be named from its Python thread states. */
static int names_python_threads(const struct cli_perf_proc *p)
{
    return open_and_current(p) && p->t.py;
}

void cli_perf_procs_read_thread_names(struct cli_perf_procs *ps)
{
    size_t i;
    for (i = 0; i < PROCS_MAX; i++) {
        struct cli_perf_proc *p = &ps->p[i];
        if (!names_python_threads(p))
            continue;
        cli_list_python_threads(&p->t);
        cli_python_thread_names(&p->t);
    }
}

void cli_perf_procs_python_thread_name(const struct cli_perf_procs *ps, struct cli_thread *th)
{
    size_t i;
    for (i = 0; i < PROCS_MAX; i++)
        if (names_python_threads(&ps->p[i]) && cli_python_thread_name(&ps->p[i].t, th))
            return;
}
