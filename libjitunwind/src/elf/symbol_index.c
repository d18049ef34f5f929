/* One symbol table's functions sorted by (value, place in the table), each
 * with the furthest end of any function at or before it, so that a
 * lookup walks back from the last function starting at or below the
 * address only while an earlier one can still contain it. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "elf/symbol_index.h"

struct ju_symbol_entry {
    uint64_t start, end; /* [start, end): a size of 0 counts as 1 */
    uint64_t reach;      /* the highest end of this entry and every one before it */
    uint32_t name;       /* offset in the string table */
    uint32_t order;      /* place in the table */
};

/* Symbol i of a table: a 64-bit file's table, in memory order once libelf
 * gives it (elf_getdata), is read in place; gelf_getsym's copy and checks
 * per symbol were most of the time of reading a large table. */
static int symbol_at(Elf_Data *data, int elf64, size_t i, GElf_Sym *out)
{
    if (elf64) {
        Elf64_Sym sym; /* copied: libelf may leave a crafted file's table unaligned */
        memcpy(&sym, (const char *)data->d_buf + i * sizeof sym, sizeof sym);
        out->st_name = sym.st_name;
        out->st_info = sym.st_info;
        out->st_shndx = sym.st_shndx;
        out->st_value = sym.st_value;
        out->st_size = sym.st_size;
        return 1;
    }
    return gelf_getsym(data, (int)i, out) != NULL;
}

static int by_start(const void *a, const void *b)
{
    const struct ju_symbol_entry *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

int ju_symbol_index_build(Elf *elf, Elf_Scn *scn, struct ju_symbol_index *out)
{
    GElf_Shdr sh;
    Elf_Data *data;
    size_t i, n;
    int elf64;
    memset(out, 0, sizeof *out);
    out->elf = elf;
    if (!gelf_getshdr(scn, &sh) || sh.sh_entsize == 0)
        return 0;
    out->strtab = sh.sh_link;
    data = elf_getdata(scn, NULL);
    if (!data || !data->d_buf)
        return 0;
    elf64 = gelf_getclass(elf) == ELFCLASS64 && data->d_type == ELF_T_SYM;
    n = sh.sh_size / sh.sh_entsize;
    if (elf64 && n > data->d_size / sizeof(Elf64_Sym))
        n = data->d_size / sizeof(Elf64_Sym); /* a header claiming more than the data */
    if (n > UINT32_MAX)
        n = UINT32_MAX;
    if (n && !(out->entries = malloc(n * sizeof *out->entries)))
        return JITUNWIND_ENOMEM;
    for (i = 0; i < n; i++) {
        GElf_Sym sym;
        const char *name;
        struct ju_symbol_entry *e = &out->entries[out->count];
        if (!symbol_at(data, elf64, i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
            sym.st_shndx == SHN_UNDEF || sym.st_name > UINT32_MAX)
            continue;
        name = elf_strptr(elf, out->strtab, sym.st_name);
        if (!name || !*name)
            continue;
        e->start = sym.st_value;
        e->end = sym.st_value + (sym.st_size ? sym.st_size : 1);
        if (e->end < e->start)
            e->end = UINT64_MAX; /* a size running past the address space */
        e->name = (uint32_t)sym.st_name;
        e->order = (uint32_t)i;
        out->count++;
    }
    qsort(out->entries, out->count, sizeof *out->entries, by_start);
    for (i = 0; i < out->count; i++)
        out->entries[i].reach = i && out->entries[i - 1].reach > out->entries[i].end
                                    ? out->entries[i - 1].reach
                                    : out->entries[i].end;
    return 0;
}

void ju_symbol_index_free(struct ju_symbol_index *ix)
{
    free(ix->entries);
    memset(ix, 0, sizeof *ix);
}

int ju_symbol_index_find(const struct ju_symbol_index *ix, uint64_t vaddr, char *buf,
                         size_t len, uint64_t *offset)
{
    size_t lo = 0, hi = ix->count, i;
    const struct ju_symbol_entry *best = NULL;
    const char *name;
    while (lo < hi) { /* lo: the first entry starting above vaddr */
        size_t mid = lo + (hi - lo) / 2;
        if (ix->entries[mid].start <= vaddr)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* Back from the highest start: the first containing entry decides the
     * value; among entries of that value, the earliest in the table. */
    for (i = lo; i-- > 0 && ix->entries[i].reach > vaddr;) {
        const struct ju_symbol_entry *e = &ix->entries[i];
        if (best && e->start != best->start)
            break;
        if (vaddr < e->end)
            best = e;
    }
    if (!best || !(name = elf_strptr(ix->elf, ix->strtab, best->name)))
        return 0;
    ju_strlcpy(buf, name, len);
    *offset = vaddr - best->start;
    return 1;
}
