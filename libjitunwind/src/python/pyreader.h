/* Internals of the CPython decoder, shared by its files. */
#ifndef JITUNWIND_PYREADER_H
#define JITUNWIND_PYREADER_H

#include <gelf.h>

#include "python/layout/layout.h"
#include "python/layout/value_layout.h"
#include "python/layout/versions.h"
#include "base/cycle.h"

struct ju_code_cache;

#define JU_PY_MAX_STR_CHARS 4096u       /* characters decoded from one str */
#define JU_PY_MAX_LINETABLE (256u * 1024u) /* bytes of one co_linetable */
#define JU_PY_HELD_BLOCK 512u   /* read_cache.c: bytes per cached block */
#define JU_PY_HELD_BLOCKS 256u  /* blocks kept by jitunwind_pyreader_hold_reads */

#define JU_PY_FIELD_NAME_MAX 96u /* "Type.field" in messages */

/* JIT view: check struct ju_py_jit_layout against DWARF and complete it
 * (jit_layout.c), reported as the frame and value layouts are (derived:
 * JU_PY_FROM_DWARF fields DWARF gave; every disagreement is adopted). */
JU_HIDDEN void ju_py_jit_apply_dwarf(jitunwind_dwarf_types *types, struct ju_py_jit_layout *J,
                                     struct jitunwind_py_dwarf_report *report);

#define JU_PY_MAX_UOP_IDS 2048u    /* opcodes in the stencil and uop-name tables */
#define JU_PY_UOP_NAME_MAX 48u

/* The interpreter's static JIT tables (from its symbol table) and what was
 * read of them, cached for the reader's life: they are constant. */
struct ju_py_jit_tables {
    uint64_t stencils, stencils_size;   /* stencil_groups: address, symbol size; 0 if absent */
    uint64_t names, names_size;         /* _PyOpcode_uop_name */
    uint32_t entries;                   /* opcodes in both tables, 0 until known */
    int8_t loaded;                      /* 0 not tried, 1 read, -1 failed (see `missing`) */
    int8_t layout_ok;                   /* ju_py_jit_layout_check of the reader's layout:
                                         * 0 not run, 1 passed, -1 failed (see `missing`) */
    char missing[160];
    uint32_t code_size[JU_PY_MAX_UOP_IDS];        /* stencil_groups[op].code_size */
    uint8_t name_state[JU_PY_MAX_UOP_IDS];        /* 0 unread, 1 read, 2 unreadable */
    char name[JU_PY_MAX_UOP_IDS][JU_PY_UOP_NAME_MAX];
};

/* What the one resolver (resolve.c) found of a reader's three layouts, in
 * one place: the public report calls (jitunwind_pyreader_dwarf_report,
 * jitunwind_pyreader_values_report) and the messages naming a field DWARF
 * did not give answer from it. */
struct ju_py_layout_report {
    struct jitunwind_py_dwarf_report frames; /* what DWARF said of the frame layout */
    struct jitunwind_py_dwarf_report jit;    /* of the JIT view's */
    struct jitunwind_py_dwarf_report values; /* of the value layout's */
    /* the first JU_PY_FROM_DWARF executor field DWARF did not give ("" when
     * none): then the executors are unknown (ju_py_layout_settle) */
    char executors_missing[JU_PY_FIELD_NAME_MAX];
    /* the first JU_PY_FROM_DWARF field of the JIT view DWARF did not give, or "" */
    char jit_missing[JU_PY_FIELD_NAME_MAX];
};

