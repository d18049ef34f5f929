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
 * A list is "confirmed" from the first release it is known to describe.
 * Pre-releases may insert fields mid-struct, so the list of an earlier
 * pre-release, or of a minor with no confirmed release, is provisional: the
 * reader uses it only when the build's DWARF agrees with every offset it
 * gives (runtime.c).
 *
 * The values replace the offsets of the version's static table (the GIL or
 * the free-threaded one, as the block's free_threaded word says), after
 * checks: the cookie, the version against the one the caller found,
 * plausible struct sizes, and every offset inside its struct. The fields
 * of objects the value renderer reads (ints, floats, tuples, lists, dicts,
 * sets (3.14+), type flags, code variables, localsplus, gc.collecting) go
 * to the reader's value layout (value_layout.h), which checks them itself. */
#include <stdio.h>

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
    uint32_t version;        /* 0xMMmm0000 */
    uint32_t confirmed_from; /* first PY_VERSION_HEX known to match; 0: none yet */
    const uint8_t *fields;
    size_t count;
};

static const struct field_list LISTS[] = {
    {0x030d0000, 0x030d0000, FIELDS_313, sizeof FIELDS_313},
    {0x030e0000, 0x030e0000, FIELDS_314, sizeof FIELDS_314},
    {0x030f0000, 0x030f00c1 /* 3.15.0rc1 */, FIELDS_315, sizeof FIELDS_315},
    {0x03100000, 0, FIELDS_315, sizeof FIELDS_315},
};

/* Each offset must lie, with the width of the layout field it sets,
 * inside the struct whose size field is named (fields newer lists add read
 * as 0 from older ones, and fit). */
