/* Object layouts for values and frame variables, per CPython version.
 * Checked with `gdb ptype /o` against the DWARF of pyenv's 3.11.7, 3.12.1,
 * 3.13.0 and a 3.14.7 build (x86-64; the same on AArch64: no lock is held
 * by value in these structs), and end to end by tests/values (reprs of a
 * corpus compared with the interpreter's own). Free-threaded builds: the
 * same tables behind the 32-byte header (PyDictKeysObject's dk_mutex sits
 * in a padding byte; the frame's fields before localsplus are unchanged).
 * The GIL's `locked` and the interpreter's gc.collecting: gdb on the same
 * builds and on Debian's 3.11.2 (release and debug), 3.12.0, 3.13.0 and
 * 3.14.7 debug builds, which agree (free-threaded builds: from the target's
 * _Py_DebugOffsets, or DWARF).
 *
 * These tables are where a reader's value layout starts (ju_py_values_start);
 * the target's _Py_DebugOffsets (debug_offsets.c) and the build's DWARF
 * then override them, and ju_py_values_check holds the result to each
 * field's width and holder before any decoder reads with it. A version
 * without a table (3.15+) starts from the newest one, borrowed: every
 * needed field must then come from the target or DWARF. */
#include <stdio.h>

#include "python/pyreader.h"
#include "python/layout/merge.h"
#include "python/layout/versions.h"
#include "python/layout/validate.h"

#define OBJECTS_COMMON                                                                  \
    .long_digits = 8, .float_value = 0, .var_size = 0, .list_items = 8, .dict_used = 0,  \
    .dict_keys = 16, .dict_values = 24, .set_used = 8, .set_mask = 16, .set_table = 24,  \
    .func_qualname = 24, .cfunc_ml = 0, .cfunc_self = 8, .method_func = 0,               \
    .method_self = 8, .module_dict = 0, .cell_ref = 0, .tp_flags = 152, .tp_dict = 248,  \
    .tp_basicsize = 16, .tp_dictoffset = 272, .tp_members = 224, .tp_base = 240,         \
    .co_flags = 32, .co_localsplusnames = 80, .co_localspluskinds = 88,                  \
    .dk_log2_size = 8, .dk_log2_index_bytes = 9, .dk_kind = 10, .dk_nentries = 24,       \
    .dk_indices = 32

const struct ju_py_value_layout ju_py_value_table_311 = {
    .version = 0x030b0000, OBJECTS_COMMON,
    .long_size = 0, .long_tag = JU_PY_NONE, .tuple_items = 8, .ht_qualname = 848,
    .ht_cached_keys = 856, .co_argcount = 40, .co_kwonlyargcount = 48, .co_nlocalsplus = 60,
    .dv_values = 0, .dv_valid = JU_PY_NONE, .dv_order_before = 1,
    .fr_globals = 8, .fr_builtins = 16, .fr_localsplus = 72,
    .gil_locked = JU_PY_NONE, /* 3.11: the runtime's current thread state says it */
    .interp_gc_collecting = 848, .interp_modules = 888,
};

const struct ju_py_value_layout ju_py_value_table_312 = {
    .version = 0x030c0000, OBJECTS_COMMON,
    .long_size = JU_PY_NONE, .long_tag = 0, .tuple_items = 8, .ht_qualname = 856,
    .ht_cached_keys = 864, .co_argcount = 36, .co_kwonlyargcount = 44, .co_nlocalsplus = 56,
    .dv_values = 0, .dv_valid = JU_PY_NONE, .dv_order_before = 1,
    .fr_globals = 24, .fr_builtins = 32, .fr_localsplus = 72, .gil_locked = 16,
    .interp_gc_collecting = 312, .interp_modules = 944,
};

/* 3.13 and 3.14 also have free-threaded builds: the same tables behind the
 * bigger header; their gc.collecting is not the GIL build's. */
#define VALUES_313_FIELDS                                                                 \
    .version = 0x030d0000, OBJECTS_COMMON,                                                \
    .long_size = JU_PY_NONE, .long_tag = 0, .tuple_items = 8, .ht_qualname = 856,        \
    .ht_cached_keys = 864, .co_argcount = 36, .co_kwonlyargcount = 44,                    \
    .co_nlocalsplus = 56, .dv_values = 8, .dv_valid = 3, .dv_order_before = 0,            \
    .fr_globals = 24, .fr_builtins = 32, .fr_localsplus = 72, .gil_locked = 16

#define VALUES_314_FIELDS                                                                 \
    .version = 0x030e0000, OBJECTS_COMMON,                                                \
    .long_size = JU_PY_NONE, .long_tag = 0, .tuple_items = 16 /* after ob_hash */,       \
    .ht_qualname = 856, .ht_cached_keys = 864, .co_argcount = 36,                         \
    .co_kwonlyargcount = 44, .co_nlocalsplus = 56, .dv_values = 8, .dv_valid = 3,         \
    .dv_order_before = 0,                                                                 \
    .fr_globals = 24, .fr_builtins = 32, .fr_localsplus = 80, .gil_locked = 16

