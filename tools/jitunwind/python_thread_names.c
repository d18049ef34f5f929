/* Threads named as Python names them: the `threading` module's name of the
 * thread (jitunwind_pyreader_thread_names) in place of the OS name. All the
 * listed states are named in one pass, so that naming N threads reads
 * threading._active once, not N times. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_python_thread_names(struct cli_target *t)
{
    t->n_py_names = 0;
    if (!t->py || t->n_py_threads == 0)
        return;
    if (!t->py_names &&
        !(t->py_names = malloc((size_t)JITUNWIND_PY_MAX_THREADS * JITUNWIND_PY_THREAD_NAME_MAX)))
        return; /* out of memory: the OS names stay */
    if (jitunwind_pyreader_thread_names(t->py, t->py_threads, t->n_py_threads, t->py_names,
                                        JITUNWIND_PY_THREAD_NAME_MAX, NULL) == 0)
        t->n_py_names = t->n_py_threads;
}

int cli_python_thread_name(const struct cli_target *t, struct cli_thread *th)
{
    size_t k;
    if (th->tid <= 0 || t->n_py_names != t->n_py_threads)
        return 0;
    /* A thread that entered subinterpreters: its first state with a name. */
    for (k = cli_first_python_state(t, th->tid); k < t->n_py_threads &&
         t->py_threads[t->py_order[k]].native_thread_id == (uint64_t)(unsigned)th->tid; k++) {
        const char *name = t->py_names + t->py_order[k] * JITUNWIND_PY_THREAD_NAME_MAX;
        size_t len = strnlen(name, sizeof th->name - 1);
        if (!name[0])
            continue;
        while (len && len < strlen(name) && ((unsigned char)name[len] & 0xc0) == 0x80)
            len--; /* cut between characters */
        memcpy(th->name, name, len);
        th->name[len] = '\0';
        return 1;
    }
    return 0;
}
