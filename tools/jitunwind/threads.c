/* The threads of a live process, from /proc/PID/task, with their names. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static int by_tid(const void *a, const void *b)
{
    const struct cli_thread *x = a, *y = b;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

void cli_thread_name(int pid, struct cli_thread *t)
{
    char path[96];
    FILE *f;
    snprintf(path, sizeof path, "/proc/%d/task/%d/comm", pid, t->tid);
    t->name[0] = '\0';
    if (!(f = fopen(path, "re")))
        return;
    {
        size_t len = fread(t->name, 1, sizeof t->name - 1, f);
        t->name[len] = '\0';
        if (len && t->name[len - 1] == '\n')
            t->name[len - 1] = '\0'; /* the kernel's; a newline in the name stays */
    }
    fclose(f);
}

int cli_list_threads(int pid, struct cli_thread *out, size_t max, size_t *count,
                     size_t *left_out)
{
    char path[64];
    DIR *d;
    struct dirent *e;
    size_t n = 0;
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    *count = *left_out = 0;
    if (!(d = opendir(path)))
        return -1;
    while ((e = readdir(d))) {
        char *end;
        long tid = strtol(e->d_name, &end, 10);
        if (*end || tid <= 0)
            continue;
        if (n == max) {
            ++*left_out;
            continue;
        }
        memset(&out[n], 0, sizeof out[n]);
        out[n].tid = (int)tid;
        cli_thread_name(pid, &out[n]);
        n++;
    }
    closedir(d);
    qsort(out, n, sizeof *out, by_tid); /* the main thread (tid == pid) first */
    *count = n;
    return 0;
}

int cli_find_thread(int pid, int tid, struct cli_thread *out)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d", pid, tid);
    if (access(path, F_OK) != 0)
        return -1;
    memset(out, 0, sizeof *out);
    out->tid = tid;
    cli_thread_name(pid, out);
    return 0;
}

int cli_tid_wanted(const struct cli_options *opt, int tid)
{
    size_t i;
    if (opt->n_tids == 0)
        return 1;
    for (i = 0; i < opt->n_tids; i++)
        if (opt->tids[i] == tid)
            return 1;
    return 0;
}
