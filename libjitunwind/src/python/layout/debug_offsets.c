/* _Py_DebugOffsets (3.13+): the first member of _PyRuntimeState, a cookie,
 * the version, and one uint64 per field. The struct is not self-describing,
 * so each minor version has its field list here, in declaration order. Only
 * the fields the decoder uses are named; the rest are skipped by position.
 *
 * Sources: 3.13: Include/internal/pycore_runtime.h of 3.13.0; 3.14:
 * Include/internal/pycore_debug_offsets.h of 3.14.7; 3.15 and 3.16: that
 * header in its form with `last_profiled_frame_seq`, which 3.15.0rc3's
 * header and a recording of 3.15.0rc1's table agree with field for field.
 *
 * A list is "confirmed" from the first release it is known to describe
 * (the version table, versions.c, says which list a version uses and from
 * which release). Pre-releases may insert fields mid-struct, so the list of
 * an earlier pre-release, or of a minor with no confirmed release, is
 * provisional: the reader uses it only when the build's DWARF agrees with
 * every offset it gives (runtime.c).
 *
 * Which layout field each entry gives is that field's row (fields.h, its
 * debug column), whatever its table, and the entry giving each holder's
 * size is the holder's (ju_py_holders). One step moves every such field
 * into its table: the frame fields over the version's static table (the
 * GIL or the free-threaded one, as the block's free_threaded word says),
 * after checks: the cookie, the version against the one the caller found,
 * plausible struct sizes, and every frame offset inside its struct; the
 * value fields into the reader's value layout (value_layout.h), whose own
 * run of the one check judges them, so that a block wrong about objects
 * costs the values only. */
#include <stdio.h>

#include "python/layout/validate.h"
#include "python/pyreader.h"

#define HEADER 24u /* cookie, version, free_threaded */
#define MAX_STRUCT JU_PY_MAX_STRUCT

/* The object groups between type_object and bytes_object (3.14 added set). */
#define VALUE_OBJECTS_313                                                                   \
    JU_PYD_TU_SIZE, JU_PYD_TU_OB_ITEM, JU_PYD_TU_OB_SIZE,                                   \
    JU_PYD_LI_SIZE, JU_PYD_LI_OB_ITEM, JU_PYD_LI_OB_SIZE,                                   \
    JU_PYD_DI_SIZE, JU_PYD_DI_MA_KEYS, JU_PYD_DI_MA_VALUES,                                 \
    JU_PYD_FL_SIZE, JU_PYD_FL_OB_FVAL,                                                      \
    JU_PYD_LO_SIZE, JU_PYD_LO_LV_TAG, JU_PYD_LO_OB_DIGIT
#define VALUE_OBJECTS_314                                                                   \
    JU_PYD_TU_SIZE, JU_PYD_TU_OB_ITEM, JU_PYD_TU_OB_SIZE,                                   \
    JU_PYD_LI_SIZE, JU_PYD_LI_OB_ITEM, JU_PYD_LI_OB_SIZE,                                   \
    JU_PYD_SE_SIZE, JU_PYD_SE_USED, JU_PYD_SE_TABLE, JU_PYD_SE_MASK,                        \
    JU_PYD_DI_SIZE, JU_PYD_DI_MA_KEYS, JU_PYD_DI_MA_VALUES,                                 \
    JU_PYD_FL_SIZE, JU_PYD_FL_OB_FVAL,                                                      \
    JU_PYD_LO_SIZE, JU_PYD_LO_LV_TAG, JU_PYD_LO_OB_DIGIT

