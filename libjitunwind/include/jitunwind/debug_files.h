/* Separate debug files, found as gdb finds them.
 *
 * A distribution strips its binaries and ships their symbol tables and
 * DWARF in separate files (Debian's -dbg packages). The library looks for
 * the separate debug file of an ELF file under a list of debug roots (gdb's
 * `debug-file-directory`; default /usr/lib/debug):
 *  1. by GNU build id: ROOT/.build-id/xx/rest.debug for each root, taken
 *     only when the file there has the same build id;
 *  2. by .gnu_debuglink: NAME in the file's own directory, in its .debug/
 *     subdirectory, then ROOT/DIR/NAME for each root (DIR: the file's
 *     directory), taken only when the CRC32 the link records matches the
 *     candidate's and, when both have a build id, the build ids match.
 *  3. when DEBUGINFOD_URLS names debuginfod servers: in the debuginfod
 *     client's cache (DEBUGINFOD_CACHE_PATH, else
 *     $XDG_CACHE_HOME/debuginfod_client, else ~/.cache/debuginfod_client),
 *     then, for the interpreter's file only (its DWARF, the Python reader's
 *     symbols, jitunwind_debug_file_find), from the servers, through
 *     elfutils' libdebuginfod when it can be loaded (libdebuginfod.so.1; its
 *     cache and variables apply); taken only with the same build id. Other
 *     modules are not worth a request to a server, nor is a file that
 *     carries its own DWARF (.debug_info): it needs no separate file.
 * A candidate that fails a check is refused, never read, and named in a
 * note. Symbols (local ones too) and DWARF of a file with no symbol table
 * of its own are then read from its debug file (same virtual addresses):
 * jitunwind_elf_symbol, jitunwind_modules_symbolize, jitunwind_dwarf_types_open
 * and the Python reader all look there. */
#ifndef JITUNWIND_DEBUG_FILES_H
#define JITUNWIND_DEBUG_FILES_H

#include <stddef.h>

#include "jitunwind/export.h"
#include "jitunwind/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JITUNWIND_DEBUG_ROOT_DEFAULT "/usr/lib/debug"
#define JITUNWIND_DEBUG_DIRS_MAX 4096 /* bytes of the list, with its NUL */

/* Set the debug roots for the whole process: DIRS, directories separated
 * by ':' (as gdb's `set debug-file-directory`); NULL restores the default, ""
 * leaves no root (only the debuglink places next to the file are looked
 * at). Copied. Returns 0, or EINVAL when the list is
 * JITUNWIND_DEBUG_DIRS_MAX bytes or longer. Safe to call from any thread; a
 * search under way keeps the roots it started with. */
JITUNWIND_API int jitunwind_set_debug_file_directories(const char *dirs);
/* The current list into BUF (SIZE bytes, NUL-terminated): 0, or EINVAL
 * (BUF NULL, SIZE 0), ELIMIT when it does not fit (cut). Safe from any
 * thread. */
JITUNWIND_API int jitunwind_debug_file_directories(char *buf, size_t size);

/* The separate debug file of the ELF file at ELF_PATH, as above: 0 with
 * its path in PATH (SIZE bytes); ENOTFOUND when none was found (or the
 * path does not fit); EIO / EELF when ELF_PATH cannot be read; EINVAL
 * (ELF_PATH or PATH NULL, SIZE 0). NOTE (NOTE_SIZE bytes; may be NULL)
 * gets one line naming each candidate refused and why, or "", whatever
 * the result. Safe from any thread. */
JITUNWIND_API int jitunwind_debug_file_find(const char *elf_path, char *path, size_t size,
                                            char *note, size_t note_size);

#ifdef __cplusplus
}
#endif

#endif
