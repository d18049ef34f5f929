/* The type-name index of a DWARF file (dwarf_type_index.h). Names point into
 * the file's string section, which lives as long as its Dwarf: nothing is
 * copied. Two open-addressing tables of one kind: names, and the partial
 * units already scanned (a dwz partial unit is imported by many units). */
#include <dwarf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "target/dwarf_type_index.h"

/* An entry of either table: a type name's first DIE (`name` set), or a
 * partial unit scanned (`name` NULL). `owner` NULL: an empty entry. */
struct entry {
    uint64_t hash;
    const char *name;
    Dwarf *owner;
    Dwarf_Off die;
};

struct table {
    struct entry *e;
    size_t cap, used; /* cap: a power of two, kept under 3/4 full */
};

struct ju_type_index {
    struct table names, units;
    size_t units_scanned;
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

int ju_type_index_build(Dwarf *dwarf, struct ju_type_index **out)
{
    struct ju_type_index *x = calloc(1, sizeof *x);
    Dwarf_Off off = 0, next;
    size_t hsize;
    int rc = x ? make_room(&x->names, JU_TYPE_INDEX_MAX_ENTRIES) : JITUNWIND_ENOMEM;
    *out = NULL;
    while (rc == 0 && dwarf_nextcu(dwarf, off, &next, &hsize, NULL, NULL, NULL) == 0) {
        Dwarf_Die cu;
        if (dwarf_offdie(dwarf, off + hsize, &cu))
            rc = index_unit(x, &cu, 0);
        off = next;
    }
    if (rc < 0) {
        ju_type_index_free(x);
        return rc;
    }
    *out = x;
    return 0;
}

int ju_type_index_find(const struct ju_type_index *x, const char *name, Dwarf **owner,
                       Dwarf_Off *die)
{
    const struct entry *e = name_slot(&x->names, name, hash_name(name));
    if (!e->owner)
        return 0;
    *owner = e->owner;
    *die = e->die;
    return 1;
}

void ju_type_index_free(struct ju_type_index *x)
{
    if (!x)
        return;
    free(x->names.e);
    free(x->units.e);
    free(x);
}
