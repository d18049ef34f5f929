/* Harness: JIT executor discovery (3.13, 3.14): the executor lists, their
 * code objects, and the ranges made from them; aux0..aux1 is the eval
 * loop's range the caller knows. */
#include "fuzz_python.h"
#include "python/pyreader.h"

/* Where a build keeps its executor lists comes from its DWARF; the input's
 * flags stand in for it (bits 8..19: the list head's offset in the
 * interpreter, 20..31: the deletion list's; 0: none). */
static void place_lists(jitunwind_pyreader *r, uint32_t flags)
{
    uint32_t list = (flags >> 8) & 0xfff, deleted = flags >> 20;
    if (!list)
        return;
    r->from_target = *r->layout;
    r->from_target.interp_executor_list = list * 8;
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
    if (jitunwind_pyreader_new(&r, &t.mem, t.runtime, t.version_hex) == 0) {
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
