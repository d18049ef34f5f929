/* Struct layouts from DWARF: this test program is built with -g, so its own
 * structs are the oracle (offsetof), read from the executable itself and
 * from a separate debug file found through .gnu_debuglink. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jitunwind/dwarf.h"
#include "py_image.h"
#include "dwarf/dwarf_answers.h"
#include "dwarf/dwarf_name_absence.h"
#include "dwarf/dwarf_type_index.h"
#include "suite.h"
#include "elf/elf.h"

struct links_probe {
    void *next;
    void *previous;
};

typedef struct {
    unsigned char opcode;
    unsigned char valid : 1;
    unsigned char linked : 1;
    int index;
    struct links_probe links;
    const struct links_probe *code;
} vm_data_probe;

struct executor_probe {
    long ob_refcnt;
    void *ob_type;
    union {
        struct {
            int tag;
            double value;
        };
        char raw[24];
    };
    vm_data_probe vm_data;
    unsigned long jit_size;
    void *jit_code;
};

/* Referenced so the compiler keeps the types in the DWARF. */
struct executor_probe executor_probe_instance;

/* A "non-default build" of 3.12 whose thread state has one more word
 * before `interp` than the table says (16). */
typedef struct _ts {
    void *prev;
    void *next;
    void *extra;
    void *interp;
} PyThreadState;
PyThreadState thread_state_instance;

/* ... and whose str state keeps `interned` in a whole byte, as 3.14t does,
 * so kind/compact/ascii sit at bits 8, 11, 12 instead of 2, 5, 6. */
typedef struct {
    char ob_base[16];
    long length;
    long hash;
    struct {
        unsigned char interned;
        unsigned int kind : 3;
        unsigned int compact : 1;
        unsigned int ascii : 1;
    } state;
} PyASCIIObject;
PyASCIIObject ascii_object_instance;

/* A struct of a three-character name, which GCC writes inline in
 * .debug_info (DW_FORM_string) rather than in .debug_str, and which ends
 * no other string of this file. */
struct Qj7 {
    int q;
};
struct Qj7 short_named_instance;

static char self_path[4096];

static void find_self(void)
{
    ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    ck_assert_int_gt(n, 0);
    self_path[n] = 0;
}

static uint64_t offset_of(jitunwind_dwarf_types *t, const char *type, const char *path)
{
    uint64_t off = 0;
    int rc = jitunwind_dwarf_member_offset(t, type, path, &off);
    ck_assert_msg(rc == 0, "%s.%s: %s", type, path, jitunwind_strerror(rc));
    return off;
}

static void check_offsets(jitunwind_dwarf_types *t)
{
    uint64_t size = 0, off;
    ck_assert_uint_eq(offset_of(t, "executor_probe", "jit_code"),
                      offsetof(struct executor_probe, jit_code));
    ck_assert_uint_eq(offset_of(t, "executor_probe", "vm_data.links.previous"),
                      offsetof(struct executor_probe, vm_data.links.previous));
    ck_assert_uint_eq(offset_of(t, "executor_probe", "vm_data.code"),
                      offsetof(struct executor_probe, vm_data.code));
    /* A member of an anonymous struct inside an anonymous union. */
    ck_assert_uint_eq(offset_of(t, "executor_probe", "value"),
                      offsetof(struct executor_probe, value));
    /* Through a typedef of an anonymous struct. */
    ck_assert_uint_eq(offset_of(t, "vm_data_probe", "index"), offsetof(vm_data_probe, index));
    ck_assert_int_eq(jitunwind_dwarf_type_size(t, "executor_probe", &size), 0);
    ck_assert_uint_eq(size, sizeof(struct executor_probe));
    ck_assert_int_eq(jitunwind_dwarf_member_offset(t, "executor_probe", "vm_data.valid", &off),
                     JITUNWIND_EUNSUPPORTED); /* a bit-field has no byte offset */
    /* ... but a bit offset, which the compiler's own placement confirms. */
    {
        union {
            struct executor_probe e;
            unsigned char bytes[sizeof(struct executor_probe)];
        } u;
        uint64_t bit, want = 0;
        size_t i;
        memset(&u, 0, sizeof u);
        u.e.vm_data.linked = 1;
        for (i = 0; i < sizeof u.bytes * 8; i++)
            if (u.bytes[i / 8] & (1u << (i % 8)))
                want = i;
        ck_assert_int_eq(jitunwind_dwarf_member_bit_offset(t, "executor_probe", "vm_data.linked",
                                                           &bit), 0);
        ck_assert_uint_eq(bit, want);
        ck_assert_int_eq(jitunwind_dwarf_member_bit_offset(t, "executor_probe", "jit_code", &bit),
                         0);
        ck_assert_uint_eq(bit, offsetof(struct executor_probe, jit_code) * 8);
    }
    ck_assert_int_eq(jitunwind_dwarf_member_offset(t, "executor_probe", "no_such", &off),
                     JITUNWIND_ENOTFOUND);
    ck_assert_int_eq(jitunwind_dwarf_member_offset(t, "executor_probe", "jit_code.x", &off),
                     JITUNWIND_ENOTFOUND); /* not an aggregate */
    ck_assert_int_eq(jitunwind_dwarf_member_offset(t, "no_such_type", "x", &off),
                     JITUNWIND_ENOTFOUND);
    ck_assert_int_eq(jitunwind_dwarf_member_offset(t, "no_such_type", "x", &off),
                     JITUNWIND_ENOTFOUND); /* the cached miss */
    ck_assert_int_eq(jitunwind_dwarf_member_offset(t, "executor_probe", "vm_data..code", &off),
                     JITUNWIND_EINVAL);
}

