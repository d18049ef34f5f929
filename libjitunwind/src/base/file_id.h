/* A host file's identity: its device, inode, size and modification time,
 * so that a file replaced at its path (an upgrade, a rebuild) is another
 * file (file_id.c). Not installed. */
#ifndef JITUNWIND_BASE_FILE_ID_H
#define JITUNWIND_BASE_FILE_ID_H

#include <sys/types.h>

#include "base/status.h"

struct ju_file_id {
    dev_t dev;
    ino_t ino;
    off_t size;
    long long mtime_s, mtime_ns;
    int exists; /* 0: the file could not be stat'ed (the rest is 0) */
};

/* The identity of the file at `path` (followed if a link; may be NULL),
 * or of the open descriptor `fd` (ju_file_id_of_fd). */
JU_HIDDEN void ju_file_id_of_path(const char *path, struct ju_file_id *id);
JU_HIDDEN void ju_file_id_of_fd(int fd, struct ju_file_id *id);
/* Whether x and y are the same file, or both missing. */
JU_HIDDEN int ju_file_id_same(const struct ju_file_id *x, const struct ju_file_id *y);

#endif
