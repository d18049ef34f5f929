/* A frame's variables (localsplus, named by its code object) and name
 * lookup from a frame: locals, then globals, then builtins. */
#include <stdio.h>

#include "python/values/objects.h"
#include "python/values/read_cache.h"

/* co_localspluskinds bits, the same in 3.11-3.14. */
#define CO_FAST_HIDDEN 0x10
#define CO_FAST_LOCAL 0x20
#define CO_FAST_CELL 0x40
#define CO_FAST_FREE 0x80
#define CO_VARARGS 0x4
#define CO_VARKEYWORDS 0x8
#define MAX_LOCALSPLUS 65536u

struct frame_code {
    uint64_t code, names, kinds;
    uint32_t nlocalsplus, nargs;
    uint64_t names_items; /* address of the names tuple's items */
};

static int read_code(struct ju_py_objects *o, const struct jitunwind_py_frame *frame,
                     struct frame_code *fc)
{
    const struct ju_py_value_layout *V = o->V;
    const struct jitunwind_memory *mem = &o->r->mem;
    uint32_t argc, kwonly, flags, n;
    uint64_t names_len, kinds_len;
    struct ju_py_type_info *t;
    int rc;
    memset(fc, 0, sizeof *fc);
    fc->code = frame->code;
    if ((frame->flags & JITUNWIND_PYFRAME_BAD_CODE) || frame->code == 0)
        return JITUNWIND_ECORRUPT;
    if ((rc = ju_read_u32(mem, fc->code + o->head + V->co_argcount, &argc)) < 0 ||
        (rc = ju_read_u32(mem, fc->code + o->head + V->co_kwonlyargcount, &kwonly)) < 0 ||
        (rc = ju_read_u32(mem, fc->code + o->head + V->co_flags, &flags)) < 0 ||
        (rc = ju_read_u32(mem, fc->code + o->head + V->co_nlocalsplus, &n)) < 0 ||
        (rc = ju_read_u64(mem, fc->code + o->head + V->co_localsplusnames, &fc->names)) < 0 ||
        (rc = ju_read_u64(mem, fc->code + o->head + V->co_localspluskinds, &fc->kinds)) < 0)
        return rc;
    if (n > MAX_LOCALSPLUS || argc > n || kwonly > n)
        return JITUNWIND_ECORRUPT;
    if ((rc = ju_py_object_type(o, fc->names, &t)) < 0)
        return rc;
    if (t->kind != JU_K_TUPLE ||
        (rc = ju_read_u64(mem, fc->names + o->head + V->var_size, &names_len)) < 0 ||
        names_len != n)
        return rc < 0 ? rc : JITUNWIND_ECORRUPT;
    if ((rc = ju_py_object_type(o, fc->kinds, &t)) < 0)
        return rc;
    if (t->kind != JU_K_BYTES ||
        (rc = ju_py_fetch(mem, o->L, fc->kinds, JU_PYF_bytes_size, &kinds_len)) < 0 || kinds_len != n)
        return rc < 0 ? rc : JITUNWIND_ECORRUPT;
    fc->nlocalsplus = n;
    fc->nargs = argc + kwonly + !!(flags & CO_VARARGS) + !!(flags & CO_VARKEYWORDS);
    if (fc->nargs > n)
        return JITUNWIND_ECORRUPT;
    fc->names_items = fc->names + o->head + V->tuple_items;
    return 0;
}

/* Slot i's value: the object, with tag bits of 3.14's stack references
 * cleared (a tagged integer, never a variable's value, reads as unbound). */
static int read_slot(struct ju_py_objects *o, const struct jitunwind_py_frame *frame, uint32_t i,
                     uint64_t *value)
{
    uint64_t mask = o->L->code_tag_mask;
    int rc = ju_read_u64(&o->r->mem, frame->address + o->V->fr_localsplus + 8ull * i, value);
    if (rc < 0)
        return rc;
    if (mask && (*value & mask) == mask && mask != 1)
        *value = 0;
    *value &= ~mask;
    return 0;
}

