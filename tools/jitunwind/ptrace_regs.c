/* Registers of a live thread: PTRACE_SEIZE (which does not stop it), then
 * PTRACE_INTERRUPT and a wait for that stop, one thread at a time. Every
 * successful stop is paired with a detach, which resumes the thread and
 * re-injects a signal that arrived while we held it.
 *
 * No wait is unbounded, and no thread is left for the target to wait on:
 * - a thread killed while held (its process exits, or another thread
 *   calls execve) cannot be detached (ESRCH): it is reaped here, since
 *   until its tracer reaps it the exec waits, the process's parent cannot
 *   reap the process, and the next PTRACE_SEIZE waits for the exec;
 * - a stop that does not come within a tick is asked for again (a trap
 *   asked for while the thread execs is lost), and after STOP_LIMIT the
 *   thread is given up, detached later if it stops (cli_ptrace_settle);
 * - PTRACE_SEIZE, which waits while the target execs and which the kernel
 *   restarts after a signal, is left after SEIZE_LIMIT or on Ctrl-C. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <elf.h>

#include "cli.h"

#define TICK_USEC 20000L         /* between two asks for a stop */
#define STOP_LIMIT 1.0           /* seconds a thread is given to stop */
#define STOP_LIMIT_INTERRUPTED 0.2
#define SEIZE_LIMIT_USEC 1000000L
#define GIVEN_UP_MAX 64

/* The signal to hand back on detach (a signal-delivery stop), kept per
 * stopped thread; only one thread is held at a time. */
static int pending_signal;

static int read_regs(struct cli_thread *t)
{
#if defined(__x86_64__)
    struct user_regs_struct r;
    struct iovec io = {&r, sizeof r};
    if (ptrace(PTRACE_GETREGSET, t->tid, (void *)NT_PRSTATUS, &io) != 0)
        return -errno;
    t->regs.pc = r.rip;
    t->regs.sp = r.rsp;
    t->regs.fp = r.rbp;
    t->regs.valid = JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP;
    t->all.valid = 0;
    cli_thread_dwarf_reg(t, 3, r.rbx);
    cli_thread_dwarf_reg(t, 12, r.r12);
    cli_thread_dwarf_reg(t, 13, r.r13);
    cli_thread_dwarf_reg(t, 14, r.r14);
    cli_thread_dwarf_reg(t, 15, r.r15);
#elif defined(__aarch64__)
    struct user_pt_regs r;
    struct iovec io = {&r, sizeof r};
    if (ptrace(PTRACE_GETREGSET, t->tid, (void *)NT_PRSTATUS, &io) != 0)
        return -errno;
    t->regs.pc = r.pc;
    t->regs.sp = r.sp;
    t->regs.fp = r.regs[29];
    t->regs.lr = r.regs[30];
    t->regs.valid = JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP | JITUNWIND_REG_LR;
    t->all.valid = 0;
    for (unsigned n = 19; n <= 28; n++)
        cli_thread_dwarf_reg(t, n, r.regs[n]);
#else
    return -ENOSYS;
#endif
    t->have_regs = 1;
    return 0;
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Threads seized but given up on (they did not stop in time): detached
 * once they stop, forgotten once they are gone. Any left when the command
 * ends are detached by the kernel. */
static int given_up[GIVEN_UP_MAX];
static size_t n_given_up;

/* The next event of tracee `tid`: 1 stopped (*status), 0 gone (exited and
 * reaped, or no longer ours: a thread whose PID an exec'ing thread took),
 * -ETIMEDOUT when none came in time. `ask`: PTRACE_INTERRUPT again at each
 * tick. */
static int wait_tracee(int tid, int *status, int ask)
{
    double start = seconds(), waited;
    for (;;) {
        pid_t w;
        cli_tick(TICK_USEC);
        w = waitpid(tid, status, __WALL);
        cli_tick(0);
        if (w == tid)
            return WIFSTOPPED(*status) ? 1 : 0;
        if (w < 0 && errno != EINTR)
            return 0;
        waited = seconds() - start;
        if (waited > STOP_LIMIT || (cli_interrupted && waited > STOP_LIMIT_INTERRUPTED))
            return -ETIMEDOUT;
        if (ask)
            ptrace(PTRACE_INTERRUPT, tid, NULL, NULL);
    }
}

static void give_up(int tid)
{
    if (n_given_up < GIVEN_UP_MAX)
        given_up[n_given_up++] = tid;
}

/* Detach `tid` (stopped), or reap it when it was killed meanwhile. */
static void detach_or_reap(int tid, int sig)
{
    int status, rc;
    if (ptrace(PTRACE_DETACH, tid, NULL, (void *)(long)sig) == 0)
        return;
    /* Only SIGKILL ends a ptrace stop: the thread is dying. */
    while ((rc = wait_tracee(tid, &status, 0)) == 1)
        if (ptrace(PTRACE_DETACH, tid, NULL, NULL) == 0)
            return;
    if (rc < 0)
        give_up(tid);
}

void cli_ptrace_settle(void)
{
    size_t i = 0;
    while (i < n_given_up) {
        int status, tid = given_up[i];
        pid_t w = waitpid(tid, &status, __WALL | WNOHANG);
        if (w == 0) {
            i++; /* still running */
            continue;
        }
        if (w == tid && WIFSTOPPED(status))
            detach_or_reap(tid, 0);
        given_up[i] = given_up[--n_given_up];
    }
}

/* PTRACE_SEIZE, left on Ctrl-C or after SEIZE_LIMIT: 0, or -errno. A
 * seize that succeeded just as the signal came is found by PTRACE_INTERRUPT
 * succeeding (only the tracer's does). */
static int seize(int tid)
{
    volatile int rc = 0;
    if (sigsetjmp(cli_escape, 1) == 0) {
        cli_escape_armed = 1;
        cli_tick(SEIZE_LIMIT_USEC);
        if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) != 0)
            rc = -errno;
        cli_escape_armed = 0;
        cli_tick(0);
        return rc;
    }
    cli_tick(0);
    return ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) == 0 ? 0
           : cli_interrupted                             ? -EINTR
                                                         : -ETIMEDOUT;
}

