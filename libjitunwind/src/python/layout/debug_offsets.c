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
 * The values replace the offsets of the version's static table (the GIL or
 * the free-threaded one, as the block's free_threaded word says), after
 * checks: the cookie, the version against the one the caller found,
 * plausible struct sizes, and every offset inside its struct. The fields
 * of objects the value renderer reads (ints, floats, tuples, lists, dicts,
 * sets (3.14+), type flags, code variables, localsplus, gc.collecting) go
 * to the reader's value layout (value_layout.h), which checks them itself. */
#include <stdio.h>

#include "python/layout/validate.h"
#include "python/pyreader.h"

enum field {
    SKIP = 0,
    RT_SIZE, RT_INTERPRETERS_HEAD,
    IS_SIZE, IS_ID, IS_NEXT, IS_THREADS_HEAD, IS_CEVAL_GIL,
    TS_SIZE, TS_NEXT, TS_INTERP, TS_CURRENT_FRAME, TS_THREAD_ID, TS_NATIVE_THREAD_ID,
    FR_SIZE, FR_PREVIOUS, FR_EXECUTABLE, FR_INSTR_PTR, FR_OWNER, FR_TLBC_INDEX,
    CO_SIZE, CO_FILENAME, CO_NAME, CO_QUALNAME, CO_LINETABLE, CO_FIRSTLINENO, CO_CODE_ADAPTIVE,
    CO_TLBC,
    OB_SIZE, OB_TYPE,
    TP_SIZE, TP_NAME,
    BY_SIZE, BY_OB_SIZE, BY_OB_SVAL,
    UN_SIZE, UN_STATE, UN_LENGTH, UN_ASCII_SIZE, UN_COMPACT_SIZE,
    TS_HOLDS_GIL, TS_LAST_PROFILED_FRAME, TS_LAST_PROFILED_SEQ,
    /* the value renderer's (value_layout.h) */
    IS_GC, FR_LOCALSPLUS, CO_ARGCOUNT, CO_LOCALSPLUSNAMES, CO_LOCALSPLUSKINDS, TP_FLAGS,
    TU_SIZE, TU_OB_ITEM, TU_OB_SIZE, LI_SIZE, LI_OB_ITEM, LI_OB_SIZE,
    SE_SIZE, SE_USED, SE_TABLE, SE_MASK, DI_SIZE, DI_MA_KEYS, DI_MA_VALUES,
    FL_SIZE, FL_OB_FVAL, LO_SIZE, LO_LV_TAG, LO_OB_DIGIT, GC_SIZE, GC_COLLECTING,
    N_FIELDS
};

#define HEADER 24u /* cookie, version, free_threaded */
#define MAX_STRUCT JU_PY_MAX_STRUCT

/* The object groups between type_object and bytes_object (3.14 added set). */
#define VALUE_OBJECTS_313                                                               \
    TU_SIZE, TU_OB_ITEM, TU_OB_SIZE, LI_SIZE, LI_OB_ITEM, LI_OB_SIZE, DI_SIZE, DI_MA_KEYS, \
        DI_MA_VALUES, FL_SIZE, FL_OB_FVAL, LO_SIZE, LO_LV_TAG, LO_OB_DIGIT
#define VALUE_OBJECTS_314                                                               \
    TU_SIZE, TU_OB_ITEM, TU_OB_SIZE, LI_SIZE, LI_OB_ITEM, LI_OB_SIZE, SE_SIZE, SE_USED,   \
        SE_TABLE, SE_MASK, DI_SIZE, DI_MA_KEYS, DI_MA_VALUES, FL_SIZE, FL_OB_FVAL, LO_SIZE, \
        LO_LV_TAG, LO_OB_DIGIT

