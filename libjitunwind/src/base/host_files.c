/* Opening files on the host whose paths a target or another user controls
 * (docs/usage.md, "Files the library opens"). A FIFO, a device or a socket
 * planted at such a path must not block the debugger or feed it endless
 * data: every such open is non-blocking, and only a regular file is kept.
 * Files found by convention in shared, world-writable places (the perf map
 * in /tmp) are further opened without following a symbolic link and kept
 * only when owned by root, by the caller, or by the user the file name
 * says it belongs to. A file's identity (device, inode, size, modification
 * time) tells a file replaced at its path from the one that was there. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "base/host_files.h"

static const char *file_type(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "a device";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISDIR(mode))
        return "a directory";
    return "not a regular file";
}

int ju_open_host_file(const char *path, unsigned policy, long owner, struct jitunwind_error *err,
                      int *fd_out)
{
    struct stat st = {0};
    int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, fd, saved;
    *fd_out = -1;
    if (policy & JU_OPEN_SHARED_PLACE)
        flags |= O_NOFOLLOW;
    fd = open(path, flags);
    if (fd < 0) {
        saved = errno;
        if (saved == ELOOP && (policy & JU_OPEN_SHARED_PLACE))
            return ju_fail(err, JITUNWIND_EIO, 0, "refused %s: a symbolic link", path);
        return ju_fail(err, saved == ENOENT ? JITUNWIND_ENOTFOUND : JITUNWIND_EIO, 0,
                       "cannot open %s: %s", path, strerror(saved));
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return ju_fail(err, JITUNWIND_EIO, 0, "refused %s: %s", path, file_type(st.st_mode));
    }
    if ((policy & JU_OPEN_SHARED_PLACE) && st.st_uid != 0 && st.st_uid != geteuid() &&
        (owner < 0 || st.st_uid != (uid_t)owner)) {
        close(fd);
        return ju_fail(err, JITUNWIND_EIO, 0,
                       "refused %s: owned by uid %ld, not by root, you or the target's user",
                       path, (long)st.st_uid);
    }
    /* Reads of a regular file never block; clear the flag for libraries
     * that look at it. */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    *fd_out = fd;
    return 0;
}

static void from_stat(const struct stat *st, struct ju_file_id *id)
{
    id->dev = st->st_dev;
    id->ino = st->st_ino;
    id->size = st->st_size;
    id->mtime_s = (long long)st->st_mtim.tv_sec;
    id->mtime_ns = (long long)st->st_mtim.tv_nsec;
    id->exists = 1;
}

void ju_file_id_of_path(const char *path, struct ju_file_id *id)
{
    struct stat st;
    memset(id, 0, sizeof *id);
    if (path && path[0] && stat(path, &st) == 0)
        from_stat(&st, id);
}

void ju_file_id_of_fd(int fd, struct ju_file_id *id)
{
    struct stat st;
    memset(id, 0, sizeof *id);
    if (fd >= 0 && fstat(fd, &st) == 0)
        from_stat(&st, id);
}

int ju_file_id_same(const struct ju_file_id *x, const struct ju_file_id *y)
{
    return x->exists == y->exists && x->dev == y->dev && x->ino == y->ino &&
           x->size == y->size && x->mtime_s == y->mtime_s && x->mtime_ns == y->mtime_ns;
}
