/* The type-name index of a DWARF file (dwarf_type_index.h). Names point into
 * the file's string section, which lives as long as its Dwarf: nothing is
 * copied. Two open-addressing tables: names, and the partial units already
 * scanned (a dwz partial unit is imported by many units). */
#include <dwarf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "target/dwarf_type_index.h"

struct name_entry {
    const char *name; /* NULL: empty */
    Dwarf *owner;
    Dwarf_Off die;
};

struct unit_entry {
    Dwarf *owner;
    Dwarf_Off die; /* 0: empty (a unit DIE follows its header) */
};

struct ju_type_index {
    struct name_entry *names;
    size_t names_cap, names_used; /* cap: a power of two, kept under 3/4 full */
    struct unit_entry *units;
    size_t units_cap, units_used;
    size_t units_scanned;
};

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    while (*s)
        h = (h ^ (uint8_t)*s++) * 1099511628211ull;
    return h;
}

static uint64_t hash_unit(const Dwarf *owner, Dwarf_Off die)
{
    return ((uint64_t)(uintptr_t)owner ^ die) * 0x9e3779b97f4a7c15ull;
}

static int grow_names(struct ju_type_index *x)
{
    size_t cap = x->names_cap ? x->names_cap * 2 : 4096, i;
    struct name_entry *table = calloc(cap, sizeof *table);
    if (!table)
        return JITUNWIND_ENOMEM;
    for (i = 0; i < x->names_cap; i++) {
        size_t j;
        if (!x->names[i].name)
            continue;
        for (j = hash_name(x->names[i].name) & (cap - 1); table[j].name; j = (j + 1) & (cap - 1))
            ;
        table[j] = x->names[i];
    }
    free(x->names);
    x->names = table;
    x->names_cap = cap;
    return 0;
}

/* Add `name` unless it is there: 0, or ENOMEM / ELIMIT. */
static int add_name(struct ju_type_index *x, const char *name, Dwarf *owner, Dwarf_Off die)
{
    size_t j;
    int rc;
    if ((x->names_used + 1) * 4 > x->names_cap * 3) {
        if (x->names_used >= JU_TYPE_INDEX_MAX_ENTRIES)
            return JITUNWIND_ELIMIT;
        if ((rc = grow_names(x)) < 0)
            return rc;
    }
    for (j = hash_name(name) & (x->names_cap - 1); x->names[j].name; j = (j + 1) & (x->names_cap - 1))
        if (strcmp(x->names[j].name, name) == 0)
            return 0;
    x->names[j] = (struct name_entry){name, owner, die};
    x->names_used++;
    return 0;
}

static int grow_units(struct ju_type_index *x)
{
    size_t cap = x->units_cap ? x->units_cap * 2 : 256, i;
    struct unit_entry *table = calloc(cap, sizeof *table);
    if (!table)
        return JITUNWIND_ENOMEM;
    for (i = 0; i < x->units_cap; i++) {
        size_t j;
        if (!x->units[i].die)
            continue;
        for (j = hash_unit(x->units[i].owner, x->units[i].die) & (cap - 1); table[j].die;
             j = (j + 1) & (cap - 1))
            ;
        table[j] = x->units[i];
    }
    free(x->units);
    x->units = table;
    x->units_cap = cap;
    return 0;
}

/* 1 when the partial unit was scanned already, else 0 after noting it (or
 * ENOMEM / ELIMIT). */
static int seen_unit(struct ju_type_index *x, Dwarf *owner, Dwarf_Off die)
{
    size_t j;
    int rc;
    if ((x->units_used + 1) * 4 > x->units_cap * 3) {
        if (x->units_used >= JU_TYPE_INDEX_MAX_UNITS)
            return JITUNWIND_ELIMIT;
        if ((rc = grow_units(x)) < 0)
            return rc;
    }
    for (j = hash_unit(owner, die) & (x->units_cap - 1); x->units[j].die;
         j = (j + 1) & (x->units_cap - 1))
        if (x->units[j].owner == owner && x->units[j].die == die)
            return 1;
    x->units[j] = (struct unit_entry){owner, die};
    x->units_used++;
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
    int rc = x ? grow_names(x) : JITUNWIND_ENOMEM;
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
    size_t j;
    for (j = hash_name(name) & (x->names_cap - 1); x->names[j].name; j = (j + 1) & (x->names_cap - 1))
        if (strcmp(x->names[j].name, name) == 0) {
            *owner = x->names[j].owner;
            *die = x->names[j].die;
            return 1;
        }
    return 0;
}

void ju_type_index_free(struct ju_type_index *x)
{
    if (!x)
        return;
    free(x->names);
    free(x->units);
    free(x);
}
