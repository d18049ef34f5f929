/* Struct member offsets from DWARF, for build-specific layouts. The DWARF is
 * host data (a file the user has), but it is still parsed defensively:
 * every walk over DIEs is bounded, and type chains are followed a bounded
 * number of steps. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "internal.h"
#include "dwarf/dwarf_answers.h"
#include "dwarf/dwarf_type_index.h"
#include "elf/elf.h"

#define NAME_MAX_LEN 128
#define MAX_TYPE_CHAIN 16   /* typedef/const/volatile steps before a struct */
#define MAX_ANON_DEPTH 4    /* nested anonymous structs/unions searched */
#define MAX_PATH_PARTS 8

struct jitunwind_dwarf_types {
    struct ju_types_elf file; /* what `dwarf` reads */
    Dwarf *dwarf;
    char source[1024];
    struct ju_type_index *index; /* made at the first type lookup */
    int index_failed;            /* then every lookup searches the units */
    /* With a cache directory: the answers kept for this build, consulted
     * before the DWARF, which is opened only when one is missing (dwarf
     * stays NULL until then); `dirty` when the DWARF added some. */
    struct ju_dwarf_answers *memo;
    char cache_dir[1024];
    int dirty;
};

static int open_dwarf(struct jitunwind_dwarf_types *t, const char *path)
{
    int rc = ju_elf_open_for_types(path, &t->file);
    if (rc < 0)
        return rc;
    t->dwarf = dwarf_begin_elf(t->file.elf, DWARF_C_READ, NULL);
    if (!t->dwarf)
        return JITUNWIND_ENOTFOUND;
    /* A stripped file can keep an empty .debug_info stub: require a unit. */
    {
        Dwarf_Off off = 0, next;
        size_t hsize;
        if (dwarf_nextcu(t->dwarf, off, &next, &hsize, NULL, NULL, NULL) != 0)
            return JITUNWIND_ENOTFOUND;
    }
    ju_strlcpy(t->source, path, sizeof t->source);
    return 0;
}

static void close_dwarf(struct jitunwind_dwarf_types *t)
{
    ju_type_index_free(t->index); /* its names live in the DWARF */
    t->index = NULL;
    if (t->dwarf)
        dwarf_end(t->dwarf);
    ju_elf_close_for_types(&t->file);
    t->dwarf = NULL;
}

static int try_path(struct jitunwind_dwarf_types *t, const char *path)
{
    int rc = open_dwarf(t, path);
    if (rc < 0)
        close_dwarf(t);
    return rc;
}

/* The separate debug file of the ELF `elf` at `path` (debug_files.c; DWARF
 * is read for the interpreter only, so debuginfod is asked too). */
static int try_separate(struct jitunwind_dwarf_types *t, Elf *elf, const char *path)
{
    char candidate[4096];
    if (ju_debug_file_find(elf, path, JU_DEBUG_REMOTE, candidate, sizeof candidate, NULL, 0) < 0)
        return JITUNWIND_ENOTFOUND;
    return try_path(t, candidate);
}

/* The DWARF of elf_path, or of its separate debug file, into *t. */
static int open_types(struct jitunwind_dwarf_types *t, const char *elf_path)
{
    int rc = open_dwarf(t, elf_path);
    if (rc == JITUNWIND_ENOTFOUND) {
        struct ju_types_elf file = t->file; /* kept open while its notes are read */
        t->file.fd = -1;
        t->file.elf = NULL;
        t->file.map = NULL;
        if (t->dwarf)
            dwarf_end(t->dwarf);
        t->dwarf = NULL;
        rc = try_separate(t, file.elf, elf_path);
        ju_elf_close_for_types(&file);
    }
    return rc;
}

/* The GNU build id of the ELF file at path, in hex: 0 or ENOTFOUND. */
static int file_build_id(const char *path, char *hex, size_t size)
{
    int fd, rc;
    Elf *elf;
    if (ju_elf_open(path, &fd, &elf) < 0)
        return JITUNWIND_ENOTFOUND;
    rc = ju_elf_build_id_hex(elf, hex, size);
    ju_elf_close(fd, elf);
    return rc;
}

