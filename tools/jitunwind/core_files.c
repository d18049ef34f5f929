/* Files a core names that were replaced on disk since the dump (a package
 * upgrade, a rebuilt interpreter). Their symbols, code and debug info are
 * no longer the dumped process's: the interpreter's layout, symbols and
 * unwind tables would be read from the wrong build. The core keeps each
 * file's first page (its ELF headers and build id note) when the dump
 * included it; a file whose first page the core lacks is read from disk
 * and so cannot be told apart (not counted). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

size_t cli_core_replaced_files(const struct cli_target *t, const char *path, char *first,
                               size_t size)
{
    jitunwind_modules *mods = NULL;
    size_t i, n, replaced = 0;
    if (size)
        first[0] = '\0';
    if (jitunwind_modules_new(&mods) < 0 || jitunwind_modules_load_core(mods, t->core_path) < 0) {
        jitunwind_modules_free(mods);
        return 0;
    }
    n = jitunwind_modules_count(mods);
    for (i = 0; i < n && i < CLI_CORE_FILES_CHECKED; i++) {
        struct jitunwind_module_info info;
        char in_core[128], on_disk[128];
        if (jitunwind_modules_info(mods, i, &info) < 0 || !info.path ||
            cli_core_image_build_id(t, info.start, info.end, in_core, sizeof in_core) < 0 ||
            cli_file_build_id(info.path, on_disk, sizeof on_disk) < 0 ||
            strcmp(in_core, on_disk) == 0)
            continue;
        if (path ? strcmp(path, info.path) == 0 : replaced == 0)
            snprintf(first, size, "%s is build %s in the core, %s on disk", info.path, in_core,
                     on_disk);
        replaced++;
    }
    jitunwind_modules_free(mods);
    return replaced;
}
