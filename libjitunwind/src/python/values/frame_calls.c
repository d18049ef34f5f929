/* The builtin function and method objects on a Python frame's value stack
 * (see jitunwind_pyreader_frame_cfunctions): how a debugger names the
 * builtin a specialized CALL runs, which no cfunction_* frame names. */
#include "python/values/objects.h"
#include "python/values/read_cache.h"

#define MAX_LOCALSPLUS 65536u
/* Stack references (3.14+) tag their low bits; an object is 8-aligned. */
#define REF_TAG_BITS 7ull

static int list(jitunwind_pyreader *reader, const struct jitunwind_py_frame *frame,
                struct jitunwind_py_cfunction *out, size_t max, size_t *count)
{
    struct ju_py_objects o;
    uint64_t slots;
    uint32_t nlocalsplus, i;
    int rc;
    if ((rc = ju_py_objects_init(&o, reader)) < 0)
        return rc;
    if ((frame->flags & JITUNWIND_PYFRAME_BAD_CODE) || frame->code == 0 ||
        ju_read_u32(&reader->mem, frame->code + o.head + o.V->co_nlocalsplus, &nlocalsplus) < 0 ||
        nlocalsplus > MAX_LOCALSPLUS)
        return ju_fail(&reader->err, JITUNWIND_ECORRUPT, frame->code,
                       "frame %#llx: code object unreadable", (unsigned long long)frame->address);
    slots = frame->address + o.V->fr_localsplus + 8ull * nlocalsplus;
    for (i = 0; i < JITUNWIND_PY_STACK_SLOTS && *count < max; i++) {
        struct ju_py_type_info *t;
        uint64_t value, ml, meth;
        if (ju_read_u64(&reader->mem, slots + 8ull * i, &value) < 0)
            break; /* the end of the frame's memory */
        value &= ~(REF_TAG_BITS | o.L->code_tag_mask);
        if (value == 0 || ju_py_object_type(&o, value, &t) < 0 || t->kind != JU_K_CFUNCTION ||
            ju_read_u64(&reader->mem, value + o.head + o.V->cfunc_ml, &ml) < 0 || ml == 0 ||
            ju_read_u64(&reader->mem, ml + 8, &meth) < 0) /* PyMethodDef: ml_name, ml_meth */
            continue;
        out[*count].object = value;
        out[*count].function = meth;
        (*count)++;
    }
    return 0;
}

int jitunwind_pyreader_frame_cfunctions(jitunwind_pyreader *reader,
                                        const struct jitunwind_py_frame *frame,
                                        struct jitunwind_py_cfunction *out, size_t max,
                                        size_t *count)
{
    struct ju_read_cache cache;
    int rc;
    if (!reader || !frame || !count || (max && !out))
        return JITUNWIND_EINVAL;
    *count = 0;
    ju_read_cache_install(&cache, reader);
    rc = list(reader, frame, out, max, count);
    ju_read_cache_remove(&cache, reader);
    return rc;
}