/* Which pass (0 args, 1 locals, 2 cells, 3 free) slot i belongs to. */
static int slot_pass(const struct frame_code *fc, uint32_t i, uint8_t kind)
{
    if (i < fc->nargs)
        return 0;
    if (kind & CO_FAST_FREE)
        return 3;
    if (kind & CO_FAST_CELL)
        return 2;
    return 1;
}

/* Slot i of the frame as a variable of pass `pass`: 1 filled, 0 when the
 * slot belongs to another pass or is an unbound hidden one, or a negative
 * status. kinds[] holds the code's co_localspluskinds, read in windows. */
struct slot_reader {
    struct ju_py_objects o;
    struct frame_code fc;
    uint8_t kinds[512];
    uint32_t kinds_from, kinds_count;
};

static int read_variable(struct slot_reader *s, const struct jitunwind_py_frame *frame, uint32_t i,
                         int pass, struct jitunwind_py_variable *v)
{
    struct ju_py_objects *o = &s->o;
    struct ju_py_type_info *t;
    uint64_t name, value;
    uint8_t kind;
    int truncated = 0, rc;
    if (i < s->kinds_from || i >= s->kinds_from + s->kinds_count) {
        uint32_t n = s->fc.nlocalsplus - i;
        if (n > sizeof s->kinds)
            n = sizeof s->kinds;
        if ((rc = ju_read(&o->r->mem, s->fc.kinds + o->L->bytes_sval + i, s->kinds, n)) < 0)
            return rc;
        s->kinds_from = i;
        s->kinds_count = n;
    }
    kind = s->kinds[i - s->kinds_from];
    if (pass >= 0 && slot_pass(&s->fc, i, kind) != pass)
        return 0;
    if ((rc = read_slot(o, frame, i, &value)) < 0)
        return rc;
    if ((kind & (CO_FAST_CELL | CO_FAST_FREE)) && value &&
        ju_py_object_type(o, value, &t) == 0 && t->kind == JU_K_CELL &&
        ju_read_u64(&o->r->mem, value + o->head + o->V->cell_ref, &value) < 0)
        value = 0;
    if ((kind & CO_FAST_HIDDEN) && value == 0)
        return 0;
    memset(v, 0, sizeof *v);
    pass = slot_pass(&s->fc, i, kind);
    v->value = value;
    v->flags = pass == 0 ? JITUNWIND_PYVAR_ARG : pass == 1 ? JITUNWIND_PYVAR_LOCAL
               : pass == 2 ? JITUNWIND_PYVAR_CELL : JITUNWIND_PYVAR_FREE;
    if (pass == 0 && (kind & CO_FAST_CELL))
        v->flags |= JITUNWIND_PYVAR_CELL;
    if (value == 0)
        v->flags |= JITUNWIND_PYVAR_UNBOUND;
    if (frame->flags & (JITUNWIND_PYFRAME_LINE_MAY_LAG | JITUNWIND_PYFRAME_IN_JIT))
        v->flags |= JITUNWIND_PYVAR_MAY_BE_STALE;
    if (ju_read_u64(&o->r->mem, s->fc.names_items + 8ull * i, &name) < 0 ||
        ju_py_read_str(o->r, name, v->name, sizeof v->name, &truncated) < 0)
        snprintf(v->name, sizeof v->name, "<slot %u>", i);
    if (truncated)
        v->flags |= JITUNWIND_PYVAR_NAME_TRUNCATED;
    return 1;
}

static int open_slots(jitunwind_pyreader *reader, const struct jitunwind_py_frame *frame,
                      struct slot_reader *s)
{
    int rc;
    if ((rc = ju_py_objects_init(&s->o, reader)) < 0)
        return rc; /* the reason, naming the field, is in reader->err */
    s->kinds_from = s->kinds_count = 0;
    if ((rc = read_code(&s->o, frame, &s->fc)) < 0)
        return ju_fail(&reader->err, rc, frame->code, "frame %#llx: code object unreadable",
                       (unsigned long long)frame->address);
    return 0;
}

