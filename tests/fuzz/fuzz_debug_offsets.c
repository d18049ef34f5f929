/* Harness: the _Py_DebugOffsets table a 3.13+ runtime starts with, the
 * layout built from it, and the first reads that layout drives (threads,
 * frames). */
#include "fuzz_python.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_target t;
    jitunwind_pyreader *r;
    fuzz_target_parse(&t, data, size);
    if (jitunwind_pyreader_open(&r, &t.mem, t.runtime, t.version_hex, NULL) == 0) {
        fuzz_walk_threads_and_frames(r, 0);
        jitunwind_pyreader_free(r);
    }
    fuzz_target_free(&t);
    return 0;
}
