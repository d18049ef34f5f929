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

JITUNWIND_API int jitunwind_modules_new(jitunwind_modules **out);
JITUNWIND_API void jitunwind_modules_free(jitunwind_modules *mods); /* NULL ok */
JITUNWIND_API const struct jitunwind_error *
jitunwind_modules_last_error(const jitunwind_modules *mods);

/* Record that [start, end) maps `path` from file offset `offset`. Mappings of
 * one path form one module. Files that are not ELF are ignored (returns 0). */
JITUNWIND_API int jitunwind_modules_add_mapping(jitunwind_modules *mods, const char *path,
                                                uint64_t start, uint64_t end,
                                                uint64_t offset);
/* Every file-backed mapping of a live process (/proc/PID/maps). */
JITUNWIND_API int jitunwind_modules_load_proc(jitunwind_modules *mods, int pid);
/* Every file mapping recorded in a core file's NT_FILE note. */
JITUNWIND_API int jitunwind_modules_load_core(jitunwind_modules *mods, const char *core_path);

JITUNWIND_API size_t jitunwind_modules_count(const jitunwind_modules *mods);
JITUNWIND_API int jitunwind_modules_info(const jitunwind_modules *mods, size_t index,
                                         struct jitunwind_module_info *out);
/* Remove every range read from the target (origin other than USER) that
 * overlaps a module of `mods`: JIT code and trampolines live in anonymous
 * memory, so such a range is corrupt and would claim native frames (libc's)
 * for its rule. Returns the number removed (0 for NULL arguments). */
typedef struct jitunwind_registry jitunwind_registry;
JITUNWIND_API size_t jitunwind_registry_drop_over_modules(jitunwind_registry *reg,
                                                         const jitunwind_modules *mods);

/* Index of the module containing `addr`, or -1. */
JITUNWIND_API long jitunwind_modules_find(const jitunwind_modules *mods, uint64_t addr);

/* The function symbol containing `addr` (.symtab, then .dynsym): copies its
 * name into buf (truncated, NUL-terminated) and the offset into *offset.
 * ENOTFOUND when no symbol covers it. */
JITUNWIND_API int jitunwind_modules_symbolize(jitunwind_modules *mods, uint64_t addr,
                                              char *buf, size_t len, uint64_t *offset);

/* One CFI step: the caller's registers of a native frame whose registers are
 * `in`, from its module's .eh_frame (then .debug_frame). Only pc, sp, fp (and
 * lr on AArch64) are tracked, so a rule that needs another register fails
 * with *stop_reason NEED_REGISTER. For a frame that is not the innermost, the
 * FDE is looked up at jitunwind_lookup_address (a return address may be
 * just past the end of its function). ENOTFOUND when no module or no FDE covers the pc (the caller
 * may then try other methods). libdw caches parsed CFI inside the module set
 * (this may allocate); nothing else is allocated. */
JITUNWIND_API int jitunwind_step_cfi(int arch, jitunwind_modules *mods,
                                     const struct jitunwind_memory *mem,
                                     const struct jitunwind_regs *in, int innermost,
                                     struct jitunwind_regs *out, int *stop_reason);

#ifdef __cplusplus
}
#endif

#endif
