/* Answers of jitunwind_elf_symbol kept across calls (symbol_memo.c): a
 * profiler of every process asks each process's modules for the same few
 * names (the JIT descriptors, _PyRuntime), and each answer was a pass over
 * the file's tables, or its debug file's. Not installed. */
#ifndef JITUNWIND_ELF_SYMBOL_MEMO_H
#define JITUNWIND_ELF_SYMBOL_MEMO_H

#include <stdint.h>

#include "base/status.h"

struct ju_symbol_answer {
    int rc;          /* 0 (found) or ENOTFOUND */
    uint64_t value, size;
};

/* The answer kept for `name` in the file at `path` as it is now (device,
 * inode, size, modification time), and, when the answer came from a
 * separate debug file, that file as `debug` names it now ("" for none):
 * 1 with it in *out, else 0. `debug` NULL: the answer must have come from
 * the file alone. Safe from any thread. */
JU_HIDDEN int ju_symbol_memo_find(const char *path, const char *name, const char *debug,
                                  struct ju_symbol_answer *out);
/* Whether the answer for `path` came from a debug file (1), from the file
 * alone (0), or is not kept (-1), so that the caller knows whether to
 * look for the debug file before ju_symbol_memo_find. */
JU_HIDDEN int ju_symbol_memo_used_debug(const char *path, const char *name);
/* Keep `a` for `name` in `path`, read with the debug file `debug` (NULL:
 * the file alone; "": it had none). */
JU_HIDDEN void ju_symbol_memo_keep(const char *path, const char *name, const char *debug,
                                   const struct ju_symbol_answer *a);

#endif
