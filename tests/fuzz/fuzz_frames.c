/* Harness: frame chains, code objects (names, file names) and their line
 * tables, in every version's layout; aux0 names one more frame to walk
 * (a frame address a native unwinder found). */
#include "fuzz_python.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_target t;
    jitunwind_pyreader *r;
    static uint32_t roles[8];
    static struct jitunwind_py_frame frames[64];
    static struct jitunwind_mixed_item items[128];
    size_t n = 0, m;
    fuzz_target_parse(&t, data, size);
    if (jitunwind_pyreader_open(&r, &t.mem, t.runtime, t.version_hex, NULL) == 0) {
        fuzz_walk_threads_and_frames(r, t.aux0);
        /* The interleaving of what was decoded with a native stack. */
        if (jitunwind_pyreader_frames(r, t.aux0, frames, 64, &n) >= 0 || n) {
            for (m = 0; m < 8; m++)
                roles[m] = (uint32_t)fuzz_take(&t, 1) % 8;
            jitunwind_mix(roles, 8, frames, n, items, 128, &m);
        }
        jitunwind_pyreader_free(r);
    }
    fuzz_target_free(&t);
    return 0;
}