struct jitunwind_pyreader {
    const struct ju_py_layout *layout; /* static table, or &from_target */
    struct ju_py_layout from_target;   /* the table with the target's _Py_DebugOffsets */
    uint8_t frame_source[JU_PYF_MAIN_END]; /* JU_PY_SRC_* bits of its frame fields before
                                            * DWARF (the values keep theirs in values) */
    struct jitunwind_memory mem;
    uint64_t runtime;
    uint32_t version_hex;
    int arch;           /* enum jitunwind_arch of the target: from its module, else the host's */
    uint64_t code_type; /* address of PyCode_Type once seen, else 0 */
    struct ju_py_layout_report report; /* what resolving the layouts found */
    struct ju_py_values values;   /* the value renderer's layout (value_layout.h) */
    int assumed;             /* JITUNWIND_PYREADER_ASSUME_LAYOUT took effect */
    uint32_t debug_offsets_confirmed; /* debug-offset fields DWARF agreed with */
    char assumed_name[128];
    /* what the last jitunwind_pyreader_executor_ranges saw of the target's
     * own GDB JIT names (gdb_jit_names.c), or "" */
    char gdb_jit_note[JITUNWIND_ERROR_MESSAGE_MAX];
    /* the eval loop's parts (eval_loop.c), by start: found with the symbols */
    struct jitunwind_py_code_range eval[JITUNWIND_PY_MAX_EVAL_RANGES];
    size_t n_eval;
    uint64_t cold_exits;     /* 3.13: address of the static cold-exit array, or 0 */
    uint32_t cold_exit_count;
    struct jitunwind_error err;
    uint8_t linetable[JU_PY_MAX_LINETABLE];
    /* values (read_cache.c): blocks of target memory kept between value
     * calls while jitunwind_pyreader_hold_reads is on */
    int hold_reads;
    uint64_t held_base[JU_PY_HELD_BLOCKS];
    uint8_t held_data[JU_PY_HELD_BLOCKS][JU_PY_HELD_BLOCK];
    struct ju_py_jit_tables jit;      /* JIT view (jit_view.c) */
    struct ju_code_cache *code_cache; /* code objects kept between calls (code_cache.c), or NULL */
    int code_head_read; /* the last ju_py_decode_code read the code object's head and
                         * found or filled its cache entry */
};

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
/* Thread state `ts`'s current frame (through its cframe before 3.12), 0
 * when it has none or it is unreadable. */
JU_HIDDEN uint64_t ju_py_current_frame(jitunwind_pyreader *r, uint64_t ts);
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
/* The resolver of a reader's layouts (resolve.c), in its order. With
 * r->layout the version's table (or an assumed one): the target's own
 * _Py_DebugOffsets, and the value layout's start. */
JU_HIDDEN int ju_py_resolve_target(jitunwind_pyreader *r);
/* The build's DWARF, for the frame layout, the JIT view and the values. */
JU_HIDDEN int ju_py_resolve_dwarf(jitunwind_pyreader *r, jitunwind_dwarf_types *types);
/* A provisional debug-offsets list confirmed by DWARF or refused, fields
 * left to DWARF settled, and the one check of the frame and value layouts
 * (a value layout that fails costs the values only). `module`: the
 * interpreter's file, for messages (NULL: none given). */
JU_HIDDEN int ju_py_resolve_finish(jitunwind_pyreader *r, const char *module);
JU_HIDDEN int ju_py_apply_dwarf(jitunwind_pyreader *r, jitunwind_dwarf_types *types,
                                struct ju_py_layout *L, struct jitunwind_py_dwarf_report *report);
/* ju_py_apply_dwarf, and when a DWARF answer contradicts the table (or is
 * refused) while the answers came from a cache entry, again after putting
 * the entry's answers to the DWARF (dwarf_recheck.c). */
JU_HIDDEN int ju_py_apply_dwarf_rechecked(jitunwind_pyreader *r, jitunwind_dwarf_types *types,
                                          struct ju_py_layout *L,
                                          struct jitunwind_py_dwarf_report *report);
/* The free_threaded word of the target's _Py_DebugOffsets header (0 or 1)
 * after checking its cookie and version, or a negative status. */
JU_HIDDEN int ju_py_debug_offsets_header(jitunwind_pyreader *r);

/* An executor's code was found registered through the GDB JIT interface
 * under `name`: note a name other than the version's, or the name of a
 * version in development (r->gdb_jit_note; the first of a call is kept). */
JU_HIDDEN void ju_py_note_gdb_jit_name(jitunwind_pyreader *r, const char *name);
/* 3.13+: read and check the target's _Py_DebugOffsets and copy them over
 * `out` (pre-filled with the version's static table). */
JU_HIDDEN int ju_py_apply_debug_offsets(jitunwind_pyreader *r, struct ju_py_layout *out);
/* 1 when the target's _Py_DebugOffsets of this version give field `id` of
 * any table (its row names an entry, and the version's list has it): its
 * value then stands against DWARF's. */
JU_HIDDEN int ju_py_debug_offsets_give(uint32_t version_hex, enum ju_py_field_id id);
/* The inverse, for synthetic targets in tests: a _Py_DebugOffsets block for
 * `version_hex` describing L and the value layout V (NULL: the version's
 * table, else the newest), into buf (*len bytes). */