START_TEST(offsets_match_the_compiler)
{
    jitunwind_dwarf_types *t;
    find_self();
    ck_assert_int_eq(jitunwind_dwarf_types_open(&t, self_path), 0);
    ck_assert_str_eq(jitunwind_dwarf_types_source(t), self_path);
    check_offsets(t);
    check_offsets(t); /* again, from the cache */
    jitunwind_dwarf_types_free(t);
}
END_TEST

static int run(const char *cmd)
{
    int rc = system(cmd);
    return rc == 0 ? 0 : -1;
}

/* The one entry under dir: its path into out. */
static void entry_path(const char *dir, char *out, size_t size)
{
    char key[JU_BUILD_ID_HEX_MAX], cmd[600];
    FILE *ls;
    snprintf(cmd, sizeof cmd, "ls %s | grep '^dwarf-' | sed 's/^dwarf-//'", dir);
    ls = popen(cmd, "r");
    ck_assert_ptr_nonnull(ls);
    ck_assert_ptr_nonnull(fgets(key, sizeof key, ls));
    pclose(ls);
    key[strcspn(key, "\n")] = 0;
    ck_assert_int_eq(ju_dwarf_answers_file(out, size, dir, key), 0);
}

/* Open self with the cache, check every answer against the compiler, and
 * say whether the DWARF itself had to be read. */
static int cached_run(const char *dir)
{
    jitunwind_dwarf_types *t = NULL;
    int read_dwarf;
    ck_assert_int_eq(jitunwind_dwarf_types_open_cached(&t, self_path, dir), 0);
    ck_assert_str_eq(jitunwind_dwarf_types_source(t), self_path);
    check_offsets(t);
    read_dwarf = ju_dwarf_types_read_dwarf(t);
    jitunwind_dwarf_types_free(t);
    return read_dwarf;
}

START_TEST(answers_cached_between_runs)
{
    char top[] = "/tmp/ju-dwarf-cache-XXXXXX", dir[128], file[1200], cmd[1400];
    struct ju_dwarf_answers *a = malloc(sizeof *a);
    jitunwind_dwarf_types *t = NULL;
    uint64_t off = 0;
    FILE *f;
    find_self();
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(mkdtemp(top));
    snprintf(dir, sizeof dir, "%s/made/by/us", top); /* created on the way */
    ck_assert_int_eq(cached_run(dir), 1);             /* cold: from the DWARF */
    entry_path(dir, file, sizeof file);
    ck_assert_int_eq(cached_run(dir), 0); /* warm: the same answers, no DWARF read */
    /* A query the entry lacks opens the DWARF, and the entry then has it. */
    ck_assert_int_eq(jitunwind_dwarf_types_open_cached(&t, self_path, dir), 0);
    ck_assert_int_eq(jitunwind_dwarf_member_offset(t, "vm_data_probe", "code", &off), 0);
    ck_assert_uint_eq(off, offsetof(vm_data_probe, code));
    ck_assert_int_eq(ju_dwarf_types_read_dwarf(t), 1);
    jitunwind_dwarf_types_free(t);
    ck_assert_int_eq(jitunwind_dwarf_types_open_cached(&t, self_path, dir), 0);
    ck_assert_int_eq(jitunwind_dwarf_member_offset(t, "vm_data_probe", "code", &off), 0);
    ck_assert_uint_eq(off, offsetof(vm_data_probe, code));
    ck_assert_int_eq(ju_dwarf_types_read_dwarf(t), 0);
    jitunwind_dwarf_types_free(t);
    /* A damaged entry (one answer's digit changed) is not used, and is rewritten. */
    snprintf(cmd, sizeof cmd, "sed -i '0,/^answer 1 0 /s/^answer 1 0 \\([0-9]\\)/answer 1 0 9\\1/' %s",
             file);
    ck_assert_int_eq(run(cmd), 0);
    ck_assert_int_eq(ju_dwarf_answers_load(a, dir, strrchr(file, '-') + 1), JITUNWIND_ECORRUPT);
    ck_assert_int_eq(cached_run(dir), 1);
    ck_assert_int_eq(ju_dwarf_answers_load(a, dir, strrchr(file, '-') + 1), 0);
    ck_assert_int_eq(cached_run(dir), 0);
    /* A whole entry whose debug file has since changed (its size here) is stale. */
    a->source_size++;
    ck_assert_int_eq(ju_dwarf_answers_save(a, dir), 0);
    ck_assert_int_eq(cached_run(dir), 1);
    ck_assert_int_eq(cached_run(dir), 0);
    /* Truncated: not used, rewritten. */
    ck_assert_int_eq(truncate(file, 100), 0);
    ck_assert_int_eq(cached_run(dir), 1);
    ck_assert_int_eq(cached_run(dir), 0);
    /* No cache directory: nothing written. */
    snprintf(cmd, sizeof cmd, "rm -rf %s/made", top);
    ck_assert_int_eq(run(cmd), 0);
    ck_assert_int_eq(jitunwind_dwarf_types_open_cached(&t, self_path, NULL), 0);
    check_offsets(t);
    jitunwind_dwarf_types_free(t);
    f = fopen(file, "r");
    ck_assert_ptr_null(f);
    snprintf(cmd, sizeof cmd, "rm -rf %s", top);
    run(cmd);
    free(a);
}
END_TEST

