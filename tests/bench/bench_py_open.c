/* The CPU of opening processes of one interpreter as `record --perf --all`
 * opens each (tools/jitunwind/target.c): a module set sharing the run's
 * module files, its modules from /proc, _PyRuntime located, a reader
 * opened with the interpreter's symbols but not its DWARF. Starts N
 * processes of PYTHON (each sleeping in Python), opens each once in turn,
 * and prints, per process, the CPU time of the whole opening and of the
 * reader's part, and the passes over symbol tables each made (and the
 * reader's of them).
 *   bench_py_open PYTHON [N] */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "elf/elf.h"

#define MAX_PROCS 64

static const char CHILD[] = "import time\nprint('ready', flush=True)\ntime.sleep(600)\n";

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A process of `python` that has said it runs: its PID, or -1. */
static pid_t spawn(const char *python)
{
    int fds[2];
    char line[16];
    FILE *out;
    pid_t pid;
    if (pipe(fds) != 0)
        return -1;
    if ((pid = fork()) == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        execl(python, python, "-c", CHILD, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    out = fdopen(fds[0], "r");
    if (!out || !fgets(line, sizeof line, out) || strncmp(line, "ready", 5) != 0)
        pid = -1;
    if (out)
        fclose(out);
    return pid;
}

/* Open process `pid` as the recorder does: 0 with the CPU milliseconds
 * of the whole and of the reader, and the passes over symbol tables. */
static int open_one(pid_t pid, jitunwind_module_files *files, double *all, double *reader,
                    unsigned long *passes, unsigned long *reader_passes)
{
    jitunwind_modules *mods = NULL;
    jitunwind_process_reader *pr = NULL;
    jitunwind_pyreader *py = NULL;
    struct jitunwind_py_location loc;
    struct jitunwind_memory mem;
    unsigned long before = ju_elf_symbol_passes(), mid_passes;
    double start = cpu_ms(), mid;
    int rc = -1;
    if (jitunwind_modules_new(&mods) == 0 && jitunwind_modules_share_files(mods, files) == 0 &&
        jitunwind_modules_load_proc(mods, pid) == 0 &&
        jitunwind_py_locate_modules(mods, &loc) == 0 &&
        jitunwind_process_reader_new(&pr, pid) == 0) {
        mem = jitunwind_process_reader_memory(pr);
        mid = cpu_ms();
        mid_passes = ju_elf_symbol_passes();
        rc = jitunwind_pyreader_open(&py, &mem, loc.runtime_addr, loc.version_hex,
                                     JITUNWIND_PYREADER_OPTS(.module = loc.module,
                                                             .flags = JITUNWIND_PYREADER_NO_DWARF));
        *reader = cpu_ms() - mid;
        *reader_passes = ju_elf_symbol_passes() - mid_passes;
    }
    *all = cpu_ms() - start;
    *passes = ju_elf_symbol_passes() - before;
    jitunwind_pyreader_free(py);
    jitunwind_process_reader_free(pr);
    jitunwind_modules_free(mods);
    return rc;
}

int main(int argc, char **argv)
{
    pid_t pids[MAX_PROCS];
    jitunwind_module_files *files;
    double all, reader, sum_all = 0, sum_reader = 0;
    unsigned long passes, reader_passes;
    int n = argc > 2 ? atoi(argv[2]) : 6, i, failed = 0;
    if (argc < 2 || n < 1 || n > MAX_PROCS) {
        fprintf(stderr, "usage: %s PYTHON [N (1-%d) [DEBUG_DIRS]]\n", argv[0], MAX_PROCS);
        return 2;
    }
    if (argc > 3 && jitunwind_set_debug_file_directories(argv[3]) < 0)
        return 2;
    for (i = 0; i < n; i++)
        if ((pids[i] = spawn(argv[1])) < 0) {
            fprintf(stderr, "%s did not start\n", argv[1]);
            return 1;
        }
    usleep(200000); /* let them reach time.sleep */
    if (jitunwind_module_files_new(512, &files) < 0)
        return 1;
    for (i = 0; i < n; i++) {
        if (open_one(pids[i], files, &all, &reader, &passes, &reader_passes) < 0) {
            printf("process %d: not opened (%s)\n", (int)pids[i], jitunwind_last_error()->message);
            failed = 1;
            continue;
        }
        printf("process %d: %.2f ms of CPU opening it, %.2f ms of it the reader; %lu passes "
               "over symbol tables, %lu of them the reader's\n",
               i + 1, all, reader, passes, reader_passes);
        if (i > 0) {
            sum_all += all;
            sum_reader += reader;
        }
    }
    if (n > 1)
        printf("processes 2-%d: %.2f ms of CPU each on average, %.2f ms of it the reader\n", n,
               sum_all / (n - 1), sum_reader / (n - 1));
    jitunwind_module_files_free(files);
    for (i = 0; i < n; i++) {
        kill(pids[i], SIGKILL);
        waitpid(pids[i], NULL, 0);
    }
    return failed;
}