static const uint8_t FIELDS_313[] = {
    RT_SIZE, SKIP /* finalizing */, RT_INTERPRETERS_HEAD,
    IS_SIZE, IS_ID, IS_NEXT, IS_THREADS_HEAD, IS_GC, SKIP /* imports_modules */,
    SKIP /* sysdict */, SKIP /* builtins */, IS_CEVAL_GIL, SKIP, SKIP, SKIP, SKIP /* gil_runtime_* */,
    TS_SIZE, SKIP /* prev */, TS_NEXT, TS_INTERP, TS_CURRENT_FRAME, TS_THREAD_ID,
    TS_NATIVE_THREAD_ID, SKIP /* datastack_chunk */, SKIP /* status */,
    FR_SIZE, FR_PREVIOUS, FR_EXECUTABLE, FR_INSTR_PTR, FR_LOCALSPLUS, FR_OWNER,
    CO_SIZE, CO_FILENAME, CO_NAME, CO_QUALNAME, CO_LINETABLE, CO_FIRSTLINENO,
    CO_ARGCOUNT, CO_LOCALSPLUSNAMES, CO_LOCALSPLUSKINDS, CO_CODE_ADAPTIVE,
    OB_SIZE, OB_TYPE,
    TP_SIZE, TP_NAME, SKIP /* tp_repr */, TP_FLAGS,
    VALUE_OBJECTS_313,
    BY_SIZE, BY_OB_SIZE, BY_OB_SVAL,
    UN_SIZE, UN_STATE, UN_LENGTH, UN_ASCII_SIZE,
    GC_SIZE, GC_COLLECTING,
};

static const uint8_t FIELDS_314[] = {
    RT_SIZE, SKIP /* finalizing */, RT_INTERPRETERS_HEAD,
    IS_SIZE, IS_ID, IS_NEXT, IS_THREADS_HEAD, SKIP /* threads_main */, IS_GC,
    SKIP /* imports_modules */, SKIP /* sysdict */, SKIP /* builtins */, IS_CEVAL_GIL,
    SKIP, SKIP, SKIP, SKIP /* gil_runtime_* */, SKIP /* code_object_generation */,
    SKIP /* tlbc_generation */,
    TS_SIZE, SKIP /* prev */, TS_NEXT, TS_INTERP, TS_CURRENT_FRAME, TS_THREAD_ID,
    TS_NATIVE_THREAD_ID, SKIP /* datastack_chunk */, SKIP /* status */,
    FR_SIZE, FR_PREVIOUS, FR_EXECUTABLE, FR_INSTR_PTR, FR_LOCALSPLUS, FR_OWNER,
    SKIP /* stackpointer */, FR_TLBC_INDEX,
    CO_SIZE, CO_FILENAME, CO_NAME, CO_QUALNAME, CO_LINETABLE, CO_FIRSTLINENO,
    CO_ARGCOUNT, CO_LOCALSPLUSNAMES, CO_LOCALSPLUSKINDS, CO_CODE_ADAPTIVE,
    CO_TLBC,
    OB_SIZE, OB_TYPE,
    TP_SIZE, TP_NAME, SKIP /* tp_repr */, TP_FLAGS,
    VALUE_OBJECTS_314,
    BY_SIZE, BY_OB_SIZE, BY_OB_SVAL,
    UN_SIZE, UN_STATE, UN_LENGTH, UN_ASCII_SIZE,
    GC_SIZE, GC_COLLECTING,
};

/* 3.14's, with thread-state fields inserted after current_frame and
 * appended, new groups (err_stackitem, heap_type_object) and new trailing
 * members (type_object, unicode_object). */
