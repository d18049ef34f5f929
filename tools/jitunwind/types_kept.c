/* record --perf --all opens many processes of few interpreters: each
 * interpreter file's DWARF types (inflated from compressed sections, the
 * costly part of opening a Python process) are opened once a run and kept,
 * keyed by the file's identity (device, inode, size, modification time). */
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

#define TYPES_KEPT 4u

static struct kept_types {
    struct stat st;
    jitunwind_dwarf_types *types; /* NULL: free slot */
} kept[TYPES_KEPT];

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

int cli_types_kept(const char *module, const char *cache_dir, jitunwind_dwarf_types **out)
{
    struct stat st;
    size_t i;
    int rc;
    *out = NULL;
    if (stat(module, &st) != 0)
        return -1;
    for (i = 0; i < TYPES_KEPT && kept[i].types; i++)
        if (same_file(&kept[i].st, &st)) {
            *out = kept[i].types;
            return 0;
        }
    if ((rc = jitunwind_dwarf_types_open_cached(out, module, cache_dir)) < 0)
        return rc;
    if (i < TYPES_KEPT) {
        kept[i].st = st;
        kept[i].types = *out;
        return 0;
    }
    return 1; /* not kept: the caller frees it */
}

void cli_types_kept_free(void)
{
    size_t i;
    for (i = 0; i < TYPES_KEPT; i++)
        jitunwind_dwarf_types_free(kept[i].types);
    memset(kept, 0, sizeof kept);
}