START_TEST(separate_debug_file_through_debuglink)
{
    char dir[] = "/tmp/ju-dwarf-XXXXXX", cmd[16384], bin[256], dbg[256];
    jitunwind_dwarf_types *t = NULL;
    find_self();
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(bin, sizeof bin, "%s/prog", dir);
    snprintf(dbg, sizeof dbg, "%s/prog.debug", dir);
    snprintf(cmd, sizeof cmd,
             "cd %s && objcopy --only-keep-debug '%s' prog.debug && "
             "objcopy --strip-debug --remove-section=.note.gnu.build-id "
             "--add-gnu-debuglink=prog.debug '%s' prog",
             dir, self_path, self_path);
    ck_assert_msg(run(cmd) == 0, "objcopy failed");
    ck_assert_int_eq(jitunwind_dwarf_types_open(&t, bin), 0);
    ck_assert_str_eq(jitunwind_dwarf_types_source(t), dbg);
    check_offsets(t);
    jitunwind_dwarf_types_free(t);
    /* Without the debug file: no DWARF, said clearly. */
    ck_assert_int_eq(unlink(dbg), 0);
    ck_assert_int_eq(jitunwind_dwarf_types_open(&t, bin), JITUNWIND_ENOTFOUND);
    ck_assert_ptr_null(t);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    run(cmd);
}
END_TEST

/* The header of section `name` of `elf`. */
static GElf_Shdr section_header(Elf *elf, const char *name)
{
    size_t strndx;
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    ck_assert_int_eq(elf_getshdrstrndx(elf, &strndx), 0);
    while ((scn = elf_nextscn(elf, scn))) {
        const char *n;
        ck_assert_ptr_nonnull(gelf_getshdr(scn, &sh));
        n = elf_strptr(elf, strndx, sh.sh_name);
        if (n && strcmp(n, name) == 0)
            return sh;
    }
    ck_abort_msg("no section %s", name);
    return sh;
}

/* The type and the flags of section `name` in the ELF a types-only open
 * gives. */
static GElf_Word section_type(Elf *elf, const char *name)
{
    return section_header(elf, name).sh_type;
}

static GElf_Xword section_flags(Elf *elf, const char *name)
{
    return section_header(elf, name).sh_flags;
}

/* The header of section `name` in the ELF file at path (read plainly). */
static void file_section(const char *path, const char *name, GElf_Shdr *out)
{
    int fd = open(path, O_RDONLY);
    Elf *elf;
    ck_assert_int_ge(fd, 0);
    ck_assert_uint_ne(elf_version(EV_CURRENT), EV_NONE);
    ck_assert_ptr_nonnull(elf = elf_begin(fd, ELF_C_READ, NULL));
    *out = section_header(elf, name);
    elf_end(elf);
    close(fd);
}

/* zlib's stream of "abc". */
static const uint8_t ABC_STREAM[] = {0x78, 0x9c, 0x4b, 0x4c, 0x4a, 0x06,
                                     0x00, 0x02, 0x4d, 0x01, 0x27};

