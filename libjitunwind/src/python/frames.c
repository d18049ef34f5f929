/* The _PyInterpreterFrame chain of a thread, innermost first. The walk is
 * bounded by the caller's array and JITUNWIND_PY_MAX_FRAMES, and checks for
 * cycles with Brent's algorithm (constant memory). */
#include "python/pyreader.h"

JITUNWIND_API int jitunwind_pyreader_frames(jitunwind_pyreader *r, uint64_t frame_addr,
                                            struct jitunwind_py_frame *out, size_t max,
                                            size_t *count)
{
    const struct ju_py_layout *L;
    uint64_t addr = frame_addr, tortoise = 0;
    size_t n = 0, steps = 0, power = 1, lam = 0;
    uint8_t raw[JU_PY_FRAME_COPY];
    if (!r || (!out && max) || !count)
        return JITUNWIND_EINVAL;
    L = r->layout;
    *count = 0;
    ju_clear_error(&r->err);
    while (addr != 0) {
        struct jitunwind_py_frame *f;
        uint64_t code;
        uint8_t owner;
        if (addr == tortoise)
            return ju_fail(&r->err, JITUNWIND_ELOOP, addr,
                           "the frame chain loops back to frame %#llx", (unsigned long long)addr);
        if (++lam == power) { /* Brent: move the tortoise at powers of two */
            tortoise = addr;
            power *= 2;
            lam = 0;
        }
        if (++steps > JITUNWIND_PY_MAX_FRAMES)
            return ju_fail(&r->err, JITUNWIND_ELIMIT, addr, "more than %u frames",
                           JITUNWIND_PY_MAX_FRAMES);
        if ((addr & 7) != 0)
            return ju_fail(&r->err, JITUNWIND_ECORRUPT, addr, "misaligned frame pointer %#llx",
                           (unsigned long long)addr);
        if (L->fr_size > sizeof raw || ju_read(&r->mem, addr, raw, L->fr_size) < 0)
            return ju_fail(&r->err, JITUNWIND_EREAD, addr, "frame %#llx is unreadable",
                           (unsigned long long)addr);
        owner = (uint8_t)ju_py_get(L, JU_PYF_fr_owner, raw, L->fr_size);
        if (L->owner_sentinel_min && owner >= L->owner_sentinel_min) {
            /* An eval-loop entry sentinel: it closes the group above it. */
            if (n > 0)
                out[n - 1].flags |= JITUNWIND_PYFRAME_ENTRY;
            addr = ju_py_get(L, JU_PYF_fr_previous, raw, L->fr_size);
            continue;
        }
        if (n >= max) {
            *count = n;
            return ju_fail(&r->err, JITUNWIND_ELIMIT, addr, "more frames than the %zu asked for",
                           max);
        }
        f = &out[n];
        memset(f, 0, sizeof *f);
        f->address = addr;
        f->owner = owner;
        if (owner == L->owner_generator)
            f->flags |= JITUNWIND_PYFRAME_GENERATOR;
        if (ju_py_get(L, JU_PYF_fr_is_entry, raw, L->fr_size))
            f->flags |= JITUNWIND_PYFRAME_ENTRY;
        code = ju_py_get(L, JU_PYF_fr_code, raw, L->fr_size) & ~L->code_tag_mask;
        ju_py_decode_code(r, code, ju_py_get(L, JU_PYF_fr_instr, raw, L->fr_size),
                          L->fr_tlbc_index != JU_PY_NONE
                              ? (int32_t)ju_py_get(L, JU_PYF_fr_tlbc_index, raw, L->fr_size)
                              : -1,
                          f);
        n++;
        *count = n;
        addr = ju_py_get(L, JU_PYF_fr_previous, raw, L->fr_size);
    }
    ju_clear_error(&r->err);
    return 0;
}
