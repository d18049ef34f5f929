/* The trampoline layouts as data: for each copy of CPython's trampoline
 * template, one table of states by offset. The unwinder executes a state
 * (ju_rule_exec, unwind/arch/arch.h); the ELF image writer writes the same
 * states as CFI rows (image/cfi_rows.c). A layout's states are written here
 * once; no consumer knows an offset of its own. Not installed. */
#ifndef JITUNWIND_UNWIND_RULES_H
#define JITUNWIND_UNWIND_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "base/arch_facts.h"
#include "internal.h"

/* One state, in force from template offset `at` to the next state's. With
 * CFA = (cfa_on_fp ? fp : sp) + cfa_offset, the caller's registers are
 *   sp = CFA
 *   pc = ra_at ? [CFA + ra_at] : lr        (lr: only an innermost frame's)
 *   fp = fp_at ? [CFA + fp_at] : fp
 * A saved fp always sits just below the saved return address
 * (fp_at == ra_at - 8): together they are a frame record. */
struct ju_rule_row {
    uint32_t at;
    uint8_t cfa_on_fp;
    uint32_t cfa_offset;
    int32_t ra_at; /* 0: still in the link register (AArch64) */
    int32_t fp_at; /* 0: the frame pointer is the caller's */
};

#define JU_RULE_MAX_ROWS 4u

/* How a trampoline copy starts: its template plain, after a landing pad
 * (endbr64, `bti c`), or as the branch-protected framed template (AArch64:
 * paciasp ... autiasp; ret). */
enum ju_copy_head { JU_COPY_PLAIN = 0, JU_COPY_LANDING_PAD = 1, JU_COPY_PAC = 2 };

/* The states of one template (the architecture table's bytes). A copy that
 * starts with a landing pad is in rows[0]'s state during the pad, whose
 * only instruction boundary is the copy's first byte; the template's
 * offsets then count from the pad's end. */
struct ju_rule_layout {
    int arch;      /* enum jitunwind_arch */
    uint32_t rule; /* JITUNWIND_RULE_TRAMPOLINE_* */
    int pac;       /* 1: the branch-protected template (JU_COPY_PAC) */
    /* Template offsets of instruction boundaries, where an innermost pc
     * may be (bit i: offset i); any other offset is not code the rule
     * describes. */
    uint32_t innermost_at;
    uint32_t return_point; /* template offset just after the call */
    uint32_t nrows;
    struct ju_rule_row rows[JU_RULE_MAX_ROWS];
};

/* The layout of `rule` on `arch` for a copy starting as `head` says, or
 * NULL (not a trampoline rule, or not one of this architecture). */
JU_HIDDEN const struct ju_rule_layout *ju_rule_layout(int arch, uint32_t rule, int head);
/* The bytes of the layout's template, its length included. */
JU_HIDDEN const struct ju_code_bytes *ju_rule_template(const struct ju_rule_layout *l);
/* Bytes before the template in a copy that starts as `head` says. */
JU_HIDDEN uint32_t ju_rule_head_len(const struct ju_arch_facts *a, int head);
/* How a copy whose first `len` bytes are `code` starts. */
JU_HIDDEN int ju_code_head(const struct ju_arch_facts *a, const uint8_t *code, size_t len);
/* How the copy at `copy` starts, read from its code; JU_COPY_PLAIN when
 * `mem` is NULL or the code cannot be read. */
JU_HIDDEN int ju_copy_head(const struct ju_arch_facts *a, const struct jitunwind_memory *mem,
                           uint64_t copy);
/* The bytes of a copy of the layout that starts as `head` says: its head
 * and its template. */
JU_HIDDEN uint32_t ju_rule_copy_len(const struct ju_arch_facts *a, const struct ju_rule_layout *l,
                                    int head);
/* The state at byte `off` of a copy with `head_len` bytes of head, for an
 * innermost pc; NULL when `off` is no instruction boundary of the layout
 * (mid-instruction, or padding after the template). */
JU_HIDDEN const struct ju_rule_row *ju_rule_state(const struct ju_rule_layout *l, uint32_t head_len,
                                                  uint64_t off);
/* The state at the return point after the call: a caller frame's, whatever
 * offset its pc seems to have (a return address is always that point). */
JU_HIDDEN const struct ju_rule_row *ju_rule_return_state(const struct ju_rule_layout *l);
/* The one state of an FP_PRESERVING range: the frame record at fp, the
 * caller's sp fp + frame_size (the record's size when 0). */
JU_HIDDEN struct ju_rule_row ju_rule_fp_preserving(const struct ju_arch_facts *a,
                                                   uint32_t frame_size);

#endif
