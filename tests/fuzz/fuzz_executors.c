/* Harness: JIT executor discovery (3.13, 3.14: lists; 3.15+: the executor
 * array): the executors, their code objects, and the ranges made from
 * them; aux0..aux1 is the eval loop's range the caller knows. */
#include "fuzz_python.h"
#include "python/pyreader.h"

/* Where a build keeps its executors comes from its DWARF; the input's
 * flags stand in for it (bits 8..19: the list head's offset in the
 * interpreter, or 3.15+'s executor_ptrs with executor_count after it,
 * 20..31: the deletion list's; 0: none). A layout that takes all of its
 * executor offsets from DWARF (3.15+) gets those of the 3.15-shaped
 * declarations tests/unit/shapes/py315_jit.c. */
static void place_lists(jitunwind_pyreader *r, uint32_t flags)
{
    uint32_t list = (flags >> 8) & 0xfff, deleted = flags >> 20;
    if (!list)
        return;
    r->from_target = *r->layout;
    if (r->report.executors_missing[0]) {
        r->from_target.interp_executor_array = list * 8;
        r->from_target.interp_executor_count = list * 8 + 8;
        r->from_target.ex_size = 112;
        r->from_target.ex_links_next = 48;
        r->from_target.ex_code = 64;
        r->from_target.ex_jit_size = 80;
        r->from_target.ex_jit_code = 88;
        r->report.executors_missing[0] = 0;
    } else {
        r->from_target.interp_executor_list = list * 8;
    }
    r->from_target.interp_executor_deleted = deleted ? deleted * 8 : JU_PY_NONE;
    r->layout = &r->from_target;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_target t;
    jitunwind_pyreader *r;
    jitunwind_registry *reg;
    static struct jitunwind_py_executor ex[64];
    size_t n, added;
    fuzz_target_parse(&t, data, size);
    if (jitunwind_pyreader_open(&r, &t.mem, t.runtime, t.version_hex, NULL) == 0) {
        place_lists(r, t.flags);
        jitunwind_pyreader_executors(r, ex, 64, &n);
        if (jitunwind_registry_new(&reg) == 0) {
            jitunwind_pyreader_executor_ranges(r, reg, jitunwind_host_arch(), t.aux0, t.aux1,
                                               &added);
            jitunwind_registry_free(reg);
        }
        jitunwind_pyreader_free(r);
    }
    fuzz_target_free(&t);
    return 0;
}
