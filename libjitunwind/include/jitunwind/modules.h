/* Native modules: the ELF files mapped into a target, with their load bias,
 * symbols and call-frame information (.eh_frame / .debug_frame via libdw).
 *
 * Native frames of code built without frame pointers (Debian's python3.11,
 * libc) can only be unwound with CFI. A module set is filled from
 * /proc/PID/maps, a core's NT_FILE note, or mapping by mapping; the ELF files
 * are opened on the host at the recorded paths (they must still exist and
 * match). Files are opened when added; CFI tables are parsed by libdw on
 * first use and cached inside the module set. */
#ifndef JITUNWIND_MODULES_H
#define JITUNWIND_MODULES_H

#include <stddef.h>
#include <stdint.h>

#include "jitunwind/export.h"
#include "jitunwind/memory.h"
#include "jitunwind/status.h"
#include "jitunwind/unwind.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Threads: one thread at a time, the CFI steps that use it included
 * (jitunwind.h). */
typedef struct jitunwind_modules jitunwind_modules; /* also declared in unwind.h */

struct jitunwind_module_info {
    const char *path; /* valid while the module set lives */
    uint64_t start;   /* lowest mapped address */
    uint64_t end;     /* end of the highest mapping */
    uint64_t bias;    /* runtime address - ELF virtual address */
    int has_cfi;      /* 1 if .eh_frame or .debug_frame was found */
    int reserved;
};

/* A new, empty module set in *OUT: 0, or EINVAL (OUT NULL), ENOMEM, with
 * *OUT NULL (status.h's constructor contract). Free it with
 * jitunwind_modules_free. */
JITUNWIND_API int jitunwind_modules_new(jitunwind_modules **out);
/* Free MODS (NULL is ignored), its files and cached CFI with it. */
JITUNWIND_API void jitunwind_modules_free(jitunwind_modules *mods);
/* The last failure recorded in MODS, never NULL; for a NULL MODS,
 * jitunwind_last_error(). Valid until the next call on MODS. */
JITUNWIND_API const struct jitunwind_error *
jitunwind_modules_last_error(const jitunwind_modules *mods);

/* Module files shared by module sets, for a tool that follows many
 * processes running the same programs and libraries: a set sharing FILES
 * takes each file it adds from FILES when the same file (device, inode,
 * size, modification time) is open there, and keeps there the files it
 * opens, so that each file is opened, its symbols indexed and its CFI
 * parsed once for all the sets. A file stays open while a set uses it,
 * and after that until the pool needs its room; when every file of a
 * full pool is in use, a set opens its own.
 * Threads: FILES and every set sharing it, one thread at a time. */
typedef struct jitunwind_module_files jitunwind_module_files;
struct jitunwind_module_files_stats {
    uint64_t opened;   /* files opened into the pool */
    uint64_t reused;   /* files a set was given already open in the pool */
    uint64_t unpooled; /* files a set opened for itself (the pool full of used files) */
    uint64_t held;     /* files open in the pool now */
};
/* A new pool of at most MAX_FILES files in *OUT: 0, or EINVAL (OUT NULL,
 * MAX_FILES 0 or too large), ENOMEM, with *OUT NULL (status.h's
 * constructor contract). *OUT is valid until jitunwind_module_files_free
 * and the last set sharing it are done with it. */
JITUNWIND_API int jitunwind_module_files_new(size_t max_files, jitunwind_module_files **out);
/* Let go of FILES (NULL is ignored): it is freed, and its files closed,
 * once no set shares it any more (each set holds it until freed). */
JITUNWIND_API void jitunwind_module_files_free(jitunwind_module_files *files);
/* FILES's counts into *OUT: 0, or EINVAL (FILES or OUT NULL). */
JITUNWIND_API int jitunwind_module_files_stats(const jitunwind_module_files *files,
                                               struct jitunwind_module_files_stats *out);
struct jitunwind_module_file_info {
    const char *path; /* where it was opened */
    uint64_t users;   /* the modules using it now, one a set */
};
/* File INDEX (below held) of FILES into *OUT, its path valid until FILES
 * changes (a set adding or letting go of a file): 0, or EINVAL (FILES or
 * OUT NULL, INDEX >= held). */
JITUNWIND_API int jitunwind_module_files_info(const jitunwind_module_files *files, size_t index,
                                              struct jitunwind_module_file_info *out);
/* The files MODS adds from now on are taken from and kept in FILES (NULL:
 * MODS opens its own again); MODS holds FILES until it is freed or shares
 * another. 0, or EINVAL (MODS NULL). */
