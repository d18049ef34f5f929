/* Module files shared by module sets (jitunwind_module_files, modules.h):
 * a file is known by its identity (device, inode, size, modification
 * time), so the same library mapped at another path (/lib and /usr/lib)
 * is shared and a file replaced at its path is not. A file stays in the
 * pool while a module uses it, and after that until the pool needs its
 * room for another (the one let go longest ago closes first); when every
 * file of a full pool is in use, a set opens its own. The pool lives
 * while its owner, a set sharing it or a file of it holds it. */
#include <stdlib.h>

#include "internal.h"
#include "elf/modules_internal.h"

struct jitunwind_module_files {
    struct ju_module_file **files;
    size_t n, max;
    unsigned holds;             /* its owner's, sets', files' in use */
    unsigned long long clock;   /* counts releases, for the oldest */
    struct jitunwind_module_files_stats stats;
};

JITUNWIND_API int jitunwind_module_files_new(size_t max_files, jitunwind_module_files **out)
{
    jitunwind_module_files *p;
    int rc = 0;
    if (!out)
        return JITUNWIND_EINVAL;
    if (max_files == 0 || max_files > SIZE_MAX / sizeof *p->files) {
        rc = JITUNWIND_EINVAL;
        p = NULL;
    } else if ((p = calloc(1, sizeof *p)) != NULL &&
               !(p->files = calloc(max_files, sizeof *p->files))) {
        free(p);
        p = NULL;
    }
    if (p) {
        p->max = max_files;
        p->holds = 1;
    }
    return ju_constructed((void **)out, p, rc ? rc : p ? 0 : JITUNWIND_ENOMEM, NULL);
}

void ju_module_files_hold(struct jitunwind_module_files *pool)
{
    if (pool)
        pool->holds++;
}

void ju_module_files_drop(struct jitunwind_module_files *pool)
{
    size_t i;
    if (!pool || --pool->holds > 0)
        return;
    for (i = 0; i < pool->n; i++) /* every file let go by now */
        ju_module_file_close(pool->files[i]);
    free(pool->files);
    free(pool);
}

JITUNWIND_API void jitunwind_module_files_free(jitunwind_module_files *files)
{
    ju_module_files_drop(files);
}

JITUNWIND_API int jitunwind_module_files_stats(const jitunwind_module_files *files,
                                               struct jitunwind_module_files_stats *out)
{
    if (!files || !out)
        return JITUNWIND_EINVAL;
    *out = files->stats;
    out->held = files->n;
    return 0;
}

JITUNWIND_API int jitunwind_module_files_info(const jitunwind_module_files *files, size_t index,
                                              struct jitunwind_module_file_info *out)
{
    if (!files || !out || index >= files->n || !files->files[index])
        return JITUNWIND_EINVAL;
    out->path = files->files[index]->path;
    out->users = files->files[index]->refs;
    return 0;
}

/* A free place in the pool, a file let go closed for it if need be, or -1. */
static long room(struct jitunwind_module_files *pool)
{
    size_t i, oldest = pool->n;
    if (pool->n < pool->max)
        return (long)pool->n++;
    for (i = 0; i < pool->n; i++)
        if (pool->files[i]->refs == 0 &&
            (oldest == pool->n || pool->files[i]->released < pool->files[oldest]->released))
            oldest = i;
    if (oldest == pool->n)
        return -1;
    ju_module_file_close(pool->files[oldest]);
    pool->files[oldest] = NULL;
    return (long)oldest;
}

int ju_module_file_get(struct jitunwind_module_files *pool, const char *path,
                       struct ju_module_file **out)
{
    struct ju_file_id id;
    size_t i;
    long at;
    int rc;
    if (!pool)
        return ju_module_file_open(path, out);
    ju_file_id_of_path(path, &id);
    for (i = 0; id.exists && i < pool->n; i++)
        if (ju_file_id_same(&pool->files[i]->id, &id)) {
            if (pool->files[i]->refs++ == 0)
                pool->holds++;
            pool->stats.reused++;
            *out = pool->files[i];
            return 0;
        }
    if ((rc = ju_module_file_open(path, out)) < 0)
        return rc;
    ju_file_id_of_fd((*out)->fd, &(*out)->id); /* what was opened, if replaced since */
    if (!(*out)->id.exists || (at = room(pool)) < 0) {
        pool->stats.unpooled++;
        return 0;
    }
    (*out)->pool = pool;
    pool->files[at] = *out;
    pool->holds++;
    pool->stats.opened++;
    return 0;
}

void ju_module_file_put(struct ju_module_file *f)
{
    if (!f || --f->refs > 0)
        return;
    if (!f->pool) {
        ju_module_file_close(f);
        return;
    }
    f->released = ++f->pool->clock;
    ju_module_files_drop(f->pool);
}
