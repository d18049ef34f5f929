/* Ready-made memory readers and ELF helpers. Each reader hands out a
 * jitunwind_memory that is valid until the reader is freed. */
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
JITUNWIND_API int jitunwind_process_reader_new(jitunwind_process_reader **out, int pid);
JITUNWIND_API void jitunwind_process_reader_free(jitunwind_process_reader *r);
JITUNWIND_API struct jitunwind_memory
jitunwind_process_reader_memory(jitunwind_process_reader *r);
/* The same, with a write operation (process_vm_writev; no /proc/PID/mem
 * fallback): for a caller that asks the library to write into the target
 * (jitunwind_py_chains_mark_frames). The memory above has none. */
JITUNWIND_API struct jitunwind_memory
jitunwind_process_reader_writable_memory(jitunwind_process_reader *r);

/* A core file: its dumped PT_LOAD segments and, for file-backed mappings
 * the core left out (read-only code and data), the mapped files themselves
 * at the paths of its NT_FILE note (they must still exist and match; an
 * unopenable file only makes its addresses unreadable). A read may span
 * adjacent segments. EIO (cannot open), EELF (not an ELF core), ECORRUPT. */
typedef struct jitunwind_core_reader jitunwind_core_reader;
JITUNWIND_API int jitunwind_core_reader_new(jitunwind_core_reader **out, const char *core_path);
JITUNWIND_API void jitunwind_core_reader_free(jitunwind_core_reader *r); /* NULL ok */
JITUNWIND_API struct jitunwind_memory
jitunwind_core_reader_memory(jitunwind_core_reader *r);

/* An in-memory image: a set of non-overlapping segments, copied on add. Used
 * by tests to build synthetic targets, and by tools to snapshot memory. */
typedef struct jitunwind_image jitunwind_image;
JITUNWIND_API int jitunwind_image_new(jitunwind_image **out);
JITUNWIND_API void jitunwind_image_free(jitunwind_image *img);
/* Copy `len` bytes to target address `addr` (EOVERLAP if it overlaps). */
JITUNWIND_API int jitunwind_image_add(jitunwind_image *img, uint64_t addr, const void *bytes,
                                      size_t len);
JITUNWIND_API struct jitunwind_memory jitunwind_image_memory(jitunwind_image *img);

/* The value (st_value, file-relative) and size of symbol `name` in the ELF
 * file at `path`, from .symtab or .dynsym, or, for a file without .symtab,
 * its separate debug file's (debug_files.h). ENOTFOUND, EIO, EELF. */
JITUNWIND_API int jitunwind_elf_symbol(const char *path, const char *name, uint64_t *value,
                                       uint64_t *size);

#ifdef __cplusplus
}
#endif

#endif
