/* record --perf: perf events on every thread of a process, never stopping
 * it. One software cpu-clock event per thread (the kernel refuses to map
 * the ring buffer of an inherited per-task event, so threads started later
 * get theirs at the next listing), each sample carrying the thread's user
 * registers and a copy of the top of its user stack. With --all, one such
 * event per CPU for every process there instead. The ring buffers are
 * read here and each record handed on: samples to the caller, MMAP2
 * records into the module set (--all: to the caller, with their process),
 * a process's end or execve to the caller (--all), LOST and THROTTLE
 * counted. */
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "perf_events.h"

/* A ring: a header page, then cli_perf_ring_pages of CLI_PERF_RING_SAMPLES
 * for a thread; every process: one ring per CPU, which all its processes
 * share, with room for more. */
#define RING_SAMPLES_ALL 256u

struct perf_thread {
    int tid;
    int fd;
    void *base;          /* the mapping: header page, then the ring */
    int seen;            /* listed at the last listing */
};

struct cli_perf {
    int pid;             /* -1: every process (one event per CPU) */
    int arch;
    unsigned stack_size;
    double hz;
    size_t page;
    size_t ring_pages;
    struct perf_thread th[CLI_MAX_TIDS];
    size_t n;
    struct pollfd pfd[CLI_MAX_TIDS];
    unsigned char *scratch; /* a record that wraps around the ring's end */
    size_t scratch_len;
    unsigned n_regs;
    struct cli_perf_counts counts;
    const struct cli_perf_hooks *hooks; /* every process: where MMAP2 and ends go */
    void *hooks_arg;
};

/* An event on thread `tid` (any CPU), or on CPU `cpu` (tid -1: every
 * process there). */
