/* The command's signals, so that a target thread is never left stopped
 * because of them:
 * - SIGINT, SIGTERM, SIGHUP set a flag (no SA_RESTART: a wait is
 *   interrupted); the thread held is released before the command ends.
 *   A system call the kernel restarts whatever the handler says
 *   (PTRACE_SEIZE waiting for an exec) is left through the escape below.
 * - SIGTSTP, SIGTTIN, SIGTTOU (Ctrl-Z, a background read or write) stop the
 *   command only when no thread is held: one that comes while a thread is
 *   held waits until it is released.
 * - SIGALRM is the tick that bounds a blocking wait (cli_tick). */
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "cli.h"

volatile sig_atomic_t cli_interrupted;
sigjmp_buf cli_escape;
volatile sig_atomic_t cli_escape_armed;

static volatile sig_atomic_t holding;
static volatile sig_atomic_t deferred_stop;

static void leave_through_escape(void)
{
    if (cli_escape_armed) {
        cli_escape_armed = 0;
        siglongjmp(cli_escape, 1);
    }
}

static void on_interrupt(int sig)
{
    (void)sig;
    cli_interrupted = 1;
    leave_through_escape();
}

static void on_tick(int sig)
{
    (void)sig;
    leave_through_escape();
}

/* Stop the command with `sig`'s default action (as the shell expects of
 * Ctrl-Z), and take the handler back once continued. Async-signal-safe. */
static void stop_now(int sig)
{
    struct sigaction dfl, mine;
    sigset_t set;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_BLOCK, &set, NULL);
    sigaction(sig, &dfl, &mine);
    kill(getpid(), sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL); /* delivered here: stopped until SIGCONT */
    sigprocmask(SIG_BLOCK, &set, NULL);
    sigaction(sig, &mine, NULL);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static void on_stop(int sig)
{
    if (holding)
        deferred_stop = sig;
    else
        stop_now(sig);
}

void cli_hold_begin(void)
{
    holding = 1;
}

void cli_hold_end(void)
{
    int sig;
    holding = 0;
    if ((sig = deferred_stop) != 0) {
        deferred_stop = 0;
        stop_now(sig);
    }
}

void cli_tick(long usec)
{
    struct itimerval it;
    memset(&it, 0, sizeof it);
    it.it_value.tv_sec = usec / 1000000;
    it.it_value.tv_usec = usec % 1000000;
    setitimer(ITIMER_REAL, &it, NULL);
}

void cli_install_signal_handlers(void)
{
    static const int interrupts[] = {SIGINT, SIGTERM, SIGHUP};
    static const int stops[] = {SIGTSTP, SIGTTIN, SIGTTOU};
    struct sigaction sa;
    size_t i;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_interrupt;
    for (i = 0; i < sizeof interrupts / sizeof interrupts[0]; i++)
        sigaction(interrupts[i], &sa, NULL);
    sa.sa_handler = on_tick;
    sigaction(SIGALRM, &sa, NULL);
    /* Restarted: a write to the terminal stopped by SIGTTOU goes on once
     * the command is continued. */
    sa.sa_handler = on_stop;
    sa.sa_flags = SA_RESTART;
    for (i = 0; i < sizeof stops / sizeof stops[0]; i++)
        sigaction(stops[i], &sa, NULL);
}