static int list_variables(jitunwind_pyreader *reader, const struct jitunwind_py_frame *frame,
                          struct jitunwind_py_variable *out, size_t max, size_t *count)
{
    struct slot_reader s;
    int pass, rc;
    if ((rc = open_slots(reader, frame, &s)) < 0)
        return rc;
    for (pass = 0; pass < 4; pass++) {
        uint32_t i;
        for (i = 0; i < s.fc.nlocalsplus; i++) {
            struct jitunwind_py_variable v;
            if ((rc = read_variable(&s, frame, i, pass, &v)) < 0)
                return ju_fail(&reader->err, rc, frame->address, "variable %u unreadable", i);
            if (rc == 0)
                continue;
            if (*count >= max)
                return ju_fail(&reader->err, JITUNWIND_ELIMIT, frame->address,
                               "more than %zu variables", max);
            out[(*count)++] = v;
        }
    }
    return 0;
}

int jitunwind_pyreader_frame_variables(jitunwind_pyreader *reader,
                                       const struct jitunwind_py_frame *frame,
                                       struct jitunwind_py_variable *out, size_t max,
                                       size_t *count)
{
    struct ju_read_cache cache;
    int rc;
    if (count)
        *count = 0;
    if (!reader || !frame || !count || (max && !out))
        return JITUNWIND_EINVAL;
    ju_read_cache_install(&cache, reader);
    rc = list_variables(reader, frame, out, max, count);
    ju_read_cache_remove(&cache, reader);
    return rc;
}

static int lookup(jitunwind_pyreader *reader, const struct jitunwind_py_frame *frame,
                  const char *name, uint64_t *value, int *scope)
{
    struct slot_reader s;
    uint64_t dict;
    uint32_t i;
    int rc;
    if (!reader || !frame || !name || !value || !scope)
        return JITUNWIND_EINVAL;
    if ((rc = open_slots(reader, frame, &s)) == 0)
        for (i = 0; i < s.fc.nlocalsplus; i++) {
            struct jitunwind_py_variable v;
            if (read_variable(&s, frame, i, -1, &v) == 1 && strcmp(v.name, name) == 0) {
                int unbound = (v.flags & JITUNWIND_PYVAR_UNBOUND) != 0;
                *value = unbound ? 0 : v.value;
                *scope = unbound ? JITUNWIND_PYSCOPE_UNBOUND_LOCAL : JITUNWIND_PYSCOPE_LOCAL;
                return 0;
            }
        }
    else if ((rc = ju_py_objects_init(&s.o, reader)) < 0)
        return rc;
    if (ju_read_u64(&s.o.r->mem, frame->address + s.o.V->fr_globals, &dict) == 0 && dict &&
        ju_py_dict_find(&s.o, dict, name, value) == 1) {
        *scope = JITUNWIND_PYSCOPE_GLOBAL;
        return 0;
    }
    if (ju_read_u64(&s.o.r->mem, frame->address + s.o.V->fr_builtins, &dict) == 0 && dict &&
        ju_py_dict_find(&s.o, dict, name, value) == 1) {
        *scope = JITUNWIND_PYSCOPE_BUILTIN;
        return 0;
    }
    return ju_fail(&reader->err, JITUNWIND_ENOTFOUND, frame->address, "name '%s' is not defined",
                   name);
}

/* Through the read cache, as frame_variables: globals and builtins are
 * dicts whose keys it reads one by one (hold_reads keeps them). */
int jitunwind_pyreader_frame_lookup(jitunwind_pyreader *reader,
                                    const struct jitunwind_py_frame *frame, const char *name,
                                    uint64_t *value, int *scope)
{
    struct ju_read_cache cache;
    int rc;
    if (!reader || !frame || !name || !value || !scope)
        return JITUNWIND_EINVAL;
    ju_read_cache_install(&cache, reader);
    rc = lookup(reader, frame, name, value, scope);
    ju_read_cache_remove(&cache, reader);
    return rc;
}
