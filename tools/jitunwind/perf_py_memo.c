/* A thread's Python frames read once per reading of the rings. Every
 * sample in a reading was taken before the reading began, and a thread's
 * frames can only be read from the running process, after its samples:
 * the frames read for the thread's first sample of a reading are as much
 * "after the sample" for its later ones, read a few microseconds apart
 * instead. Each sample is still checked against them on its own
 * (perf_sample_unwind.c). Samples of one thread sit together in its ring,
 * so the last thread read is the one kept. */
#include <stdlib.h>
#include <string.h>

#include "perf_events.h"

void cli_py_memo_reading(struct cli_py_memo *m, uint64_t pass)
{
    if (m->pass != pass) {
        m->pass = pass;
        m->valid = 0;
    }
}

int cli_py_memo_take(struct cli_py_memo *m, int tid, struct cli_stack *s)
{
    if (!m->valid || m->tid != tid || m->n_py > s->py_cap)
        return 0;
    if (m->n_py)
        memcpy(s->py, m->py, m->n_py * sizeof *s->py);
    s->n_py = m->n_py;
    s->py_status = m->py_status;
    memcpy(s->py_error, m->py_error, sizeof s->py_error);
    s->python_thread = m->python_thread;
    s->holds_gil = m->holds_gil;
    m->reused++;
    return 1;
}

void cli_py_memo_keep(struct cli_py_memo *m, int tid, const struct cli_stack *s)
{
    m->valid = 0;
    if (s->n_py > m->cap) {
        struct jitunwind_py_frame *py = realloc(m->py, s->n_py * sizeof *py);
        if (!py)
            return;
        m->py = py;
        m->cap = s->n_py;
    }
    if (s->n_py)
        memcpy(m->py, s->py, s->n_py * sizeof *s->py);
    m->n_py = s->n_py;
    m->py_status = s->py_status;
    memcpy(m->py_error, s->py_error, sizeof m->py_error);
    m->python_thread = s->python_thread;
    m->holds_gil = s->holds_gil;
    m->tid = tid;
    m->valid = 1;
}

void cli_py_memo_free(struct cli_py_memo *m)
{
    free(m->py);
    m->py = NULL;
    m->cap = m->n_py = 0;
    m->valid = 0;
}