const struct ju_py_value_layout ju_py_value_table_313 = {
    VALUES_313_FIELDS, .interp_gc_collecting = 7600, .interp_modules = 7656};
const struct ju_py_value_layout ju_py_value_table_313t = {
    VALUES_313_FIELDS, .free_threaded = 1, .interp_gc_collecting = JU_PY_NONE,
    .interp_modules = JU_PY_NONE};
const struct ju_py_value_layout ju_py_value_table_314 = {
    VALUES_314_FIELDS, .interp_gc_collecting = 7600, .interp_modules = 7688};
const struct ju_py_value_layout ju_py_value_table_314t = {
    VALUES_314_FIELDS, .free_threaded = 1, .interp_gc_collecting = JU_PY_NONE,
    .interp_modules = JU_PY_NONE};

static uint32_t *slot_of(struct ju_py_values *s, size_t id)
{
    return (uint32_t *)((char *)&s->V + ju_py_fields[id].slot);
}

/* The source bits of field `id`. */
static uint8_t *source_of(struct ju_py_values *s, size_t id)
{
    return &s->source[id - JU_PYF_JIT_END];
}

void ju_py_values_start(struct ju_py_values *s, const struct ju_py_layout *L,
                        uint32_t version_hex)
{
    const struct ju_py_value_layout *table = ju_py_value_table(version_hex, L->free_threaded);
    size_t i;
    memset(s, 0, sizeof *s);
    s->borrowed = table == NULL;
    s->V = table ? *table : *ju_py_value_table_newest(L->free_threaded);
    for (i = JU_PYF_JIT_END; i < JU_PYF_COUNT; i++)
        *source_of(s, i) = *slot_of(s, i) != JU_PY_NONE ? JU_PY_SRC_TABLE : 0;
}

void ju_py_values_holder_size(struct ju_py_values *s, enum ju_py_holder h, uint64_t size)
{
    if (size)
        s->holder_size[h] = size < JU_PY_NONE ? (uint32_t)size : JU_PY_NONE - 1;
}

void ju_py_values_apply_dwarf(struct ju_py_values *s, const struct ju_py_layout *L,
                              jitunwind_dwarf_types *types, int debug_offsets_win,
                              struct jitunwind_py_dwarf_report *report)
{
    struct ju_py_dwarf_pass pass = {JU_PYP_VALUES, ju_py_values_build(s, L), debug_offsets_win,
                                    report, NULL};
    size_t i;
    uint64_t size;
    if (!types)
        return;
    s->dwarf_seen = 1;
    ju_strlcpy(report->source, jitunwind_dwarf_types_source(types), sizeof report->source);
    for (i = JU_PYF_JIT_END; i < JU_PYF_COUNT; i++) {
        /* the target's own sizes, when it gave them, stand */
        enum ju_py_holder h = (enum ju_py_holder)ju_py_fields[i].holder;
        if (!s->holder_size[h] &&
            jitunwind_dwarf_type_size(types, ju_py_holders[h].type, &size) == 0)
            ju_py_values_holder_size(s, h, size);
    }
    ju_py_dwarf_pass(types, &pass);
}

int ju_py_values_check(const struct ju_py_values *s, const struct ju_py_layout *L, char *why,
                       size_t size)
{
    char name[128];
    struct ju_py_table_view t = {name, &s->V, s->holder_size, L->ob_type + 8, s->source};
    snprintf(name, sizeof name, "values of %s", L->name);
    return ju_py_fields_check(&t, JU_PYP_VALUES, why, size);
}

void ju_py_values_finish(struct ju_py_values *s, const struct ju_py_layout *L,
                         const char *release)
{
    size_t i;
    for (i = JU_PYF_JIT_END; s->borrowed && i < JU_PYF_COUNT; i++) {
        const struct ju_py_field_desc *f = &ju_py_fields[i];
        uint32_t *slot = slot_of(s, i);
        if (*slot == JU_PY_NONE || (*source_of(s, i) & ~JU_PY_SRC_TABLE))
            continue;
        if (f->kind != JU_PYK_CHECKED) {
            *slot = JU_PY_NONE; /* a detail not known for this version: left out */
            continue;
        }
        s->status = JITUNWIND_EUNSUPPORTED;
        snprintf(s->why, sizeof s->why,
                 "CPython %s has no value table, and %s.%s is neither in its _Py_DebugOffsets "
                 "nor in %s: its objects cannot be read",
                 release, ju_py_holders[f->holder].type, f->name,
                 s->dwarf_seen ? "its DWARF" : "any DWARF (none was found)");
        return;
    }
    s->status = ju_py_values_check(s, L, s->why, sizeof s->why);
}