/* Does the file an entry names still hold the DWARF that answered? */
static int source_unchanged(const struct ju_dwarf_answers *a)
{
    char id[JU_BUILD_ID_HEX_MAX];
    struct stat st;
    return stat(a->source, &st) == 0 && S_ISREG(st.st_mode) &&
           (uint64_t)st.st_size == a->source_size &&
           file_build_id(a->source, id, sizeof id) == 0 && strcmp(id, a->source_id) == 0;
}

/* Set up the answers of elf_path's build under cache_dir: 1 when a valid
 * entry was found (the DWARF need not be opened), 0 when answers are to be
 * collected, ENOMEM. A file without a build id gets no cache. */
static int use_cache(struct jitunwind_dwarf_types *t, const char *elf_path, const char *cache_dir)
{
    char key[JU_BUILD_ID_HEX_MAX];
    if (file_build_id(elf_path, key, sizeof key) < 0 ||
        strlen(cache_dir) >= sizeof t->cache_dir)
        return 0;
    t->memo = malloc(sizeof *t->memo);
    if (!t->memo)
        return JITUNWIND_ENOMEM;
    ju_strlcpy(t->cache_dir, cache_dir, sizeof t->cache_dir);
    if (ju_dwarf_answers_load(t->memo, cache_dir, key) == 0 && source_unchanged(t->memo)) {
        ju_strlcpy(t->source, t->memo->source, sizeof t->source);
        return 1;
    }
    memset(t->memo, 0, sizeof *t->memo); /* absent, corrupt or stale: rewritten */
    ju_strlcpy(t->memo->key, key, sizeof t->memo->key);
    return 0;
}

/* After the DWARF was found: which file answers (t->file, open), for the
 * entry. */
static void note_source(struct jitunwind_dwarf_types *t)
{
    struct stat st;
    struct ju_dwarf_answers *a = t->memo;
    if (!a)
        return;
    if (fstat(t->file.fd, &st) < 0 ||
        ju_elf_build_id_hex(t->file.elf, a->source_id, sizeof a->source_id) < 0) {
        free(a); /* a file without a build id cannot be checked again */
        t->memo = NULL;
        return;
    }
    a->source_size = (uint64_t)st.st_size;
    ju_strlcpy(a->source, t->source, sizeof a->source);
}

JITUNWIND_API int jitunwind_dwarf_types_open_cached(jitunwind_dwarf_types **out,
                                                    const char *elf_path,
                                                    const char *cache_dir)
{
    struct jitunwind_dwarf_types *t;
    int rc = 0;
    if (!out)
        return JITUNWIND_EINVAL;
    if (!elf_path)
        return ju_constructed((void **)out, NULL, JITUNWIND_EINVAL, NULL);
    t = calloc(1, sizeof *t);
    if (!t)
        return ju_constructed((void **)out, NULL, JITUNWIND_ENOMEM, NULL);
    t->file.fd = -1;
    if (cache_dir && *cache_dir)
        rc = use_cache(t, elf_path, cache_dir);
    if (rc == 0 && (rc = open_types(t, elf_path)) == 0)
        note_source(t);
    if (rc < 0) {
        jitunwind_dwarf_types_free(t);
        t = NULL;
    }
    return ju_constructed((void **)out, t, rc < 0 ? rc : 0, NULL);
}

JITUNWIND_API int jitunwind_dwarf_types_open(jitunwind_dwarf_types **out, const char *elf_path)
{
    return jitunwind_dwarf_types_open_cached(out, elf_path, NULL);
}

JITUNWIND_API void jitunwind_dwarf_types_free(jitunwind_dwarf_types *t)
{
    if (!t)
        return;
    if (t->memo && t->dirty)
        (void)ju_dwarf_answers_save(t->memo, t->cache_dir); /* a cache: best effort */
    free(t->memo);
    close_dwarf(t);
    free(t);
}

