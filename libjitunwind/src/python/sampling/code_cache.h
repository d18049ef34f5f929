/* The code-object cache of a reader (code_cache.c): what a sampler decodes
 * again and again (a code object's qualname, filename, first line and line
 * table) kept by the code object's address between calls. */
#ifndef JITUNWIND_PY_CODE_CACHE_H
#define JITUNWIND_PY_CODE_CACHE_H

#include "python/pyreader.h"

#define JU_CODE_CACHE_TABLE_MAX 4096u /* longer line tables are read every time */
#define JU_CODE_CACHE_LINES 8u        /* lines memoised per code object */

struct ju_code_cache_entry {
    uint64_t code; /* 0: empty */
    /* The validity check: a code object at the same address whose name,
     * file and line-table pointers and first line are all the same may be
     * the same code (its fields never change), or a new one made like it
     * into freed memory whose strings took the freed strings' places too
     * (functions made by exec one after another). So a match of the head
     * is confirmed by the qualname's text, read again (code.c). */
    uint64_t qualname, filename, linetable;
    int32_t first_line;
    uint32_t flags;       /* JITUNWIND_PYFRAME_NAME_TRUNCATED, _SHIM */
    uint32_t table_len;
    uint32_t table_held;  /* the line table is in `table` */
    uint32_t fill_reads;  /* target reads the fill made: what a hit saves */
    uint64_t checked_sample; /* the cache's sample in which the head last matched */
    /* Lines found in `table` lately, by instruction offset (code units; -1:
     * empty): the entry is this code object's alone, so is each line. */
    struct ju_code_line {
        int32_t lasti, line;
    } lines[JU_CODE_CACHE_LINES];
    uint32_t lines_next; /* the memo slot filled next (round robin) */
    char qualname_text[JITUNWIND_PY_NAME_MAX];
    char filename_text[JITUNWIND_PY_FILENAME_MAX];
    uint8_t table[JU_CODE_CACHE_TABLE_MAX];
};

struct ju_code_cache {
    size_t count;
    uint64_t sample; /* 0: check every use; else the caller's current sample */
    struct ju_code_cache_entry *entries;
    struct jitunwind_py_cache_stats stats;
};

/* The entry for `code` if it holds this code object (a hit), else NULL; a
 * stale entry is counted as invalidated. */
JU_HIDDEN struct ju_code_cache_entry *ju_code_cache_find(struct ju_code_cache *c, uint64_t code,
                                                         uint64_t qualname, uint64_t filename,
                                                         uint64_t linetable, int32_t first_line);
/* A hit of ju_code_cache_find that the qualname's text contradicts: the
 * entry is dropped and counted as invalidated, the hit as a miss. */
JU_HIDDEN void ju_code_cache_reject(struct ju_code_cache *c, struct ju_code_cache_entry *e);
/* The entry for `code` when its head was checked earlier in the current
 * sample (a hit that reads nothing), else NULL. */
JU_HIDDEN struct ju_code_cache_entry *ju_code_cache_checked(struct ju_code_cache *c,
                                                            uint64_t code);
/* The entry for `code` when it holds its names and whole line table, for
 * a code object the caller vouches for (nothing is read, the head is
 * counted as checked in the current sample), else NULL. */
JU_HIDDEN struct ju_code_cache_entry *ju_code_cache_vouched(struct ju_code_cache *c,
                                                            uint64_t code);
/* The slot `code` would use, emptied and keyed for a fill. */
JU_HIDDEN struct ju_code_cache_entry *ju_code_cache_slot(struct ju_code_cache *c, uint64_t code,
                                                         uint64_t qualname, uint64_t filename,
                                                         uint64_t linetable, int32_t first_line);
/* The line of instruction offset `lasti` in the entry's held table
 * (jitunwind_py_linetable_line), memoised per entry. */
JU_HIDDEN int ju_code_cache_line(struct ju_code_cache_entry *e, int32_t lasti);
JU_HIDDEN void ju_code_cache_free(struct ju_code_cache *c);

#endif
