/* The cache folder walk (cache_folder.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf/cache_folder.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* May the folder open as fd stand on the way (last = 0) or be the cache
 * folder itself (last = 1)? */
static int acceptable(int fd, int last)
{
    struct stat st;
    uid_t me = geteuid();
    if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode))
        return 0;
    if (last)
        return st.st_uid == me && !(st.st_mode & (S_IWGRP | S_IWOTH));
    if (st.st_uid != me && st.st_uid != 0)
        return 0;
    return !(st.st_mode & (S_IWGRP | S_IWOTH)) || (st.st_mode & S_ISVTX);
}

int ju_cache_folder_open(const char *path, int create)
{
    char name[256];
    const char *p = path, *end;
    int fd, next;
    if (!path || path[0] != '/')
        return JITUNWIND_EINVAL;
    fd = open("/", DIR_FLAGS);
    if (fd < 0)
        return JITUNWIND_EIO;
    for (;;) {
        size_t len;
        while (*p == '/')
            p++;
        if (!*p)
            break;
        end = strchr(p, '/');
        len = end ? (size_t)(end - p) : strlen(p);
        if (len >= sizeof name || (len == 1 && p[0] == '.') ||
            (len == 2 && p[0] == '.' && p[1] == '.')) {
            close(fd);
            return JITUNWIND_EINVAL;
        }
        if (!acceptable(fd, 0)) {
            close(fd);
            return JITUNWIND_EUNSUPPORTED;
        }
        memcpy(name, p, len);
        name[len] = 0;
        next = openat(fd, name, DIR_FLAGS);
        if (next < 0 && errno == ENOENT && create &&
            (mkdirat(fd, name, 0700) == 0 || errno == EEXIST))
            next = openat(fd, name, DIR_FLAGS);
        if (next < 0) {
            int e = errno;
            close(fd);
            if (e == ENOENT)
                return JITUNWIND_ENOTFOUND;
            return e == ELOOP || e == ENOTDIR ? JITUNWIND_EUNSUPPORTED : JITUNWIND_EIO;
        }
        close(fd);
        fd = next;
        p += len;
    }
    if (!acceptable(fd, 1)) {
        close(fd);
        return JITUNWIND_EUNSUPPORTED;
    }
    return fd;
}