/* Whether this build inflates compressed sections itself (libdeflate). */
static int inflates_itself(void)
{
    uint8_t out[3];
    return ju_zlib_inflate(ABC_STREAM, sizeof ABC_STREAM, out, sizeof out) !=
           JITUNWIND_EUNSUPPORTED;
}

/* A distribution-style separate debug file (zlib-compressed sections): the
 * sections a type lookup never reads are hidden from libdw, which would
 * inflate them; the answers are the compiler's. A file naming a dwz
 * alternate (libdw finds it only through a descriptor) and one whose
 * section headers cannot be trusted are opened as they are. */
START_TEST(a_compressed_debug_file_is_read_for_types_only)
{
    char dir[] = "/tmp/ju-dwarf-z-XXXXXX", cmd[16384], path[256];
    struct ju_types_elf f;
    jitunwind_dwarf_types *t = NULL;
    uint16_t bad_index = 0xfff0;
    int fd;
    find_self();
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cmd, sizeof cmd,
             "cd %s && objcopy --only-keep-debug --compress-debug-sections=zlib '%s' prog.debug && "
             "objcopy --strip-debug --remove-section=.note.gnu.build-id "
             "--add-gnu-debuglink=prog.debug '%s' prog && printf 'alt.debug\\0%%020d' 0 > alt && "
             "objcopy --add-section .gnu_debugaltlink=alt prog.debug with-alt.debug && "
             "cp prog.debug bad-headers.debug",
             dir, self_path, self_path);
    ck_assert_msg(run(cmd) == 0, "objcopy failed");
    snprintf(path, sizeof path, "%s/prog.debug", dir);
    ck_assert_int_eq(ju_elf_open_for_types(path, &f), 0);
    ck_assert_ptr_nonnull(f.map);
    ck_assert_uint_eq(section_type(f.elf, ".debug_line"), SHT_NOBITS);
    ck_assert_uint_eq(section_type(f.elf, ".debug_info"), SHT_PROGBITS);
    ck_assert_uint_eq(section_type(f.elf, ".debug_abbrev"), SHT_PROGBITS);
    if (inflates_itself()) { /* libdw finds them inflated: info, abbrev, str at least */
        ck_assert_uint_ge(f.inflated, 3);
        ck_assert_uint_eq(section_flags(f.elf, ".debug_info") & SHF_COMPRESSED, 0);
        ck_assert_uint_eq(section_flags(f.elf, ".debug_abbrev") & SHF_COMPRESSED, 0);
    }
    ju_elf_close_for_types(&f);
    ck_assert_int_eq(f.fd, -1);
    snprintf(path, sizeof path, "%s/prog", dir);
    ck_assert_int_eq(jitunwind_dwarf_types_open(&t, path), 0);
    ck_assert_ptr_nonnull(strstr(jitunwind_dwarf_types_source(t), "/prog.debug"));
    check_offsets(t);
    jitunwind_dwarf_types_free(t);
    snprintf(path, sizeof path, "%s/with-alt.debug", dir);
    ck_assert_int_eq(ju_elf_open_for_types(path, &f), 0);
    ck_assert_ptr_null(f.map);
    ck_assert_uint_eq(section_type(f.elf, ".debug_line"), SHT_PROGBITS);
    ju_elf_close_for_types(&f);
    ck_assert_int_eq(jitunwind_dwarf_types_open(&t, path), 0);
    check_offsets(t);
    jitunwind_dwarf_types_free(t);
    /* e_shstrndx past the section headers */
    snprintf(path, sizeof path, "%s/bad-headers.debug", dir);
    fd = open(path, O_WRONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(pwrite(fd, &bad_index, 2, offsetof(Elf64_Ehdr, e_shstrndx)), 2);
    close(fd);
    ck_assert_int_eq(ju_elf_open_for_types(path, &f), 0);
    ck_assert_ptr_null(f.map);
    ju_elf_close_for_types(&f);
    ck_assert_int_ne(jitunwind_dwarf_types_open(&t, path), 0);
    ck_assert_ptr_null(t);
    ck_assert_int_eq(ju_elf_open_for_types("/nonexistent/file", &f), JITUNWIND_EIO);
    ck_assert_int_eq(f.fd, -1);
    ju_elf_close_for_types(&f);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    run(cmd);
}
END_TEST

/* The index keeps the first typedef of a name, here one of a struct its
 * unit only declares: the lookup then searches on to the unit that defines
 * it, as it did without the index. */