static const uint8_t FIELDS_313[] = {
    JU_PYD_RT_SIZE, JU_PYD_SKIP /* finalizing */, JU_PYD_RT_INTERPRETERS_HEAD,
    JU_PYD_IS_SIZE, JU_PYD_IS_ID, JU_PYD_IS_NEXT, JU_PYD_IS_THREADS_HEAD, JU_PYD_IS_GC,
    JU_PYD_SKIP /* imports_modules */,
    JU_PYD_SKIP /* sysdict */, JU_PYD_SKIP /* builtins */, JU_PYD_IS_CEVAL_GIL,
    JU_PYD_SKIP, JU_PYD_SKIP, JU_PYD_SKIP, JU_PYD_SKIP /* gil_runtime_* */,
    JU_PYD_TS_SIZE, JU_PYD_TS_PREV, JU_PYD_TS_NEXT, JU_PYD_TS_INTERP,
    JU_PYD_TS_CURRENT_FRAME, JU_PYD_TS_THREAD_ID,
    JU_PYD_TS_NATIVE_THREAD_ID, JU_PYD_SKIP /* datastack_chunk */, JU_PYD_SKIP /* status */,
    JU_PYD_FR_SIZE, JU_PYD_FR_PREVIOUS, JU_PYD_FR_EXECUTABLE, JU_PYD_FR_INSTR_PTR,
    JU_PYD_FR_LOCALSPLUS, JU_PYD_FR_OWNER,
    JU_PYD_CO_SIZE, JU_PYD_CO_FILENAME, JU_PYD_CO_NAME, JU_PYD_CO_QUALNAME, JU_PYD_CO_LINETABLE,
    JU_PYD_CO_FIRSTLINENO,
    JU_PYD_CO_ARGCOUNT, JU_PYD_CO_LOCALSPLUSNAMES, JU_PYD_CO_LOCALSPLUSKINDS,
    JU_PYD_CO_CODE_ADAPTIVE,
    JU_PYD_OB_SIZE, JU_PYD_OB_TYPE,
    JU_PYD_TP_SIZE, JU_PYD_TP_NAME, JU_PYD_SKIP /* tp_repr */, JU_PYD_TP_FLAGS,
    VALUE_OBJECTS_313,
    JU_PYD_BY_SIZE, JU_PYD_BY_OB_SIZE, JU_PYD_BY_OB_SVAL,
    JU_PYD_UN_SIZE, JU_PYD_UN_STATE, JU_PYD_UN_LENGTH, JU_PYD_UN_ASCII_SIZE,
    JU_PYD_GC_SIZE, JU_PYD_GC_COLLECTING,
};

static const uint8_t FIELDS_314[] = {
    JU_PYD_RT_SIZE, JU_PYD_SKIP /* finalizing */, JU_PYD_RT_INTERPRETERS_HEAD,
    JU_PYD_IS_SIZE, JU_PYD_IS_ID, JU_PYD_IS_NEXT, JU_PYD_IS_THREADS_HEAD,
    JU_PYD_SKIP /* threads_main */, JU_PYD_IS_GC,
    JU_PYD_SKIP /* imports_modules */, JU_PYD_SKIP /* sysdict */, JU_PYD_SKIP /* builtins */,
    JU_PYD_IS_CEVAL_GIL,
    JU_PYD_SKIP, JU_PYD_SKIP, JU_PYD_SKIP, JU_PYD_SKIP /* gil_runtime_* */,
    JU_PYD_SKIP /* code_object_generation */,
    JU_PYD_SKIP /* tlbc_generation */,
    JU_PYD_TS_SIZE, JU_PYD_TS_PREV, JU_PYD_TS_NEXT, JU_PYD_TS_INTERP,
    JU_PYD_TS_CURRENT_FRAME, JU_PYD_TS_THREAD_ID,
    JU_PYD_TS_NATIVE_THREAD_ID, JU_PYD_SKIP /* datastack_chunk */, JU_PYD_SKIP /* status */,
    JU_PYD_FR_SIZE, JU_PYD_FR_PREVIOUS, JU_PYD_FR_EXECUTABLE, JU_PYD_FR_INSTR_PTR,
    JU_PYD_FR_LOCALSPLUS, JU_PYD_FR_OWNER,
    JU_PYD_SKIP /* stackpointer */, JU_PYD_FR_TLBC_INDEX,
    JU_PYD_CO_SIZE, JU_PYD_CO_FILENAME, JU_PYD_CO_NAME, JU_PYD_CO_QUALNAME, JU_PYD_CO_LINETABLE,
    JU_PYD_CO_FIRSTLINENO,
    JU_PYD_CO_ARGCOUNT, JU_PYD_CO_LOCALSPLUSNAMES, JU_PYD_CO_LOCALSPLUSKINDS,
    JU_PYD_CO_CODE_ADAPTIVE,
    JU_PYD_CO_TLBC,
    JU_PYD_OB_SIZE, JU_PYD_OB_TYPE,
    JU_PYD_TP_SIZE, JU_PYD_TP_NAME, JU_PYD_SKIP /* tp_repr */, JU_PYD_TP_FLAGS,
    VALUE_OBJECTS_314,
    JU_PYD_BY_SIZE, JU_PYD_BY_OB_SIZE, JU_PYD_BY_OB_SVAL,
    JU_PYD_UN_SIZE, JU_PYD_UN_STATE, JU_PYD_UN_LENGTH, JU_PYD_UN_ASCII_SIZE,
    JU_PYD_GC_SIZE, JU_PYD_GC_COLLECTING,
};

