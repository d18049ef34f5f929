/* Why ptrace was refused, said once for every command: a process that a
 * debugger (or another tool) already traces is the common case, and the
 * tracer is named by PID and command name so it can be found. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The process tracing pid (TracerPid), or 0; its command name into comm. */
static int tracer_of(int pid, char *comm, size_t size)
{
    char path[64], line[256];
    int tracer = 0;
    FILE *f;
    comm[0] = 0;
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    if (!(f = fopen(path, "re")))
        return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "TracerPid: %d", &tracer) == 1)
            break;
    fclose(f);
    if (tracer <= 0)
        return 0;
    snprintf(path, sizeof path, "/proc/%d/comm", tracer);
    if ((f = fopen(path, "re"))) {
        if (fgets(comm, (int)size, f))
            comm[strcspn(comm, "\n")] = 0;
        fclose(f);
    }
    return tracer;
}

void cli_ptrace_refused(int pid, const char *why, const char *instead)
{
    char comm[64], shown[4 * sizeof comm];
    int tracer = tracer_of(pid, comm, sizeof comm);
    if (tracer > 0)
        fprintf(stderr, "jitunwind: cannot ptrace process %d: it is already traced by process "
                        "%d (%s); %s\n",
                pid, tracer, comm[0] ? cli_shown(comm, shown, sizeof shown) : "gone", instead);
    else
        fprintf(stderr, "jitunwind: cannot ptrace process %d: %s (run as its user or root; "
                        "see /proc/sys/kernel/yama/ptrace_scope); %s\n", pid, why, instead);
}
