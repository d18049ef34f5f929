/* The type-name index of a DWARF file (dwarf_type_index.h). Names point into
 * the file's string section, which lives as long as its Dwarf: nothing is
 * copied. Two open-addressing tables of one kind: names, and the partial
 * units already scanned (a dwz partial unit is imported by many units).
 * Units are indexed in order, as lookups need them. */
#include <dwarf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "dwarf/dwarf_name_absence.h"
#include "dwarf/dwarf_type_index.h"
#include "base/hash.h"

/* An entry of either table: a type name's first DIE (`name` set), or a
 * partial unit scanned (`name` NULL). `owner` NULL: an empty entry. A name
 * proven absent has die ABSENT and its own copy of the name. */
struct entry {
    uint64_t hash;
    const char *name;
    Dwarf *owner;
    Dwarf_Off die;
};

#define ABSENT ((Dwarf_Off)-1)

struct table {
    struct entry *e;
    size_t cap, used; /* cap: a power of two, kept under 3/4 full */
};

struct ju_type_index {
    struct table names, units;
    size_t units_scanned;
    Dwarf *dwarf;
    Dwarf_Off next_unit; /* the first unit not indexed yet */
    int all_indexed;
    struct ju_name_absence absence;
};

static uint64_t hash_name(const char *s)
{
    return ju_fnv1a(s, strlen(s));
}

static uint64_t hash_unit(const Dwarf *owner, Dwarf_Off die)
{
    return ((uint64_t)(uintptr_t)owner ^ die) * 0x9e3779b97f4a7c15ull;
}

/* Room for one more entry: 0, or ENOMEM / ELIMIT past `limit` entries. */
static int make_room(struct table *t, size_t limit)
{
    size_t cap, i;
    struct entry *e;
    if ((t->used + 1) * 4 <= t->cap * 3)
        return 0;
    if (t->used >= limit)
        return JITUNWIND_ELIMIT;
    cap = t->cap ? t->cap * 2 : 1024;
    if (!(e = calloc(cap, sizeof *e)))
        return JITUNWIND_ENOMEM;
    for (i = 0; i < t->cap; i++) {
        size_t j;
        if (!t->e[i].owner)
            continue;
        for (j = t->e[i].hash & (cap - 1); e[j].owner; j = (j + 1) & (cap - 1))
            ;
        e[j] = t->e[i];
    }
    free(t->e);
    t->e = e;
    t->cap = cap;
    return 0;
}

/* The entry of `name` in the names table, or the empty one where it goes. */
static struct entry *name_slot(const struct table *t, const char *name, uint64_t hash)
{
    size_t j;
    for (j = hash & (t->cap - 1); t->e[j].owner; j = (j + 1) & (t->cap - 1))
        if (strcmp(t->e[j].name, name) == 0)
            break;
    return &t->e[j];
}

/* Add `name` unless it is there: 0, or ENOMEM / ELIMIT. */
static int add_name(struct ju_type_index *x, const char *name, Dwarf *owner, Dwarf_Off die)
{
    uint64_t hash = hash_name(name);
    struct entry *e;
    int rc;
    if ((rc = make_room(&x->names, JU_TYPE_INDEX_MAX_ENTRIES)) < 0)
        return rc;
    if (!(e = name_slot(&x->names, name, hash))->owner) {
        *e = (struct entry){hash, name, owner, die};
        x->names.used++;
    }
    return 0;
}

/* 1 when the partial unit was scanned already, else 0 after noting it (or
 * ENOMEM / ELIMIT). */
static int seen_unit(struct ju_type_index *x, Dwarf *owner, Dwarf_Off die)
{
    uint64_t hash = hash_unit(owner, die);
    struct table *t = &x->units;
    size_t j;
    int rc;
    if ((rc = make_room(t, JU_TYPE_INDEX_MAX_UNITS)) < 0)
        return rc;
    for (j = hash & (t->cap - 1); t->e[j].owner; j = (j + 1) & (t->cap - 1))
        if (t->e[j].owner == owner && t->e[j].die == die)
            return 1;
    t->e[j] = (struct entry){hash, NULL, owner, die};
    t->used++;
    return 0;
}

