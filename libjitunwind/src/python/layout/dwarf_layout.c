/* The layout checked against, and completed from, the DWARF of the build.
 *
 * Each layout field that DWARF can describe is named here once, by struct
 * and member path, with the alternatives versions used (3.11 `f_code`,
 * 3.13+ `f_executable`); the first path the build has is used, so this
 * table holds no version tests. Fields that DWARF does not describe (tag
 * masks, owner values, state bits) stay as the table has them.
 *
 * Who wins a disagreement: the target's own _Py_DebugOffsets (3.13+) over
 * DWARF (a file on disk could belong to another build); DWARF over a static
 * table (3.11, 3.12: DWARF is how a debug or non-default build gets read).
 * A provisional debug-offsets field list (debug_offsets.c) loses: any
 * disagreement refuses the target, since the list itself may be wrong.
 * Build-specific fields (executor lists, trampoline arenas) always come from
 * DWARF when it has them, as do fields a table marks JU_PY_FROM_DWARF (3.15's
 * executors); the latter, when DWARF lacks them, are left for
 * ju_py_layout_settle.
 *
 * An assumed layout (a version newer than every table, by opt-in) is read
 * strictly: every field the decoder needs must come from DWARF; optional
 * and build-specific ones it lacks are switched off rather than guessed. */
#include <stdio.h>

#include "python/layout/validate.h"
#include "python/pyreader.h"

enum field_kind {
    CHECKED,        /* table or debug offsets value, cross-checked */
    OPTIONAL,       /* the same, for a feature the decoder can do without (executors) */
    BUILD_SPECIFIC, /* taken from DWARF whenever it has it */
    SIZE_OF         /* sizeof the struct, not a member offset */
};

struct dwarf_field {
    const char *name;    /* the layout field's name */
    uint8_t id;          /* enum ju_py_field_id: slot and width */
    uint8_t kind;        /* enum field_kind */
    uint8_t from_debug_offsets; /* 3.13+ read it from the target */
    const char *type;
    const char *paths;   /* member paths, '|' between alternatives */
};