int ju_dwarf_types_read_dwarf(const jitunwind_dwarf_types *t)
{
    return t && t->dwarf != NULL;
}

JITUNWIND_API const char *jitunwind_dwarf_types_source(const jitunwind_dwarf_types *t)
{
    return t ? t->source : NULL;
}

/* Follow typedef/const/volatile/atomic to the underlying type. */
static int strip_type(Dwarf_Die *die)
{
    int i;
    for (i = 0; i < MAX_TYPE_CHAIN; i++) {
        Dwarf_Attribute attr;
        int tag = dwarf_tag(die);
        if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
            tag != DW_TAG_atomic_type && tag != DW_TAG_restrict_type)
            return 0;
        if (!dwarf_attr_integrate(die, DW_AT_type, &attr) || !dwarf_formref_die(&attr, die))
            return JITUNWIND_ENOTFOUND;
    }
    return JITUNWIND_ELIMIT;
}

static int is_aggregate(Dwarf_Die *die)
{
    int tag = dwarf_tag(die);
    return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
           tag == DW_TAG_class_type;
}

/* Is `die` (a top-level DIE) the complete struct/union `name`, by tag name
 * or through a typedef? Then *out gets the aggregate. */
static int names_type(Dwarf_Die *die, const char *name, Dwarf_Die *out)
{
    int tag = dwarf_tag(die);
    const char *n;
    Dwarf_Die found = *die;
    if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type && tag != DW_TAG_typedef)
        return 0;
    n = dwarf_diename(die);
    if (!n || strcmp(n, name) != 0 || dwarf_hasattr(die, DW_AT_declaration))
        return 0;
    if (tag == DW_TAG_typedef && strip_type(&found) < 0)
        return 0;
    if (!is_aggregate(&found) || dwarf_hasattr(&found, DW_AT_declaration))
        return 0;
    *out = found;
    return 1;
}

/* Search the top-level DIEs of a unit, and of the partial units it imports
 * (dwz), one level deep. */
static int search_unit(Dwarf_Die *unit, const char *name, int imported, Dwarf_Die *out)
{
    Dwarf_Die child;
    int more;
    if (dwarf_child(unit, &child) != 0)
        return 0;
    for (more = 0; more == 0; more = dwarf_siblingof(&child, &child)) {
        if (names_type(&child, name, out))
            return 1;
        if (!imported && dwarf_tag(&child) == DW_TAG_imported_unit) {
            Dwarf_Attribute attr;
            Dwarf_Die partial;
            if (dwarf_attr(&child, DW_AT_import, &attr) && dwarf_formref_die(&attr, &partial) &&
                search_unit(&partial, name, 1, out))
                return 1;
        }
    }
    return 0;
}

/* The first complete struct/union named `name` in unit order, by a search
 * of every unit. */
static int scan_units(struct jitunwind_dwarf_types *t, const char *name, Dwarf_Die *out)
{
    Dwarf_Off off = 0, next;
    size_t hsize;
    while (dwarf_nextcu(t->dwarf, off, &next, &hsize, NULL, NULL, NULL) == 0) {
        Dwarf_Die cu;
        if (dwarf_offdie(t->dwarf, off + hsize, &cu) && search_unit(&cu, name, 0, out))
            return 1;
        off = next;
    }
    return 0;
}

/* A complete struct/union named `name` in any unit: the index's entry when
 * it is one (a typedef of a struct only declared there is not: the units
 * are searched then, as when the index could not be built). */
static int find_type(struct jitunwind_dwarf_types *t, const char *name, Dwarf_Die *out)
{
    Dwarf *owner;
    Dwarf_Off off;
    Dwarf_Die entry;
    if (strlen(name) >= NAME_MAX_LEN)
        return JITUNWIND_EINVAL;
    if (!t->index && !t->index_failed && ju_type_index_new(t->dwarf, &t->index) < 0)
        t->index_failed = 1;
    if (t->index) {
        int rc = ju_type_index_find(t->index, name, &owner, &off);
        if (rc == 0)
            return JITUNWIND_ENOTFOUND;
        if (rc > 0 && dwarf_offdie(owner, off, &entry) && names_type(&entry, name, out))
            return 0;
        if (rc < 0) { /* past a limit: every lookup searches the units */
            ju_type_index_free(t->index);
            t->index = NULL;
            t->index_failed = 1;
        }
    }
    return scan_units(t, name, out) ? 0 : JITUNWIND_ENOTFOUND;
}