JITUNWIND_API int jitunwind_modules_share_files(jitunwind_modules *mods,
                                                jitunwind_module_files *files);

/* Record in MODS that [START, END) maps PATH from file offset OFFSET.
 * Mappings of one path form one module. Files that cannot be opened or are
 * not ELF are ignored (returns 0). 0, or EINVAL (MODS or PATH NULL, END <=
 * START), ELIMIT (too many modules), ENOMEM. */
JITUNWIND_API int jitunwind_modules_add_mapping(jitunwind_modules *mods, const char *path,
                                                uint64_t start, uint64_t end,
                                                uint64_t offset);
/* Add every file-backed mapping of live process PID (/proc/PID/maps): 0,
 * or EINVAL (MODS NULL, PID <= 0), EIO (no maps file), or
 * jitunwind_modules_add_mapping's failure. */
JITUNWIND_API int jitunwind_modules_load_proc(jitunwind_modules *mods, int pid);
/* Add every file mapping recorded in the NT_FILE note of the core file at
 * CORE_PATH: 0, or EINVAL (MODS or CORE_PATH NULL), EIO, EELF (not an ELF
 * core), ENOTFOUND (no NT_FILE note), another negative status for a
 * malformed note or from jitunwind_modules_add_mapping. */
JITUNWIND_API int jitunwind_modules_load_core(jitunwind_modules *mods, const char *core_path);

/* Returns the number of modules in MODS (0 for NULL). */
JITUNWIND_API size_t jitunwind_modules_count(const jitunwind_modules *mods);
/* Module INDEX of MODS into *OUT (its path valid while MODS lives): 0, or
 * EINVAL (MODS or OUT NULL, INDEX >= count). */
JITUNWIND_API int jitunwind_modules_info(const jitunwind_modules *mods, size_t index,
                                         struct jitunwind_module_info *out);
typedef struct jitunwind_registry jitunwind_registry;
/* Remove every range of REG read from the target (origin other than USER)
 * that overlaps a module of MODS: JIT code and trampolines live in anonymous
 * memory, so such a range is corrupt and would claim native frames (libc's)
 * for its rule. Returns the number removed (0 for NULL arguments, or when
 * out of memory). */
JITUNWIND_API size_t jitunwind_registry_drop_over_modules(jitunwind_registry *reg,
                                                         const jitunwind_modules *mods);

/* Returns the index of the module of MODS containing ADDR, or -1 (also for
 * NULL MODS, and for a module whose load bias is not known yet: none of its
 * mappings showed where its first segment was loaded). */
JITUNWIND_API long jitunwind_modules_find(const jitunwind_modules *mods, uint64_t addr);

/* The function symbol containing ADDR (.symtab, then .dynsym, or the
 * separate debug file's): copies its name into BUF (LEN bytes, truncated,
 * NUL-terminated; the name is the module's, unescaped) and the offset into
 * *OFFSET (may be NULL). 0, or EINVAL (MODS or BUF NULL, LEN 0), ENOTFOUND
 * when no module or symbol covers ADDR, ENOMEM. A module's tables are
 * sorted at its first lookup, so that each later one is a binary search. */
JITUNWIND_API int jitunwind_modules_symbolize(jitunwind_modules *mods, uint64_t addr,
                                              char *buf, size_t len, uint64_t *offset);

/* One CFI step on ARCH: into *OUT the caller's registers of a native frame
 * whose registers are IN, from its module's .eh_frame (then .debug_frame),
 * reading the stack through MEM. Only pc, sp, fp (and lr on AArch64) are
 * tracked, so a rule that needs another register fails with *STOP_REASON
 * NEED_REGISTER. For a frame that is not INNERMOST, the FDE is looked up at
 * jitunwind_lookup_address (a return address may be just past the end of
 * its function). Returns 0 (with *STOP_REASON END and pc 0 in *OUT when
 * CFI marks the frame outermost), or EINVAL (MODS, MEM, IN or OUT NULL, no
 * pc in IN), EUNSUPPORTED (an unknown ARCH), ENOTFOUND when no module or no
 * FDE covers the pc (the caller may then try other methods), or another
 * negative status; *STOP_REASON (may be NULL) as for jitunwind_step_range.
 * libdw caches parsed CFI inside MODS (this may allocate); nothing else is
 * allocated. */
JITUNWIND_API int jitunwind_step_cfi(int arch, jitunwind_modules *mods,
                                     const struct jitunwind_memory *mem,
                                     const struct jitunwind_regs *in, int innermost,
                                     struct jitunwind_regs *out, int *stop_reason);

#ifdef __cplusplus
}
#endif

#endif
