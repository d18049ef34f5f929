/* Registers of a live thread: PTRACE_SEIZE (which does not stop it), then
 * PTRACE_INTERRUPT and a wait for that stop, one thread at a time. Every
 * successful stop is paired with a detach, which resumes the thread and
 * re-injects a signal that arrived while we held it. SIGINT/SIGTERM only set
 * a flag (no SA_RESTART: a wait is interrupted), so a stopped thread is
 * always released before the program exits. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <elf.h>

#include "cli.h"

volatile sig_atomic_t cli_interrupted;

static void on_signal(int sig)
{
    (void)sig;
    cli_interrupted = 1;
}

void cli_install_signal_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

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
#else
    return -ENOSYS;
#endif
    t->have_regs = 1;
    return 0;
}

int cli_ptrace_stop(struct cli_thread *t)
{
    int status, rc;
    pending_signal = 0;
    if (ptrace(PTRACE_SEIZE, t->tid, NULL, NULL) != 0) {
        rc = -errno;
        snprintf(t->error, sizeof t->error, "ptrace(PTRACE_SEIZE): %s", strerror(-rc));
        return rc;
    }
    if (ptrace(PTRACE_INTERRUPT, t->tid, NULL, NULL) != 0) {
        rc = -errno;
        snprintf(t->error, sizeof t->error, "ptrace(PTRACE_INTERRUPT): %s", strerror(-rc));
        ptrace(PTRACE_DETACH, t->tid, NULL, NULL);
        return rc;
    }
    for (;;) {
        pid_t w = waitpid(t->tid, &status, __WALL);
        if (w < 0 && errno == EINTR)
            continue; /* the flag is looked at once the thread is released */
        if (w < 0 || WIFEXITED(status) || WIFSIGNALED(status)) {
            snprintf(t->error, sizeof t->error, "thread exited while being stopped");
            return -ESRCH;
        }
        if (WIFSTOPPED(status))
            break;
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
    ptrace(PTRACE_DETACH, t->tid, NULL, (void *)(long)pending_signal);
    pending_signal = 0;
}
