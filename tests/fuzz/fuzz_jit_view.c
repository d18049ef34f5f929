/* Harness: the JIT developer view (3.13, 3.14): executor details, whole
 * traces, exits and jit_pc over hostile executors, traces and stencil and
 * uop-name tables, with a JIT layout changed the way a build's DWARF could
 * change it (ju_py_jit_apply_dwarf: any offset or size below 2^32, a flag's
 * byte and bit). aux0/aux1: the stencil_groups and _PyOpcode_uop_name
 * tables; flags bits 8..19: the executor list head's offset in the
 * interpreter, in words (as fuzz_executors). Tail: the two tables' symbol
 * sizes (u32 each), then up to 8 layout edits {u8 field, u32 value}, then
 * one u16 per executor: the offset into its code jit_pc is asked about. */
#include "fuzz_python.h"
#include "python/pyreader.h"

#define MAX_EXECUTORS 8
#define MAX_UOPS 256
#define MAX_EDITS 8

/* Field `id` of the JIT layout (JU_PYF_jit_*) set as DWARF would set it. */
static void edit_field(struct ju_py_layout *L, enum ju_py_field_id id, uint32_t value)
{
    char *slot = (char *)L + ju_py_fields[id].slot;
    if (id == JU_PYF_jit_vm_valid || id == JU_PYF_jit_vm_linked ||
        id == JU_PYF_jit_vm_chain_depth || id == JU_PYF_jit_vm_warm) {
        struct ju_py_jit_bits *b = (struct ju_py_jit_bits *)slot;
        b->offset = value / 8;
        b->bit = (uint8_t)(value % 8);
    } else {
        memcpy(slot, &value, sizeof value);
    }
}

static void set_up(jitunwind_pyreader *r, struct fuzz_target *t)
{
    uint32_t list = (t->flags >> 8) & 0xfff;
    size_t edits, i;
    r->from_target = *r->layout;
    r->layout = &r->from_target;
    if (list)
        r->from_target.interp_executor_list = list * 8;
    r->jit.stencils = t->aux0;
    r->jit.stencils_size = fuzz_take(t, 4);
    r->jit.names = t->aux1;
    r->jit.names_size = fuzz_take(t, 4);
    edits = (size_t)fuzz_take(t, 1) % (MAX_EDITS + 1);
    for (i = 0; i < edits; i++) {
        unsigned field = (unsigned)fuzz_take(t, 1) % (JU_PYF_JIT_END - JU_PYF_MAIN_END);
        edit_field(&r->from_target, (enum ju_py_field_id)(JU_PYF_MAIN_END + field),
                   (uint32_t)fuzz_take(t, 4));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct jitunwind_py_executor_detail details[MAX_EXECUTORS];
    static struct jitunwind_py_uop uops[MAX_UOPS];
    static struct jitunwind_py_jit_exit exits[MAX_UOPS];
    struct fuzz_target t;
    struct jitunwind_py_jit_pc w;
    jitunwind_pyreader *r;
    char label[128];
    size_t n = 0, m, i;
    fuzz_target_parse(&t, data, size);
    if (jitunwind_pyreader_open(&r, &t.mem, t.runtime, t.version_hex, NULL) == 0) {
        set_up(r, &t);
        jitunwind_pyreader_executor_details(r, details, MAX_EXECUTORS, &n);
        for (i = 0; i < n && i < MAX_EXECUTORS; i++) {
            const struct jitunwind_py_executor *e = &details[i].ex;
            jitunwind_pyreader_executor_trace(r, e->address, 0, uops, MAX_UOPS, &m, NULL);
            jitunwind_pyreader_detail_exits(r, &details[i], exits, MAX_UOPS, &m);
            jitunwind_pyreader_jit_pc(r, e->jit_code + fuzz_take(&t, 2), e->code, &w);
            jitunwind_py_jit_pc_label(&w, label, sizeof label);
        }
        jitunwind_pyreader_free(r);
    }
    fuzz_target_free(&t);
    return 0;
}
