/* The fields of struct ju_py_layout with their widths and holders, the
 * typed access the decoders use, and the one check every layout passes
 * before a decoder reads with it: each field, with its width, inside the
 * object that holds it and inside the decoder's copy of that object (the
 * field rule of validate.h). */
#include <stdio.h>

#include "python/layout/layout.h"
#include "python/layout/validate.h"

const struct ju_py_field_desc ju_py_fields[JU_PYF_COUNT] = {
#define JU_PY_FIELD_DESC(field, holder, width, also, kind, debug, paths)             \
    [JU_PYF_##field] = {#field, paths, offsetof(struct ju_py_layout, field), width,     \
                        JU_PYH_##holder, JU_PYH_##also, JU_PYK_##kind},
#define JU_PY_JIT_FIELD_DESC(field, holder, width, also, kind, debug, paths)         \
    [JU_PYF_jit_##field] = {#field, paths, offsetof(struct ju_py_layout, jit.field),    \
                            width, JU_PYH_##holder, JU_PYH_##also, JU_PYK_##kind},
    JU_PY_LAYOUT_FIELDS(JU_PY_FIELD_DESC)
    JU_PY_JIT_FIELDS(JU_PY_JIT_FIELD_DESC)
#undef JU_PY_JIT_FIELD_DESC
#undef JU_PY_FIELD_DESC
};

const struct ju_py_holder_desc ju_py_holders[JU_PYH_COUNT] = {
    [JU_PYH_NONE] = {"?", -1, 0},
    [JU_PYH_RUNTIME] = {"_PyRuntimeState", -1, 0},
    [JU_PYH_INTERP] = {"PyInterpreterState", -1, 0},
    [JU_PYH_GIL] = {"_gil_runtime_state", -1, 0},
    [JU_PYH_TSTATE] = {"PyThreadState", -1, 0},
    [JU_PYH_CFRAME] = {"_PyCFrame", -1, 0},
    [JU_PYH_FRAME] = {"_PyInterpreterFrame", JU_PYF_fr_size, JU_PY_FRAME_COPY},
    [JU_PYH_CODE] = {"PyCodeObject", JU_PYF_co_size, JU_PY_CODE_COPY},
    [JU_PYH_OBJECT] = {"PyObject", -1, 0},
    [JU_PYH_TYPE] = {"PyTypeObject", -1, 0},
    [JU_PYH_BYTES] = {"PyBytesObject", -1, 0},
    [JU_PYH_ASCII] = {"PyASCIIObject", JU_PYF_str_ascii_size, JU_PY_STR_COPY},
    [JU_PYH_COMPACT] = {"PyCompactUnicodeObject", -1, 0},
    [JU_PYH_UNICODE] = {"PyUnicodeObject", -1, 0},
    [JU_PYH_EXECUTOR] = {"_PyExecutorObject", JU_PYF_ex_size, 0},
    [JU_PYH_UOP] = {"_PyUOpInstruction", JU_PYF_jit_uop_size, JU_PY_UOP_COPY},
    [JU_PYH_EXIT] = {"_PyExitData", JU_PYF_jit_exit_size, 0},
    [JU_PYH_STENCIL] = {"StencilGroup", JU_PYF_jit_stencil_size, 0},
};

int ju_py_fetch(const struct jitunwind_memory *mem, const struct ju_py_layout *L, uint64_t obj,
                enum ju_py_field_id id, uint64_t *out)
{
    uint32_t off = ju_py_offset(L, id);
    unsigned width = ju_py_fields[id].width;
    *out = 0;
    if (off >= JU_PY_FROM_DWARF || width == 0)
        return JITUNWIND_ENOTFOUND;
    return ju_read(mem, obj + off, out, width); /* little-endian: zero-extended */
}

/* Does field `f` (at `off`) fit in holder `h`: inside its size as the
 * target gave it, and inside the bytes its size field says the decoder
 * copies? */
static int fits(const struct ju_py_layout *L, const struct ju_py_field_desc *f, uint32_t off,
                enum ju_py_holder h, char *why, size_t size)
{
    const struct ju_py_holder_desc *hd = &ju_py_holders[h];
    uint32_t bytes = hd->size_field < 0 ? JU_PY_NONE
                                        : ju_py_offset(L, (enum ju_py_field_id)hd->size_field);
    struct ju_py_placed p = {off, f->width,
                             L->holder_size[h] ? L->holder_size[h] : JU_PY_UNBOUNDED,
                             bytes >= JU_PY_FROM_DWARF ? JU_PY_UNBOUNDED : bytes};
    switch (ju_py_field_misfit(&p)) {
    case JU_PY_FITS:
        return 1;
    case JU_PY_PAST_COPY:
        snprintf(why, size,
                 "%s: %s.%s (offset %u, %u bytes) ends past the %u bytes of %s that %s gives",
                 L->name, ju_py_holders[f->holder].type, f->name, off, f->width, bytes, hd->type,
                 ju_py_fields[hd->size_field].name);
        return 0;
    default:
        snprintf(why, size, "%s: %s.%s (offset %u, %u bytes) ends past sizeof(%s), %u", L->name,
                 ju_py_holders[f->holder].type, f->name, off, f->width, hd->type,
                 L->holder_size[h]);
        return 0;
    }
}

int ju_py_fields_check(const struct ju_py_layout *L, enum ju_py_field_id first,
                       enum ju_py_field_id end, char *why, size_t size)
{
    size_t i;
    for (i = first; i < (size_t)end; i++) {
        const struct ju_py_field_desc *f = &ju_py_fields[i];
        const struct ju_py_holder_desc *h = &ju_py_holders[f->holder];
        uint32_t off = ju_py_offset(L, (enum ju_py_field_id)i);
        struct ju_py_placed alone = {off, f->width, JU_PY_UNBOUNDED,
                                     h->size_field == (int)i && h->copy_capacity
                                         ? h->copy_capacity
                                         : JU_PY_UNBOUNDED};
        if (off == JU_PY_NONE || off == JU_PY_FROM_DWARF)
            continue; /* absent (FROM_DWARF: absent until DWARF says, see settle) */
        switch (ju_py_field_misfit(&alone)) {
        case JU_PY_FITS:
            break;
        case JU_PY_PAST_COPY: /* a size field: more than the decoder's buffer */
            snprintf(why, size, "%s: %s is %u bytes, more than the %u the decoder copies",
                     L->name, f->name, off, h->copy_capacity);
            return JITUNWIND_ECORRUPT;
        case JU_PY_BAD_WIDTH:
            snprintf(why, size, "%s: %s.%s is listed %u bytes wide, not a width a decoder loads",
                     L->name, h->type, f->name, f->width);
            return JITUNWIND_ECORRUPT;
        default:
            snprintf(why, size, "%s: %s.%s (offset %u) lies past any plausible %s", L->name,
                     h->type, f->name, off, h->type);
            return JITUNWIND_ECORRUPT;
        }
        if (f->width == 0)
            continue; /* a size, or an address never loaded */
        if (!fits(L, f, off, (enum ju_py_holder)f->holder, why, size) ||
            (f->also != JU_PYH_NONE && !fits(L, f, off, (enum ju_py_holder)f->also, why, size)))
            return JITUNWIND_ECORRUPT;
    }
    return 0;
}

int ju_py_layout_check(const struct ju_py_layout *L, char *why, size_t size)
{
    return ju_py_fields_check(L, 0, JU_PYF_MAIN_END, why, size);
}

int ju_py_layout_settle(struct ju_py_layout *L, char *main_missing, char *jit_missing,
                        size_t size)
{
    size_t i;
    int left = 0;
    main_missing[0] = jit_missing[0] = 0;
    for (i = 0; i < JU_PYF_COUNT; i++) {
        const struct ju_py_field_desc *f = &ju_py_fields[i];
        char *slot = (char *)L + f->slot, *missing = i < JU_PYF_MAIN_END ? main_missing
                                                                          : jit_missing;
        uint32_t none = JU_PY_NONE;
        if (ju_py_offset(L, (enum ju_py_field_id)i) != JU_PY_FROM_DWARF)
            continue;
        if (!missing[0])
            snprintf(missing, size, "%s.%s", ju_py_holders[f->holder].type, f->name);
        memcpy(slot, &none, sizeof none);
        left++;
        if (i >= JU_PYF_MAIN_END)
            L->jit.known = 0;
        if (i == JU_PYF_jit_vm_valid || i == JU_PYF_jit_vm_linked ||
            i == JU_PYF_jit_vm_chain_depth || i == JU_PYF_jit_vm_warm)
            ((struct ju_py_jit_bits *)slot)->width = 0;
    }
    return left;
}
