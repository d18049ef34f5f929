/* Host files on paths that a target or another user controls, and a
 * host file's identity (host_files.c). Not installed. */
#ifndef JITUNWIND_BASE_HOST_FILES_H
#define JITUNWIND_BASE_HOST_FILES_H

#include <sys/types.h>

#include "base/status.h"

/* Open such a file: read-only, close-on-exec, without blocking, and only
 * a regular file. JU_OPEN_SHARED_PLACE (a file found by name in a
 * world-writable place, like /tmp/perf-PID.map) also refuses a symbolic
 * link and a file not owned by root, the caller's user or `owner` (a uid,
 * or -1). 0 with *fd, or ENOTFOUND / EIO with a one-line message in *err
 * (may be NULL). */
#define JU_OPEN_SHARED_PLACE 1u
JU_HIDDEN int ju_open_host_file(const char *path, unsigned policy, long owner,
                                struct jitunwind_error *err, int *fd);

/* A host file's identity: its device, inode, size and modification time,
 * so that a file replaced at its path (an upgrade, a rebuild) is another
 * file. */
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
