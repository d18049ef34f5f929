/* The version table: one row per supported CPython minor version, naming
 * its frame and value layouts and its _Py_DebugOffsets field list. A new
 * version is a row here plus the tables and field rows it names; no other
 * code tests a version. Oldest first. */
#include <stdio.h>

#include "python/layout/versions.h"

static const struct ju_py_version VERSIONS[] = {
    {0x030b0000, &ju_py_layout_311_x86_64, &ju_py_layout_311_aarch64, NULL,
     &ju_py_value_table_311, NULL, JU_PY_DEBUG_NONE, 0},
    {0x030c0000, &ju_py_layout_312, NULL, NULL, &ju_py_value_table_312, NULL, JU_PY_DEBUG_NONE,
     0},
    {0x030d0000, &ju_py_layout_313, NULL, &ju_py_layout_313t, &ju_py_value_table_313,
     &ju_py_value_table_313t, JU_PY_DEBUG_313, 0x030d0000},
    {0x030e0000, &ju_py_layout_314, NULL, &ju_py_layout_314t, &ju_py_value_table_314,
     &ju_py_value_table_314t, JU_PY_DEBUG_314, 0x030e0000},
    {0x030f0000, &ju_py_layout_315, NULL, &ju_py_layout_315t, NULL, NULL, JU_PY_DEBUG_315,
     0x030f00c1 /* 3.15.0rc1 */},
    {0x03100000, &ju_py_layout_316, NULL, &ju_py_layout_316t, NULL, NULL, JU_PY_DEBUG_315, 0},
};
#define N_VERSIONS (sizeof VERSIONS / sizeof VERSIONS[0])

const struct ju_py_version *ju_py_version_of(uint32_t version_hex)
{
    size_t i;
    for (i = 0; i < N_VERSIONS; i++)
        if (VERSIONS[i].version == (version_hex & 0xffff0000u))
            return &VERSIONS[i];
    return NULL;
}

const struct ju_py_layout *ju_py_layout_for_build(uint32_t version_hex, int free_threaded,
                                                  int arch)
{
    const struct ju_py_version *v = ju_py_version_of(version_hex);
    if (!v)
        return NULL;
    if (free_threaded)
        return v->free_threaded;
    if (!v->gil_aarch64)
        return v->gil;
    return arch == JITUNWIND_ARCH_AARCH64 ? v->gil_aarch64
           : arch == JITUNWIND_ARCH_X86_64 ? v->gil
                                            : NULL;
}

const struct ju_py_layout *ju_py_layout_for(uint32_t version_hex, int arch)
{
    return ju_py_layout_for_build(version_hex, 0, arch);
}

const struct ju_py_layout *ju_py_layout_newest(int free_threaded)
{
    const struct ju_py_version *v = &VERSIONS[N_VERSIONS - 1];
    return free_threaded ? v->free_threaded : v->gil;
}

const struct ju_py_value_layout *ju_py_value_table(uint32_t version_hex, int free_threaded)
{
    const struct ju_py_version *v = ju_py_version_of(version_hex);
    return !v ? NULL : free_threaded ? v->values_free_threaded : v->values;
}

const struct ju_py_value_layout *ju_py_value_table_newest(int free_threaded)
{
    size_t i;
    for (i = N_VERSIONS; i-- > 0;) {
        const struct ju_py_value_layout *V =
            free_threaded ? VERSIONS[i].values_free_threaded : VERSIONS[i].values;
        if (V)
            return V;
    }
    return NULL;
}

int ju_py_debug_offsets_supported(uint32_t version_hex)
{
    const struct ju_py_version *v = ju_py_version_of(version_hex);
    return v && v->debug_offsets != JU_PY_DEBUG_NONE;
}

int ju_py_debug_offsets_confirmed(uint32_t version_hex)
{
    const struct ju_py_version *v = ju_py_version_of(version_hex);
    return ju_py_debug_offsets_supported(version_hex) && v->confirmed_from &&
           version_hex >= v->confirmed_from;
}

void ju_py_release_name(uint32_t version_hex, char *buf, size_t size)
{
    static const char *const LEVEL[16] = {[0xa] = "a", [0xb] = "b", [0xc] = "rc", [0xf] = ""};
    const char *level = LEVEL[(version_hex >> 4) & 0xf];
    unsigned serial = version_hex & 0xf;
    snprintf(buf, size, "%u.%u.%u%s", version_hex >> 24, (version_hex >> 16) & 0xff,
             (version_hex >> 8) & 0xff, level ? level : "?");
    if (level && *level) {
        size_t len = strlen(buf);
        snprintf(buf + len, size - len, "%u", serial);
    }
}

void ju_py_supported_range(char *buf, size_t size)
{
    uint32_t first = VERSIONS[0].version, last = VERSIONS[N_VERSIONS - 1].version;
    snprintf(buf, size, "%u.%u to %u.%u", first >> 24, (first >> 16) & 0xff, last >> 24,
             (last >> 16) & 0xff);
}