static const uint8_t FIELDS_315[] = {
    RT_SIZE, SKIP /* finalizing */, RT_INTERPRETERS_HEAD,
    IS_SIZE, IS_ID, IS_NEXT, IS_THREADS_HEAD, SKIP /* threads_main */, IS_GC,
    SKIP /* imports_modules */, SKIP /* sysdict */, SKIP /* builtins */, IS_CEVAL_GIL,
    SKIP, SKIP, SKIP, SKIP /* gil_runtime_* */, SKIP /* code_object_generation */,
    SKIP /* tlbc_generation */,
    TS_SIZE, SKIP /* prev */, TS_NEXT, TS_INTERP, TS_CURRENT_FRAME, SKIP /* base_frame */,
    TS_LAST_PROFILED_FRAME, TS_LAST_PROFILED_SEQ, TS_THREAD_ID,
    TS_NATIVE_THREAD_ID, SKIP /* datastack_chunk */, SKIP /* status */, TS_HOLDS_GIL,
    SKIP /* gil_requested */, SKIP /* current_exception */, SKIP /* exc_state */,
    SKIP /* err_stackitem.exc_value */,
    FR_SIZE, FR_PREVIOUS, FR_EXECUTABLE, FR_INSTR_PTR, FR_LOCALSPLUS, FR_OWNER,
    SKIP /* stackpointer */, FR_TLBC_INDEX,
    CO_SIZE, CO_FILENAME, CO_NAME, CO_QUALNAME, CO_LINETABLE, CO_FIRSTLINENO,
    CO_ARGCOUNT, CO_LOCALSPLUSNAMES, CO_LOCALSPLUSKINDS, CO_CODE_ADAPTIVE,
    CO_TLBC,
    OB_SIZE, OB_TYPE,
    TP_SIZE, TP_NAME, SKIP /* tp_repr */, TP_FLAGS, SKIP /* tp_basicsize */,
    SKIP /* tp_dictoffset */, SKIP, SKIP /* heap_type_object */,
    VALUE_OBJECTS_314,
    BY_SIZE, BY_OB_SIZE, BY_OB_SVAL,
    UN_SIZE, UN_STATE, UN_LENGTH, UN_ASCII_SIZE, UN_COMPACT_SIZE,
    GC_SIZE, GC_COLLECTING, /* then frame, generation_stats_size, generation_stats */
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

/* The field each layout field is read from, from its row (SKIP: none). */
static const uint8_t GIVES[JU_PYF_MAIN_END] = {
#define JU_PY_GIVES(name, holder, width, also, kind, debug, paths) [JU_PYF_##name] = debug,
    JU_PY_LAYOUT_FIELDS(JU_PY_GIVES)
#undef JU_PY_GIVES
};

/* The field giving the size of each holder the debug offsets describe: each
 * offset must lie inside it, with the width of the layout field it sets
 * (fields newer lists add read as 0 from older ones, and fit). */
static const uint8_t HOLDER_SIZE[JU_PYH_COUNT] = {
    [JU_PYH_RUNTIME] = RT_SIZE, [JU_PYH_INTERP] = IS_SIZE, [JU_PYH_TSTATE] = TS_SIZE,
    [JU_PYH_FRAME] = FR_SIZE,   [JU_PYH_CODE] = CO_SIZE,   [JU_PYH_OBJECT] = OB_SIZE,
    [JU_PYH_TYPE] = TP_SIZE,    [JU_PYH_BYTES] = BY_SIZE,  [JU_PYH_ASCII] = UN_SIZE,
    [JU_PYH_COMPACT] = UN_SIZE,
};

/* The value layout's fields they give, each with the field giving the size
 * of the struct it lies in (the holder's size for ju_py_values_check,
 * which judges them: a value field that does not fit costs the values,
 * not the reader). */
static const struct {
    uint8_t offset, size, field; /* enum field, enum field, enum ju_pyv_field_id */
} VALUES[] = {
    {LO_LV_TAG, LO_SIZE, JU_PYV_long_tag},
    {LO_OB_DIGIT, LO_SIZE, JU_PYV_long_digits},
    {FL_OB_FVAL, FL_SIZE, JU_PYV_float_value},
    {TU_OB_SIZE, TU_SIZE, JU_PYV_var_size},
    {TU_OB_ITEM, TU_SIZE, JU_PYV_tuple_items},
    {LI_OB_ITEM, LI_SIZE, JU_PYV_list_items},
    {DI_MA_KEYS, DI_SIZE, JU_PYV_dict_keys},
    {DI_MA_VALUES, DI_SIZE, JU_PYV_dict_values},
    {SE_USED, SE_SIZE, JU_PYV_set_used},
    {SE_TABLE, SE_SIZE, JU_PYV_set_table},
    {SE_MASK, SE_SIZE, JU_PYV_set_mask},
    {TP_FLAGS, TP_SIZE, JU_PYV_tp_flags},
    {CO_ARGCOUNT, CO_SIZE, JU_PYV_co_argcount},
    {CO_LOCALSPLUSNAMES, CO_SIZE, JU_PYV_co_localsplusnames},
    {CO_LOCALSPLUSKINDS, CO_SIZE, JU_PYV_co_localspluskinds},
    {FR_LOCALSPLUS, FR_SIZE, JU_PYV_fr_localsplus},
};

/* Every offset inside its struct, with its width: 0, or ECORRUPT naming
 * the first that is not. */
static int check_inside(jitunwind_pyreader *r, const uint64_t *v)
{
    size_t i;
    for (i = 0; i < JU_PYF_MAIN_END; i++) {
        const struct ju_py_field_desc *f = &ju_py_fields[i];
        const char *type = ju_py_holders[f->holder].type;
        uint64_t size = v[HOLDER_SIZE[f->holder]], off = v[GIVES[i]];
        struct ju_py_placed placed = {off, f->width, size, JU_PY_UNBOUNDED};
        if (GIVES[i] == SKIP)
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
static int list_has(const struct field_list *list, enum field f)
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
    uint64_t v[N_FIELDS] = {0};
    size_t pos, i;
    if (!list || cap < HEADER + 8 * list->count)
        return JITUNWIND_EINVAL;
    if (!V && !(V = ju_py_value_table(version_hex, L->free_threaded)))
        V = ju_py_value_table_newest(L->free_threaded);
    for (i = 0; i < sizeof VALUES / sizeof VALUES[0]; i++) {
        uint32_t off = ju_pyv_offset(V, (enum ju_pyv_field_id)VALUES[i].field);
        v[VALUES[i].size] = ENCODED_STRUCT_SIZE;
        if (off != JU_PY_NONE)
            v[VALUES[i].offset] = off + ju_pyv_base(L, ju_pyv_fields[VALUES[i].field].holder);
    }
    if (V->interp_gc_collecting != JU_PY_NONE) {
        v[IS_GC] = V->interp_gc_collecting;
        v[GC_SIZE] = 8;
    }
    v[RT_SIZE] = v[IS_SIZE] = v[TS_SIZE] = v[CO_SIZE] = v[OB_SIZE] = v[TP_SIZE] = v[BY_SIZE] =
        v[UN_SIZE] = ENCODED_STRUCT_SIZE;
    for (i = 0; i < JU_PYF_MAIN_END; i++) {
        uint32_t off = ju_py_offset(L, (enum ju_py_field_id)i);
        if (GIVES[i] != SKIP)
            v[GIVES[i]] = off < JU_PY_FROM_DWARF ? off : 0;
    }
    /* Free-threaded builds still have ceval.gil; the decoder ignores it. */
    if (L->interp_gil_ptr == JU_PY_NONE)
        v[IS_CEVAL_GIL] = 16;
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
                       "_Py_DebugOffsets have free_threaded = %llu", (unsigned long long)free_threaded);
    return (int)free_threaded;
}

int ju_py_debug_offsets_give(uint32_t version_hex, enum ju_py_field_id id)
{
    const struct field_list *list = list_for(version_hex);
    return list && id < JU_PYF_MAIN_END && GIVES[id] != SKIP &&
           list_has(list, (enum field)GIVES[id]);
}

/* Start the reader's value layout from the version's table (out: the
 * finished frame layout, whose header size counts) and set what the block
 * gives of it. */
static void apply_values(jitunwind_pyreader *r, const struct field_list *list, const uint64_t *v,
                         const struct ju_py_layout *out)
{
    size_t i;
    ju_py_values_start(&r->values, out, r->version_hex);
    for (i = 0; i < sizeof VALUES / sizeof VALUES[0]; i++) {
        enum ju_pyv_field_id id = (enum ju_pyv_field_id)VALUES[i].field;
        if (!list_has(list, (enum field)VALUES[i].offset))
            continue;
        ju_py_values_set(&r->values, out, id, v[VALUES[i].offset], JU_PYV_FROM_DEBUG_OFFSETS);
        ju_py_values_holder_size(&r->values, (enum ju_pyv_holder)ju_pyv_fields[id].holder,
                                 v[VALUES[i].size]);
    }
    /* Two target values summed: each must lie inside what holds it, so the
     * sum cannot wrap onto another field of the interpreter state. */
    if (list_has(list, GC_COLLECTING) && v[GC_SIZE] && v[IS_GC] < v[IS_SIZE] &&
        v[GC_SIZE] <= v[IS_SIZE] - v[IS_GC] && v[GC_COLLECTING] < v[GC_SIZE] &&
        v[GC_SIZE] - v[GC_COLLECTING] >= 4) {
        ju_py_values_set(&r->values, out, JU_PYV_interp_gc_collecting,
                         v[IS_GC] + v[GC_COLLECTING], JU_PYV_FROM_DEBUG_OFFSETS);
        ju_py_values_holder_size(&r->values, JU_PYVH_INTERP, v[IS_SIZE]);
    }
}

int ju_py_apply_debug_offsets(jitunwind_pyreader *r, struct ju_py_layout *out)
{
    const struct field_list *list = list_for(r->version_hex);
    uint8_t raw[HEADER + 8 * 128];
    uint64_t v[N_FIELDS] = {0};
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
        if (list->fields[pos] != SKIP)
            v[list->fields[pos]] = ju_load_u64(raw + HEADER + 8 * pos);
    if ((rc = check_inside(r, v)) < 0)
        return rc;
    if (v[UN_ASCII_SIZE] + 16 > JU_PY_STR_COPY || v[UN_COMPACT_SIZE] > JU_PY_STR_COPY)
        return ju_fail(&r->err, JITUNWIND_ECORRUPT, r->runtime,
                       "_Py_DebugOffsets give str headers larger than the decoder reads");
    /* Each field the table has, from the list when the list has it; one the
     * table has not (NONE: the GIL of a free-threaded build, thread-local
     * bytecode of a GIL build) stays absent. */
    for (i = 0; i < JU_PYF_MAIN_END; i++) {
        uint32_t *slot = (uint32_t *)((char *)out + ju_py_fields[i].slot);
        if (GIVES[i] != SKIP && *slot != JU_PY_NONE)
            *slot = list_has(list, (enum field)GIVES[i]) ? (uint32_t)v[GIVES[i]] : JU_PY_NONE;
    }
    out->ts_cframe = JU_PY_NONE;
    out->co_size = (uint32_t)v[CO_CODE_ADAPTIVE] + 8;
    out->str_compact_size = list_has(list, UN_COMPACT_SIZE)
                                ? (uint32_t)v[UN_COMPACT_SIZE]
                                : out->str_ascii_size + 16; /* + utf8_length, utf8 */
    out->str_legacy_data = out->str_compact_size;
    /* The struct sizes the target gives, each checked above: every field of
     * these holders, whatever its source, is held to them (ju_py_layout_check). */
    out->holder_size[JU_PYH_RUNTIME] = (uint32_t)v[RT_SIZE];
    out->holder_size[JU_PYH_INTERP] = (uint32_t)v[IS_SIZE];
    out->holder_size[JU_PYH_TSTATE] = (uint32_t)v[TS_SIZE];
    out->holder_size[JU_PYH_FRAME] = (uint32_t)v[FR_SIZE];
    out->holder_size[JU_PYH_CODE] = (uint32_t)v[CO_SIZE];
    out->holder_size[JU_PYH_OBJECT] = (uint32_t)v[OB_SIZE];
    out->holder_size[JU_PYH_TYPE] = (uint32_t)v[TP_SIZE];
    out->holder_size[JU_PYH_BYTES] = (uint32_t)v[BY_SIZE];
    out->holder_size[JU_PYH_UNICODE] = (uint32_t)v[UN_SIZE];
    apply_values(r, list, v, out);
    return 0;
}
