/* A cache folder opened so that nobody but the effective user chooses
 * where its files go. Run as root with another user's HOME (sudo -E, su),
 * a cache path names folders that user owns: a symbolic link there, or a
 * folder swapped for one, would make root read or write files wherever
 * that user says.
 *
 * The path is walked from "/" one name at a time with
 * O_DIRECTORY|O_NOFOLLOW, so no symbolic link is ever followed (a path
 * through one gets no cache). Every folder on the way must belong to the
 * effective user or to root, and one that others may write must be sticky
 * (/tmp); the cache folder itself, and any folder made on the way (mode
 * 0700), must belong to the effective user and be writable by nobody
 * else. Files inside are then opened with openat and O_NOFOLLOW. */
#ifndef JU_CACHE_FOLDER_H
#define JU_CACHE_FOLDER_H

#include "internal.h"

/* The folder `path` (absolute), its missing folders made when `create`: an
 * open directory descriptor (O_CLOEXEC), or ENOTFOUND when it does not
 * exist, EUNSUPPORTED when a folder on the way breaks the rules above (no
 * cache there), EINVAL for a path that is not absolute or names "." or
 * "..", EIO. */
JU_HIDDEN int ju_cache_folder_open(const char *path, int create);

#endif
