/* Why a live process cannot be read, said plainly: the kernel's refusal
 * with what decides it (the process's uid against ours, CAP_SYS_PTRACE,
 * kernel.yama.ptrace_scope, a process that is not dumpable), or a process
 * that has exited (a zombie) or whose main thread has (its memory map is
 * read through the main thread, and is empty once it has gone). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define CAP_SYS_PTRACE_BIT 19

/* The first line of `path` that starts with `key`, its rest in `out`; 0 or -1. */
static int status_field(const char *path, const char *key, char *out, size_t len)
{
    char line[256];
    size_t klen = strlen(key);
    int found = -1;
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, klen) == 0) {
            snprintf(out, len, "%s", line + klen);
            found = 0;
            break;
        }
    fclose(f);
    return found;
}

static int ptrace_scope(void)
{
    char buf[16] = "";
    int fd = open("/proc/sys/kernel/yama/ptrace_scope", O_RDONLY | O_CLOEXEC);
    ssize_t n;
    if (fd < 0)
        return -1; /* no Yama: only the uid and the capability decide */
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    return n > 0 ? atoi(buf) : -1;
}

static int have_cap_sys_ptrace(void)
{
    char value[64];
    if (status_field("/proc/self/status", "CapEff:", value, sizeof value) < 0)
        return 0;
    return (strtoull(value, NULL, 16) >> CAP_SYS_PTRACE_BIT) & 1;
}

/* The process's real uid, or -1. */
static long process_uid(int pid)
{
    char path[64], value[128];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    if (status_field(path, "Uid:", value, sizeof value) < 0)
        return -1;
    return strtol(value, NULL, 10);
}

void cli_access_reason(int pid, int err, char *buf, size_t len)
{
    int scope = ptrace_scope(), cap = have_cap_sys_ptrace();
    long uid = process_uid(pid);
    unsigned me = (unsigned)geteuid();
    if (scope == 3)
        snprintf(buf, len, "kernel.yama.ptrace_scope is 3: no process may trace another, not "
                           "even root's, until the next boot");
    else if (uid >= 0 && (unsigned long)uid != me && !cap && uid == 0)
        snprintf(buf, len, "it runs as root and jitunwind as uid %u, without CAP_SYS_PTRACE: "
                           "run it as root", me);
    else if (uid >= 0 && (unsigned long)uid != me && !cap)
        snprintf(buf, len, "it runs as uid %ld and jitunwind as uid %u, without CAP_SYS_PTRACE: "
                           "run it as uid %ld or as root", uid, me, uid);
    else if (scope == 2 && !cap)
        snprintf(buf, len, "kernel.yama.ptrace_scope is 2: only a process with CAP_SYS_PTRACE "
                           "may trace another: run it as root");
    else if (scope == 1 && !cap)
        snprintf(buf, len, "kernel.yama.ptrace_scope is 1: only a process's ancestors may trace "
                           "it: run jitunwind as root, or set kernel.yama.ptrace_scope to 0");
    else if (!cap)
        snprintf(buf, len, "the process is not dumpable (it changed its credentials or "
                           "turned dumping off), and jitunwind lacks CAP_SYS_PTRACE");
    else
        snprintf(buf, len, "%s", strerror(err));
}

/* How many threads /proc/PID/task lists. */
static int task_count(int pid)
{
    char path[64];
    struct dirent *e;
    int n = 0;
    DIR *d;
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    if (!(d = opendir(path)))
        return 0;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

/* The state letter of /proc/PID/stat (R, S, Z, ...), or 0. */
static char process_state(int pid, int *parent)
{
    char path[64], buf[512], *close_paren;
    char state = 0;
    FILE *f;
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    if (!(f = fopen(path, "re")))
        return 0;
    if (fgets(buf, sizeof buf, f) && (close_paren = strrchr(buf, ')')) != NULL)
        if (sscanf(close_paren + 1, " %c %d", &state, parent) != 2)
            state = 0;
    fclose(f);
    return state;
}

int cli_process_unreadable(int pid)
{
    char path[64], reason[320], byte;
    int parent = 0, threads, fd;
    ssize_t n;
    char state = process_state(pid, &parent);
    if (state == 'Z' || state == 'X') {
        threads = task_count(pid);
        if (threads > 1)
            fprintf(stderr, "jitunwind: the main thread of process %d has exited (%d other "
                            "thread%s still run%s); the process's memory map is read through its "
                            "main thread, and there is none left to read\n", pid, threads - 1,
                    threads == 2 ? "" : "s", threads == 2 ? "s" : "");
        else
            fprintf(stderr, "jitunwind: process %d has exited (a zombie, which its parent, "
                            "process %d, has not collected); there is nothing left to read\n",
                    pid, parent);
        return CLI_NO_TARGET;
    }
    snprintf(path, sizeof path, "/proc/%d/maps", pid);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || (n = read(fd, &byte, 1)) < 0) {
        int err = errno;
        if (fd >= 0)
            close(fd);
        if (err == ENOENT || err == ESRCH) {
            fprintf(stderr, "jitunwind: no process %d\n", pid);
            return CLI_NO_TARGET;
        }
        cli_access_reason(pid, err, reason, sizeof reason);
        fprintf(stderr, "jitunwind: cannot read the memory map of process %d: %s (%s)\n", pid,
                strerror(err), reason);
        return CLI_PERMISSION;
    }
    close(fd);
    if (n == 0) {
        fprintf(stderr, "jitunwind: process %d has no memory map (a kernel thread?)\n", pid);
        return CLI_NOT_PYTHON;
    }
    return CLI_OK;
}