/* A member's position in bits from the start of its aggregate. Bit-fields
 * (DW_AT_data_bit_offset, DWARF 4+) only when `bits_ok`; the older
 * DW_AT_bit_offset form is not supported. */
static int member_location(Dwarf_Die *member, int bits_ok, uint64_t *bits)
{
    Dwarf_Attribute attr;
    Dwarf_Word value;
    if (dwarf_hasattr(member, DW_AT_bit_size)) {
        if (!bits_ok || !dwarf_attr(member, DW_AT_data_bit_offset, &attr) ||
            dwarf_formudata(&attr, &value) != 0)
            return JITUNWIND_EUNSUPPORTED;
        *bits = value;
        return 0;
    }
    if (!dwarf_attr(member, DW_AT_data_member_location, &attr)) {
        *bits = 0; /* union members, and struct members at 0 in some producers */
        return 0;
    }
    if (dwarf_formudata(&attr, &value) != 0)
        return JITUNWIND_EUNSUPPORTED; /* a location expression */
    *bits = value * 8;
    return 0;
}

/* Find `name` among the members of aggregate `agg` (searching anonymous
 * members to MAX_ANON_DEPTH); *member gets the DIE, *bits its position. */
static int find_member(Dwarf_Die *agg, const char *name, size_t name_len, int depth, int bits_ok,
                       Dwarf_Die *member, uint64_t *bits)
{
    Dwarf_Die child;
    int more;
    if (dwarf_child(agg, &child) != 0)
        return JITUNWIND_ENOTFOUND;
    for (more = 0; more == 0; more = dwarf_siblingof(&child, &child)) {
        const char *n;
        uint64_t here;
        int rc;
        if (dwarf_tag(&child) != DW_TAG_member)
            continue;
        n = dwarf_diename(&child);
        if (n && strlen(n) == name_len && memcmp(n, name, name_len) == 0) {
            if ((rc = member_location(&child, bits_ok, &here)) < 0)
                return rc;
            *member = child;
            *bits = here;
            return 0;
        }
        if (!n && depth < MAX_ANON_DEPTH) {
            Dwarf_Attribute attr;
            Dwarf_Die type;
            uint64_t inner;
            if (!dwarf_attr_integrate(&child, DW_AT_type, &attr) ||
                !dwarf_formref_die(&attr, &type) || strip_type(&type) < 0 ||
                !is_aggregate(&type))
                continue;
            if (find_member(&type, name, name_len, depth + 1, bits_ok, member, &inner) == 0 &&
                member_location(&child, 0, &here) == 0) {
                *bits = here + inner;
                return 0;
            }
        }
    }
    return JITUNWIND_ENOTFOUND;
}

/* The position in bits of `member_path` (well formed: ask checks it) in
 * `type_name`; only the last member may be a bit-field, and only when
 * `bits_ok`. */
static int member_bits(jitunwind_dwarf_types *t, const char *type_name, const char *member_path,
                       int bits_ok, uint64_t *bits)
{
    Dwarf_Die agg, member;
    const char *part = member_path;
    uint64_t total = 0;
    int rc;
    if ((rc = find_type(t, type_name, &agg)) < 0)
        return rc;
    for (;;) {
        const char *dot = strchr(part, '.');
        size_t len = dot ? (size_t)(dot - part) : strlen(part);
        uint64_t here;
        Dwarf_Attribute attr;
        if ((rc = find_member(&agg, part, len, 0, bits_ok && !dot, &member, &here)) < 0)
            return rc;
        total += here;
        if (!dot)
            break;
        if (!dwarf_attr_integrate(&member, DW_AT_type, &attr) ||
            !dwarf_formref_die(&attr, &agg) || strip_type(&agg) < 0 || !is_aggregate(&agg))
            return JITUNWIND_ENOTFOUND;
        part = dot + 1;
    }
    *bits = total;
    return 0;
}

