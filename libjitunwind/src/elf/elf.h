/* ELF files on the host, read with libelf: symbols and data
 * (elf_symbols.c), separate debug files (debug_files.c, debuginfod.c),
 * files opened for DWARF type lookups (types_only_elf.c, zlib_inflate.c)
 * and core files (modules.c). Not installed. */
#ifndef JITUNWIND_ELF_ELF_H
#define JITUNWIND_ELF_ELF_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

/* Copy `len` bytes of initialised data at virtual address `vaddr` of the
 * ELF file at `path` (ENOTFOUND if no PROGBITS section holds them). */
JU_HIDDEN int ju_elf_read_vaddr(const char *path, uint64_t vaddr, void *dst, size_t len);

/* An ELF file on the host opened for reading with libelf: 0, or EIO (cannot
 * open) / EELF (not ELF), with nothing left open. Close with ju_elf_close
 * (fd < 0 and a NULL elf are ignored). */
JU_HIDDEN int ju_elf_open(const char *path, int *fd, Elf **elf);
/* The architecture an ELF file is for (enum jitunwind_arch), or 0 when it
 * cannot be read or is for another one. */
JU_HIDDEN int ju_elf_arch(const char *path);
/* Each defined symbol of an ELF file: its .symtab, its .dynsym, then, when
 * it has no .symtab (stripped), its separate debug file's .symtab (same
 * virtual addresses; `flags`: ju_debug_file_find's), passed to `each`
 * (name valid during the call) until
 * it returns nonzero, which is returned; 0 when every symbol was seen;
 * EIO / EELF when the file cannot be read. `each` returns 0 or 1. */
typedef int (*ju_symbol_fn)(void *arg, const char *name, const GElf_Sym *sym);
JU_HIDDEN int ju_elf_each_symbol(const char *path, unsigned flags, ju_symbol_fn each, void *arg);
/* The same, noting where the symbols came from: `debug` (may be NULL) gets
 * the path of the separate debug file read, "" when the file, stripped,
 * had none found; *used_debug whether one was looked for (the file has no
 * .symtab). */
JU_HIDDEN int ju_elf_each_symbol_noting(const char *path, unsigned flags, ju_symbol_fn each,
                                        void *arg, char *debug, size_t debug_size,
                                        int *used_debug);
/* How many passes over a file's symbol tables (ju_elf_each_symbol_noting,
 * which every symbol lookup by name or pattern makes) this process has
 * made: tests check that a file's tables are read only when needed. */
JU_HIDDEN unsigned long ju_elf_symbol_passes(void);
/* The separate debug file a stripped file's symbols would be read from
 * now (ju_debug_file_find's `flags`), into out[size] ("" for none). */
JU_HIDDEN void ju_elf_debug_file_now(const char *path, unsigned flags, char *out, size_t size);
/* Names looked for in a pass (ju_elf_take_wanted, a ju_symbol_fn):
 * found[i] set with values[i] and sizes[i] at the first definition of
 * names[i]; `missing` counts down from n, and the pass stops at 0. */
struct ju_wanted_symbols {
    const char *const *names;
    size_t n, missing;
    uint64_t *values, *sizes;
    uint8_t *found;
};
JU_HIDDEN int ju_elf_take_wanted(void *arg, const char *name, const GElf_Sym *sym);
/* Several symbols of the interpreter's ELF file in one pass over its
 * symbol tables (the full table, then the dynamic one, then its debug
 * file's, debuginfod's too): found[i] says whether names[i] was defined,
 * with values[i] and sizes[i] (the first definition in the order of
 * ju_elf_each_symbol). Fails only when the file cannot be read as ELF. */
JU_HIDDEN int ju_elf_symbols(const char *path, const char *const *names, size_t n,
                             uint64_t *values, uint64_t *sizes, uint8_t *found);
JU_HIDDEN void ju_elf_close(int fd, Elf *elf);

