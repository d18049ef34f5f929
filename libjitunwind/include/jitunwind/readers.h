/* Ready-made memory readers and ELF helpers. Each reader hands out a
 * jitunwind_memory (by value; its `arg` is the reader) that is valid until
 * the reader is freed; the memory of a NULL reader fails every read with
 * EINVAL. Constructors follow status.h's contract (0, or a negative status
 * with *OUT NULL and the reason in jitunwind_last_error); free functions
 * ignore NULL. */
#ifndef JITUNWIND_READERS_H
#define JITUNWIND_READERS_H

#include <stddef.h>
#include <stdint.h>

#include "jitunwind/export.h"
#include "jitunwind/memory.h"
#include "jitunwind/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A live process: process_vm_readv, falling back to /proc/PID/mem (both need
 * ptrace permission over the target, as a debugger has). */
/* Threads (each reader of this header): one thread at a time, the reads of
 * its jitunwind_memory included (jitunwind.h). */
typedef struct jitunwind_process_reader jitunwind_process_reader;
/* A reader of process PID in *OUT: 0, EINVAL (OUT NULL, PID <= 0),
 * ENOTFOUND (no such process), ENOMEM. Permission is not checked here: a
 * read without it fails with EREAD. Free it with
 * jitunwind_process_reader_free. */
JITUNWIND_API int jitunwind_process_reader_new(jitunwind_process_reader **out, int pid);
/* Free R (NULL is ignored); the memories it handed out are invalid after. */
JITUNWIND_API void jitunwind_process_reader_free(jitunwind_process_reader *r);
/* Returns R's memory, without a write operation (R NULL: reads fail with
 * EINVAL); valid until R is freed. */
JITUNWIND_API struct jitunwind_memory
jitunwind_process_reader_memory(jitunwind_process_reader *r);
/* Returns R's memory with a write operation (process_vm_writev, EIO when
 * it fails; no /proc/PID/mem fallback): for a caller that asks the library
 * to write into the target (jitunwind_py_chains_mark_frames). The memory
 * above has none. R NULL and lifetime as above. */
JITUNWIND_API struct jitunwind_memory
jitunwind_process_reader_writable_memory(jitunwind_process_reader *r);

typedef struct jitunwind_core_reader jitunwind_core_reader;
/* A reader in *OUT of the core file at CORE_PATH: its dumped PT_LOAD segments
 * and, for file-backed mappings the core left out (read-only code and data),
 * the mapped files themselves at the paths of its NT_FILE note (they must
 * still exist and match; an unopenable file only makes its addresses
 * unreadable). A read may span adjacent segments. Returns 0, or EINVAL (OUT
 * or CORE_PATH NULL), EIO (cannot open), EELF (not an ELF core, malformed
 * program headers or NT_FILE note), ENOMEM. Free it with
 * jitunwind_core_reader_free. */
JITUNWIND_API int jitunwind_core_reader_new(jitunwind_core_reader **out, const char *core_path);
/* Free R (NULL is ignored); its memory is invalid after. */
JITUNWIND_API void jitunwind_core_reader_free(jitunwind_core_reader *r);
/* Returns R's memory (read-only; R NULL: reads fail with EINVAL), valid
 * until R is freed. */
JITUNWIND_API struct jitunwind_memory
jitunwind_core_reader_memory(jitunwind_core_reader *r);

/* An in-memory image: a set of non-overlapping segments, copied on add. Used
 * by tests to build synthetic targets, and by tools to snapshot memory. */
typedef struct jitunwind_image jitunwind_image;
/* A new, empty image in *OUT: 0, EINVAL (OUT NULL), ENOMEM. Free it with
 * jitunwind_image_free. */
JITUNWIND_API int jitunwind_image_new(jitunwind_image **out);
/* Free IMG (NULL is ignored); its memory is invalid after. */
JITUNWIND_API void jitunwind_image_free(jitunwind_image *img);
/* Copy LEN bytes from BYTES into IMG at target address ADDR: 0, EINVAL
 * (IMG or BYTES NULL, LEN 0, a wrapping range), EOVERLAP (it overlaps a
 * segment), ENOMEM. */
JITUNWIND_API int jitunwind_image_add(jitunwind_image *img, uint64_t addr, const void *bytes,
                                      size_t len);
/* Returns IMG's memory (read-only; IMG NULL: reads fail with EINVAL),
 * valid until IMG is freed: it sees segments added later too. */
JITUNWIND_API struct jitunwind_memory jitunwind_image_memory(jitunwind_image *img);

/* The value (st_value, file-relative) into *VALUE and size into *SIZE (may
 * be NULL) of symbol NAME in the ELF file at PATH, from .symtab or .dynsym,
 * or, for a file without .symtab, its separate debug file's
 * (debug_files.h). Returns 0, or EINVAL (PATH, NAME or VALUE NULL),
 * ENOTFOUND, EIO, EELF. Answers are kept while the file (and its debug
 * file) stays the same. Safe from any thread. */
JITUNWIND_API int jitunwind_elf_symbol(const char *path, const char *name, uint64_t *value,
                                       uint64_t *size);

#ifdef __cplusplus
}
#endif

#endif