/* One query straight from the DWARF (opened now if a cache answered so
 * far). */
static int ask_dwarf(jitunwind_dwarf_types *t, int kind, const char *type_name,
                     const char *member_path, uint64_t *value)
{
    Dwarf_Die agg;
    Dwarf_Word bytes;
    uint64_t bits;
    int rc;
    if (!t->dwarf) {
        char source[sizeof t->source];
        ju_strlcpy(source, t->source, sizeof source);
        if ((rc = try_path(t, source)) < 0)
            return rc;
    }
    if (kind != JU_DWARF_TYPE_SIZE) {
        rc = member_bits(t, type_name, member_path, kind == JU_DWARF_MEMBER_BITS, &bits);
        if (rc == 0)
            *value = kind == JU_DWARF_MEMBER_BITS ? bits : bits / 8;
        return rc;
    }
    if ((rc = find_type(t, type_name, &agg)) < 0)
        return rc;
    if (dwarf_aggregate_size(&agg, &bytes) != 0)
        return JITUNWIND_EUNSUPPORTED;
    *value = bytes;
    return 0;
}

/* Is member_path well formed: 1 to MAX_PATH_PARTS non-empty names? */
static int path_well_formed(const char *path)
{
    int parts = 1;
    if (!*path || *path == '.')
        return 0;
    for (; *path; path++)
        if (*path == '.' && (path[1] == '.' || path[1] == 0 || ++parts > MAX_PATH_PARTS))
            return 0;
    return 1;
}

/* One query: the cached answer when there is one, else the DWARF's
 * (recorded when it is a fact of the file rather than of the arguments). */
static int ask(jitunwind_dwarf_types *t, int kind, const char *type_name,
               const char *member_path, uint64_t *value)
{
    const struct ju_dwarf_answer *x;
    uint64_t v = 0;
    int rc;
    if (!t || !type_name || !value || strlen(type_name) >= NAME_MAX_LEN ||
        (kind != JU_DWARF_TYPE_SIZE && (!member_path || !path_well_formed(member_path))))
        return JITUNWIND_EINVAL; /* said without the DWARF, so also when cached */
    if (t->memo && (x = ju_dwarf_answers_find(t->memo, kind, type_name, member_path))) {
        if (x->rc == 0)
            *value = x->value;
        return x->rc;
    }
    rc = ask_dwarf(t, kind, type_name, member_path, &v);
    if (t->memo && (rc == 0 || rc == JITUNWIND_ENOTFOUND || rc == JITUNWIND_EUNSUPPORTED ||
                    rc == JITUNWIND_ELIMIT)) {
        ju_dwarf_answers_add(t->memo, kind, type_name, member_path, rc, v);
        t->dirty = 1;
    }
    if (rc == 0)
        *value = v;
    return rc;
}

JITUNWIND_API int jitunwind_dwarf_member_offset(jitunwind_dwarf_types *t, const char *type_name,
                                                const char *member_path, uint64_t *offset)
{
    return ask(t, JU_DWARF_MEMBER_OFFSET, type_name, member_path, offset);
}

JITUNWIND_API int jitunwind_dwarf_member_bit_offset(jitunwind_dwarf_types *t,
                                                    const char *type_name,
                                                    const char *member_path, uint64_t *bit_offset)
{
    return ask(t, JU_DWARF_MEMBER_BITS, type_name, member_path, bit_offset);
}

JITUNWIND_API int jitunwind_dwarf_type_size(jitunwind_dwarf_types *t, const char *type_name,
                                            uint64_t *size)
{
    return ask(t, JU_DWARF_TYPE_SIZE, type_name, "", size);
}
