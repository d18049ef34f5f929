/* Host files on paths that a target or another user controls
 * (host_files.c). Not installed. */
#ifndef JITUNWIND_BASE_HOST_FILES_H
#define JITUNWIND_BASE_HOST_FILES_H

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

#endif