#define F(field, kind, dbg, type, paths) \
    {#field, JU_PYF_##field, kind, dbg, type, paths}

static const struct dwarf_field FIELDS[] = {
    F(rt_interpreters_head, CHECKED, 1, "_PyRuntimeState", "interpreters.head"),
    F(rt_gil_holder, CHECKED, 0, "_PyRuntimeState", "gilstate.tstate_current"),
    F(rt_perf_code_arena, BUILD_SPECIFIC, 0, "_PyRuntimeState", "ceval.perf.code_arena"),
    F(interp_next, CHECKED, 1, "PyInterpreterState", "next"),
    F(interp_id, CHECKED, 1, "PyInterpreterState", "id"),
    F(interp_threads_head, CHECKED, 1, "PyInterpreterState", "threads.head"),
    F(interp_gil_ptr, CHECKED, 1, "PyInterpreterState", "ceval.gil"),
    F(gil_last_holder, CHECKED, 0, "_gil_runtime_state", "last_holder"),
    F(ts_next, CHECKED, 1, "PyThreadState", "next"),
    F(ts_interp, CHECKED, 1, "PyThreadState", "interp"),
    F(ts_thread_id, CHECKED, 1, "PyThreadState", "thread_id"),
    F(ts_native_thread_id, CHECKED, 1, "PyThreadState", "native_thread_id"),
    F(ts_current_frame, CHECKED, 1, "PyThreadState", "current_frame"),
    F(ts_holds_gil, OPTIONAL, 1, "PyThreadState", "holds_gil"),
    F(ts_cframe, CHECKED, 0, "PyThreadState", "cframe"),
    F(ts_last_profiled_frame, OPTIONAL, 1, "PyThreadState", "last_profiled_frame"),
    F(ts_last_profiled_seq, OPTIONAL, 1, "PyThreadState", "last_profiled_frame_seq"),
    F(cframe_current_frame, CHECKED, 0, "_PyCFrame", "current_frame"),
    F(fr_code, CHECKED, 1, "_PyInterpreterFrame", "f_executable|f_code"),
    F(fr_previous, CHECKED, 1, "_PyInterpreterFrame", "previous"),
    F(fr_instr, CHECKED, 1, "_PyInterpreterFrame", "instr_ptr|prev_instr"),
    F(fr_owner, CHECKED, 1, "_PyInterpreterFrame", "owner"),
    F(fr_is_entry, CHECKED, 0, "_PyInterpreterFrame", "is_entry"),
    F(fr_tlbc_index, CHECKED, 1, "_PyInterpreterFrame", "tlbc_index"),
    F(co_filename, CHECKED, 1, "PyCodeObject", "co_filename"),
    F(co_name, CHECKED, 1, "PyCodeObject", "co_name"),
    F(co_qualname, CHECKED, 1, "PyCodeObject", "co_qualname"),
    F(co_linetable, CHECKED, 1, "PyCodeObject", "co_linetable"),
    F(co_firstlineno, CHECKED, 1, "PyCodeObject", "co_firstlineno"),
    F(co_code_adaptive, CHECKED, 1, "PyCodeObject", "co_code_adaptive"),
    F(co_tlbc, CHECKED, 1, "PyCodeObject", "co_tlbc"),
    F(ob_type, CHECKED, 1, "PyObject", "ob_type"),
    F(tp_name, CHECKED, 1, "PyTypeObject", "tp_name"),
    F(bytes_size, CHECKED, 1, "PyBytesObject", "ob_base.ob_size"),
    F(bytes_sval, CHECKED, 1, "PyBytesObject", "ob_sval"),
    F(str_length, CHECKED, 1, "PyASCIIObject", "length"),
    F(str_state, CHECKED, 1, "PyASCIIObject", "state"),
    F(str_ascii_size, SIZE_OF, 1, "PyASCIIObject", NULL),
    F(str_compact_size, SIZE_OF, 0, "PyCompactUnicodeObject", NULL),
    F(str_legacy_data, CHECKED, 0, "PyUnicodeObject", "data"),
    F(interp_executor_list, BUILD_SPECIFIC, 0, "PyInterpreterState", "executor_list_head"),
    F(interp_executor_deleted, BUILD_SPECIFIC, 0, "PyInterpreterState",
      "executor_deletion_list_head"),
    F(interp_executor_array, BUILD_SPECIFIC, 0, "PyInterpreterState", "executor_ptrs"),
    F(interp_executor_count, BUILD_SPECIFIC, 0, "PyInterpreterState", "executor_count"),
    F(interp_cold_executor, BUILD_SPECIFIC, 0, "PyInterpreterState", "cold_executor"),
    F(interp_cold_dynamic, BUILD_SPECIFIC, 0, "PyInterpreterState", "cold_dynamic_executor"),
    F(ex_size, BUILD_SPECIFIC, 0, "_PyExecutorObject", NULL),
    F(ex_links_next, OPTIONAL, 0, "_PyExecutorObject", "vm_data.links.next"),
    F(ex_code, OPTIONAL, 0, "_PyExecutorObject", "vm_data.code"),
    F(ex_jit_size, OPTIONAL, 0, "_PyExecutorObject", "jit_size"),
    F(ex_jit_code, OPTIONAL, 0, "_PyExecutorObject", "jit_code"),
};

int ju_py_layout_field(const struct ju_py_layout *L, size_t i, struct ju_py_field_info *out)
{
    if (i >= sizeof FIELDS / sizeof FIELDS[0])
        return 0;
    out->name = FIELDS[i].name;
    out->type = FIELDS[i].type;
    out->paths = FIELDS[i].paths;
    out->build_specific = FIELDS[i].kind == BUILD_SPECIFIC;
    out->size_of = FIELDS[i].kind == SIZE_OF;
    out->value = ju_py_offset(L, (enum ju_py_field_id)FIELDS[i].id);
    return 1;
}

/* The str state bits: bit positions inside PyASCIIObject.state (uint8
 * layout fields; 0xff = none). No debug offset describes them. */
static const struct {
    size_t slot;
    const char *path;
} STATE_BITS[] = {
    {offsetof(struct ju_py_layout, st_kind_shift), "state.kind"},
    {offsetof(struct ju_py_layout, st_compact_bit), "state.compact"},
    {offsetof(struct ju_py_layout, st_ascii_bit), "state.ascii"},
    {offsetof(struct ju_py_layout, st_ready_bit), "state.ready"},
};

/* Returns how many of the bits in use DWARF did not describe. */
static int check_state_bits(jitunwind_dwarf_types *types, struct ju_py_layout *L,
                            struct jitunwind_py_dwarf_report *report)
{
    uint64_t state, bit;
    size_t i;
    int missing = 0;
    if (jitunwind_dwarf_member_bit_offset(types, "PyASCIIObject", "state", &state) < 0)
        return 3;
    for (i = 0; i < sizeof STATE_BITS / sizeof STATE_BITS[0]; i++) {
        uint8_t *slot = (uint8_t *)L + STATE_BITS[i].slot;
        if (*slot == 0xff)
            continue;
        if (jitunwind_dwarf_member_bit_offset(types, "PyASCIIObject", STATE_BITS[i].path, &bit) < 0 ||
            bit < state || bit - state >= 32) {
            missing++;
            continue;
        }
        report->checked++;
        if (*slot == bit - state)
            continue;
        if (report->mismatches++ == 0)
            snprintf(report->first_mismatch, sizeof report->first_mismatch,
                     "PyASCIIObject.%s: layout bit %u, DWARF bit %llu", STATE_BITS[i].path, *slot,
                     (unsigned long long)(bit - state));
        *slot = (uint8_t)(bit - state);
        report->adopted++;
    }
    return missing;
}

/* The value DWARF gives for field f: 0, or ENOTFOUND/EUNSUPPORTED. */
static int dwarf_value(jitunwind_dwarf_types *types, const struct dwarf_field *f,
                       uint64_t *value)
{
    return ju_py_dwarf_lookup(types, f->type, f->kind == SIZE_OF ? NULL : f->paths, 0, value);
}

/* After adoption, the bytes copied per frame and per code object grow to
 * cover every field of theirs (ju_py_layout_check then holds them to the
 * decoders' buffers). */
static void refit(struct ju_py_layout *L)
{
    size_t i;
    for (i = 0; i < JU_PYF_COUNT; i++) {
        const struct ju_py_field_desc *f = &ju_py_fields[i];
        uint32_t off = ju_py_offset(L, (enum ju_py_field_id)i), *size;
        if (f->holder == JU_PYH_FRAME)
            size = &L->fr_size;
        else if (f->holder == JU_PYH_CODE || f->also == JU_PYH_CODE)
            size = &L->co_size;
        else
            continue;
        if (off < JU_PY_MAX_STRUCT && f->width && off + f->width > *size)
            *size = off + f->width;
    }
}

int ju_py_apply_dwarf(jitunwind_pyreader *r, jitunwind_dwarf_types *types,
                      struct ju_py_layout *L, struct jitunwind_py_dwarf_report *report)
{
    size_t i;
    int has_debug_offsets = !r->assumed && ju_py_debug_offsets_supported(r->version_hex);
    int provisional = has_debug_offsets && !ju_py_debug_offsets_confirmed(r->version_hex);
    for (i = 0; i < sizeof FIELDS / sizeof FIELDS[0]; i++) {
        const struct dwarf_field *f = &FIELDS[i];
        uint32_t *slot = (uint32_t *)((char *)L + ju_py_fields[f->id].slot);
        unsigned width = ju_py_fields[f->id].width;
        uint64_t value, type_size;
        if (dwarf_value(types, f, &value) < 0 || value >= JU_PY_NONE) {
            if (!r->assumed || *slot == JU_PY_NONE || *slot == JU_PY_FROM_DWARF)
                continue; /* no such member: keep the table (FROM_DWARF: settle names it) */
            if (f->kind == OPTIONAL || f->kind == BUILD_SPECIFIC) {
                *slot = JU_PY_NONE;
                continue;
            }
            return ju_fail(&r->err, JITUNWIND_EVERSION, 0,
                           "no %s.%s in the DWARF of %s: an assumed layout needs it", f->type,
                           f->paths ? f->paths : "(size)", report->source);
        }
        if (f->kind != SIZE_OF && f->paths &&
            jitunwind_dwarf_type_size(types, f->type, &type_size) == 0 &&
            ju_py_field_misfit(&(struct ju_py_placed){value, width, type_size,
                                                      JU_PY_UNBOUNDED}) != JU_PY_FITS)
            return ju_fail(&r->err, JITUNWIND_ECORRUPT, 0,
                           "the DWARF of %s places %s.%s (offset %llu, %u bytes) past "
                           "sizeof(%s), %llu",
                           report->source, f->type, f->name, (unsigned long long)value, width,
                           f->type, (unsigned long long)type_size);
        if (f->kind == BUILD_SPECIFIC || *slot == JU_PY_FROM_DWARF) {
            *slot = (uint32_t)value;
            report->derived++;
            continue;
        }
        if (*slot == JU_PY_NONE)
            continue; /* a member this version's decoder does not use */
        report->checked++;
        if (*slot == value) {
            if (has_debug_offsets && f->from_debug_offsets)
                r->debug_offsets_confirmed++;
            continue;
        }
        if (report->mismatches++ == 0)
            snprintf(report->first_mismatch, sizeof report->first_mismatch,
                     "%s.%s: layout %u, DWARF %llu", f->type, f->paths ? f->paths : "sizeof",
                     *slot, (unsigned long long)value);
        if (!(has_debug_offsets && f->from_debug_offsets)) {
            *slot = (uint32_t)value;
            report->adopted++;
        } else if (provisional) {
            char release[32];
            ju_py_release_name(r->version_hex, release, sizeof release);
            return ju_fail(&r->err, JITUNWIND_EVERSION, 0,
                           "CPython %s: the provisional _Py_DebugOffsets field list does not fit "
                           "this build (%s.%s: debug offsets %u, DWARF %llu); the assume-layout "
                           "opt-in (JITUNWIND_ASSUME_LAYOUT=1) reads it from DWARF alone",
                           release, f->type, f->paths ? f->paths : "sizeof", *slot,
                           (unsigned long long)value);
        }
    }
    if (check_state_bits(types, L, report) > 0 && r->assumed)
        return ju_fail(&r->err, JITUNWIND_EVERSION, 0,
                       "no str state bits in the DWARF of %s: an assumed layout needs them",
                       report->source);
    refit(L);
    return 0;
}
