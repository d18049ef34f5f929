/* The CPython decoder over a fuzzed process: open a reader as a debugger
 * would (the version and _PyRuntime from the input's header; the flags'
 * low bit asks for the free-threaded build's table through the header the
 * target itself carries). */
#ifndef JU_FUZZ_PYTHON_H
#define JU_FUZZ_PYTHON_H

#include "fuzz_target.h"
#include "jitunwind/jitunwind.h"

/* Threads, then every thread's frames and the frames at aux0: the walk a
 * py-bt does. */
static inline void fuzz_walk_threads_and_frames(jitunwind_pyreader *r, uint64_t extra_frame)
{
    static struct jitunwind_py_thread threads[16];
    static struct jitunwind_py_frame frames[64];
    size_t n = 0, m, i;
    jitunwind_pyreader_threads(r, threads, 16, &n);
    for (i = 0; i < n && i < 16; i++)
        jitunwind_pyreader_frames(r, threads[i].current_frame, frames, 64, &m);
    if (extra_frame)
        jitunwind_pyreader_frames(r, extra_frame, frames, 64, &m);
}

#endif
