/* Harness: the DWARF layout reader: an ELF file with DWARF (the input's
 * tail, written to a private file) describing the interpreter's structs,
 * read by jitunwind_dwarf_types and cross-checked against, or used instead
 * of, the layout tables when a reader opens over the input's memory (the
 * flags' low bit: assume a layout from DWARF alone). libdw parses the
 * file; this drives our reader of what it finds. */
#include <stdio.h>
#include <unistd.h>

#include "fuzz_python.h"
#include "jitunwind/dwarf.h"

static const char *const LOOKUPS[][2] = {
    {"PyObject", "ob_type"}, {"PyTypeObject", "tp_name"},
    {"PyInterpreterState", "threads.head"}, {"PyThreadState", "interp"},
    {"_PyInterpreterFrame", "previous"}, {"PyCodeObject", "co_linetable"},
    {"_PyExecutorObject", "vm_data.links.next"}, {"_PyRuntimeState", "interpreters.head"},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    struct fuzz_target t;
    jitunwind_dwarf_types *types;
    jitunwind_pyreader *r;
    uint64_t v;
    size_t i;
    fuzz_target_parse(&t, data, size);
    if (fuzz_tail_to_file(&t, "dwarf.o", path, sizeof path) == 0 &&
        jitunwind_dwarf_types_open(&types, path) == 0) {
        for (i = 0; i < sizeof LOOKUPS / sizeof LOOKUPS[0]; i++) {
            jitunwind_dwarf_member_offset(types, LOOKUPS[i][0], LOOKUPS[i][1], &v);
            jitunwind_dwarf_member_bit_offset(types, LOOKUPS[i][0], LOOKUPS[i][1], &v);
            jitunwind_dwarf_type_size(types, LOOKUPS[i][0], &v);
        }
        if (jitunwind_pyreader_open(&r, &t.mem, t.runtime, t.version_hex,
                                    JITUNWIND_PYREADER_OPTS(.module = path, .types = types,
                                                            .flags = t.flags & 1)) == 0) {
            fuzz_walk_threads_and_frames(r, t.aux0);
            jitunwind_pyreader_free(r);
        }
        jitunwind_dwarf_types_free(types);
    }
    unlink(path);
    fuzz_target_free(&t);
    return 0;
}
