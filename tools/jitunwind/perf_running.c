/* record --perf --all: the processes already running when recording
 * starts. The rings say only what happens from then on (a process's
 * mappings come in MMAP2 records when it maps them, at its start), so,
 * as `perf record -a` synthesizes such records, each running process's
 * name, start time and executable file mappings are read from /proc
 * right after the events are opened: cheaply (its maps file only, no ELF
 * file opened: module sets are built at a sample's need, perf_records.c),
 * and at most RUNNING_MAX processes. Such a process that ends before it
 * could be opened is still unwound natively from its samples' copies and
 * the files it mapped; its memory is gone, so without Python frames. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "perf_events.h"

/* Processes read at the start: half of what perf_records.c remembers at
 * once, so that the processes started while recording have room too. */
#define RUNNING_MAX (CLI_PERF_RECS_MAX / 2)
/* Bytes of one /proc/PID/maps line (a longer path is not a module). */
#define MAPS_LINE 4352u

int cli_proc_stat(int pid, char *comm, size_t len, double *start)
{
    static double tick;
    char path[64], line[1024];
    const char *open_paren, *close_paren;
    unsigned long long ticks = 0;
    char state = 0;
    size_t n;
    FILE *f;
    if (tick == 0) {
        long hz = sysconf(_SC_CLK_TCK);
        tick = 1.0 / (double)(hz > 0 ? hz : 100);
    }
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    if (!(f = fopen(path, "re")))
        return -1;
    n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = '\0';
    open_paren = strchr(line, '(');
    close_paren = strrchr(line, ')');
    if (!open_paren || !close_paren || close_paren < open_paren)
        return -1;
    n = (size_t)(close_paren - open_paren - 1);
    snprintf(comm, len, "%.*s", (int)(n < len ? n : len - 1), open_paren + 1);
    /* After ") ": state, then fields 4 to 21; the start time is field 22. */
    if (sscanf(close_paren + 1, " %c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
                                "%*s %*s %*s %*s %llu", &state, &ticks) != 2)
        return -1;
    {
        struct timespec boot, mono;
        clock_gettime(CLOCK_BOOTTIME, &boot);
        clock_gettime(CLOCK_MONOTONIC, &mono);
        *start = (double)ticks * tick - ((double)(boot.tv_sec - mono.tv_sec) +
                                         (double)(boot.tv_nsec - mono.tv_nsec) / 1e9);
    }
    return state == 'Z' || state == 'X' ? -1 : 0;
}

static double monotonic(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Process `pid`'s executable file mappings, as MMAP2 records would say
 * them, read at `at`: how many. */
static size_t read_maps(struct cli_perf_records *rs, int pid, double at)
{
    char path[64], line[MAPS_LINE];
    size_t n = 0;
    FILE *f;
    snprintf(path, sizeof path, "/proc/%d/maps", pid);
    if (!(f = fopen(path, "re")))
        return 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long start, end, offset;
        char perms[5];
        int name_at = 0;
        char *name;
        if (!strchr(line, '\n'))
            break; /* a line longer than any path kept: the rest is not read */
        if (sscanf(line, "%llx-%llx %4s %llx %*x:%*x %*u %n", &start, &end, perms, &offset,
                   &name_at) < 4 || name_at == 0 || perms[2] != 'x')
            continue;
        name = line + name_at;
        name[strcspn(name, "\n")] = '\0';
        if (name[0] != '/' || end <= start)
            continue; /* anonymous, [vdso], [stack] ... */
        cli_perf_records_mapping(rs, pid, name, start, end, offset, at);
        n++;
    }
    fclose(f);
    return n;
}

size_t cli_perf_records_read_running(struct cli_perf_records *rs, int self)
{
    DIR *d = opendir("/proc");
    struct dirent *de;
    size_t known = 0;
    if (!d)
        return 0;
    while (known < RUNNING_MAX && (de = readdir(d)) != NULL) {
        char comm[16], *end;
        double started, at;
        long pid = strtol(de->d_name, &end, 10);
        if (*end || pid <= 0 || pid == self || cli_proc_stat((int)pid, comm, sizeof comm,
                                                             &started) < 0)
            continue;
        at = monotonic();
        cli_perf_records_running(rs, (int)pid, comm, started);
        if (read_maps(rs, (int)pid, at))
            known++;
        else
            cli_perf_records_forget(rs, (int)pid); /* a kernel thread, or gone */
    }
    closedir(d);
    return known;
}
