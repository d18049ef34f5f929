/* Separate debug files from debuginfod servers, through elfutils'
 * libdebuginfod loaded at run time (dlopen): a machine without it works as
 * before. The servers are those DEBUGINFOD_URLS names (unset or empty: none
 * is asked); the client keeps what it fetched in its own cache
 * ($DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client) and honours the
 * variables it documents (DEBUGINFOD_TIMEOUT, ...). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"
#include "elf/elf.h"

/* libdebuginfod's API (debuginfod.h), declared here so that building needs
 * no header: the library is optional at run time. */
typedef struct debuginfod_client debuginfod_client;
static struct {
    debuginfod_client *(*begin)(void);
    int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
    void (*end)(debuginfod_client *);
} api;
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

static void load_api(void)
{
    void *lib = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return;
    *(void **)&api.begin = dlsym(lib, "debuginfod_begin");
    *(void **)&api.find_debuginfo = dlsym(lib, "debuginfod_find_debuginfo");
    *(void **)&api.end = dlsym(lib, "debuginfod_end");
    if (!api.begin || !api.find_debuginfo || !api.end)
        api.begin = NULL; /* kept loaded: a library is never unloaded here */
}

int ju_debuginfod_cached(const char *hex, char *out, size_t size)
{
    const char *urls = getenv("DEBUGINFOD_URLS"), *dir = getenv("DEBUGINFOD_CACHE_PATH");
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (!urls || !*urls)
        return JITUNWIND_ENOTFOUND;
    if (dir && *dir)
        n = snprintf(out, size, "%s/%s/debuginfo", dir, hex);
    else if (xdg && *xdg)
        n = snprintf(out, size, "%s/debuginfod_client/%s/debuginfo", xdg, hex);
    else if (home && *home)
        n = snprintf(out, size, "%s/.cache/debuginfod_client/%s/debuginfo", home, hex);
    else
        return JITUNWIND_ENOTFOUND;
    return n > 0 && (size_t)n < size ? 0 : JITUNWIND_ENOTFOUND;
}

int ju_debuginfod_find(const void *build_id, size_t len, char *out, size_t size)
{
    const char *urls = getenv("DEBUGINFOD_URLS");
    debuginfod_client *client;
    char *path = NULL;
    int fd, rc = JITUNWIND_ENOTFOUND;
    if (!urls || !*urls || len == 0 || len > 64)
        return JITUNWIND_ENOTFOUND;
    pthread_once(&api_once, load_api);
    if (!api.begin)
        return JITUNWIND_EUNSUPPORTED;
    if (!(client = api.begin()))
        return JITUNWIND_ENOMEM;
    fd = api.find_debuginfo(client, build_id, (int)len, &path);
    if (fd >= 0) {
        close(fd);
        if (path && ju_strlcpy(out, path, size) == 0)
            rc = 0;
    }
    free(path);
    api.end(client);
    return rc;
}
