/* The CPython versions the reader knows, one row per minor version
 * (versions.c): everything that tells one version from another apart from
 * the offsets themselves. */
#ifndef JITUNWIND_PY_VERSIONS_H
#define JITUNWIND_PY_VERSIONS_H

#include "python/layout/value_layout.h"

/* The _Py_DebugOffsets field lists (debug_offsets.c), by the first minor
 * version laid out so. */
enum ju_py_debug_list { JU_PY_DEBUG_NONE, JU_PY_DEBUG_313, JU_PY_DEBUG_314, JU_PY_DEBUG_315,
                        JU_PY_DEBUG_LISTS };

struct ju_py_version {
    uint32_t version;                         /* 0xMMmm0000 */
    const struct ju_py_layout *gil;           /* frame layout of a GIL build (on x86-64
                                               * only, when gil_aarch64 is set) */
    const struct ju_py_layout *gil_aarch64;   /* on AArch64, where it differs; else NULL */
    const struct ju_py_layout *free_threaded; /* of a Py_GIL_DISABLED build, or NULL */
    const struct ju_py_value_layout *values, *values_free_threaded; /* NULL: none, the
                                               * newest is borrowed (value_layout.h) */
    uint8_t debug_offsets;   /* enum ju_py_debug_list: the target's _Py_DebugOffsets */
    uint32_t confirmed_from; /* first PY_VERSION_HEX that list is known to describe;
                              * 0: none yet (provisional: DWARF must confirm it) */
};

/* The static tables the rows name: frame layouts (layout_table.c) and
 * value layouts (value_layout.c). Only the version table names them;
 * everything else finds a version's tables through it. */
JU_HIDDEN extern const struct ju_py_layout ju_py_layout_311_x86_64, ju_py_layout_311_aarch64,
    ju_py_layout_312, ju_py_layout_313, ju_py_layout_313t, ju_py_layout_314, ju_py_layout_314t,
    ju_py_layout_315, ju_py_layout_315t, ju_py_layout_316, ju_py_layout_316t;

JU_HIDDEN extern const struct ju_py_value_layout ju_py_value_table_311, ju_py_value_table_312,
    ju_py_value_table_313, ju_py_value_table_313t, ju_py_value_table_314,
    ju_py_value_table_314t;

/* The row of a PY_VERSION_HEX's minor version, or NULL. */
JU_HIDDEN const struct ju_py_version *ju_py_version_of(uint32_t version_hex);

/* 1 when the version's _Py_DebugOffsets have a field list (3.13+). */
JU_HIDDEN int ju_py_debug_offsets_supported(uint32_t version_hex);
/* 1 when the version's field list is known to describe this release; 0 for
 * a provisional list (pre-releases, a minor in development), which the
 * reader uses only when DWARF confirms it. */
JU_HIDDEN int ju_py_debug_offsets_confirmed(uint32_t version_hex);
/* "3.15.0rc1", "3.16.0a2", "3.14.7" for a PY_VERSION_HEX. */
JU_HIDDEN void ju_py_release_name(uint32_t version_hex, char *buf, size_t size);
/* "3.11 to 3.16": the oldest and newest minor versions of the table. */
JU_HIDDEN void ju_py_supported_range(char *buf, size_t size);

#endif