/* Index the top-level DIEs of `unit`; those of the partial units it
 * imports too unless `imported` (one level, as the lookups search). */
static int index_unit(struct ju_type_index *x, Dwarf_Die *unit, int imported)
{
    Dwarf_Die child;
    int more, rc;
    if (++x->units_scanned > JU_TYPE_INDEX_MAX_UNITS)
        return JITUNWIND_ELIMIT;
    if (dwarf_child(unit, &child) != 0)
        return 0;
    for (more = 0; more == 0; more = dwarf_siblingof(&child, &child)) {
        int tag = dwarf_tag(&child);
        if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_typedef) {
            const char *name = dwarf_diename(&child);
            if (name && !dwarf_hasattr(&child, DW_AT_declaration) &&
                (rc = add_name(x, name, dwarf_cu_getdwarf(child.cu), dwarf_dieoffset(&child))) < 0)
                return rc;
        } else if (tag == DW_TAG_imported_unit && !imported) {
            Dwarf_Attribute attr;
            Dwarf_Die partial;
            if (!dwarf_attr(&child, DW_AT_import, &attr) || !dwarf_formref_die(&attr, &partial))
                continue;
            if ((rc = seen_unit(x, dwarf_cu_getdwarf(partial.cu), dwarf_dieoffset(&partial))) < 0)
                return rc;
            if (rc == 0 && (rc = index_unit(x, &partial, 1)) < 0)
                return rc;
        }
    }
    return 0;
}

int ju_type_index_new(Dwarf *dwarf, struct ju_type_index **out)
{
    struct ju_type_index *x = calloc(1, sizeof *x);
    int rc = x ? make_room(&x->names, JU_TYPE_INDEX_MAX_ENTRIES) : JITUNWIND_ENOMEM;
    *out = NULL;
    if (rc < 0) {
        ju_type_index_free(x);
        return rc;
    }
    x->dwarf = dwarf;
    *out = x;
    return 0;
}

/* Index the next unit (none of its DIEs when its abbreviations say none
 * names a type): 0, or ENOMEM / ELIMIT. */
static int index_next_unit(struct ju_type_index *x)
{
    Dwarf_Off next, table;
    size_t hsize;
    Dwarf_Die cu;
    int rc = 0;
    if (dwarf_nextcu(x->dwarf, x->next_unit, &next, &hsize, &table, NULL, NULL) != 0) {
        x->all_indexed = 1;
        return 0;
    }
    if (ju_dwarf_table_may_name_types(x->dwarf, &x->absence, table) &&
        dwarf_offdie(x->dwarf, x->next_unit + hsize, &cu))
        rc = index_unit(x, &cu, 0);
    x->next_unit = next;
    return rc;
}

/* The entry of `name`, when the units indexed so far have one. */
static const struct entry *indexed(const struct ju_type_index *x, const char *name)
{
    const struct entry *e = name_slot(&x->names, name, hash_name(name));
    return e->owner ? e : NULL;
}

/* Keep that `name` is absent, so that it is proven once (best effort). */
static void note_absent(struct ju_type_index *x, const char *name)
{
    char *copy = strdup(name);
    if (copy && add_name(x, copy, x->dwarf, ABSENT) < 0)
        free(copy);
}

int ju_type_index_find(struct ju_type_index *x, const char *name, Dwarf **owner,
                       Dwarf_Off *die)
{
    const struct entry *e = indexed(x, name);
    int rc;
    if (e && e->die == ABSENT)
        return 0;
    if (!e && !x->all_indexed && ju_dwarf_name_absent(x->dwarf, &x->absence, name)) {
        note_absent(x, name);
        return 0;
    }
    while (!e && !x->all_indexed) {
        if ((rc = index_next_unit(x)) < 0)
            return rc;
        e = indexed(x, name);
    }
    if (!e)
        return 0;
    *owner = e->owner;
    *die = e->die;
    return 1;
}

void ju_type_index_free(struct ju_type_index *x)
{
    size_t i;
    if (!x)
        return;
    for (i = 0; i < x->names.cap; i++)
        if (x->names.e[i].owner && x->names.e[i].die == ABSENT)
            free((char *)x->names.e[i].name);
    free(x->names.e);
    free(x->units.e);
    free(x);
}