/* 3.14's, with thread-state fields inserted after current_frame and
 * appended, new groups (err_stackitem, heap_type_object) and new trailing
 * members (type_object, unicode_object). */
static const uint8_t FIELDS_315[] = {
    JU_PYD_RT_SIZE, JU_PYD_SKIP /* finalizing */, JU_PYD_RT_INTERPRETERS_HEAD,
    JU_PYD_IS_SIZE, JU_PYD_IS_ID, JU_PYD_IS_NEXT, JU_PYD_IS_THREADS_HEAD,
    JU_PYD_SKIP /* threads_main */, JU_PYD_IS_GC,
    JU_PYD_SKIP /* imports_modules */, JU_PYD_SKIP /* sysdict */, JU_PYD_SKIP /* builtins */,
    JU_PYD_IS_CEVAL_GIL,
    JU_PYD_SKIP, JU_PYD_SKIP, JU_PYD_SKIP, JU_PYD_SKIP /* gil_runtime_* */,
    JU_PYD_SKIP /* code_object_generation */,
    JU_PYD_SKIP /* tlbc_generation */,
    JU_PYD_TS_SIZE, JU_PYD_TS_PREV, JU_PYD_TS_NEXT, JU_PYD_TS_INTERP,
    JU_PYD_TS_CURRENT_FRAME, JU_PYD_SKIP /* base_frame */,
    JU_PYD_TS_LAST_PROFILED_FRAME, JU_PYD_TS_LAST_PROFILED_SEQ, JU_PYD_TS_THREAD_ID,
    JU_PYD_TS_NATIVE_THREAD_ID, JU_PYD_SKIP /* datastack_chunk */, JU_PYD_SKIP /* status */,
    JU_PYD_TS_HOLDS_GIL,
    JU_PYD_SKIP /* gil_requested */, JU_PYD_SKIP /* current_exception */,
    JU_PYD_SKIP /* exc_state */,
    JU_PYD_SKIP /* err_stackitem.exc_value */,
    JU_PYD_FR_SIZE, JU_PYD_FR_PREVIOUS, JU_PYD_FR_EXECUTABLE, JU_PYD_FR_INSTR_PTR,
    JU_PYD_FR_LOCALSPLUS, JU_PYD_FR_OWNER,
    JU_PYD_SKIP /* stackpointer */, JU_PYD_FR_TLBC_INDEX,
    JU_PYD_CO_SIZE, JU_PYD_CO_FILENAME, JU_PYD_CO_NAME, JU_PYD_CO_QUALNAME, JU_PYD_CO_LINETABLE,
    JU_PYD_CO_FIRSTLINENO,
    JU_PYD_CO_ARGCOUNT, JU_PYD_CO_LOCALSPLUSNAMES, JU_PYD_CO_LOCALSPLUSKINDS,
    JU_PYD_CO_CODE_ADAPTIVE,
    JU_PYD_CO_TLBC,
    JU_PYD_OB_SIZE, JU_PYD_OB_TYPE,
    JU_PYD_TP_SIZE, JU_PYD_TP_NAME, JU_PYD_SKIP /* tp_repr */, JU_PYD_TP_FLAGS,
    JU_PYD_SKIP /* tp_basicsize */, JU_PYD_SKIP /* tp_dictoffset */,
    JU_PYD_HT_SIZE, JU_PYD_SKIP /* ht_cached_keys */,
    VALUE_OBJECTS_314,
    JU_PYD_BY_SIZE, JU_PYD_BY_OB_SIZE, JU_PYD_BY_OB_SVAL,
    JU_PYD_UN_SIZE, JU_PYD_UN_STATE, JU_PYD_UN_LENGTH, JU_PYD_UN_ASCII_SIZE,
    JU_PYD_UN_COMPACT_SIZE,
    JU_PYD_GC_SIZE, JU_PYD_GC_COLLECTING,
    /* then frame, generation_stats_size, generation_stats */
};

