/* Finding _PyRuntime and the CPython version of a live process or a core:
 * the mapped ELF files are searched for the _PyRuntime symbol (symbol
 * tables only, no debuginfo), and Py_Version (3.11+) is read from the same
 * file's initialised data. */
#include "python/pyreader.h"
#include "jitunwind/modules.h"
#include "elf/elf.h"

static int locate_in(const jitunwind_modules *mods, struct jitunwind_py_location *loc)
{
    size_t i, n = jitunwind_modules_count(mods);
    for (i = 0; i < n; i++) {
        struct jitunwind_module_info info;
        uint64_t runtime, version_addr;
        uint8_t version[4];
        if (jitunwind_modules_info(mods, i, &info) < 0 ||
            jitunwind_elf_symbol(info.path, "_PyRuntime", &runtime, NULL) < 0)
            continue;
        memset(loc, 0, sizeof *loc);
        loc->runtime_addr = runtime + info.bias;
        ju_strlcpy(loc->module, info.path, sizeof loc->module);
        if (jitunwind_elf_symbol(info.path, "Py_Version", &version_addr, NULL) == 0 &&
            ju_elf_read_vaddr(info.path, version_addr, version, sizeof version) == 0)
            loc->version_hex = ju_load_u32(version);
        return loc->version_hex ? 0 : JITUNWIND_EVERSION;
    }
    return JITUNWIND_ENOTFOUND;
}

JITUNWIND_API int jitunwind_py_locate_modules(const jitunwind_modules *mods,
                                              struct jitunwind_py_location *loc)
{
    if (!mods || !loc)
        return JITUNWIND_EINVAL;
    return locate_in(mods, loc);
}

JITUNWIND_API int jitunwind_py_locate_live(int pid, struct jitunwind_py_location *loc)
{
    jitunwind_modules *mods;
    int rc;
    if (!loc || pid <= 0)
        return JITUNWIND_EINVAL;
    if ((rc = jitunwind_modules_new(&mods)) < 0)
        return rc;
    rc = jitunwind_modules_load_proc(mods, pid);
    if (rc == 0)
        rc = locate_in(mods, loc);
    jitunwind_modules_free(mods);
    return rc;
}

JITUNWIND_API int jitunwind_py_locate_core(const char *core_path,
                                           struct jitunwind_py_location *loc)
{
    jitunwind_modules *mods;
    int rc;
    if (!loc || !core_path)
        return JITUNWIND_EINVAL;
    if ((rc = jitunwind_modules_new(&mods)) < 0)
        return rc;
    rc = jitunwind_modules_load_core(mods, core_path);
    if (rc == 0)
        rc = locate_in(mods, loc);
    jitunwind_modules_free(mods);
    return rc;
}
