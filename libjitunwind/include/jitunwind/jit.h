/* In-process registration for any JIT, and the descriptor debuggers read.
 *
 * A JIT calls jitunwind_jit_register() for each code region it makes
 * executable and jitunwind_jit_unregister() before it frees it. Nothing
 * stops the process or calls a debugger: the library only updates a table
 * reachable from the exported symbol `jitunwind_jit_descriptor`, which a
 * debugger reads out of the target's memory whenever it wants (live or from
 * a core).
 *
 * Consistency: writers (serialised by a mutex) make `seq` odd, mutate, then
 * make it even again. A reader copies the table between two reads of `seq`
 * and retries when they differ or are odd. Because each slot is published by
 * writing its `size` last (and retired by zeroing `size` first), the slot
 * array never moves (it grows in place) and no name is freed before
 * jitunwind_jit_reset(), a process stopped in the
 * middle of a write still shows a table whose non-empty slots are complete;
 * a reader that sees an odd `seq` on a stopped process may use it (and says
 * so). The format uses fixed-width fields so that a debugger of any word
 * size can read it. */
#ifndef JITUNWIND_JIT_H
#define JITUNWIND_JIT_H

#include <stddef.h>
#include <stdint.h>

#include "jitunwind/export.h"
#include "jitunwind/memory.h"
#include "jitunwind/registry.h"
#include "jitunwind/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JITUNWIND_JIT_DESCRIPTOR_SYMBOL "jitunwind_jit_descriptor"
#define JITUNWIND_JIT_MAGIC "JITUNWD" /* 8 bytes with the NUL */
#define JITUNWIND_JIT_VERSION 1u

/* The descriptor, at the exported symbol. All fields little-endian host
 * order of the target. */
struct jitunwind_jit_descriptor {
    char magic[8];        /* JITUNWIND_JIT_MAGIC */
    uint32_t version;     /* JITUNWIND_JIT_VERSION */
    uint32_t entry_size;  /* sizeof(struct jitunwind_jit_entry) */
    uint64_t seq;         /* odd while a writer is mutating */
    uint64_t entries;     /* address of the slot array */
    uint64_t capacity;    /* number of slots */
    uint64_t count;       /* number of non-empty slots */
    uint64_t generation;  /* incremented by every mutation */
};

/* One slot. size == 0 marks an empty slot. */
struct jitunwind_jit_entry {
    uint64_t start;
    uint64_t size;
    uint32_t kind;     /* enum jitunwind_range_kind */
    uint32_t rule;     /* enum jitunwind_rule */
    uint32_t stride;
    uint32_t name_len; /* bytes at `name`, without the NUL */
    uint64_t name;     /* address of a NUL-terminated name, or 0 */
    uint64_t cookie;
};

/* --- In-process side (thread-safe; async-signal-unsafe) --- */

/* The descriptor itself. A debugger reads it from the target's memory. In
 * the same process (tests, tools, a profiler thread), read it with
 * jitunwind_jit_read_self(), which races with no writer. A plain memcpy
 * reader of this process never touches freed memory either (the slot array
 * and the names stay where they are until jitunwind_jit_reset()), but is a
 * data race in C11's terms. jitunwind_jit_reset() must not run while an
 * in-process reader is reading. */
JITUNWIND_API extern struct jitunwind_jit_descriptor jitunwind_jit_descriptor;

typedef uint64_t jitunwind_jit_id;

/* Register [START, START + SIZE) of this process with KIND (enum
 * jitunwind_range_kind), RULE (enum jitunwind_rule), NAME (copied, cut at
 * JITUNWIND_NAME_MAX - 1 bytes; may be NULL) and the caller's COOKIE. *ID
 * (may be NULL) receives the handle for jitunwind_jit_unregister. Returns 0,
 * or EINVAL (START NULL, an empty or wrapping range, an unknown KIND or
 * RULE, RULE_SCAN, whose target this call cannot give), EOVERLAP (it
 * overlaps a registered range), ELIMIT (JITUNWIND_JIT_MAX_SLOTS ranges),
 * ENOMEM. Thread-safe. */
JITUNWIND_API int jitunwind_jit_register(const void *start, size_t size, int kind, int rule,
                                         const char *name, uint64_t cookie,
                                         jitunwind_jit_id *id);
/* Unregister the range of ID (call it before freeing the code): 0, or
 * ENOTFOUND (an ID not registered, or already unregistered). Thread-safe. */
JITUNWIND_API int jitunwind_jit_unregister(jitunwind_jit_id id);
/* Unregister everything and free the table and its names (e.g. at exit);
 * earlier IDs are then unknown. Thread-safe against the calls above, but
 * not while an in-process reader reads the descriptor. */
JITUNWIND_API void jitunwind_jit_reset(void);

/* --- Debugger side --- */

