/* A host file's identity (file_id.h). */
#include <string.h>
#include <sys/stat.h>

#include "base/file_id.h"

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