#define JU_BUILD_ID_HEX_MAX 129 /* 64 bytes of build id in hex, with its NUL */
/* The GNU build id of `elf` in lowercase hex into hex[size]: 0, or
 * ENOTFOUND when it has none or it does not fit. */
JU_HIDDEN int ju_elf_build_id_hex(Elf *elf, char *hex, size_t size);
/* The separate debug file of `elf` (opened from `path`) under the debug
 * roots, checked as jitunwind/debug_files.h says (elf/debug_files.c),
 * then in the debuginfod client's cache, and with JU_DEBUG_REMOTE from the
 * debuginfod servers last: 0 with its path in
 * out[size], ENOTFOUND, ENOMEM. `note` (may be NULL) gets the candidates
 * refused, or "". Only the interpreter's file is worth a server's answer:
 * other modules are searched locally. */
#define JU_DEBUG_REMOTE 1u
JU_HIDDEN int ju_debug_file_find(Elf *elf, const char *path, unsigned flags, char *out,
                                 size_t size, char *note, size_t note_size);
/* The debug file of the build id id[len] from the servers DEBUGINFOD_URLS
 * names, through libdebuginfod when it can be loaded (debuginfod.c): 0 with
 * the path of the client's cached copy; ENOTFOUND (no server, or none has
 * it); EUNSUPPORTED (no libdebuginfod). */
JU_HIDDEN int ju_debuginfod_find(const void *build_id, size_t len, char *out, size_t size);
/* Where the debuginfod client keeps the debug file of build id `hex` once
 * fetched (DEBUGINFOD_CACHE_PATH, else $XDG_CACHE_HOME/debuginfod_client,
 * else ~/.cache/debuginfod_client, as libdebuginfod does), whether or not
 * it is there: 0, or ENOTFOUND when DEBUGINFOD_URLS is unset (no client
 * would have fetched it) or the path does not fit. */
JU_HIDDEN int ju_debuginfod_cached(const char *hex, char *out, size_t size);
/* The CRC-32 of .gnu_debuglink over len more bytes, from `crc` (0 to start). */
JU_HIDDEN uint32_t ju_crc32(uint32_t crc, const void *data, size_t len);

/* An ELF file opened for DWARF type lookups (ju_elf_open's results): libdw
 * then skips the debug sections that hold no type, and finds the
 * compressed ones it reads already inflated (types_only_elf.c), when the
 * file allows it; `map` is the private mapping `elf` reads then (NULL when
 * it is the plain open), `inflated` how many sections were inflated into
 * it. Close with ju_elf_close_for_types. */
struct ju_types_elf {
    int fd;
    Elf *elf;
    void *map;
    size_t map_size;
    unsigned inflated;
};
JU_HIDDEN int ju_elf_open_for_types(const char *path, struct ju_types_elf *out);
JU_HIDDEN void ju_elf_close_for_types(struct ju_types_elf *f);
/* Inflate the zlib stream in[0, in_size) into exactly out_size bytes at
 * out: 0, ECORRUPT (a bad, short or long stream), ENOMEM, or EUNSUPPORTED
 * when built without libdeflate (zlib_inflate.c). */
JU_HIDDEN int ju_zlib_inflate(const uint8_t *in, size_t in_size, uint8_t *out, size_t out_size);
/* 1 when built with libdeflate (ju_zlib_inflate inflates), else 0. */
JU_HIDDEN int ju_zlib_inflate_available(void);

/* Core files: open one for reading (EIO, EELF), and find its NT_FILE note
 * (the file mappings: count, page size, count x {start, end, page offset},
 * then the names). The note stays valid while `elf` is open. */
JU_HIDDEN int ju_core_open(const char *core_path, int *fd, Elf **elf);
JU_HIDDEN int ju_core_nt_file(Elf *elf, const uint8_t **desc, size_t *size);
#define JU_MAX_NT_FILE_ENTRIES 65536u

#endif
