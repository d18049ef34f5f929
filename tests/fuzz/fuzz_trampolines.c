/* Harness: trampoline discovery: the interpreter's trampoline arenas
 * (3.12+ perf trampolines), and the last-resort guesser over anonymous
 * executable mappings (aux0..aux1, and the tail's pairs) that classifies
 * their first bytes and finds the copies' stride. */
#include "fuzz_python.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_target t;
    jitunwind_pyreader *r;
    jitunwind_registry *reg;
    struct jitunwind_mapping maps[8];
    size_t n = 0, added;
    int arch;
    fuzz_target_parse(&t, data, size);
    arch = (t.flags & 2) ? JITUNWIND_ARCH_AARCH64 : JITUNWIND_ARCH_X86_64;
    if (jitunwind_registry_new(&reg) != 0) {
        fuzz_target_free(&t);
        return 0;
    }
    if (jitunwind_pyreader_open(&r, &t.mem, t.runtime, t.version_hex, NULL) == 0) {
        jitunwind_pyreader_trampoline_ranges(r, reg, arch, &added);
        jitunwind_pyreader_free(r);
    }
    maps[n].start = t.aux0;
    maps[n++].end = t.aux1;
    while (n < 8 && t.tail_len >= 16) {
        maps[n].start = fuzz_take(&t, 8);
        maps[n++].end = fuzz_take(&t, 8);
    }
    jitunwind_registry_add_guesses(reg, &t.mem, arch, maps, n, &added);
    jitunwind_classify_trampoline(arch, t.tail, t.tail_len);
    jitunwind_registry_free(reg);
    fuzz_target_free(&t);
    return 0;
}
