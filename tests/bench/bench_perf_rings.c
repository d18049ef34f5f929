/* The kernel's side of `record --perf` alone (a benchmark tool, not a
 * test): the same perf event on every thread of a process (perf_attr.c,
 * as record --perf opens it), its rings read when it wakes the reader or
 * every CLI_PERF_POLL_MS, as record --perf reads them, and only emptied: no
 * unwinding, no reads of the target. What the target loses under it is
 * what the kernel's sampling costs, whatever reads the rings;
 * bench_perf_slowdown.py runs it beside record --perf.
 *
 * Usage: bench_perf_rings PID SECONDS HZ [STACK_SIZE [WAKE_SAMPLES]]
 * WAKE_SAMPLES: the kernel wakes the reader at every Nth sample (default
 * CLI_PERF_WAKE_SAMPLES); 0: never (the rings read every CLI_PERF_POLL_MS
 * only), to show what the wake-ups cost the target. Prints "perf: N
 * samples from M threads" on stderr at the end. */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "jitunwind/jitunwind.h"
#include "perf_attr.h"

#define MAX_THREADS 1024

struct ring {
    int tid, fd, seen;
    struct perf_event_mmap_page *meta;
};

static struct ring rings[MAX_THREADS];
static struct pollfd pfd[MAX_THREADS];
static size_t n_rings, ring_bytes, page;
static unsigned long long samples, threads_seen;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int open_ring(int tid, double hz, unsigned stack_size, unsigned wake_samples)
{
    struct perf_event_attr a;
    void *base;
    int fd;
    if (n_rings >= MAX_THREADS)
        return -1;
    cli_perf_attr(&a, jitunwind_host_arch(), 0, hz, stack_size);
    a.wakeup_events = wake_samples;
    if (!wake_samples) { /* woken only if a ring fills: not at this pace */
        a.watermark = 1;
        a.wakeup_watermark = (uint32_t)(ring_bytes - ring_bytes / 8);
    }
    fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        return -1;
    base = mmap(NULL, page + ring_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        close(fd);
        return -1;
    }
    rings[n_rings] = (struct ring){tid, fd, 1, base};
    pfd[n_rings] = (struct pollfd){fd, POLLIN, 0};
    n_rings++;
    threads_seen++;
    return 0;
}

/* Events on the threads started since; those gone are dropped. */
static int sync_threads(int pid, double hz, unsigned stack_size, unsigned wake_samples)
{
    char path[64];
    struct dirent *e;
    DIR *d;
    size_t i;
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    if (!(d = opendir(path)))
        return -1;
    for (i = 0; i < n_rings; i++)
        rings[i].seen = 0;
    while ((e = readdir(d)) != NULL) {
        int tid = atoi(e->d_name);
        if (tid <= 0)
            continue;
        for (i = 0; i < n_rings && rings[i].tid != tid; i++)
            continue;
        if (i < n_rings)
            rings[i].seen = 1;
        else
            open_ring(tid, hz, stack_size, wake_samples);
    }
    closedir(d);
    for (i = n_rings; i-- > 0;)
        if (!rings[i].seen) {
            munmap(rings[i].meta, page + ring_bytes);
            close(rings[i].fd);
            rings[i] = rings[n_rings - 1];
            pfd[i] = pfd[n_rings - 1];
            n_rings--;
        }
    return 0;
}

/* Count the ring's samples and give its room back. */
static void empty_ring(struct ring *r)
{
    const unsigned char *data = (const unsigned char *)r->meta + page;
    uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = r->meta->data_tail;
    while (tail + sizeof(struct perf_event_header) <= head) {
        struct perf_event_header h;
        size_t k;
        for (k = 0; k < sizeof h; k++)
            ((unsigned char *)&h)[k] = data[(tail + k) % ring_bytes];
        if (h.size < sizeof h)
            break;
        samples += h.type == PERF_RECORD_SAMPLE;
        tail += h.size;
    }
    __atomic_store_n(&r->meta->data_tail, head, __ATOMIC_RELEASE);
}

int main(int argc, char **argv)
{
    int pid;
    double seconds, hz, start, listed;
    unsigned stack_size = 16384, wake_samples = CLI_PERF_WAKE_SAMPLES;
    size_t i;
    if (argc < 4) {
        fprintf(stderr, "usage: %s PID SECONDS HZ [STACK_SIZE [WAKE_SAMPLES]]\n", argv[0]);
        return 2;
    }
    pid = atoi(argv[1]);
    seconds = atof(argv[2]);
    hz = atof(argv[3]);
    if (argc > 4)
        stack_size = (unsigned)atoi(argv[4]);
    if (argc > 5)
        wake_samples = (unsigned)atoi(argv[5]);
    page = (size_t)sysconf(_SC_PAGESIZE);
    ring_bytes = cli_perf_ring_pages(stack_size, CLI_PERF_RING_SAMPLES, page) * page;
    if (sync_threads(pid, hz, stack_size, wake_samples) < 0 || n_rings == 0) {
        fprintf(stderr, "bench_perf_rings: no thread of process %d could be sampled (%s)\n",
                pid, strerror(errno));
        return 1;
    }
    start = listed = now();
    while (now() - start < seconds) {
        double t;
        for (i = 0; i < n_rings; i++)
            empty_ring(&rings[i]);
        t = now();
        if (t - listed > 0.1) {
            listed = t;
            if (sync_threads(pid, hz, stack_size, wake_samples) < 0)
                break; /* the process is gone */
        }
        poll(pfd, n_rings, CLI_PERF_POLL_MS);
    }
    fprintf(stderr, "perf: %llu samples from %llu threads\n", samples, threads_seen);
    return 0;
}