static const struct {
    uint8_t offset, size, field; /* enum field, enum field, enum ju_py_field_id */
} INSIDE[] = {
    {RT_INTERPRETERS_HEAD, RT_SIZE, JU_PYF_rt_interpreters_head},
    {IS_ID, IS_SIZE, JU_PYF_interp_id},
    {IS_NEXT, IS_SIZE, JU_PYF_interp_next},
    {IS_THREADS_HEAD, IS_SIZE, JU_PYF_interp_threads_head},
    {IS_CEVAL_GIL, IS_SIZE, JU_PYF_interp_gil_ptr},
    {TS_NEXT, TS_SIZE, JU_PYF_ts_next},
    {TS_INTERP, TS_SIZE, JU_PYF_ts_interp},
    {TS_CURRENT_FRAME, TS_SIZE, JU_PYF_ts_current_frame},
    {TS_THREAD_ID, TS_SIZE, JU_PYF_ts_thread_id},
    {TS_NATIVE_THREAD_ID, TS_SIZE, JU_PYF_ts_native_thread_id},
    {TS_HOLDS_GIL, TS_SIZE, JU_PYF_ts_holds_gil},
    {TS_LAST_PROFILED_FRAME, TS_SIZE, JU_PYF_ts_last_profiled_frame},
    {TS_LAST_PROFILED_SEQ, TS_SIZE, JU_PYF_ts_last_profiled_seq},
    {FR_PREVIOUS, FR_SIZE, JU_PYF_fr_previous},
    {FR_EXECUTABLE, FR_SIZE, JU_PYF_fr_code},
    {FR_INSTR_PTR, FR_SIZE, JU_PYF_fr_instr},
    {FR_OWNER, FR_SIZE, JU_PYF_fr_owner},
    {FR_TLBC_INDEX, FR_SIZE, JU_PYF_fr_tlbc_index},
    {CO_FILENAME, CO_SIZE, JU_PYF_co_filename},
    {CO_NAME, CO_SIZE, JU_PYF_co_name},
    {CO_QUALNAME, CO_SIZE, JU_PYF_co_qualname},
    {CO_LINETABLE, CO_SIZE, JU_PYF_co_linetable},
    {CO_FIRSTLINENO, CO_SIZE, JU_PYF_co_firstlineno},
    {CO_CODE_ADAPTIVE, CO_SIZE, JU_PYF_co_code_adaptive},
    {CO_TLBC, CO_SIZE, JU_PYF_co_tlbc},
    {OB_TYPE, OB_SIZE, JU_PYF_ob_type},
    {TP_NAME, TP_SIZE, JU_PYF_tp_name},
    {BY_OB_SIZE, BY_SIZE, JU_PYF_bytes_size},
    {BY_OB_SVAL, BY_SIZE, JU_PYF_bytes_sval},
    {UN_STATE, UN_SIZE, JU_PYF_str_state},
    {UN_LENGTH, UN_SIZE, JU_PYF_str_length},
    {UN_ASCII_SIZE, UN_SIZE, JU_PYF_str_ascii_size},
    {UN_COMPACT_SIZE, UN_SIZE, JU_PYF_str_compact_size},
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
    for (i = 0; i < sizeof INSIDE / sizeof INSIDE[0]; i++) {
        const struct ju_py_field_desc *f = &ju_py_fields[INSIDE[i].field];
        const char *type = ju_py_holders[f->holder].type;
        uint64_t size = v[INSIDE[i].size], off = v[INSIDE[i].offset];
        if (size == 0 || size > MAX_STRUCT)
            return ju_fail(&r->err, JITUNWIND_ECORRUPT, r->runtime,
                           "_Py_DebugOffsets are implausible: sizeof(%s) is %llu", type,
                           (unsigned long long)size);
        if (off > size || f->width > size - off)
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
    size_t i;
    for (i = 0; i < sizeof LISTS / sizeof LISTS[0]; i++)
        if ((version_hex & 0xffff0000u) == LISTS[i].version)
            return &LISTS[i];
    return NULL;
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
    v[FR_SIZE] = L->fr_size;
    v[RT_INTERPRETERS_HEAD] = L->rt_interpreters_head;
    v[IS_ID] = L->interp_id;
    v[IS_NEXT] = L->interp_next;
    v[IS_THREADS_HEAD] = L->interp_threads_head;
    /* Free-threaded builds still have ceval.gil; the decoder ignores it. */
    v[IS_CEVAL_GIL] = L->interp_gil_ptr != JU_PY_NONE ? L->interp_gil_ptr : 16;
    v[TS_NEXT] = L->ts_next;
    v[TS_INTERP] = L->ts_interp;
    v[TS_CURRENT_FRAME] = L->ts_current_frame;
    v[TS_THREAD_ID] = L->ts_thread_id;
    v[TS_NATIVE_THREAD_ID] = L->ts_native_thread_id;
    v[FR_PREVIOUS] = L->fr_previous;
    v[FR_EXECUTABLE] = L->fr_code;
    v[FR_INSTR_PTR] = L->fr_instr;
    v[FR_OWNER] = L->fr_owner;
    v[CO_FILENAME] = L->co_filename;
    v[CO_NAME] = L->co_name;
    v[CO_QUALNAME] = L->co_qualname;
    v[CO_LINETABLE] = L->co_linetable;
    v[CO_FIRSTLINENO] = L->co_firstlineno;
    v[CO_CODE_ADAPTIVE] = L->co_code_adaptive;
    v[OB_TYPE] = L->ob_type;
    v[TP_NAME] = L->tp_name;
    v[BY_OB_SIZE] = L->bytes_size;
    v[BY_OB_SVAL] = L->bytes_sval;
    v[UN_STATE] = L->str_state;
    v[UN_LENGTH] = L->str_length;
    v[UN_ASCII_SIZE] = L->str_ascii_size;
    v[UN_COMPACT_SIZE] = L->str_compact_size;
    v[TS_HOLDS_GIL] = L->ts_holds_gil != JU_PY_NONE ? L->ts_holds_gil : 0;
    v[TS_LAST_PROFILED_FRAME] =
        L->ts_last_profiled_frame != JU_PY_NONE ? L->ts_last_profiled_frame : 0;
    v[TS_LAST_PROFILED_SEQ] = L->ts_last_profiled_seq != JU_PY_NONE ? L->ts_last_profiled_seq : 0;
    if (L->free_threaded && L->fr_tlbc_index != JU_PY_NONE) {
        v[FR_TLBC_INDEX] = L->fr_tlbc_index;
        v[CO_TLBC] = L->co_tlbc;
    }
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

int ju_py_debug_offsets_supported(uint32_t version_hex)
{
    return list_for(version_hex) != NULL;
}

void ju_py_release_name(uint32_t version_hex, char *buf, size_t size)
{
    static const char *const LEVEL[16] = {[0xa] = "a", [0xb] = "b", [0xc] = "rc", [0xf] = ""};
    const char *level = LEVEL[(version_hex >> 4) & 0xf];
    unsigned serial = version_hex & 0xf;
    snprintf(buf, size, "%u.%u.%u%s", version_hex >> 24, (version_hex >> 16) & 0xff,
             (version_hex >> 8) & 0xff, level ? level : "?");
    if (level && *level) {
        size_t len = strlen(buf);
        snprintf(buf + len, size - len, "%u", serial);
    }
}

int ju_py_debug_offsets_confirmed(uint32_t version_hex)
{
    const struct field_list *list = list_for(version_hex);
    return list && list->confirmed_from && version_hex >= list->confirmed_from;
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
    size_t pos;
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
    out->rt_interpreters_head = (uint32_t)v[RT_INTERPRETERS_HEAD];
    out->interp_id = (uint32_t)v[IS_ID];
    out->interp_next = (uint32_t)v[IS_NEXT];
    out->interp_threads_head = (uint32_t)v[IS_THREADS_HEAD];
    if (out->interp_gil_ptr != JU_PY_NONE) /* NONE: a build whose GIL holder means nothing */
        out->interp_gil_ptr = (uint32_t)v[IS_CEVAL_GIL];
    out->ts_next = (uint32_t)v[TS_NEXT];
    out->ts_interp = (uint32_t)v[TS_INTERP];
    out->ts_current_frame = (uint32_t)v[TS_CURRENT_FRAME];
    out->ts_cframe = JU_PY_NONE;
    out->ts_thread_id = (uint32_t)v[TS_THREAD_ID];
    out->ts_native_thread_id = (uint32_t)v[TS_NATIVE_THREAD_ID];
    out->fr_size = (uint32_t)v[FR_SIZE];
    out->fr_previous = (uint32_t)v[FR_PREVIOUS];
    out->fr_code = (uint32_t)v[FR_EXECUTABLE];
    out->fr_instr = (uint32_t)v[FR_INSTR_PTR];
    out->fr_owner = (uint32_t)v[FR_OWNER];
    out->co_size = (uint32_t)v[CO_CODE_ADAPTIVE] + 8;
    out->co_filename = (uint32_t)v[CO_FILENAME];
    out->co_name = (uint32_t)v[CO_NAME];
    out->co_qualname = (uint32_t)v[CO_QUALNAME];
    out->co_linetable = (uint32_t)v[CO_LINETABLE];
    out->co_firstlineno = (uint32_t)v[CO_FIRSTLINENO];
    out->co_code_adaptive = (uint32_t)v[CO_CODE_ADAPTIVE];
    out->ob_type = (uint32_t)v[OB_TYPE];
    out->tp_name = (uint32_t)v[TP_NAME];
    out->bytes_size = (uint32_t)v[BY_OB_SIZE];
    out->bytes_sval = (uint32_t)v[BY_OB_SVAL];
    out->str_state = (uint32_t)v[UN_STATE];
    out->str_length = (uint32_t)v[UN_LENGTH];
    out->str_ascii_size = (uint32_t)v[UN_ASCII_SIZE];
    out->str_compact_size = list_has(list, UN_COMPACT_SIZE)
                                ? (uint32_t)v[UN_COMPACT_SIZE]
                                : out->str_ascii_size + 16; /* + utf8_length, utf8 */
    out->str_legacy_data = out->str_compact_size;
    if (out->ts_holds_gil != JU_PY_NONE) /* NONE: no such field, or no GIL (free-threaded) */
        out->ts_holds_gil = list_has(list, TS_HOLDS_GIL) ? (uint32_t)v[TS_HOLDS_GIL] : JU_PY_NONE;
    /* The profiler's frame marker (3.15+: frame_chains_markers.c). */
    out->ts_last_profiled_frame = list_has(list, TS_LAST_PROFILED_FRAME)
                                      ? (uint32_t)v[TS_LAST_PROFILED_FRAME]
                                      : JU_PY_NONE;
    out->ts_last_profiled_seq =
        list_has(list, TS_LAST_PROFILED_SEQ) ? (uint32_t)v[TS_LAST_PROFILED_SEQ] : JU_PY_NONE;
    if (out->fr_tlbc_index != JU_PY_NONE) { /* free-threaded with thread-local bytecode */
        out->fr_tlbc_index = (uint32_t)v[FR_TLBC_INDEX];
        out->co_tlbc = (uint32_t)v[CO_TLBC];
    }
    apply_values(r, list, v, out);
    return 0;
}
