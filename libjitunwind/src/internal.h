/* Internal helpers shared by all library sources. Not installed. */
#ifndef JITUNWIND_INTERNAL_H
#define JITUNWIND_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "jitunwind/jitunwind.h"

#define JU_HIDDEN __attribute__((visibility("hidden")))
#define JU_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* Record a failure in *err and return `code` (so callers can
 * `return ju_fail(...)`). The message is also sent to the log callback at
 * DEBUG level. err may be NULL. */
JU_HIDDEN int ju_fail(struct jitunwind_error *err, int code, uint64_t address,
                      const char *fmt, ...) JU_PRINTF(4, 5);
JU_HIDDEN void ju_clear_error(struct jitunwind_error *err);
/* The end of every constructor (status.h, jitunwind_last_error): on
 * success (rc >= 0) stores `made` in *out and clears the thread's last
 * error; on failure stores NULL and keeps `detail` (when it holds this
 * failure; otherwise the status's text) as the last error. The caller
 * frees whatever it built before calling this. Returns rc. */
JU_HIDDEN int ju_constructed(void **out, void *made, int rc, const struct jitunwind_error *detail);
JU_HIDDEN void ju_log(int level, const char *fmt, ...) JU_PRINTF(2, 3);

/* Bounded reads through the caller's reader. All return 0 or a negative
 * status (EREAD for a failed or wrapping read, EINVAL for len > READ_MAX or
 * a reader struct ju_memory_valid refuses). */
JU_HIDDEN int ju_read(const struct jitunwind_memory *mem, uint64_t addr, void *dst, size_t len);
JU_HIDDEN int ju_read_u64(const struct jitunwind_memory *mem, uint64_t addr, uint64_t *out);
JU_HIDDEN int ju_read_u32(const struct jitunwind_memory *mem, uint64_t addr, uint32_t *out);
/* The caller's reader struct (memory.h) checked by its size: 1 when it has
 * at least `read` and `arg` (the first version), no unknown member set, and
 * a read callback. */
JU_HIDDEN int ju_memory_valid(const struct jitunwind_memory *mem);
/* *dst = *src at this library's size: members past the caller's size are
 * 0. Returns 0, or EINVAL when !ju_memory_valid(src). */
JU_HIDDEN int ju_memory_copy(struct jitunwind_memory *dst, const struct jitunwind_memory *src);
/* The caller's pac_mask, 0 (the default) when its struct ends before it. */
JU_HIDDEN uint64_t ju_memory_pac_mask(const struct jitunwind_memory *mem);

/* Little-endian loads from a local buffer (no alignment requirement). */
static inline uint64_t ju_load_u64(const void *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline uint32_t ju_load_u32(const void *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint16_t ju_load_u16(const void *p) { uint16_t v; memcpy(&v, p, 2); return v; }

/* Make room for one more item in a growable array (`items` holding
 * `count` of *cap items of `item_size` bytes), doubling the capacity from
 * `first_cap`: returns the array to use from now on, or NULL when out of
 * memory (the old array and *cap are then unchanged). */
JU_HIDDEN void *ju_reserve_one(void *items, size_t *cap, size_t count, size_t item_size,
                               size_t first_cap);

/* The stride between copies of a trampoline template of `size` bytes whose
 * first copy, `first`, is at `start` in [start, end): the template size
 * itself (3.12.1 packs copies back to back) or it rounded up to 16 or 32
 * (later versions), whichever makes the second copy equal the first; the
 * size when only one copy fits; 0 when none matches. */
JU_HIDDEN uint64_t ju_trampoline_stride(const struct jitunwind_memory *mem, uint64_t start,
                                        uint64_t end, const uint8_t *first, uint64_t size);

/* Copy a string into a fixed buffer, always NUL-terminating; returns 1 if it
 * was truncated. */
JU_HIDDEN int ju_strlcpy(char *dst, const char *src, size_t size);
/* FNV-1a (64-bit) of len bytes (base/hash.c). */
JU_HIDDEN uint64_t ju_fnv1a(const void *data, size_t len);

/* Registry internals shared with the loaders (perf map, descriptor). */
JU_HIDDEN int ju_range_validate(const struct jitunwind_range *r);
JU_HIDDEN struct jitunwind_error *ju_registry_error(jitunwind_registry *reg);
/* Add *range in place of the ranges it overlaps, which must all have
 * `origin` and be at most `max`: 0; EOVERLAP (another origin, or more),
 * EINVAL, ENOMEM leave the registry as it was. No overlap: a plain add. */
JU_HIDDEN int ju_registry_supersede(jitunwind_registry *reg, const struct jitunwind_range *range,
                                   uint32_t origin, size_t max);

/* Open a host file on a path that a target or another user controls
 * (base/host_files.c): read-only, close-on-exec, without blocking, and only
 * a regular file. JU_OPEN_SHARED_PLACE (a file found by name in a
 * world-writable place, like /tmp/perf-PID.map) also refuses a symbolic
 * link and a file not owned by root, the caller's user or `owner` (a uid,
 * or -1). 0 with *fd, or ENOTFOUND / EIO with a one-line message in *err
 * (may be NULL). */
#define JU_OPEN_SHARED_PLACE 1u
JU_HIDDEN int ju_open_host_file(const char *path, unsigned policy, long owner,
                                struct jitunwind_error *err, int *fd);

/* Copy `len` bytes of initialised data at virtual address `vaddr` of the
 * ELF file at `path` (ENOTFOUND if no PROGBITS section holds them). */
JU_HIDDEN int ju_elf_read_vaddr(const char *path, uint64_t vaddr, void *dst, size_t len);

/* An ELF file on the host opened for reading with libelf: 0, or EIO (cannot
 * open) / EELF (not ELF), with nothing left open. Close with ju_elf_close
 * (fd < 0 and a NULL elf are ignored). */
#include <gelf.h>
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
 * roots, checked as jitunwind/debug_files.h says (target/debug_files.c),
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

/* jitunwind_step_cfi that also says (*used_lr, may be NULL) whether the
 * caller's pc is the link register's current value, which lets the caller
 * keep this frame's sp (a function stopped before it saved x30). */
struct jitunwind_modules;
JU_HIDDEN int ju_step_cfi(int arch, struct jitunwind_modules *mods,
                          const struct jitunwind_memory *mem, const struct jitunwind_regs *in,
                          int innermost, struct jitunwind_regs *out, int *stop_reason,
                          int *used_lr);

/* Brent's cycle check over a linked list of target addresses, in constant
 * memory: start with {0, 1, 0}; cycle_seen() is 1 once an address repeats. */
struct ju_cycle {
    uint64_t tortoise;
    size_t power, lam;
};

static inline int ju_cycle_seen(struct ju_cycle *c, uint64_t addr)
{
    if (addr == c->tortoise)
        return 1;
    if (++c->lam == c->power) {
        c->tortoise = addr;
        c->power *= 2;
        c->lam = 0;
    }
    return 0;
}

#endif
