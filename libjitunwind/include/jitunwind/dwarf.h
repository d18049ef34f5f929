/* Struct layouts from DWARF (libdw): where a build keeps a member that no
 * table or debug offset describes, or whether a table fits the build.
 *
 * The DWARF is the file's own .debug_info, or its separate debug file
 * found by build id or .gnu_debuglink under the debug roots, as gdb looks
 * for it (debug_files.h). Lookups read only type DIEs at the top level of each
 * compile unit; found types are cached in the handle. */
#ifndef JITUNWIND_DWARF_H
#define JITUNWIND_DWARF_H

#include <stdint.h>

#include "jitunwind/export.h"
#include "jitunwind/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Threads: one thread at a time, lookups included (they fill its index),
 * and a pyreader being opened with it counts as a use (jitunwind.h). */
typedef struct jitunwind_dwarf_types jitunwind_dwarf_types;

/* Open in *OUT the type information of the ELF file at ELF_PATH. Returns
 * 0, or EINVAL (OUT or ELF_PATH NULL), ENOTFOUND when the file has no
 * DWARF and no separate debug file was found, EIO/EELF when it cannot be
 * read, ENOMEM; on failure *OUT is NULL and jitunwind_last_error() says
 * why. Free it with jitunwind_dwarf_types_free. */
JITUNWIND_API int jitunwind_dwarf_types_open(jitunwind_dwarf_types **out, const char *elf_path);
/* The same into *OUT, with the answers kept in CACHE_DIR (NULL or "": none)
 * between runs, per build id of the file at ELF_PATH: when an entry for
 * that build is there, whole, and the debug file it names is still the one
 * that answered (path, build id, size), queries are answered from it and
 * the DWARF is opened only for a query it lacks; otherwise the DWARF is
 * read as jitunwind_dwarf_types_open does and the entry is (re)written when
 * the handle is freed (to a temporary file renamed over it; the directory
 * is created, mode 0700). The answers are the same either way. A file
 * without a build id is not cached. Returns as jitunwind_dwarf_types_open
 * (0 without opening the DWARF when an entry was used); free it with
 * jitunwind_dwarf_types_free. */
JITUNWIND_API int jitunwind_dwarf_types_open_cached(jitunwind_dwarf_types **out,
                                                    const char *elf_path,
                                                    const char *cache_dir);
/* Free TYPES (NULL is ignored), writing its cache entry first (above). */
JITUNWIND_API void jitunwind_dwarf_types_free(jitunwind_dwarf_types *types);

/* Returns the file the DWARF was read from (ELF_PATH or the separate debug
 * file; for answers from a cache entry, the file it names), valid while
 * TYPES lives; NULL for a NULL TYPES. */
JITUNWIND_API const char *jitunwind_dwarf_types_source(const jitunwind_dwarf_types *types);
/* Returns a note on TYPES' cache entry, never NULL, valid while TYPES
 * lives: "" (also for a NULL TYPES) or, when a cache entry was found well
 * formed but wrong (a reader that found an answer contradicting its tables
 * asked the DWARF again, which said otherwise), one line naming the entry
 * and the answer; the entry was then not used, and is written again from
 * the DWARF. */
JITUNWIND_API const char *jitunwind_dwarf_types_cache_note(const jitunwind_dwarf_types *types);

/* Byte offset into *OFFSET of MEMBER_PATH ("vm_data.links.next":
 * dot-separated member names) inside the struct or union named TYPE_NAME
 * (a tag or a typedef) in TYPES. Members of anonymous structs and unions
 * are found through them. Returns 0, or EINVAL (TYPES, TYPE_NAME,
 * MEMBER_PATH or OFFSET NULL, a name too long or a malformed path),
 * ENOTFOUND when the type or a member does not exist, EUNSUPPORTED for a
 * bit-field or a location that is not a constant, ELIMIT or ENOMEM (the
 * type index's bounds), or the failure to open the DWARF when a cache
 * entry lacked the answer (EIO, EELF); *OFFSET is set only on success. */
JITUNWIND_API int jitunwind_dwarf_member_offset(jitunwind_dwarf_types *types,
                                                const char *type_name,
                                                const char *member_path, uint64_t *offset);

/* The same (TYPES, TYPE_NAME, MEMBER_PATH, NULL and returns as above) in
 * bits into *BIT_OFFSET, from the start of TYPE_NAME; the last member may be
 * a bit-field (DWARF 4+ DW_AT_data_bit_offset: the bit number counting from
 * the least significant bit of the first byte on little-endian targets). */
JITUNWIND_API int jitunwind_dwarf_member_bit_offset(jitunwind_dwarf_types *types,
                                                    const char *type_name,
                                                    const char *member_path,
                                                    uint64_t *bit_offset);

/* sizeof the struct, union or typedef named TYPE_NAME in TYPES into *SIZE:
 * 0, or the statuses above (EINVAL for TYPES, TYPE_NAME or SIZE NULL;
 * EUNSUPPORTED when the DWARF gives the type no size). */
JITUNWIND_API int jitunwind_dwarf_type_size(jitunwind_dwarf_types *types, const char *type_name,
                                            uint64_t *size);

#ifdef __cplusplus
}
#endif

#endif