START_TEST(a_typedef_first_seen_incomplete_is_found_complete)
{
    struct ju_types_elf f;
    struct ju_type_index *index;
    Dwarf *dwarf, *owner;
    Dwarf_Off off;
    Dwarf_Die die, type;
    Dwarf_Attribute attr;
    jitunwind_dwarf_types *t = NULL;
    uint64_t value = 0;
    ck_assert_int_eq(ju_elf_open_for_types(INCOMPLETE_FIRST_DWARF, &f), 0);
    ck_assert_ptr_nonnull(dwarf = dwarf_begin_elf(f.elf, DWARF_C_READ, NULL));
    ck_assert_int_eq(ju_type_index_new(dwarf, &index), 0);
    ck_assert_int_eq(ju_type_index_find(index, "two_unit_probe_t", &owner, &off), 1);
    ck_assert_ptr_nonnull(dwarf_offdie(owner, off, &die));
    ck_assert_ptr_nonnull(dwarf_attr(&die, DW_AT_type, &attr));
    ck_assert_ptr_nonnull(dwarf_formref_die(&attr, &type));
    ck_assert_msg(dwarf_hasattr(&type, DW_AT_declaration), "the first unit's typedef is not first");
    ck_assert_int_eq(ju_type_index_find(index, "no_such_type", &owner, &off), 0);
    ju_type_index_free(index);
    dwarf_end(dwarf);
    ju_elf_close_for_types(&f);
    ck_assert_int_eq(jitunwind_dwarf_types_open(&t, INCOMPLETE_FIRST_DWARF), 0);
    ck_assert_int_eq(jitunwind_dwarf_member_offset(t, "two_unit_probe_t", "b", &value), 0);
    ck_assert_uint_eq(value, offsetof(struct { int a; long b; }, b));
    ck_assert_int_eq(jitunwind_dwarf_type_size(t, "two_unit_probe_t", &value), 0);
    ck_assert_uint_eq(value, sizeof(struct { int a; long b; }));
    jitunwind_dwarf_types_free(t);
}
END_TEST

START_TEST(a_zlib_stream_inflates_whole_or_not_at_all)
{
    uint8_t out[8], bad[sizeof ABC_STREAM];
    if (!inflates_itself()) {
        printf("built without libdeflate: compressed sections are left to libelf\n");
        return;
    }
    ck_assert_int_eq(ju_zlib_inflate(ABC_STREAM, sizeof ABC_STREAM, out, 3), 0);
    ck_assert_int_eq(memcmp(out, "abc", 3), 0);
    /* The size a section header gives must be the stream's, exactly. */
    ck_assert_int_eq(ju_zlib_inflate(ABC_STREAM, sizeof ABC_STREAM, out, 2), JITUNWIND_ECORRUPT);
    ck_assert_int_eq(ju_zlib_inflate(ABC_STREAM, sizeof ABC_STREAM, out, 4), JITUNWIND_ECORRUPT);
    /* Cut short (no checksum), cut to its header, a wrong checksum, nothing. */
    ck_assert_int_eq(ju_zlib_inflate(ABC_STREAM, sizeof ABC_STREAM - 4, out, 3),
                     JITUNWIND_ECORRUPT);
    ck_assert_int_eq(ju_zlib_inflate(ABC_STREAM, 2, out, 3), JITUNWIND_ECORRUPT);
    memcpy(bad, ABC_STREAM, sizeof bad);
    bad[sizeof bad - 1] ^= 1;
    ck_assert_int_eq(ju_zlib_inflate(bad, sizeof bad, out, 3), JITUNWIND_ECORRUPT);
    ck_assert_int_eq(ju_zlib_inflate(ABC_STREAM, 0, out, 3), JITUNWIND_ECORRUPT);
}
END_TEST