struct field_list {
    const uint8_t *fields;
    size_t count;
};

/* By enum ju_py_debug_list: which list a version uses is its row in the
 * version table (versions.c). */
static const struct field_list LISTS[JU_PY_DEBUG_LISTS] = {
    [JU_PY_DEBUG_313] = {FIELDS_313, sizeof FIELDS_313},
    [JU_PY_DEBUG_314] = {FIELDS_314, sizeof FIELDS_314},
    [JU_PY_DEBUG_315] = {FIELDS_315, sizeof FIELDS_315},
};

/* Every offset inside its struct, with its width: 0, or ECORRUPT naming
 * the first that is not. */
static int check_inside(jitunwind_pyreader *r, const uint64_t *v)
{
    size_t i;
    for (i = 0; i < JU_PYF_MAIN_END; i++) {
        const struct ju_py_field_desc *f = &ju_py_fields[i];
        const char *type = ju_py_holders[f->holder].type;
        uint64_t size = v[ju_py_holders[f->holder].debug_size], off = v[f->debug];
        struct ju_py_placed placed = {off, f->width, size, JU_PY_UNBOUNDED};
        if (f->debug == JU_PYD_SKIP)
            continue;
        if (size == 0 || size > MAX_STRUCT)
            return ju_fail(&r->err, JITUNWIND_ECORRUPT, r->runtime,
                           "_Py_DebugOffsets are implausible: sizeof(%s) is %llu", type,
                           (unsigned long long)size);
        if (ju_py_field_misfit(&placed) != JU_PY_FITS)
            return ju_fail(&r->err, JITUNWIND_ECORRUPT, r->runtime,
                           "_Py_DebugOffsets are implausible: %s.%s (offset %llu, %u bytes) "
                           "ends past sizeof(%s), %llu",
                           type, f->name, (unsigned long long)off, f->width, type,
                           (unsigned long long)size);
    }
    return 0;
}

/* Fields newer lists add read as 0 from older ones (which the inside-the-
 * struct checks accept); whether the value means anything is asked here. */
static int list_has(const struct field_list *list, enum ju_py_debug_field f)
{
    size_t pos;
    for (pos = 0; pos < list->count; pos++)
        if (list->fields[pos] == f)
            return 1;
    return 0;
}

static const struct field_list *list_for(uint32_t version_hex)
{
    const struct ju_py_version *v = ju_py_version_of(version_hex);
    return v && v->debug_offsets != JU_PY_DEBUG_NONE ? &LISTS[v->debug_offsets] : NULL;
}

/* The struct sizes an encoded block claims: past every offset it names. */
#define ENCODED_STRUCT_SIZE 0x4000u

int ju_py_encode_debug_offsets(uint32_t version_hex, const struct ju_py_layout *L,
                               const struct ju_py_value_layout *V, uint8_t *buf, size_t cap,
                               size_t *len)
{
    const struct field_list *list = list_for(version_hex);
    uint64_t v[JU_PYD_COUNT] = {0};
    size_t pos, i;
    if (!list || cap < HEADER + 8 * list->count)
        return JITUNWIND_EINVAL;
    if (!V && !(V = ju_py_value_table(version_hex, L->free_threaded)))
        V = ju_py_value_table_newest(L->free_threaded);
    for (i = 0; i < JU_PYH_COUNT; i++)
        if (ju_py_holders[i].debug_size != JU_PYD_SKIP)
            v[ju_py_holders[i].debug_size] = ENCODED_STRUCT_SIZE;
    for (i = 0; i < JU_PYF_COUNT; i++) {
        const struct ju_py_field_desc *f = &ju_py_fields[i];
        int values = f->part == JU_PYP_VALUES;
        uint32_t off = ju_py_slot(values ? (const void *)V : (const void *)L, f->slot);
        if (f->debug != JU_PYD_SKIP && off < JU_PY_FROM_DWARF)
            v[f->debug] = off + (values ? ju_pyv_base(L, f->holder) : 0);
    }
    if (V->interp_gc_collecting != JU_PY_NONE) {
        v[JU_PYD_IS_GC] = V->interp_gc_collecting;
        v[JU_PYD_GC_SIZE] = 8;
    }
    /* Free-threaded builds still have ceval.gil; the decoder ignores it. */
    if (L->interp_gil_ptr == JU_PY_NONE)
        v[JU_PYD_IS_CEVAL_GIL] = 16;
    memcpy(buf, "xdebugpy", 8);
    memcpy(buf + 8, &(uint64_t){version_hex}, 8);
    memcpy(buf + 16, &(uint64_t){L->free_threaded}, 8);
    for (pos = 0; pos < list->count; pos++)
        memcpy(buf + HEADER + 8 * pos, &v[list->fields[pos]], 8); /* SKIP fields are 0 */
    *len = HEADER + 8 * list->count;
    return 0;
}

