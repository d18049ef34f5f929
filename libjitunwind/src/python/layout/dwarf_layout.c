/* The frame layout checked against, and completed from, the DWARF of the
 * build: the third step of the merge (merge.h owns who wins), by the one
 * pass over the rows (ju_py_dwarf_pass) that the JIT view and the values
 * use too.
 *
 * Each field that DWARF can describe carries its struct and member paths
 * in its row (JU_PY_LAYOUT_FIELDS, fields.h), with the alternatives
 * versions used (3.11 `f_code`, 3.13+ `f_executable`); the first path the
 * build has is used, so no version test is made here. Fields that DWARF
 * does not describe (tag masks, owner values) stay as the table has them;
 * the str state bits, which are no rows, are merged here by their bit
 * positions with the same rule and wording.
 *
 * The frame table's own refusals are its policy for the pass: a
 * provisional debug-offsets field list (versions.c) that DWARF contradicts
 * refuses the target, since the list itself may be wrong; DWARF placing a
 * member past its own struct is not believed; an assumed layout (a version
 * newer than every table, by opt-in) is read strictly: every field the
 * decoder needs must come from DWARF, and optional and build-specific ones
 * it lacks are switched off rather than guessed. Fields a table marks
 * JU_PY_FROM_DWARF (3.15's executors) that DWARF lacks are left for
 * ju_py_layout_settle. */
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
 * layout fields; 0xff = none), merged by the one rule and counted with the
 * rows. No debug offset describes them. Returns how many of the bits in
 * use DWARF did not describe. */
static const struct {
    size_t slot;
    const char *path;
} STATE_BITS[] = {
    {offsetof(struct ju_py_layout, st_kind_shift), "state.kind"},
    {offsetof(struct ju_py_layout, st_compact_bit), "state.compact"},
    {offsetof(struct ju_py_layout, st_ascii_bit), "state.ascii"},
    {offsetof(struct ju_py_layout, st_ready_bit), "state.ready"},
};

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
        char difference[sizeof report->first_mismatch] = "";
        enum ju_py_merge m;
        if (*slot == 0xff)
            continue;
        if (jitunwind_dwarf_member_bit_offset(types, "PyASCIIObject", STATE_BITS[i].path, &bit) < 0 ||
            bit < state || bit - state >= 32) {
            missing++;
            continue;
        }
        m = ju_py_merge(0, *slot, bit - state, 0, 0);
        if (m == JU_PY_MERGE_ADOPT)
            ju_py_dwarf_difference(difference, sizeof difference, "PyASCIIObject",
                                   STATE_BITS[i].path, "table", *slot, bit - state, 1);
        ju_py_dwarf_record(report, m, difference);
        *slot = (uint8_t)(bit - state);
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

/* The frame table's policy for the one pass (merge.h). */
struct frame_policy {
    jitunwind_pyreader *r;
    jitunwind_dwarf_types *types;
    const char *source;  /* the DWARF's file, for messages */
    const uint8_t *from; /* JU_PY_SRC_* bits per main field */
    int provisional;     /* the target's debug-offsets field list is provisional */
};

/* An assumed layout is read strictly: a field it has that DWARF lacks is
 * switched off when optional or build-specific, and refuses the target
 * when needed. Otherwise the table's value stays (FROM_DWARF: settle
 * names it). */
static int frame_missing(void *ctx, const struct ju_py_field_desc *f, void *slot)
{
    const struct frame_policy *p = ctx;
    uint32_t have, none = JU_PY_NONE;
    memcpy(&have, slot, sizeof have);
    if (!p->r->assumed || have == JU_PY_NONE || have == JU_PY_FROM_DWARF)
        return 0;
    if (f->kind == JU_PYK_OPTIONAL || f->kind == JU_PYK_BUILD) {
        memcpy(slot, &none, sizeof none);
        return 0;
    }
    return ju_fail(&p->r->err, JITUNWIND_EVERSION, 0,
                   "no %s.%s in the DWARF of %s: an assumed layout needs it",
                   ju_py_holders[f->holder].type, f->paths ? f->paths : "(size)", p->source);
}

/* DWARF that places a member past its own struct's size is not believed. */
static int frame_given(void *ctx, const struct ju_py_field_desc *f, uint64_t value)
{
    const struct frame_policy *p = ctx;
    const char *type = ju_py_holders[f->holder].type;
    uint64_t type_size;
    if (f->kind == JU_PYK_SIZE_OF || !f->paths ||
        jitunwind_dwarf_type_size(p->types, type, &type_size) < 0 ||
        ju_py_field_misfit(&(struct ju_py_placed){value, f->width, type_size, JU_PY_UNBOUNDED}) ==
            JU_PY_FITS)
        return 0;
    return ju_fail(&p->r->err, JITUNWIND_ECORRUPT, 0,
                   "the DWARF of %s places %s.%s (offset %llu, %u bytes) past sizeof(%s), %llu",
                   p->source, type, f->name, (unsigned long long)value, f->width, type,
                   (unsigned long long)type_size);
}

/* A field the target's debug offsets gave that DWARF agrees with confirms
 * them; a provisional list that DWARF contradicts refuses the target, since
 * the list itself may be wrong. */
static int frame_verdict(void *ctx, const struct ju_py_field_desc *f, enum ju_py_merge m,
                         const char *difference)
{
    const struct frame_policy *p = ctx;
    char release[32];
    if (m == JU_PY_MERGE_AGREE && (p->from[f - ju_py_fields] & JU_PY_SRC_DEBUG_OFFSETS))
        p->r->debug_offsets_confirmed++;
    if (m != JU_PY_MERGE_STAND || !p->provisional)
        return 0;
    ju_py_release_name(p->r->version_hex, release, sizeof release);
    return ju_fail(&p->r->err, JITUNWIND_EVERSION, 0,
                   "CPython %s: the provisional _Py_DebugOffsets field list does not fit this "
                   "build (%s); the assume-layout opt-in (JITUNWIND_ASSUME_LAYOUT=1) reads it "
                   "from DWARF alone",
                   release, difference);
}

int ju_py_apply_dwarf(jitunwind_pyreader *r, jitunwind_dwarf_types *types,
                      struct ju_py_layout *L, struct jitunwind_py_dwarf_report *report)
{
    int has_debug_offsets = !r->assumed && ju_py_debug_offsets_supported(r->version_hex);
    uint8_t source[JU_PYF_MAIN_END];
    struct frame_policy fp = {r, types, report->source, source,
                              has_debug_offsets && !ju_py_debug_offsets_confirmed(r->version_hex)};
    const struct ju_py_dwarf_policy policy = {&fp, frame_missing, frame_given, frame_verdict};
    struct ju_py_dwarf_pass pass = {JU_PYP_MAIN, {L, 0, source}, has_debug_offsets, report,
                                    &policy};
    int rc;
    memcpy(source, r->frame_source, sizeof source); /* the pass adds its own bits */
    if ((rc = ju_py_dwarf_pass(types, &pass)) < 0)
        return rc;
    if (check_state_bits(types, L, report) > 0 && r->assumed)
        return ju_fail(&r->err, JITUNWIND_EVERSION, 0,
                       "no str state bits in the DWARF of %s: an assumed layout needs them",
                       report->source);
    refit(L);
    return 0;
}
