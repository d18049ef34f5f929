/* Where the layout cache lives: $XDG_CACHE_HOME/jitunwind, else
 * ~/.cache/jitunwind; none with --no-cache or JITUNWIND_NO_CACHE=1 (any
 * value but empty or 0), or when neither variable names an absolute
 * directory. The cache keeps what the interpreter's DWARF said about its
 * structs (jitunwind_dwarf_types_open_cached), per build id. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char *cli_cache_dir(const struct cli_options *opt, char *buf, size_t size)
{
    const char *off = getenv("JITUNWIND_NO_CACHE"), *xdg = getenv("XDG_CACHE_HOME"),
               *home = getenv("HOME");
    int n;
    if (opt->no_cache || (off && *off && strcmp(off, "0") != 0))
        return NULL;
    if (xdg && xdg[0] == '/')
        n = snprintf(buf, size, "%s/jitunwind", xdg);
    else if (home && home[0] == '/')
        n = snprintf(buf, size, "%s/.cache/jitunwind", home);
    else
        return NULL;
    return n > 0 && (size_t)n < size ? buf : NULL;
}
