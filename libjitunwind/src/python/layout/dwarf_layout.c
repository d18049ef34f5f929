/* The frame layout checked against, and completed from, the DWARF of the
 * build: the third step of the merge (merge.h owns who wins).
 *
 * Each field that DWARF can describe carries its struct and member paths
 * in its row (JU_PY_LAYOUT_FIELDS, layout.h), with the alternatives
 * versions used (3.11 `f_code`, 3.13+ `f_executable`); the first path the
 * build has is used, so no version test is made here. Fields that DWARF
 * does not describe (tag masks, owner values) stay as the table has them;
 * the str state bits are compared here by their bit positions.
 *
 * A provisional debug-offsets field list (versions.c) loses: any
 * disagreement refuses the target, since the list itself may be wrong.
 * Fields a table marks JU_PY_FROM_DWARF (3.15's executors) that DWARF
 * lacks are left for ju_py_layout_settle.
 *
 * An assumed layout (a version newer than every table, by opt-in) is read
 * strictly: every field the decoder needs must come from DWARF; optional
 * and build-specific ones it lacks are switched off rather than guessed. */
#include <stdio.h>

#include "python/layout/merge.h"
#include "python/layout/validate.h"
#include "python/pyreader.h"

/* The fields DWARF describes: every main field but the bytes the decoder
 * copies. */
static int described(const struct ju_py_field_desc *f)
{
    return f->kind != JU_PYK_COPY;
}

int ju_py_layout_field(const struct ju_py_layout *L, size_t i, struct ju_py_field_info *out)
{
    size_t id;
    for (id = 0; id < JU_PYF_MAIN_END; id++) {
        const struct ju_py_field_desc *f = &ju_py_fields[id];
        if (!described(f) || i-- > 0)
            continue;
        out->name = f->name;
        out->type = ju_py_holders[f->holder].type;
        out->paths = f->paths;
        out->build_specific = f->kind == JU_PYK_BUILD;
        out->size_of = f->kind == JU_PYK_SIZE_OF;
        out->value = ju_py_offset(L, (enum ju_py_field_id)id);
        return 1;
    }
    return 0;
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

/* After adoption, the bytes copied per frame and per code object grow to
 * cover every field of theirs (ju_py_layout_check then holds them to the
 * decoders' buffers). */
static void refit(struct ju_py_layout *L)
{
    size_t i;
    for (i = 0; i < JU_PYF_JIT_END; i++) {
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
    for (i = 0; i < JU_PYF_MAIN_END; i++) {
        const struct ju_py_field_desc *f = &ju_py_fields[i];
        const char *type = ju_py_holders[f->holder].type;
        uint32_t *slot = (uint32_t *)((char *)L + f->slot);
        unsigned width = f->width;
        int target_gave =
            has_debug_offsets && ju_py_debug_offsets_give(r->version_hex, (enum ju_py_field_id)i);
        uint64_t value, type_size;
        enum ju_py_merge m;
        if (!described(f))
            continue;
        if (ju_py_dwarf_field(types, f, 0, &value) < 0) {
            if (!r->assumed || *slot == JU_PY_NONE || *slot == JU_PY_FROM_DWARF)
                continue; /* no such member: keep the table (FROM_DWARF: settle names it) */
            if (f->kind == JU_PYK_OPTIONAL || f->kind == JU_PYK_BUILD) {
                *slot = JU_PY_NONE;
                continue;
            }
            return ju_fail(&r->err, JITUNWIND_EVERSION, 0,
                           "no %s.%s in the DWARF of %s: an assumed layout needs it", type,
                           f->paths ? f->paths : "(size)", report->source);
        }
        if (f->kind != JU_PYK_SIZE_OF && f->paths &&
            jitunwind_dwarf_type_size(types, type, &type_size) == 0 &&
            ju_py_field_misfit(&(struct ju_py_placed){value, width, type_size,
                                                      JU_PY_UNBOUNDED}) != JU_PY_FITS)
            return ju_fail(&r->err, JITUNWIND_ECORRUPT, 0,
                           "the DWARF of %s places %s.%s (offset %llu, %u bytes) past "
                           "sizeof(%s), %llu",
                           report->source, type, f->name, (unsigned long long)value, width,
                           type, (unsigned long long)type_size);
        m = ju_py_merge_field(f, *slot, value, target_gave);
        if ((m == JU_PY_MERGE_ADOPT || m == JU_PY_MERGE_STAND) && report->mismatches == 0)
            snprintf(report->first_mismatch, sizeof report->first_mismatch,
                     "%s.%s: layout %u, DWARF %llu", type, f->paths ? f->paths : "sizeof",
                     *slot, (unsigned long long)value);
        ju_py_merge_count(report, m);
        if (m == JU_PY_MERGE_AGREE && target_gave)
            r->debug_offsets_confirmed++;
        if (m == JU_PY_MERGE_DERIVE || m == JU_PY_MERGE_ADOPT)
            *slot = (uint32_t)value;
        if (m == JU_PY_MERGE_STAND && provisional) {
            char release[32];
            ju_py_release_name(r->version_hex, release, sizeof release);
            return ju_fail(&r->err, JITUNWIND_EVERSION, 0,
                           "CPython %s: the provisional _Py_DebugOffsets field list does not fit "
                           "this build (%s.%s: debug offsets %u, DWARF %llu); the assume-layout "
                           "opt-in (JITUNWIND_ASSUME_LAYOUT=1) reads it from DWARF alone",
                           release, type, f->paths ? f->paths : "sizeof", *slot,
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
