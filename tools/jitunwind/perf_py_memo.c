/* A thread's Python frames read once per reading of the rings. Every
 * sample in a reading was taken before the reading began, and a thread's
 * frames can only be read from the running process, after its samples:
 * the frames read for the thread's first sample of a reading are as much
 * "after the sample" for its later ones, read a few microseconds apart
 * instead. Each sample is still checked against them on its own
 * (perf_sample_unwind.c). Samples of one thread sit together in its ring,
 * so the last thread read is the one kept. The frames are not copied:
 * they stay in the stack they were read into (cli_stack's py_fills says
 * whether another reading overwrote them, as a sample of another process
 * does with --all); only each frame's line and flags are kept, which
 * merging a sample changes in place for frames running JIT code
 * (jitunwind_mixer_python). */
#include <stdlib.h>

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
    size_t i;
    if (!m->valid || m->tid != tid || m->stack != s || m->fills != s->py_fills)
        return 0;
    s->pyread = m->pyread; /* the frames are still in s->py */
    for (i = 0; i < m->pyread.n_py; i++) {
        s->py[i].line = m->marks[i].line;
        s->py[i].flags = m->marks[i].flags;
    }
    m->reused++;
    return 1;
}

void cli_py_memo_keep(struct cli_py_memo *m, int tid, const struct cli_stack *s)
{
    size_t i;
    m->valid = 0;
    if (s->pyread.n_py > m->cap) {
        struct cli_py_memo_marks *marks = realloc(m->marks, s->pyread.n_py * sizeof *marks);
        if (!marks)
            return;
        m->marks = marks;
        m->cap = s->pyread.n_py;
    }
    for (i = 0; i < s->pyread.n_py; i++) {
        m->marks[i].line = s->py[i].line;
        m->marks[i].flags = s->py[i].flags;
    }
    m->pyread = s->pyread;
    m->stack = s;
    m->fills = s->py_fills;
    m->tid = tid;
    m->valid = 1;
}

void cli_py_memo_free(struct cli_py_memo *m)
{
    free(m->marks);
    m->marks = NULL;
    m->cap = 0;
    m->valid = 0;
    m->stack = NULL;
}