/* Statistics of one descriptor read. */
struct jitunwind_jit_read_info {
    uint64_t generation; /* the descriptor's generation that was read */
    uint32_t retries;    /* seq mismatches that forced a re-read */
    uint32_t torn;       /* 1 if a writer was stopped mid-update (odd seq) */
    uint64_t added;      /* ranges added to the registry */
    uint64_t skipped;    /* slots that were invalid or overlapped */
    uint64_t left_out;   /* live slots not read: past JITUNWIND_JIT_MAX_BYTES */
};

#define JITUNWIND_JIT_MAX_SLOTS (16u * 1024u * 1024u)
#define JITUNWIND_JIT_MAX_BYTES (64u * 1024u * 1024u)
#define JITUNWIND_JIT_BYTES_PER_RANGE 160u
/* Read the descriptor at DESCRIPTOR_ADDR in the target through MEM and add
 * its ranges (origin DESCRIPTOR) to REG; *INFO (may be NULL) gets what the
 * read saw. Bounded: at most JITUNWIND_JIT_MAX_SLOTS
 * slots, names truncated at JITUNWIND_NAME_MAX, and the memory the read
 * takes (the copied slots, their names, the ranges they become) about
 * JITUNWIND_JIT_MAX_BYTES: the target, not the debugger, chooses how many
 * slots there are, and 4 million tiny ones took 637 MB. Each slot kept
 * counts JITUNWIND_JIT_BYTES_PER_RANGE bytes plus twice its name; once the
 * cap is reached, the remaining live slots (in slot-array order) are left
 * out and counted in info->left_out. Returns 0, or EINVAL (REG or MEM
 * NULL), EREAD, ECORRUPT (bad magic, sizes), EVERSION, EBUSY (seq kept
 * changing), ENOMEM; the reason in jitunwind_registry_last_error. Threads:
 * REG is in use during the call. */
JITUNWIND_API int jitunwind_jit_read_descriptor(jitunwind_registry *reg,
                                                const struct jitunwind_memory *mem,
                                                uint64_t descriptor_addr,
                                                struct jitunwind_jit_read_info *info);

/* The same for this process's own descriptor into REG, read with atomic
 * loads (no data race with concurrent jitunwind_jit_register/unregister,
 * which it never blocks); *INFO (may be NULL) as above. Returns as
 * jitunwind_jit_read_descriptor (EINVAL for REG NULL). */
JITUNWIND_API int jitunwind_jit_read_self(jitunwind_registry *reg,
                                          struct jitunwind_jit_read_info *info);

/* --- The GDB JIT interface (CPython 3.15+ registers executors there) --- */

#define JITUNWIND_GDB_JIT_DESCRIPTOR_SYMBOL "__jit_debug_descriptor"
#define JITUNWIND_GDB_JIT_MAX_ENTRIES 1000000u
#define JITUNWIND_GDB_JIT_MAX_OBJECT (1u << 20)
#define JITUNWIND_GDB_JIT_MAX_BYTES (64u << 20)
/* Read `__jit_debug_descriptor` at DESCRIPTOR_ADDR through MEM ({uint32
 * version, uint32 action, entry *relevant, entry *first}; entries {next, prev,
 * symfile_addr, symfile_size, ...}) and add one range per in-memory ELF
 * object: the bounds of its .text section, the name of its first function
 * symbol, origin INTERPRETER, kind JIT. The rule is FP_PRESERVING when the
 * object's .eh_frame says the frame is found from the frame pointer
 * (CFA = fp + 16 on x86-64, CFA = x29 + n on AArch64, as CPython emits), or
 * when it has no CFI; objects whose CFI says otherwise are skipped and
 * counted. Images written by this library (image.h, JITUNWIND_IMAGE_MARKER)
 * are passed over, not counted: their ranges come from its descriptor.
 * Bounded: at most JITUNWIND_GDB_JIT_MAX_ENTRIES entries (cycle-checked),
 * objects of at most JITUNWIND_GDB_JIT_MAX_OBJECT bytes (larger ones are
 * skipped) and JITUNWIND_GDB_JIT_MAX_BYTES of objects read in all: past
 * that the rest of the list is left out. The ranges go to REG; *ADDED and
 * *SKIPPED (each may be NULL) get the counts. Returns 0, or EINVAL (REG or
 * MEM NULL, an unknown ARCH), EVERSION (an unknown descriptor version), or
 * EREAD, ELOOP, ELIMIT (a cap reached; the message names it), ENOMEM with
 * the ranges added before the problem kept. */
JITUNWIND_API int jitunwind_registry_load_gdb_jit(jitunwind_registry *reg,
                                                  const struct jitunwind_memory *mem,
                                                  uint64_t descriptor_addr, int arch,
                                                  size_t *added, size_t *skipped);

#ifdef __cplusplus
}
#endif

#endif