int ju_py_debug_offsets_header(jitunwind_pyreader *r)
{
    uint8_t raw[HEADER];
    uint64_t version, free_threaded;
    if (ju_read(&r->mem, r->runtime, raw, sizeof raw) < 0)
        return ju_fail(&r->err, JITUNWIND_EREAD, r->runtime,
                       "_Py_DebugOffsets at %#llx are unreadable", (unsigned long long)r->runtime);
    if (memcmp(raw, "xdebugpy", 8) != 0)
        return ju_fail(&r->err, JITUNWIND_ECORRUPT, r->runtime,
                       "no _Py_DebugOffsets cookie at %#llx: not a CPython 3.13+ runtime",
                       (unsigned long long)r->runtime);
    version = ju_load_u64(raw + 8);
    free_threaded = ju_load_u64(raw + 16);
    if ((version & 0xffff0000u) != (r->version_hex & 0xffff0000u))
        return ju_fail(&r->err, JITUNWIND_ECORRUPT, r->runtime,
                       "_Py_DebugOffsets say version %#llx, Py_Version says %#x",
                       (unsigned long long)version, r->version_hex);
    if (free_threaded > 1)
        return ju_fail(&r->err, JITUNWIND_ECORRUPT, r->runtime,
                       "_Py_DebugOffsets have free_threaded = %llu",
                       (unsigned long long)free_threaded);
    return (int)free_threaded;
}

int ju_py_debug_offsets_give(uint32_t version_hex, enum ju_py_field_id id)
{
    const struct field_list *list = list_for(version_hex);
    return list && ju_py_fields[id].debug != JU_PYD_SKIP &&
           list_has(list, (enum ju_py_debug_field)ju_py_fields[id].debug);
}

/* Every row whose debug column the list has takes the block's value, in
 * whichever table holds it: the frame table (r->frame_source its bits; its
 * JIT view has no such rows) and the reader's value layout, started here
 * from the version's table. One rule for all: a field the table has not
 * (JU_PY_NONE: the GIL of a free-threaded build, thread-local bytecode of a
 * GIL build) stays absent, marked as the target's word, so that DWARF does
 * not bring it back; one the list has not keeps the table's value. Part by
 * part, in their order: the value fields count from the end of the object
 * header, whose size the frame table's ob_type gives. */
static void adopt(jitunwind_pyreader *r, const struct field_list *list, const uint64_t *v,
                  struct ju_py_layout *out)
{
    size_t p, i;
    ju_py_values_start(&r->values, out, r->version_hex);
    for (p = 0; p < JU_PYP_COUNT; p++) {
        struct ju_py_table_build t = {out, 0, p == JU_PYP_MAIN ? r->frame_source : NULL};
        if (p == JU_PYP_VALUES)
            t = ju_py_values_build(&r->values, out);
        for (i = ju_py_parts[p].first; i < ju_py_parts[p].end; i++) {
            const struct ju_py_field_desc *f = &ju_py_fields[i];
            if (f->debug == JU_PYD_SKIP || !list_has(list, (enum ju_py_debug_field)f->debug))
                continue;
            if (ju_py_slot(t.table, f->slot) != JU_PY_NONE)
                ju_py_table_set(&t, (enum ju_py_field_id)i, v[f->debug],
                                JU_PY_SRC_DEBUG_OFFSETS);
            else if (t.source)
                t.source[i - ju_py_parts[p].first] |= JU_PY_SRC_DEBUG_OFFSETS;
        }
    }
}

/* The value layout's parts of the block no row gives alone: every struct
 * size the block gives holds the value fields too (the frame table's copy
 * of them, set by the caller, holds its own); and gc.collecting, two target
 * values summed, each of which must lie inside what holds it, so that the
 * sum cannot wrap onto another field of the interpreter state. */
