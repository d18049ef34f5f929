/* Internals of the CPython decoder, shared by its files. */
#ifndef JITUNWIND_PYREADER_H
#define JITUNWIND_PYREADER_H

#include "python/layout.h"

#define JU_PY_MAX_STR_CHARS 4096u       /* characters decoded from one str */
#define JU_PY_MAX_LINETABLE (256u * 1024u) /* bytes of one co_linetable */

struct jitunwind_pyreader {
    const struct ju_py_layout *layout; /* static table, or &from_target */
    struct ju_py_layout from_target;   /* the table with the target's _Py_DebugOffsets */
    struct jitunwind_memory mem;
    uint64_t runtime;
    uint32_t version_hex;
    int arch;           /* enum jitunwind_arch of the target: from its module, else the host's */
    uint64_t code_type; /* address of PyCode_Type once seen, else 0 */
    struct jitunwind_py_dwarf_report dwarf;
    int assumed;             /* JITUNWIND_PYREADER_ASSUME_LAYOUT took effect */
    uint32_t debug_offsets_confirmed; /* debug-offset fields DWARF agreed with */
    char assumed_name[128];
    uint64_t cold_exits;     /* 3.13: address of the static cold-exit array, or 0 */
    uint32_t cold_exit_count;
    struct jitunwind_error err;
    uint8_t linetable[JU_PY_MAX_LINETABLE];
};

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

/* The interpreters of the runtime, in list order, cycle-checked and capped
 * at JITUNWIND_PY_MAX_INTERPRETERS: returns 1 with *interp set, 0 at the
 * end, or a negative status (recorded in r->err). */
struct ju_interp_walk {
    struct ju_cycle seen;
    size_t count;
    uint64_t current;
    int started;
};
#define JU_INTERP_WALK_INIT {{0, 1, 0}, 0, 0, 0}
JU_HIDDEN int ju_py_next_interp(jitunwind_pyreader *r, struct ju_interp_walk *w,
                                uint64_t *interp);

/* Cross-check `L` against the build's DWARF and complete it (dwarf_layout.c). */
struct ju_py_field_info {
    const char *name;  /* the struct ju_py_layout member */
    const char *type;  /* the CPython struct, e.g. "PyThreadState" */
    const char *paths; /* member paths, '|' between alternatives; NULL for a sizeof */
    int build_specific;
    int size_of;
    uint32_t value;    /* in L; JU_PY_NONE when the version has no such field */
};
/* The i-th layout field that DWARF (and so the headers) describe, with its
 * value in L: 1, or 0 past the last. For tests that compare the tables with
 * the real headers. */
JU_HIDDEN int ju_py_layout_field(const struct ju_py_layout *L, size_t i,
                                 struct ju_py_field_info *out);
JU_HIDDEN int ju_py_apply_dwarf(jitunwind_pyreader *r, jitunwind_dwarf_types *types,
                                struct ju_py_layout *L, struct jitunwind_py_dwarf_report *report);
/* The free_threaded word of the target's _Py_DebugOffsets header (0 or 1)
 * after checking its cookie and version, or a negative status. */
JU_HIDDEN int ju_py_debug_offsets_header(jitunwind_pyreader *r);

/* 3.13+: read and check the target's _Py_DebugOffsets and copy them over
 * `out` (pre-filled with the version's static table). */
JU_HIDDEN int ju_py_debug_offsets_supported(uint32_t version_hex);
/* 1 when the version's field list is known to describe this release; 0 for
 * a provisional list (pre-releases, a minor in development), which the
 * reader uses only when DWARF confirms it. */
JU_HIDDEN int ju_py_debug_offsets_confirmed(uint32_t version_hex);
/* "3.15.0rc1", "3.16.0a2", "3.14.7" for a PY_VERSION_HEX. */
JU_HIDDEN void ju_py_release_name(uint32_t version_hex, char *buf, size_t size);
JU_HIDDEN int ju_py_apply_debug_offsets(jitunwind_pyreader *r, struct ju_py_layout *out);
/* The inverse, for synthetic targets in tests: a _Py_DebugOffsets block for
 * `version_hex` describing L, into buf (*len bytes). */
JU_HIDDEN int ju_py_encode_debug_offsets(uint32_t version_hex, const struct ju_py_layout *L,
                                         uint8_t *buf, size_t cap, size_t *len);

/* Decode the str at `addr` as UTF-8 into buf (NUL-terminated). *truncated
 * is set when the string did not fit or exceeded JU_PY_MAX_STR_CHARS.
 * ECORRUPT for an implausible object, EREAD when unreadable. */
JU_HIDDEN int ju_py_read_str(const struct jitunwind_pyreader *r, uint64_t addr, char *buf,
                             size_t size, int *truncated);
/* Copy the contents of the bytes object at `addr` (at most `cap` bytes) into
 * dst; *len gets the number copied, *truncated whether it was cut. */
JU_HIDDEN int ju_py_read_bytes(const struct jitunwind_pyreader *r, uint64_t addr, uint8_t *dst,
                               size_t cap, size_t *len, int *truncated);

/* Fill the code-derived fields of `out` (names, first line, line for
 * `instr_addr`, which points into the thread-local bytecode copy
 * `tlbc_index` on 3.14t, or -1); sets BAD_CODE/NO_LINE/NAME_TRUNCATED flags
 * as needed and returns even then: a bad code object does not end a walk. */
JU_HIDDEN void ju_py_decode_code(struct jitunwind_pyreader *r, uint64_t code, uint64_t instr_addr,
                                 int32_t tlbc_index, struct jitunwind_py_frame *out);

#endif
