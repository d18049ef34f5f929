/* The kernel's vDSO as a module: it is an ELF image with CFI, but no file
 * maps it, so /proc/PID/maps gives no path to open. A sample taken in it
 * (clock_gettime, gettimeofday) is unwound only with its CFI: its image is
 * copied out of the process into a private file, added to the module set
 * at the vDSO's address. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf_events.h"

#define VDSO_MAX (256u * 1024u)

int cli_vdso_module(struct cli_target *t, uint64_t start, uint64_t end, char *path, size_t len)
{
    unsigned char *image;
    uint64_t size = end - start, at;
    int fd, rc = -1;
    path[0] = '\0';
    if (!t->mods || start == 0 || end <= start || size > VDSO_MAX || len < 32)
        return -1;
    if (!(image = malloc((size_t)size)))
        return -1;
    for (at = 0; at < size; at += 4096)
        if (t->mem.read(t->mem.arg, start + at, image + at,
                        size - at < 4096 ? (size_t)(size - at) : 4096) < 0)
            goto out;
    if (memcmp(image, "\177ELF", 4) != 0)
        goto out;
    snprintf(path, len, "/tmp/jitunwind-vdso-XXXXXX");
    if ((fd = mkstemp(path)) < 0) {
        path[0] = '\0';
        goto out;
    }
    if (write(fd, image, (size_t)size) == (ssize_t)size &&
        jitunwind_modules_add_mapping(t->mods, path, start, end, 0) == 0)
        rc = 0;
    close(fd);
    if (rc < 0) {
        unlink(path);
        path[0] = '\0';
    }
out:
    free(image);
    return rc;
}