static void value_extras(jitunwind_pyreader *r, const struct field_list *list, const uint64_t *v,
                         const struct ju_py_layout *out)
{
    const struct ju_py_table_build t = ju_py_values_build(&r->values, out);
    size_t i;
    for (i = 0; i < JU_PYH_COUNT; i++)
        if (ju_py_holders[i].debug_size != JU_PYD_SKIP &&
            list_has(list, (enum ju_py_debug_field)ju_py_holders[i].debug_size))
            ju_py_values_holder_size(&r->values, (enum ju_py_holder)i,
                                     v[ju_py_holders[i].debug_size]);
    if (list_has(list, JU_PYD_GC_COLLECTING) && v[JU_PYD_GC_SIZE] &&
        v[JU_PYD_IS_GC] < v[JU_PYD_IS_SIZE] &&
        v[JU_PYD_GC_SIZE] <= v[JU_PYD_IS_SIZE] - v[JU_PYD_IS_GC] &&
        v[JU_PYD_GC_COLLECTING] < v[JU_PYD_GC_SIZE] &&
        v[JU_PYD_GC_SIZE] - v[JU_PYD_GC_COLLECTING] >= 4)
        ju_py_table_set(&t, JU_PYF_val_interp_gc_collecting,
                        v[JU_PYD_IS_GC] + v[JU_PYD_GC_COLLECTING], JU_PY_SRC_DEBUG_OFFSETS);
}

int ju_py_apply_debug_offsets(jitunwind_pyreader *r, struct ju_py_layout *out)
{
    const struct field_list *list = list_for(r->version_hex);
    uint8_t raw[HEADER + 8 * 128];
    uint64_t v[JU_PYD_COUNT] = {0};
    size_t pos, i;
    int free_threaded, rc;
    if (!list)
        return ju_fail(&r->err, JITUNWIND_EVERSION, r->runtime,
                       "no _Py_DebugOffsets field list for CPython %u.%u", r->version_hex >> 24,
                       (r->version_hex >> 16) & 0xff);
    if ((free_threaded = ju_py_debug_offsets_header(r)) < 0)
        return free_threaded;
    if (ju_read(&r->mem, r->runtime, raw, HEADER + 8 * list->count) < 0)
        return ju_fail(&r->err, JITUNWIND_EREAD, r->runtime,
                       "_Py_DebugOffsets at %#llx are unreadable", (unsigned long long)r->runtime);
    if (free_threaded) {
        /* What the debug offsets do not carry differs in these builds. */
        const struct ju_py_layout *base = ju_py_layout_for_build(r->version_hex, 1, r->arch);
        if (!base)
            return ju_fail(&r->err, JITUNWIND_EVERSION, r->runtime,
                           "free-threaded CPython %u.%u is not supported", r->version_hex >> 24,
                           (r->version_hex >> 16) & 0xff);
        *out = *base;
    }
    for (pos = 0; pos < list->count; pos++)
        if (list->fields[pos] != JU_PYD_SKIP)
            v[list->fields[pos]] = ju_load_u64(raw + HEADER + 8 * pos);
    if ((rc = check_inside(r, v)) < 0)
        return rc;
    if (v[JU_PYD_UN_ASCII_SIZE] + 16 > JU_PY_STR_COPY || v[JU_PYD_UN_COMPACT_SIZE] > JU_PY_STR_COPY)
        return ju_fail(&r->err, JITUNWIND_ECORRUPT, r->runtime,
                       "_Py_DebugOffsets give str headers larger than the decoder reads");
    adopt(r, list, v, out);
    out->ts_cframe = JU_PY_NONE;
    out->co_size = (uint32_t)v[JU_PYD_CO_CODE_ADAPTIVE] + 8;
    out->str_compact_size = list_has(list, JU_PYD_UN_COMPACT_SIZE)
                                ? (uint32_t)v[JU_PYD_UN_COMPACT_SIZE]
                                : out->str_ascii_size + 16; /* + utf8_length, utf8 */
    out->str_legacy_data = out->str_compact_size;
    /* The struct sizes the target gives, each checked above: every field of
     * these holders, whatever its source, is held to them (ju_py_layout_check). */
    for (i = 0; i < JU_PYH_COUNT; i++)
        out->holder_size[i] = (uint32_t)v[ju_py_holders[i].debug_size];
    value_extras(r, list, v, out);
    return 0;
}