/* Damage at `at` in the debug file at path: `len` bytes of `byte`. */
static void damage(const char *path, uint64_t at, const void *bytes, size_t len)
{
    int fd = open(path, O_WRONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(pwrite(fd, bytes, len, (off_t)at), (ssize_t)len);
    close(fd);
}

/* A compressed .debug_info that does not inflate (garbage inside the
 * stream, or a header claiming more than it holds) is left as it is to
 * libelf, which refuses it as it did before the reader inflated sections:
 * the file gives no DWARF, a clear error, and no crash. */
START_TEST(a_corrupt_compressed_section_is_refused)
{
    char dir[] = "/tmp/ju-dwarf-zbad-XXXXXX", cmd[16384], garbled[256], lying[256];
    uint8_t junk[64];
    struct ju_types_elf f;
    jitunwind_dwarf_types *t = (jitunwind_dwarf_types *)1;
    GElf_Shdr sh;
    Elf64_Chdr ch;
    int fd;
    find_self();
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cmd, sizeof cmd,
             "cd %s && objcopy --only-keep-debug --compress-debug-sections=zlib '%s' garbled.debug"
             " && cp garbled.debug lying.debug",
             dir, self_path);
    ck_assert_msg(run(cmd) == 0, "objcopy failed");
    snprintf(garbled, sizeof garbled, "%s/garbled.debug", dir);
    snprintf(lying, sizeof lying, "%s/lying.debug", dir);
    file_section(garbled, ".debug_info", &sh);
    ck_assert_uint_ne(sh.sh_flags & SHF_COMPRESSED, 0);
    memset(junk, 0xa5, sizeof junk);
    damage(garbled, sh.sh_offset + sizeof ch + (sh.sh_size - sizeof ch) / 2, junk, sizeof junk);
    fd = open(lying, O_RDONLY);
    ck_assert_int_eq(pread(fd, &ch, sizeof ch, (off_t)sh.sh_offset), (ssize_t)sizeof ch);
    close(fd);
    ch.ch_size += 4096;
    damage(lying, sh.sh_offset, &ch, sizeof ch);
    for (int i = 0; i < 2; i++) {
        const char *path = i ? lying : garbled;
        ck_assert_int_eq(ju_elf_open_for_types(path, &f), 0);
        ck_assert_ptr_nonnull(f.map);
        ck_assert_uint_ne(section_flags(f.elf, ".debug_info") & SHF_COMPRESSED, 0);
        if (inflates_itself()) /* the others were: abbrev, str */
            ck_assert_uint_ge(f.inflated, 2);
        ju_elf_close_for_types(&f);
        ck_assert_int_eq(jitunwind_dwarf_types_open(&t, path), JITUNWIND_ENOTFOUND);
        ck_assert_ptr_null(t);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    run(cmd);
}
END_TEST

/* The two-unit library compressed as a distribution would: the typedef
 * first seen incomplete is found complete in the second unit, from the
 * sections this reader inflated. */
START_TEST(a_compressed_file_answers_as_the_plain_one)
{
    char dir[] = "/tmp/ju-dwarf-z2-XXXXXX", cmd[4096], path[256];
    jitunwind_dwarf_types *t = NULL;
    struct ju_types_elf f;
    uint64_t value = 0;
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "objcopy --compress-debug-sections=zlib '%s' %s/two-units.so",
             INCOMPLETE_FIRST_DWARF, dir);
    ck_assert_msg(run(cmd) == 0, "objcopy failed");
    snprintf(path, sizeof path, "%s/two-units.so", dir);
    ck_assert_int_eq(ju_elf_open_for_types(path, &f), 0);
    if (inflates_itself())
        ck_assert_uint_eq(section_flags(f.elf, ".debug_info") & SHF_COMPRESSED, 0);
    ju_elf_close_for_types(&f);
    ck_assert_int_eq(jitunwind_dwarf_types_open(&t, path), 0);
    ck_assert_int_eq(jitunwind_dwarf_member_offset(t, "two_unit_probe_t", "b", &value), 0);
    ck_assert_uint_eq(value, offsetof(struct { int a; long b; }, b));
    ck_assert_int_eq(jitunwind_dwarf_type_size(t, "two_unit_probe_t", &value), 0);
    ck_assert_uint_eq(value, sizeof(struct { int a; long b; }));
    ck_assert_int_eq(jitunwind_dwarf_type_size(t, "no_such_type", &value), JITUNWIND_ENOTFOUND);
    jitunwind_dwarf_types_free(t);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    run(cmd);
}
END_TEST

/* A name no unit has is said absent from the sections' bytes, without a
 * walk of the units; a name the file has, as a type named inline in
 * .debug_info (`Qj7`), through .debug_str, or as a member, is not. */
START_TEST(a_type_no_unit_has_is_proven_absent)
{
    struct ju_types_elf f;
    struct ju_name_absence proof = {0};
    Dwarf *dwarf;
    jitunwind_dwarf_types *t = NULL;
    uint64_t value;
    find_self();
    ck_assert_int_eq(ju_elf_open_for_types(self_path, &f), 0);
    ck_assert_ptr_nonnull(dwarf = dwarf_begin_elf(f.elf, DWARF_C_READ, NULL));
    ck_assert_int_eq(ju_dwarf_name_absent(dwarf, &proof, "no_such_probe_anywhere"), 1);
    ck_assert_int_eq(proof.state, 1);
    ck_assert_int_eq(ju_dwarf_name_absent(dwarf, &proof, "executor_probe"), 0);
    ck_assert_int_eq(ju_dwarf_name_absent(dwarf, &proof, "Qj7"), 0);
    ck_assert_int_eq(ju_dwarf_name_absent(dwarf, &proof, "jit_code"), 0);
    ck_assert_int_eq(ju_dwarf_name_absent(dwarf, &proof, "no_such_probe_anywhere"), 1);
    dwarf_end(dwarf);
    ju_elf_close_for_types(&f);
    ck_assert_int_eq(jitunwind_dwarf_types_open(&t, self_path), 0);
    ck_assert_int_eq(jitunwind_dwarf_type_size(t, "no_such_probe_anywhere", &value),
                     JITUNWIND_ENOTFOUND);
    ck_assert_int_eq(jitunwind_dwarf_type_size(t, "no_such_probe_anywhere", &value),
                     JITUNWIND_ENOTFOUND); /* kept absent */
    ck_assert_int_eq(jitunwind_dwarf_member_offset(t, "PyThreadState", "interp", &value), 0);
    ck_assert_uint_eq(value, offsetof(PyThreadState, interp));
    ck_assert_int_eq(jitunwind_dwarf_type_size(t, "Qj7", &value), 0);
    ck_assert_uint_eq(value, sizeof(struct Qj7));
    jitunwind_dwarf_types_free(t);
}
END_TEST

