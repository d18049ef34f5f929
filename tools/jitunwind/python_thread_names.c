/* Threads named as Python names them: the `threading` module's name of the
 * thread (jitunwind_pyreader_thread_name) in place of the OS name. */
#include <string.h>

#include "cli.h"

void cli_python_thread_name(struct cli_target *t, struct cli_thread *th)
{
    char name[JITUNWIND_PY_THREAD_NAME_MAX];
    size_t i;
    if (!t->py || th->tid <= 0)
        return;
    for (i = 0; i < t->n_py_threads; i++)
        if (t->py_threads[i].native_thread_id == (uint64_t)(unsigned)th->tid &&
            jitunwind_pyreader_thread_name(t->py, &t->py_threads[i], name, sizeof name) == 0 &&
            name[0]) {
            size_t len = strnlen(name, sizeof th->name - 1);
            while (len && len < strlen(name) && ((unsigned char)name[len] & 0xc0) == 0x80)
                len--; /* cut between characters */
            memcpy(th->name, name, len);
            th->name[len] = '\0';
            return;
        }
}
