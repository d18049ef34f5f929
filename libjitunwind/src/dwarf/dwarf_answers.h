/* The answers one DWARF file gave to type queries (jitunwind_dwarf_*),
 * kept in a cache directory between runs so that a later run on the same
 * build asks the file nothing: reading a zlib-compressed separate debug
 * file costs a command like `jitunwind stack` most of its time.
 *
 * An entry is named after the build id of the file the DWARF was looked up
 * for (the interpreter), and records which file answered (its path, build
 * id and size, checked again before the entry is used) and each answer,
 * found or not. The file is text, ends with a checksum of everything
 * before it, and is written to a temporary name and renamed, so a reader
 * sees an old entry or a new one, never half of one. Whatever does not
 * parse, fit its limits, match its key or its checksum is not used. */
#ifndef JU_DWARF_ANSWERS_H
#define JU_DWARF_ANSWERS_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "jitunwind/dwarf.h"
#include "elf/elf.h"

#define JU_DWARF_ANSWERS_VERSION 1
#define JU_DWARF_ANSWERS_MAX 256
#define JU_DWARF_NAME_MAX 96     /* a type name or member path, with its NUL */
#define JU_DWARF_ANSWERS_FILE_MAX (64 * 1024)

enum ju_dwarf_query {
    JU_DWARF_TYPE_SIZE,     /* jitunwind_dwarf_type_size */
    JU_DWARF_MEMBER_OFFSET, /* jitunwind_dwarf_member_offset */
    JU_DWARF_MEMBER_BITS,   /* jitunwind_dwarf_member_bit_offset */
    JU_DWARF_QUERY_KINDS
};

struct ju_dwarf_answer {
    uint8_t kind;  /* enum ju_dwarf_query */
    int32_t rc;    /* what the query returned: 0 or a JITUNWIND_E* */
    uint64_t value;
    char type[JU_DWARF_NAME_MAX];
    char path[JU_DWARF_NAME_MAX]; /* "" for JU_DWARF_TYPE_SIZE */
};

struct ju_dwarf_answers {
    char key[JU_BUILD_ID_HEX_MAX];       /* the build id looked up for */
    char source[1024];                   /* the file that answered */
    char source_id[JU_BUILD_ID_HEX_MAX]; /* its build id */
    uint64_t source_size;                /* and its size in bytes */
    unsigned count;
    int full; /* an answer did not fit: the set is not worth keeping */
    struct ju_dwarf_answer answers[JU_DWARF_ANSWERS_MAX];
};

/* The answer to (kind, type, path), or NULL. */
JU_HIDDEN const struct ju_dwarf_answer *ju_dwarf_answers_find(const struct ju_dwarf_answers *a,
                                                              int kind, const char *type,
                                                              const char *path);
/* Record an answer; names too long or a full table set a->full. */
JU_HIDDEN void ju_dwarf_answers_add(struct ju_dwarf_answers *a, int kind, const char *type,
                                    const char *path, int rc, uint64_t value);

/* The entry's file name for build id `key` under `dir`: 0, or EINVAL when
 * it does not fit `size`. */
JU_HIDDEN int ju_dwarf_answers_file(char *out, size_t size, const char *dir, const char *key);

/* Parse the entry text `text` (len bytes) into *a: 0 when it is whole, of
 * this format version, for build id `key`, and its checksum holds;
 * ECORRUPT otherwise (*a is then unusable). The source file is not
 * checked here (see dwarf_types.c). */
JU_HIDDEN int ju_dwarf_answers_parse(struct ju_dwarf_answers *a, const char *text, size_t len,
                                     const char *key);
/* Read and parse the entry for `key` under `dir`: 0, ENOTFOUND, ECORRUPT
 * (also for a file that is not this user's, or that others may write). */
JU_HIDDEN int ju_dwarf_answers_load(struct ju_dwarf_answers *a, const char *dir,
                                    const char *key);
/* The entry text of *a into out (size bytes): its length, or ELIMIT. */
JU_HIDDEN int ju_dwarf_answers_format(const struct ju_dwarf_answers *a, char *out, size_t size);
/* Write *a as its key's entry under `dir` (created, mode 0700, if
 * missing): to a temporary file in `dir`, then renamed over the entry. */
JU_HIDDEN int ju_dwarf_answers_save(const struct ju_dwarf_answers *a, const char *dir);

/* Whether the handle has opened its DWARF (libdw) yet: 0 while a cache
 * entry answered every query (dwarf_types.c; for tests). */
JU_HIDDEN int ju_dwarf_types_read_dwarf(const jitunwind_dwarf_types *t);

#endif
