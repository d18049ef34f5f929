/* That a DWARF file lacks a type name (dwarf_name_absence.h). The
 * sections are host data but parsed defensively: every read is bounded
 * and the tables' count is capped. */
#include <dwarf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/dwarf_name_absence.h"

#define MAX_TABLES (1u << 20)


/* An unsigned LEB128 at *at in [*at, end): 0, or -1 past end or 64 bits. */
static int uleb(const uint8_t **at, const uint8_t *end, uint64_t *value)
{
    unsigned shift = 0;
    *value = 0;
    while (*at < end && shift < 64) {
        uint8_t b = *(*at)++;
        *value |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return 0;
        shift += 7;
    }
    return -1;
}

static int names_a_type(uint64_t tag)
{
    return tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_typedef;
}

/* A name form whose bytes are in .debug_info, .debug_str or .debug_line_str. */
static int form_in_sections(uint64_t form)
{
    return form == DW_FORM_string || form == DW_FORM_strp || form == DW_FORM_line_strp ||
           form == DW_FORM_strx || form == DW_FORM_strx1 || form == DW_FORM_strx2 ||
           form == DW_FORM_strx3 || form == DW_FORM_strx4;
}

/* One abbreviation at *at: its code (0: the table's end, nothing more
 * read) and tag; *names_oddly set when a type tag's name may not be a
 * string of the sections. 0, or -1 when it does not parse. */
static int next_abbrev(const uint8_t **at, const uint8_t *end, uint64_t *code, uint64_t *tag,
                       int *names_oddly)
{
    uint64_t attr, form, skip;
    if (uleb(at, end, code) < 0)
        return -1;
    if (*code == 0)
        return 0;
    if (uleb(at, end, tag) < 0 || *at >= end)
        return -1;
    (*at)++; /* DW_CHILDREN_yes/no */
    for (;;) {
        if (uleb(at, end, &attr) < 0 || uleb(at, end, &form) < 0)
            return -1;
        if (attr == 0 && form == 0)
            return 0;
        if (form == DW_FORM_implicit_const && uleb(at, end, &skip) < 0)
            return -1; /* an SLEB128: the same bytes to skip */
        if (names_a_type(*tag) &&
            ((attr == DW_AT_name && !form_in_sections(form)) || attr == DW_AT_abstract_origin ||
             attr == DW_AT_specification))
            *names_oddly = 1;
    }
}

/* Parse .debug_abbrev whole, table after table: 0 with the tables' start
 * offsets (ascending) when every abbreviation of a type tag names itself
 * by a form of form_in_sections, -1 otherwise. */
static int check_abbrevs(const uint8_t *p, size_t size, uint64_t **starts, size_t *count)
{
    const uint8_t *at = p, *end;
    size_t cap = 0;
    int oddly = 0;
    *starts = NULL;
    *count = 0;
    if (size == 0)
        return 0; /* no tables: no unit can use one (p may be NULL) */
    end = p + size;
    while (at < end) {
        uint64_t code = 1, tag;
        if (*count == cap) {
            uint64_t *grown;
            if (cap >= MAX_TABLES || !(grown = realloc(*starts, (cap = cap ? cap * 2 : 256) *
                                                                    sizeof **starts)))
                return -1;
            *starts = grown;
        }
        (*starts)[(*count)++] = (uint64_t)(at - p);
        while (code != 0) /* a table: abbreviations up to a code 0 */
            if (next_abbrev(&at, end, &code, &tag, &oddly) < 0 || oddly)
                return -1;
    }
    return 0;
}

static int cmp_offset(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Does every unit dwarf_nextcu reaches use one of the tables parsed? */
static int units_use_tables(Dwarf *dwarf, const uint64_t *starts, size_t count)
{
    Dwarf_Off off = 0, next, abbrev;
    size_t hsize;
    while (dwarf_nextcu(dwarf, off, &next, &hsize, &abbrev, NULL, NULL) == 0) {
        uint64_t key = abbrev;
        if (count == 0 || !bsearch(&key, starts, count, sizeof *starts, cmp_offset))
            return 0;
        off = next;
    }
    return 1;
}

/* The uncompressed bytes of section `name` of elf (an absent one: none):
 * 0, or -1 when libelf has it compressed or unreadable. */
static int section_bytes(Elf *elf, const char *name, const uint8_t **bytes, size_t *size)
{
    size_t strndx;
    Elf_Scn *scn = NULL;
    *bytes = NULL;
    *size = 0;
    if (elf_getshdrstrndx(elf, &strndx) != 0)
        return -1;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        const char *n;
        Elf_Data *data;
        if (!gelf_getshdr(scn, &sh) || !(n = elf_strptr(elf, strndx, sh.sh_name)))
            return -1;
        if (strcmp(n, name) != 0)
            continue;
        if (sh.sh_type == SHT_NOBITS || (sh.sh_flags & SHF_COMPRESSED) ||
            !(data = elf_getdata(scn, NULL)) || (data->d_size && !data->d_buf))
            return -1;
        *bytes = data->d_buf;
        *size = data->d_size;
        return 0;
    }
    return 0;
}

/* Learn whether the file's names can be searched as bytes: 1 or -1. */
static int learn(Dwarf *dwarf, struct ju_name_absence *m)
{
    /* The string sections first: a name the file has is found there in
     * a fraction of the time .debug_info would take. */
    static const char *const NAMES[] = {".debug_str", ".debug_line_str", ".debug_info"};
    Elf *elf = dwarf_getelf(dwarf);
    const uint8_t *abbrev;
    size_t abbrev_size, count, i;
    uint64_t *starts;
    int ok;
    if (!elf || section_bytes(elf, ".debug_abbrev", &abbrev, &abbrev_size) < 0)
        return -1;
    for (i = 0; i < 3; i++)
        if (section_bytes(elf, NAMES[i], &m->sections[i], &m->sizes[i]) < 0)
            return -1;
    ok = check_abbrevs(abbrev, abbrev_size, &starts, &count) == 0 &&
         units_use_tables(dwarf, starts, count);
    free(starts);
    return ok ? 1 : -1;
}

int ju_dwarf_name_absent(Dwarf *dwarf, struct ju_name_absence *m, const char *name)
{
    size_t len = strlen(name) + 1, i; /* with its NUL */
    if (m->state == 0)
        m->state = learn(dwarf, m);
    if (m->state < 0)
        return 0;
    for (i = 0; i < 3; i++)
        if (m->sizes[i] && memmem(m->sections[i], m->sizes[i], name, len))
            return 0;
    return 1;
}

int ju_dwarf_table_may_name_types(Dwarf *dwarf, struct ju_name_absence *m, Dwarf_Off table)
{
    const uint8_t *at, *end;
    uint64_t code = 1, tag;
    int oddly = 0;
    Elf *elf;
    if (!m->abbrev_read) {
        m->abbrev_read = 1;
        if (!(elf = dwarf_getelf(dwarf)) ||
            section_bytes(elf, ".debug_abbrev", &m->abbrev, &m->abbrev_size) < 0)
            m->abbrev_size = 0;
    }
    if (table >= m->abbrev_size)
        return 1;
    at = m->abbrev + table;
    end = m->abbrev + m->abbrev_size;
    while (code != 0) {
        if (next_abbrev(&at, end, &code, &tag, &oddly) < 0)
            return 1;
        if (code != 0 && (names_a_type(tag) || tag == DW_TAG_imported_unit))
            return 1;
    }
    return 0;
}