static int perf_open(struct cli_perf *p, int tid, int cpu)
{
    struct perf_event_attr a;
    cli_perf_attr(&a, p->arch, tid < 0, p->hz, p->stack_size);
    return (int)syscall(SYS_perf_event_open, &a, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* The refusal, `level` being the highest kernel.perf_event_paranoid that
 * allows the events without a capability. */
static void refusal(int err, int level_needed, char *buf, size_t len)
{
    char level[16] = "unreadable";
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
    int v;
    if (f && fscanf(f, "%d", &v) == 1)
        snprintf(level, sizeof level, "%d", v);
    if (f)
        fclose(f);
    snprintf(buf, len, "perf events refused (%s): kernel.perf_event_paranoid is %s; run as "
                       "root or with CAP_PERFMON (or CAP_SYS_ADMIN), or lower it "
                       "(sysctl kernel.perf_event_paranoid=%d)",
             strerror(err), level, level_needed);
}

void cli_perf_refusal(int err, char *buf, size_t len)
{
    refusal(err, 1, buf, len);
}

/* Add thread `tid`: 0, or -errno (-ESRCH: it is gone); *mapping says
 * whether the event opened but its ring buffer could not be mapped. */
static int add_thread(struct cli_perf *p, int tid, int cpu, int *mapping)
{
    struct perf_thread *th = &p->th[p->n];
    int fd;
    *mapping = 0;
    if (p->n >= CLI_MAX_TIDS)
        return -ENOSPC;
    if ((fd = perf_open(p, tid, cpu)) < 0)
        return -errno;
    th->base = mmap(NULL, (1 + p->ring_pages) * p->page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (th->base == MAP_FAILED) {
        int err = errno;
        close(fd);
        *mapping = 1;
        return -err;
    }
    th->tid = tid;
    th->fd = fd;
    th->seen = 1;
    p->pfd[p->n].fd = fd;
    p->pfd[p->n].events = POLLIN;
    p->n++;
    p->counts.threads_seen++;
    return 0;
}

static void drop_thread(struct cli_perf *p, size_t i)
{
    munmap(p->th[i].base, (1 + p->ring_pages) * p->page);
    close(p->th[i].fd);
    p->th[i] = p->th[p->n - 1];
    p->pfd[i] = p->pfd[p->n - 1];
    p->n--;
}

int cli_perf_sync_threads(struct cli_perf *p, char *err, size_t err_len)
{
    static struct cli_thread listed[CLI_MAX_TIDS];
    size_t count = 0, left_out = 0, i, j;
    if (p->pid < 0)
        return 0; /* every process: the CPUs' events see every thread */
    if (cli_list_threads(p->pid, listed, CLI_MAX_TIDS, &count, &left_out) < 0)
        return -ESRCH;
    for (j = 0; j < p->n; j++)
        p->th[j].seen = 0;
    for (i = 0; i < count; i++) {
        int rc, mapping;
        for (j = 0; j < p->n && p->th[j].tid != listed[i].tid; j++)
            continue;
        if (j < p->n) {
            p->th[j].seen = 1;
            continue;
        }
        rc = add_thread(p, listed[i].tid, -1, &mapping);
        if (mapping && rc != -ESRCH) { /* locked memory: kernel.perf_event_mlock_kb */
            snprintf(err, err_len, "the ring buffer of thread %d (%zu KiB) could not be mapped "
                     "(%s): kernel.perf_event_mlock_kb or RLIMIT_MEMLOCK is below it; a smaller "
                     "--stack-size needs less", listed[i].tid,
                     (1 + p->ring_pages) * p->page / 1024, strerror(-rc));
            return rc;
        }
        if (rc == -EACCES || rc == -EPERM) {
            cli_perf_refusal(-rc, err, err_len);
            return rc;
        }
        if (rc < 0 && rc != -ESRCH && p->n == 0) {
            snprintf(err, err_len, "perf_event_open on thread %d: %s", listed[i].tid,
                     strerror(-rc));
            return rc;
        }
    }
    /* Called after a reading: what a thread that is gone left is read. */
    for (j = p->n; j-- > 0;)
        if (!p->th[j].seen)
            drop_thread(p, j);
    return 0;
}

/* The state shared by both kinds, rings sized for `ring_samples` samples. */
static struct cli_perf *cli_perf_new(int pid, int arch, double hz, unsigned stack_size,
                                     unsigned ring_samples, char *err, size_t err_len)
{
    struct cli_perf *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    p->pid = pid;
    p->arch = arch;
    p->hz = hz;
    {
        FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
        int max;
        if (f && fscanf(f, "%d", &max) == 1 && max > 0 && hz > max) {
            fprintf(stderr, "jitunwind: -F %.0f is above the kernel's limit for perf events "
                            "(kernel.perf_event_max_sample_rate %d): sampling at %d Hz\n",
                    hz, max, max);
            p->hz = max;
        }
        if (f)
            fclose(f);
    }
    p->stack_size = stack_size;
    p->page = (size_t)sysconf(_SC_PAGESIZE);
    cli_perf_regs_mask(arch, &p->n_regs);
    p->ring_pages = cli_perf_ring_pages(stack_size, ring_samples, p->page);
    p->scratch_len = 65536 + 4096;
    if (!(p->scratch = malloc(p->scratch_len))) {
        snprintf(err, err_len, "out of memory");
        free(p);
        return NULL;
    }
    return p;
}

struct cli_perf *cli_perf_open(int pid, int arch, double hz, unsigned stack_size, char *err,
                               size_t err_len)
{
    struct cli_perf *p = cli_perf_new(pid, arch, hz, stack_size, CLI_PERF_RING_SAMPLES, err,
                                      err_len);
    if (!p)
        return NULL;
    if (cli_perf_sync_threads(p, err, err_len) < 0 || p->n == 0) {
        if (!err[0])
            snprintf(err, err_len, "process %d has no thread left to sample", pid);
        cli_perf_close(p);
        return NULL;
    }
    return p;
}

struct cli_perf *cli_perf_open_all(int arch, double hz, unsigned stack_size,
                                   const struct cli_perf_hooks *hooks, void *hooks_arg,
                                   char *err, size_t err_len)
{
    long cpus = sysconf(_SC_NPROCESSORS_CONF), cpu;
    struct cli_perf *p = cli_perf_new(-1, arch, hz, stack_size, RING_SAMPLES_ALL, err, err_len);
    if (!p)
        return NULL;
    p->hooks = hooks;
    p->hooks_arg = hooks_arg;
    for (cpu = 0; cpu < cpus && cpu < (long)CLI_MAX_TIDS; cpu++) {
        int mapping, rc = add_thread(p, -1, (int)cpu, &mapping);
        if (rc == -ENODEV || rc == -EINVAL || rc == -ENOENT)
            continue; /* a CPU that is offline */
        if (rc == -EACCES || rc == -EPERM) {
            refusal(-rc, 0, err, err_len);
            break;
        }
        if (rc < 0) {
            snprintf(err, err_len, "perf_event_open on CPU %ld%s: %s", cpu,
                     mapping ? " (its ring buffer)" : "", strerror(-rc));
            break;
        }
    }
    if (err[0] || p->n == 0) {
        if (!err[0])
            snprintf(err, err_len, "no CPU could be sampled");
        cli_perf_close(p);
        return NULL;
    }
    return p;
}

void cli_perf_close(struct cli_perf *p)
{
    if (!p)
        return;
    while (p->n)
        drop_thread(p, p->n - 1);
    free(p->scratch);
    free(p);
}

int cli_perf_pending(const struct cli_perf *p)
{
    size_t i;
    for (i = 0; i < p->n; i++) {
        struct perf_event_mmap_page *meta = p->th[i].base;
        if (__atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE) != meta->data_tail)
            return 1;
    }
    return 0;
}

int cli_perf_wait(struct cli_perf *p, int timeout_ms)
{
    return poll(p->pfd, p->n, timeout_ms);
}

const struct cli_perf_counts *cli_perf_counts(const struct cli_perf *p)
{
    return &p->counts;
}

/* A sample record's body (after its header) into *s: 0, or -1 when it is
 * not laid out as asked (counted as malformed). */
static int parse_sample(const struct cli_perf *p, const unsigned char *b, size_t len,
                        struct cli_perf_sample *s)
{
    size_t at = 0, i;
    uint64_t abi, size;
    uint64_t r[CLI_PERF_MAX_REGS];
    memset(s, 0, sizeof *s);
    if (len < 24)
        return -1;
    memcpy(&s->pid, b, 4);
    memcpy(&s->tid, b + 4, 4);
    memcpy(&s->time, b + 8, 8);
    memcpy(&abi, b + 16, 8);
    at = 24;
    if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
        if (len < at + 8u * p->n_regs)
            return -1;
        for (i = 0; i < p->n_regs; i++)
            memcpy(&r[i], b + at + 8 * i, 8);
        at += 8u * p->n_regs;
        cli_perf_regs_fill(p->arch, r, &s->regs, &s->all);
    }
    if (len < at + 8)
        return -1;
    memcpy(&size, b + at, 8);
    at += 8;
    if (size) {
        uint64_t dyn;
        if (size > len - at || len - at - size < 8)
            return -1;
        memcpy(&dyn, b + at + size, 8);
        s->stack = b + at;
        s->stack_len = dyn < size ? (size_t)dyn : (size_t)size;
    }
    return 0;
}

/* A record's time, in seconds: the last field of its sample_id (pid,
 * tid, time), which every record but a sample ends with. */
static double record_time(const unsigned char *b, size_t len)
{
    uint64_t ns = 0;
    if (len >= 16)
        memcpy(&ns, b + len - 8, 8);
    return (double)ns / 1e9;
}

/* Every process, before the samples: a new process (FORK of a main
 * thread: pid, ppid, tid, ptid, time), its end (EXIT of its main thread,
 * laid out as FORK) or an execve (COMM from execve: pid, tid, name) said
 * to the early hooks. */
static void take_early_task(struct cli_perf *p, const struct perf_event_header *h,
                            const unsigned char *b)
{
    size_t body = h->size - sizeof *h;
    uint32_t ids[4];
    if (h->type == PERF_RECORD_FORK && p->hooks->forked && body >= 24) {
        memcpy(ids, b, sizeof ids);
        if (ids[0] == ids[2] && ids[0] != ids[1]) /* a process, not a thread */
            p->hooks->forked(p->hooks_arg, (int)ids[0], (int)ids[1], record_time(b, body));
    } else if (h->type == PERF_RECORD_EXIT && p->hooks->exited && body >= 24) {
        memcpy(ids, b, sizeof ids);
        if (ids[0] == ids[2])
            p->hooks->exited(p->hooks_arg, (int)ids[0], record_time(b, body));
    } else if (h->type == PERF_RECORD_COMM && (h->misc & PERF_RECORD_MISC_COMM_EXEC) &&
               p->hooks->exec && body >= 16) {
        char comm[16];
        size_t n = strnlen((const char *)b + 8, body - 8);
        memcpy(ids, b, 8);
        if (n >= sizeof comm)
            n = sizeof comm - 1;
        memcpy(comm, b + 8, n);
        comm[n] = '\0';
        p->hooks->exec(p->hooks_arg, (int)ids[0], comm, record_time(b, body));
    }
}

/* An MMAP2 record: an executable file mapping joins the module set. */
static void take_mmap2(struct cli_perf *p, const unsigned char *b, size_t len,
                       jitunwind_modules *mods, int early)
{
    struct perf_mmap2_body {
        uint32_t pid, tid;
        uint64_t addr, len, pgoff;
        uint32_t maj, min;
        uint64_t ino, ino_generation;
        uint32_t prot, flags;
    } m;
    char path[4096];
    size_t name_len;
    if (len < sizeof m)
        return;
    memcpy(&m, b, sizeof m);
    name_len = strnlen((const char *)b + sizeof m, len - sizeof m);
    if (name_len == len - sizeof m || name_len >= sizeof path ||
        (p->pid >= 0 && (int)m.pid != p->pid))
        return; /* not NUL-terminated in the record, or another process */
    memcpy(path, b + sizeof m, name_len + 1);
    if (early) {
        if (path[0] == '/' && p->hooks->early_mapping)
            p->hooks->early_mapping(p->hooks_arg, (int)m.pid, path, m.addr, m.addr + m.len,
                                    m.pgoff, record_time(b, len));
        return;
    }
    p->counts.mmaps++;
    if (p->pid < 0) {
        if (path[0] == '/' && p->hooks && p->hooks->mapping)
            p->hooks->mapping(p->hooks_arg, (int)m.pid, path, m.addr, m.addr + m.len, m.pgoff);
        return;
    }
    if (path[0] == '/' && mods &&
        jitunwind_modules_add_mapping(mods, path, m.addr, m.addr + m.len, m.pgoff) == 0)
        p->counts.modules_added++;
}

/* Every process: a process that ended (EXIT of its main thread) or runs
 * another program (COMM from execve) is said to the caller, whose state
 * of it is stale from then on. */
static void take_task(struct cli_perf *p, const struct perf_event_header *h,
                      const unsigned char *b)
{
    uint32_t pid, tid;
    size_t body = h->size - sizeof *h;
    if (p->pid >= 0 || !p->hooks || !p->hooks->ended || body < 8)
        return;
    if (h->type == PERF_RECORD_COMM && !(h->misc & PERF_RECORD_MISC_COMM_EXEC))
        return; /* a thread renamed */
    if (h->type == PERF_RECORD_EXIT) { /* pid, ppid, tid, ptid, time */
        if (body < 16)
            return;
        memcpy(&pid, b, 4);
        memcpy(&tid, b + 8, 4);
        if (pid != tid)
            return; /* a thread, not the process */
    } else {
        memcpy(&pid, b, 4);
    }
    p->hooks->ended(p->hooks_arg, (int)pid);
}

/* The records of one ring up to `head`, oldest first; `early`: only those
 * the early hooks take, the ring left as it was. */
static void read_ring(struct cli_perf *p, struct perf_thread *th, uint64_t head, int early,
                      cli_perf_sample_fn fn, void *arg, jitunwind_modules *mods)
{
    struct perf_event_mmap_page *meta = th->base;
    unsigned char *ring = (unsigned char *)th->base + p->page;
    uint64_t size = (uint64_t)p->ring_pages * p->page;
    uint64_t tail = meta->data_tail;
    while (tail + sizeof(struct perf_event_header) <= head) {
        struct perf_event_header h;
        uint64_t off = tail % size;
        const unsigned char *rec;
        size_t k;
        for (k = 0; k < sizeof h; k++)
            ((unsigned char *)&h)[k] = ring[(off + k) % size];
        if (h.size < sizeof h || tail + h.size > head)
            break;
        if (early && h.type == PERF_RECORD_SAMPLE)
            goto next; /* the bulk of a ring, read in the second pass */
        if (off + h.size <= size) {
            rec = ring + off;
        } else { /* wraps: copied whole */
            size_t first = (size_t)(size - off);
            if (h.size > p->scratch_len)
                goto next;
            memcpy(p->scratch, ring + off, first);
            memcpy(p->scratch + first, ring, h.size - first);
            rec = p->scratch;
        }
        if (early) {
            if (h.type == PERF_RECORD_MMAP2)
                take_mmap2(p, rec + sizeof h, h.size - sizeof h, NULL, 1);
            else if (h.type == PERF_RECORD_FORK || h.type == PERF_RECORD_EXIT ||
                     h.type == PERF_RECORD_COMM)
                take_early_task(p, &h, rec + sizeof h);
            goto next;
        }
        switch (h.type) {
        case PERF_RECORD_SAMPLE: {
            struct cli_perf_sample s;
            if (parse_sample(p, rec + sizeof h, h.size - sizeof h, &s) < 0) {
                p->counts.malformed++;
                break;
            }
            p->counts.samples++;
            if (fn)
                fn(arg, &s);
            break;
        }
        case PERF_RECORD_MMAP2:
            take_mmap2(p, rec + sizeof h, h.size - sizeof h, mods, 0);
            break;
        case PERF_RECORD_LOST:
            if (h.size >= sizeof h + 16) {
                uint64_t lost;
                memcpy(&lost, rec + sizeof h + 8, 8);
                p->counts.lost += lost;
            }
            break;
        case PERF_RECORD_THROTTLE:
            p->counts.throttled++;
            break;
        case PERF_RECORD_EXIT:
        case PERF_RECORD_COMM:
            take_task(p, &h, rec + sizeof h);
            break;
        default:
            break;
        }
    next:
        tail += h.size;
    }
    if (!early)
        __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

void cli_perf_read(struct cli_perf *p, cli_perf_sample_fn fn, void *arg, jitunwind_modules *mods)
{
    static uint64_t heads[CLI_MAX_TIDS];
    size_t i;
    for (i = 0; i < p->n; i++)
        heads[i] = __atomic_load_n(&((struct perf_event_mmap_page *)p->th[i].base)->data_head,
                                   __ATOMIC_ACQUIRE);
    if (p->pid < 0 && p->hooks)
        for (i = 0; i < p->n; i++)
            read_ring(p, &p->th[i], heads[i], 1, NULL, NULL, NULL);
    for (i = 0; i < p->n; i++) {
        read_ring(p, &p->th[i], heads[i], 0, fn, arg, mods);
        /* A thread that has ended leaves its event hung up: poll would
         * return at once for it until cli_perf_sync_threads drops it, and
         * its ring, read now, gets no more samples. */
        if (p->pfd[i].revents & (POLLHUP | POLLERR))
            p->pfd[i].fd = -1;
    }
}