JU_HIDDEN int ju_py_encode_debug_offsets(uint32_t version_hex, const struct ju_py_layout *L,
                                         const struct ju_py_value_layout *V, uint8_t *buf,
                                         size_t cap, size_t *len);

/* Decode the str at `addr` as UTF-8 into buf (NUL-terminated). *truncated
 * is set when the string did not fit or exceeded JU_PY_MAX_STR_CHARS.
 * ECORRUPT for an implausible object, EREAD when unreadable. */
JU_HIDDEN int ju_py_read_str(const struct jitunwind_pyreader *r, uint64_t addr, char *buf,
                             size_t size, int *truncated);
/* UTF-8 of code point cp (<= 0x10ffff) into dst[0..3]: the byte count. */
JU_HIDDEN size_t ju_py_put_utf8(char *dst, uint32_t cp);
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
/* The same from the code cache's entry alone, reading nothing: for a code
 * object the caller knows to be the one the entry was filled or checked
 * from (a frame marker's proof: frame_chains_marker_check.c). 0 when the
 * entry does not hold it whole (out untouched). */
JU_HIDDEN int ju_py_decode_vouched_code(struct jitunwind_pyreader *r, uint64_t code,
                                        uint64_t instr_addr, int32_t tlbc_index,
                                        struct jitunwind_py_frame *out);

/* eval_loop.c: whether `name` is the eval loop's function or a part a
 * compiler split off or cloned from it; each such part of a pass over a
 * file's symbols (a ju_symbol_fn over struct ju_eval_parts, at most
 * JITUNWIND_PY_MAX_EVAL_RANGES, the same code under two names once), in
 * file addresses; the parts put by start; r->eval from a file's parts
 * loaded at `bias`; the part that is the function itself (0, 0 when
 * unknown). */
JU_HIDDEN int ju_py_is_eval_symbol(const char *name);
struct ju_eval_parts {
    struct jitunwind_py_code_range *spans;
    size_t n;
};
JU_HIDDEN int ju_py_take_eval_part(void *parts, const char *name, const GElf_Sym *sym);
JU_HIDDEN void ju_py_sort_eval_parts(struct jitunwind_py_code_range *parts, size_t n);
JU_HIDDEN void ju_py_set_eval_parts(jitunwind_pyreader *r,
                                    const struct jitunwind_py_code_range *parts, size_t n,
                                    uint64_t bias);
/* When the symbols named only the function itself (parts[0..*n) by start,
 * file addresses of `module`, for `arch`): its out-of-line part found
 * from its jumps and .eh_frame (eval_outlined.c), added in start order. */
JU_HIDDEN void ju_py_find_eval_outlined(const char *module, int arch,
                                        struct jitunwind_py_code_range *parts, size_t *n);
/* interp_symbols.c: what a reader takes from the symbols of its
 * interpreter's file (the one holding _PyRuntime), in file addresses:
 * the names below (found[i] with values[i], sizes[i]: the first
 * definition, as ju_elf_symbols gives it), `cold_exits` among them when
 * not NULL, and the eval loop's parts by start (the out-of-line one
 * found from the code for `arch` when no symbol names it), read in one
 * pass and kept for the file as it is (and its debug file as found now):
 * 0, or the pass's failure (EIO, EELF). */
enum { JU_PY_SYM_RUNTIME, JU_PY_SYM_TYPE, JU_PY_SYM_STENCILS, JU_PY_SYM_UOP_NAMES,
       JU_PY_SYM_COLD_EXITS, JU_PY_N_SYMS };
struct ju_py_file_symbols {
    uint64_t values[JU_PY_N_SYMS], sizes[JU_PY_N_SYMS];
    uint8_t found[JU_PY_N_SYMS];
    struct jitunwind_py_code_range eval[JITUNWIND_PY_MAX_EVAL_RANGES];
    size_t n_eval;
};
JU_HIDDEN int ju_py_file_symbols(const char *module, int arch, const char *cold_exits,
                                 struct ju_py_file_symbols *out);
JU_HIDDEN void ju_py_eval_main(const jitunwind_pyreader *r, uint64_t *start, uint64_t *end);

/* The executor at `address` (when non-zero), else the one whose code holds
 * `pc`, found on the interpreters' lists (executors.c): 0, ENOTFOUND, or
 * the walk's error. */
JU_HIDDEN int ju_py_find_executor(jitunwind_pyreader *r, uint64_t address, uint64_t pc,
                                  struct jitunwind_py_executor *out);

#endif
