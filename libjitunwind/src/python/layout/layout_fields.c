/* The descriptors of every field of every table (the rows of fields.h),
 * the typed access the frame decoders use, and the one check every table
 * passes before a decoder reads with it: each field, with its width,
 * inside the struct that holds it and inside the decoder's copy of that
 * struct (the field rule, validate.h). */
#include <stdio.h>

#include "python/layout/value_layout.h"
#include "python/layout/validate.h"

const struct ju_py_field_desc ju_py_fields[JU_PYF_COUNT] = {
#define ROW(id, name, slot, holder, width, also, kind, debug, paths, part)                  \
    [id] = {name, paths, slot, width, JU_PYH_##holder, JU_PYH_##also, JU_PYK_##kind,        \
            JU_PYD_##debug, part},
#define MAIN(f, holder, width, also, kind, debug, paths)                                    \
    ROW(JU_PYF_##f, #f, offsetof(struct ju_py_layout, f), holder, width, also, kind, debug, \
        paths, JU_PYP_MAIN)
#define JIT(f, holder, width, also, kind, debug, paths)                                     \
    ROW(JU_PYF_jit_##f, #f, offsetof(struct ju_py_layout, jit.f), holder, width, also, kind, \
        debug, paths, JU_PYP_JIT)
#define VAL(f, holder, width, also, kind, debug, paths)                                     \
    ROW(JU_PYF_val_##f, #f, offsetof(struct ju_py_value_layout, f), holder, width, also,    \
        kind, debug, paths, JU_PYP_VALUES)
    JU_PY_LAYOUT_FIELDS(MAIN)
    JU_PY_JIT_FIELDS(JIT)
    JU_PY_VALUE_FIELDS(VAL)
#undef VAL
#undef JIT
#undef MAIN
#undef ROW
};

const struct ju_py_part_desc ju_py_parts[JU_PYP_COUNT] = {
    [JU_PYP_MAIN] = {0, JU_PYF_MAIN_END},
    [JU_PYP_JIT] = {JU_PYF_MAIN_END, JU_PYF_JIT_END},
    [JU_PYP_VALUES] = {JU_PYF_JIT_END, JU_PYF_COUNT},
};

/* Each holder: its DWARF name, the field giving the bytes the decoder
 * copies and that copy's capacity, whether it is an object, and the
 * _Py_DebugOffsets field giving its size (PyASCIIObject's and
 * PyCompactUnicodeObject's fields are held to PyUnicodeObject's, the only
 * str size the target gives). */
const struct ju_py_holder_desc ju_py_holders[JU_PYH_COUNT] = {
    [JU_PYH_NONE] = {"?", -1, 0, 0, JU_PYD_SKIP},
    [JU_PYH_RUNTIME] = {"_PyRuntimeState", -1, 0, 0, JU_PYD_RT_SIZE},
    [JU_PYH_INTERP] = {"PyInterpreterState", -1, 0, 0, JU_PYD_IS_SIZE},
    [JU_PYH_GIL] = {"_gil_runtime_state", -1, 0, 0, JU_PYD_SKIP},
    [JU_PYH_TSTATE] = {"PyThreadState", -1, 0, 0, JU_PYD_TS_SIZE},
    [JU_PYH_CFRAME] = {"_PyCFrame", -1, 0, 0, JU_PYD_SKIP},
    [JU_PYH_FRAME] = {"_PyInterpreterFrame", JU_PYF_fr_size, JU_PY_FRAME_COPY, 0, JU_PYD_FR_SIZE},
    [JU_PYH_CODE] = {"PyCodeObject", JU_PYF_co_size, JU_PY_CODE_COPY, 1, JU_PYD_CO_SIZE},
    [JU_PYH_OBJECT] = {"PyObject", -1, 0, 1, JU_PYD_OB_SIZE},
    [JU_PYH_TYPE] = {"PyTypeObject", -1, 0, 1, JU_PYD_TP_SIZE},
    [JU_PYH_BYTES] = {"PyBytesObject", -1, 0, 1, JU_PYD_BY_SIZE},
    [JU_PYH_ASCII] = {"PyASCIIObject", JU_PYF_str_ascii_size, JU_PY_STR_COPY, 1, JU_PYD_UN_SIZE},
    [JU_PYH_COMPACT] = {"PyCompactUnicodeObject", -1, 0, 1, JU_PYD_UN_SIZE},
    [JU_PYH_UNICODE] = {"PyUnicodeObject", -1, 0, 1, JU_PYD_UN_SIZE},
    [JU_PYH_EXECUTOR] = {"_PyExecutorObject", JU_PYF_ex_size, 0, 1, JU_PYD_SKIP},
    [JU_PYH_UOP] = {"_PyUOpInstruction", JU_PYF_jit_uop_size, JU_PY_UOP_COPY, 0, JU_PYD_SKIP},
    [JU_PYH_EXIT] = {"_PyExitData", JU_PYF_jit_exit_size, 0, 0, JU_PYD_SKIP},
    [JU_PYH_STENCIL] = {"StencilGroup", JU_PYF_jit_stencil_size, 0, 0, JU_PYD_SKIP},
    [JU_PYH_LONG] = {"PyLongObject", -1, 0, 1, JU_PYD_LO_SIZE},
    [JU_PYH_FLOAT] = {"PyFloatObject", -1, 0, 1, JU_PYD_FL_SIZE},
    [JU_PYH_TUPLE] = {"PyTupleObject", -1, 0, 1, JU_PYD_TU_SIZE},
    [JU_PYH_LIST] = {"PyListObject", -1, 0, 1, JU_PYD_LI_SIZE},
    [JU_PYH_DICT] = {"PyDictObject", -1, 0, 1, JU_PYD_DI_SIZE},
    [JU_PYH_SET] = {"PySetObject", -1, 0, 1, JU_PYD_SE_SIZE},
    [JU_PYH_FUNCTION] = {"PyFunctionObject", -1, 0, 1, JU_PYD_SKIP},
    [JU_PYH_CFUNCTION] = {"PyCFunctionObject", -1, 0, 1, JU_PYD_SKIP},
    [JU_PYH_METHOD] = {"PyMethodObject", -1, 0, 1, JU_PYD_SKIP},
    [JU_PYH_MODULE] = {"PyModuleObject", -1, 0, 1, JU_PYD_SKIP},
    [JU_PYH_CELL] = {"PyCellObject", -1, 0, 1, JU_PYD_SKIP},
    [JU_PYH_HEAPTYPE] = {"PyHeapTypeObject", -1, 0, 1, JU_PYD_HT_SIZE},
    [JU_PYH_DICTKEYS] = {"PyDictKeysObject", JU_PYF_val_dk_indices, JU_PY_DICT_KEYS_COPY, 0,
                         JU_PYD_SKIP},
    [JU_PYH_DICTVALUES] = {"PyDictValues", -1, 0, 0, JU_PYD_SKIP},
};

void ju_py_table_set(const struct ju_py_table_build *t, enum ju_py_field_id id,
                     uint64_t offset, int source)
{
    const struct ju_py_field_desc *f = &ju_py_fields[id];
    uint32_t base = ju_py_holders[f->holder].object ? t->header : 0, value;
    uint8_t *bits = t->source ? &t->source[id - ju_py_parts[f->part].first] : NULL;
    if (bits)
        *bits |= (uint8_t)source;
    if (offset < base) { /* no field lies inside the object header: the check says so */
        value = 0;
        if (bits)
            *bits |= JU_PY_SRC_IN_HEADER;
    } else {
        value = offset - base < JU_PY_MAX_STRUCT ? (uint32_t)(offset - base) : JU_PY_MAX_STRUCT;
    }
    memcpy((char *)t->table + f->slot, &value, sizeof value);
}

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

/* The one field rule. The same shape as CPython's own remote-debugging
 * check of _Py_DebugOffsets: offset + width inside the struct's size; here
 * also inside the decoder's copy. */
enum ju_py_misfit ju_py_field_misfit(const struct ju_py_placed *f)
{
    uint64_t end;
    if (f->width > 8 || (f->width & (f->width - 1)))
        return JU_PY_BAD_WIDTH;
    if (f->offset > JU_PY_MAX_STRUCT || f->width > JU_PY_MAX_STRUCT - f->offset)
        return JU_PY_PAST_ANY;
    end = f->offset + f->width;
    if (end > f->holder_size)
        return JU_PY_PAST_HOLDER;
    if (end > f->copy)
        return JU_PY_PAST_COPY;
    return JU_PY_FITS;
}

/* The bytes of holder h the decoder copies, as field f's table gives them
 * (a size field of another table does not bound it), or UNBOUNDED. */
static uint64_t copied(const struct ju_py_table_view *t, const struct ju_py_field_desc *f,
                       enum ju_py_holder h)
{
    const struct ju_py_holder_desc *hd = &ju_py_holders[h];
    uint32_t bytes;
    if (hd->size_field < 0 ||
        (ju_py_fields[hd->size_field].part == JU_PYP_VALUES) != (f->part == JU_PYP_VALUES))
        return JU_PY_UNBOUNDED;
    bytes = ju_py_slot(t->table, ju_py_fields[hd->size_field].slot);
    return bytes >= JU_PY_FROM_DWARF ? JU_PY_UNBOUNDED : bytes;
}

/* Does field f (at `at` from the holder's start) fit in holder h: inside
 * its size as known, and inside the bytes the decoder copies of it? */
static int fits(const struct ju_py_table_view *t, const struct ju_py_field_desc *f, uint64_t at,
                enum ju_py_holder h, char *why, size_t size)
{
    const struct ju_py_holder_desc *hd = &ju_py_holders[h];
    uint32_t known = t->holder_size[h];
    uint64_t copy = copied(t, f, h);
    struct ju_py_placed p = {at, f->width, known ? known : JU_PY_UNBOUNDED, copy};
    switch (ju_py_field_misfit(&p)) {
    case JU_PY_FITS:
        return 1;
    case JU_PY_PAST_COPY:
        snprintf(why, size,
                 "%s: %s.%s (offset %llu, %u bytes) ends past the %llu bytes of %s that %s gives",
                 t->name, ju_py_holders[f->holder].type, f->name, (unsigned long long)at,
                 f->width, (unsigned long long)copy, hd->type, ju_py_fields[hd->size_field].name);
        return 0;
    default:
        snprintf(why, size, "%s: %s.%s (offset %llu, %u bytes) ends past sizeof(%s), %u",
                 t->name, ju_py_holders[f->holder].type, f->name, (unsigned long long)at,
                 f->width, hd->type, known);
        return 0;
    }
}

int ju_py_fields_check(const struct ju_py_table_view *t, enum ju_py_part part, char *why,
                       size_t size)
{
    size_t i, first = ju_py_parts[part].first;
    for (i = first; i < ju_py_parts[part].end; i++) {
        const struct ju_py_field_desc *f = &ju_py_fields[i];
        const struct ju_py_holder_desc *h = &ju_py_holders[f->holder];
        uint32_t off = ju_py_slot(t->table, f->slot);
        uint64_t at = (uint64_t)off + (h->object ? t->header : 0);
        struct ju_py_placed alone = {at, f->width, JU_PY_UNBOUNDED,
                                     h->size_field == (int)i && h->copy_capacity
                                         ? h->copy_capacity
                                         : JU_PY_UNBOUNDED};
        if (off == JU_PY_NONE || off == JU_PY_FROM_DWARF)
            continue; /* absent (FROM_DWARF: absent until DWARF says, see settle) */
        if (t->source && (t->source[i - first] & JU_PY_SRC_IN_HEADER)) {
            snprintf(why, size, "%s: %s.%s lies inside the %u-byte object header", t->name,
                     h->type, f->name, t->header);
            return JITUNWIND_ECORRUPT;
        }
        switch (ju_py_field_misfit(&alone)) {
        case JU_PY_FITS:
            break;
        case JU_PY_PAST_COPY: /* a size field: more than the decoder's buffer */
            snprintf(why, size, "%s: %s is %u bytes, more than the %u the decoder copies",
                     t->name, f->name, off, h->copy_capacity);
            return JITUNWIND_ECORRUPT;
        case JU_PY_BAD_WIDTH:
            snprintf(why, size, "%s: %s.%s is listed %u bytes wide, not a width a decoder loads",
                     t->name, h->type, f->name, f->width);
            return JITUNWIND_ECORRUPT;
        default:
            snprintf(why, size, "%s: %s.%s (offset %llu) lies past any plausible %s", t->name,
                     h->type, f->name, (unsigned long long)at, h->type);
            return JITUNWIND_ECORRUPT;
        }
        if (!f->paths || (f->width == 0 && part != JU_PYP_VALUES))
            continue; /* a size; an address the frame decoders never load */
        if (!fits(t, f, at, (enum ju_py_holder)f->holder, why, size) ||
            (f->also != JU_PYH_NONE && !fits(t, f, at, (enum ju_py_holder)f->also, why, size)))
            return JITUNWIND_ECORRUPT;
    }
    return 0;
}

int ju_py_layout_check(const struct ju_py_layout *L, char *why, size_t size)
{
    const struct ju_py_table_view t = {L->name, L, L->holder_size, 0, NULL};
    return ju_py_fields_check(&t, JU_PYP_MAIN, why, size);
}

int ju_py_layout_settle(struct ju_py_layout *L, char *main_missing, char *jit_missing,
                        size_t size)
{
    size_t i;
    int left = 0;
    main_missing[0] = jit_missing[0] = 0;
    for (i = 0; i < JU_PYF_JIT_END; i++) {
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
