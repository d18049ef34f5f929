/* The rules of the CFI rows a walk has used, by module and address
 * (cfi_row_cache.c), so that a pc met again is stepped without libdw's
 * FDE search and CFA program. Not installed. */
#ifndef JITUNWIND_UNWIND_CFI_ROW_CACHE_H
#define JITUNWIND_UNWIND_CFI_ROW_CACHE_H

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arch_facts.h"
#include "base/status.h"

/* What CFI says of a register in the caller: the same value as now,
 * undefined, or the value (or the address of it) `ops` compute. */
enum { JU_RULE_SAME, JU_RULE_UNDEFINED, JU_RULE_OPS };
struct ju_cfi_rule {
    int kind;
    size_t nops;
    const Dwarf_Op *ops; /* JU_RULE_OPS: nops (>= 1) operations */
};
/* Where a row puts the carried registers (arch_facts.h) in the caller:
 * bit k of `kept`, as they are in this frame (CFI does not name the
 * register, or says same value, or undefined); bit k of `at_cfa`, saved at
 * CFA + offset[k]; in neither, not known in the caller. */
struct ju_cfi_saves {
    uint32_t kept, at_cfa;
    int32_t offset[JU_CARRIED_MAX];
};
/* A row as ju_step_cfi uses it: the CFA's rule, the return address's and
 * the frame pointer's, and the carried registers'. */
struct ju_cfi_row {
    struct ju_cfi_rule cfa, ra, fp;
    struct ju_cfi_saves saves;
};

/* The operations a cached row may hold, its three rules together (a PLT
 * entry's CFA expression takes 9 on x86-64); a longer row is not kept. */
#define JU_CFI_ROW_OPS 12u
/* Rows kept, direct-mapped by the hash of their key; a power of two. */
#define JU_CFI_ROW_SLOTS 512u

struct ju_cfi_row_cache;
JU_HIDDEN struct ju_cfi_row_cache *ju_cfi_row_cache_new(void);
JU_HIDDEN void ju_cfi_row_cache_free(struct ju_cfi_row_cache *c); /* NULL ok */
/* The slot key (module, vaddr) hashes to, for tests that make two keys
 * meet in one slot. */
JU_HIDDEN size_t ju_cfi_row_cache_slot(uint32_t module, uint64_t vaddr);
/* 1 when (module, vaddr) is held: *found says whether CFI covers it and,
 * if so, *row its rules (pointing into the cache, valid until its next
 * put); 0 when not held. `module` is the module's index in its set, which
 * never holds another file (modules are only added), and `vaddr` the
 * address in that file: the key names one row of one file. */
JU_HIDDEN int ju_cfi_row_cache_get(struct ju_cfi_row_cache *c, uint32_t module,
                                   uint64_t vaddr, int *found, struct ju_cfi_row *row);
/* Keep the answer for (module, vaddr) in its slot, over what was there:
 * `found` 0 (no CFI covers it, row unused), or its row, copied. A row of
 * more than JU_CFI_ROW_OPS operations is not kept. */
JU_HIDDEN void ju_cfi_row_cache_put(struct ju_cfi_row_cache *c, uint32_t module,
                                    uint64_t vaddr, int found, const struct ju_cfi_row *row);

#endif