/* Of the three units, the one without types (no_types.c) is the one whose
 * abbreviations say none of its DIEs can be a type. */
static void check_units_that_may_name_types(Dwarf *dwarf)
{
    struct ju_name_absence memo = {0};
    Dwarf_Off off = 0, next, table;
    size_t hsize;
    int units = 0, without = 0;
    while (dwarf_nextcu(dwarf, off, &next, &hsize, &table, NULL, NULL) == 0) {
        Dwarf_Die cu;
        const char *name;
        int may;
        ck_assert_ptr_nonnull(dwarf_offdie(dwarf, off + hsize, &cu));
        ck_assert_ptr_nonnull(name = dwarf_diename(&cu));
        may = ju_dwarf_table_may_name_types(dwarf, &memo, table);
        ck_assert_int_eq(may, strstr(name, "no_types.c") == NULL);
        without += !may;
        units++;
        off = next;
    }
    ck_assert_int_eq(units, 3);
    ck_assert_int_eq(without, 1);
    ck_assert_int_eq(ju_dwarf_table_may_name_types(dwarf, &memo, (Dwarf_Off)1 << 40), 1);
}

/* The index walks units only as far as a name needs: the typedef of the
 * first unit is found before the second is indexed, the struct of the
 * second after; a name only declared is in the strings, so every unit is
 * walked to say no unit defines it, but not the unit without types; the
 * same file built by clang (names through .debug_str_offsets, DW_FORM_strx)
 * answers alike. */
START_TEST(the_index_walks_units_as_far_as_a_name_needs)
{
    char dir[] = "/tmp/ju-dwarf-idx-XXXXXX", cmd[4096], path[256];
    const char *files[2] = {INCOMPLETE_FIRST_DWARF, path};
    int i;
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/clang-two-units.so", dir);
    snprintf(cmd, sizeof cmd,
             "clang-19 -g -gdwarf-5 -shared -fPIC -o %s %s/shapes/incomplete_first.c "
             "%s/shapes/complete_second.c %s/shapes/no_types.c 2>/dev/null",
             path, UNIT_SOURCE_DIR, UNIT_SOURCE_DIR, UNIT_SOURCE_DIR);
    if (run(cmd) != 0) {
        printf("clang-19 not found: the strx case is not checked\n");
        files[1] = NULL;
    }
    for (i = 0; i < 2 && files[i]; i++) {
        struct ju_types_elf f;
        struct ju_type_index *index;
        Dwarf *dwarf, *owner;
        Dwarf_Off off, first_off;
        jitunwind_dwarf_types *t = NULL;
        uint64_t value;
        ck_assert_int_eq(ju_elf_open_for_types(files[i], &f), 0);
        ck_assert_ptr_nonnull(dwarf = dwarf_begin_elf(f.elf, DWARF_C_READ, NULL));
        ck_assert_int_eq(ju_type_index_new(dwarf, &index), 0);
        ck_assert_int_eq(ju_type_index_find(index, "two_unit_probe_t", &owner, &off), 1);
        ck_assert_int_eq(dwarf_nextcu(dwarf, 0, &first_off, NULL, NULL, NULL, NULL), 0);
        ck_assert_uint_lt(off, first_off); /* the first unit's typedef */
        ck_assert_int_eq(ju_type_index_find(index, "two_unit_probe", &owner, &off), 1);
        ck_assert_uint_gt(off, first_off); /* the second unit's struct */
        ck_assert_int_eq(ju_type_index_find(index, "only_declared_probe", &owner, &off), 0);
        ck_assert_int_eq(ju_type_index_find(index, "no_such_probe_anywhere", &owner, &off), 0);
        ju_type_index_free(index);
        check_units_that_may_name_types(dwarf);
        dwarf_end(dwarf);
        ju_elf_close_for_types(&f);
        ck_assert_int_eq(jitunwind_dwarf_types_open(&t, files[i]), 0);
        ck_assert_int_eq(jitunwind_dwarf_type_size(t, "only_declared_probe", &value),
                         JITUNWIND_ENOTFOUND);
        ck_assert_int_eq(jitunwind_dwarf_member_offset(t, "two_unit_probe_t", "b", &value), 0);
        ck_assert_uint_eq(value, offsetof(struct { int a; long b; }, b));
        jitunwind_dwarf_types_free(t);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    run(cmd);
}
END_TEST

START_TEST(bad_files)
{
    char path[] = "/tmp/ju-dwarf-garbage-XXXXXX";
    jitunwind_dwarf_types *t = (jitunwind_dwarf_types *)1;
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "not an ELF file at all\n", 23), 23);
    close(fd);
    ck_assert_int_eq(jitunwind_dwarf_types_open(&t, path), JITUNWIND_EELF);
    ck_assert_ptr_null(t);
    ck_assert_int_eq(jitunwind_dwarf_types_open(&t, "/nonexistent/file"), JITUNWIND_EIO);
    ck_assert_int_eq(jitunwind_dwarf_types_open(&t, NULL), JITUNWIND_EINVAL);
    unlink(path);
    jitunwind_dwarf_types_free(NULL);
}
END_TEST

