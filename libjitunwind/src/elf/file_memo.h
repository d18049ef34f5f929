/* Readings of files kept across calls (file_memo.c): a profiler of every
 * process reads the same files for each process (the JIT descriptors and
 * _PyRuntime by name, an interpreter's symbols), and each reading is a
 * pass over the file's tables, or its debug file's. A reading is kept for
 * a file as it is (device, inode, size, modification time: a file replaced
 * at its path is another) and a key, and, when it was read from a separate
 * debug file, for that debug file as it was found then: one installed,
 * removed or replaced since makes the reading stale. The oldest reading
 * gives way. A table is static storage (JU_FILE_MEMO); every call is safe
 * from any thread. Not installed. */
#ifndef JITUNWIND_ELF_FILE_MEMO_H
#define JITUNWIND_ELF_FILE_MEMO_H

#include <pthread.h>
#include <stddef.h>

#include "base/host_files.h"
#include "base/status.h"

#define JU_FILE_MEMO_KEY 64u /* a longer key is not kept */

struct ju_file_memo_slot {
    struct ju_file_id file, debug;
    int uses_debug; /* read with a debug file looked for (the file being stripped) */
    char key[JU_FILE_MEMO_KEY];
    unsigned long long age;
};

struct ju_file_memo {
    pthread_mutex_t lock;
    size_t n, size;                  /* slots, and the bytes of a reading */
    struct ju_file_memo_slot *slots;
    void *readings;                  /* n readings of `size` bytes */
    unsigned long long clock;
};

/* A table `name` of `n` readings of type `type`, in static storage. */
#define JU_FILE_MEMO(name, n, type)                                                  \
    static struct ju_file_memo_slot name##_slots[n];                                  \
    static type name##_readings[n];                                                   \
    static struct ju_file_memo name = {PTHREAD_MUTEX_INITIALIZER, n, sizeof(type),    \
                                       name##_slots, name##_readings, 0}

/* The reading kept in M for `key` of the file at `path` as it is now,
 * and, when it was read with a debug file looked for, that debug file as
 * ju_elf_debug_file_now(path, debug_flags) finds it now: 1 with it copied
 * into *out, else 0. */
JU_HIDDEN int ju_file_memo_find(struct ju_file_memo *m, const char *path, const char *key,
                                unsigned debug_flags, void *out);
/* Keep `reading` in M for `key` of the file at `path`, read from it alone
 * (`debug` NULL) or with a debug file looked for (`debug` the one read,
 * "" for none found). Nothing is kept for a file that cannot be stat'ed
 * or a key too long. */
JU_HIDDEN void ju_file_memo_keep(struct ju_file_memo *m, const char *path, const char *key,
                                 const char *debug, const void *reading);

#endif