int cli_ptrace_stop(struct cli_thread *t)
{
    int status = 0, rc;
    pending_signal = 0;
    cli_ptrace_settle();
    cli_hold_begin();
    if ((rc = seize(t->tid)) != 0) {
        snprintf(t->error, sizeof t->error, "ptrace(PTRACE_SEIZE): %s",
                 rc == -ETIMEDOUT ? "no answer within a second (the process is in execve?)"
                                  : strerror(-rc));
        cli_hold_end();
        return rc == -ETIMEDOUT ? -EAGAIN : rc;
    }
    ptrace(PTRACE_INTERRUPT, t->tid, NULL, NULL); /* a failure shows in the wait */
    if ((rc = wait_tracee(t->tid, &status, 1)) <= 0) {
        if (rc < 0) {
            give_up(t->tid);
            snprintf(t->error, sizeof t->error, "the thread did not stop within %.0f s",
                     STOP_LIMIT);
        } else {
            snprintf(t->error, sizeof t->error, "thread exited while being stopped");
        }
        cli_hold_end();
        return rc < 0 ? -EAGAIN : -ESRCH;
    }
    /* A stop that is not our interrupt (PTRACE_EVENT_STOP) is a signal being
     * delivered: give it back on detach. */
    if ((status >> 16) != PTRACE_EVENT_STOP)
        pending_signal = WSTOPSIG(status);
    if ((rc = read_regs(t)) < 0) {
        snprintf(t->error, sizeof t->error, "reading registers: %s", strerror(-rc));
        cli_ptrace_release(t);
        return rc;
    }
    return 0;
}

void cli_ptrace_release(struct cli_thread *t)
{
    detach_or_reap(t->tid, pending_signal);
    pending_signal = 0;
    cli_hold_end();
}