START_TEST(a_build_that_differs_from_the_table_is_read_with_its_dwarf)
{
    struct py_image p;
    struct jitunwind_memory mem;
    struct jitunwind_py_thread threads[2];
    struct jitunwind_py_dwarf_report rep;
    jitunwind_pyreader *r;
    uint64_t interp;
    size_t n;
    struct jitunwind_py_frame f[2];
    uint64_t frame;
    find_self();
    pyi_init(&p, 0x030c01f0);
    p.layout.ts_interp = offsetof(PyThreadState, interp); /* how this build lays it out */
    p.layout.st_kind_shift = 8;
    p.layout.st_compact_bit = 11;
    p.layout.st_ascii_bit = 12;
    interp = pyi_interp(&p, 0, 0);
    frame = pyi_frame(&p, pyi_code(&p, "runner", "/r.py", 7, 4), 0, 1, 0, 0);
    pyi_thread(&p, interp, frame, 42);
    pyi_set_interpreters(&p, interp);
    mem = ju_builder_memory(p.b);
    /* The table alone misreads it, and says so. */
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, 0x030c01f0,
                                             NULL), JITUNWIND_EVERSION);
    ck_assert_ptr_nonnull(strstr(jitunwind_pyreader_last_error(r)->message, "non-default"));
    jitunwind_pyreader_free(r);
    /* With the build's DWARF the member is found where it is. */
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, 0x030c01f0,
                                             JITUNWIND_PYREADER_OPTS(.module = self_path)),
                     0);
    ck_assert_int_eq(jitunwind_pyreader_dwarf_report(r, &rep), 0);
    ck_assert_uint_eq(rep.mismatches, 4); /* the thread state's interp and three state bits */
    ck_assert_uint_eq(rep.adopted, 4);
    ck_assert_ptr_nonnull(strstr(rep.first_mismatch, "PyThreadState.interp"));
    /* named in the wording every table's report uses */
    ck_assert_msg(strncmp(rep.first_mismatch, "PyThreadState.interp: table ", 28) == 0 &&
                      strstr(rep.first_mismatch, ", DWARF "),
                  "%s", rep.first_mismatch);
    ck_assert_int_eq(jitunwind_pyreader_threads(r, threads, 2, &n), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(threads[0].native_thread_id, 42);
    ck_assert_int_eq(jitunwind_pyreader_frames(r, threads[0].current_frame, f, 2, &n), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(f[0].qualname, "runner"); /* the str bits came from DWARF */
    ck_assert_str_eq(f[0].filename, "/r.py");
    ck_assert_int_eq(f[0].line, 8);
    jitunwind_pyreader_free(r);
    pyi_free(&p);
}
END_TEST

int main(void)
{
    return ju_run_tests("dwarf", JU_TESTS(offsets_match_the_compiler,
                                           answers_cached_between_runs,
                                           separate_debug_file_through_debuglink,
                                           a_compressed_debug_file_is_read_for_types_only,
                                           a_zlib_stream_inflates_whole_or_not_at_all,
                                           a_corrupt_compressed_section_is_refused,
                                           a_compressed_file_answers_as_the_plain_one,
                                           a_typedef_first_seen_incomplete_is_found_complete,
                                           a_type_no_unit_has_is_proven_absent,
                                           the_index_walks_units_as_far_as_a_name_needs,
                                           bad_files,
                                           a_build_that_differs_from_the_table_is_read_with_its_dwarf));
}
