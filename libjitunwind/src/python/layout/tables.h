/* The static tables of every supported CPython version: frame layouts
 * (layout_table.c) and value layouts (value_layout.c). Only the version
 * table (versions.c) names them; everything else finds a version's tables
 * through it. */
#ifndef JITUNWIND_PY_TABLES_H
#define JITUNWIND_PY_TABLES_H

#include "python/layout/value_layout.h"

JU_HIDDEN extern const struct ju_py_layout ju_py_layout_311_x86_64, ju_py_layout_311_aarch64,
    ju_py_layout_312, ju_py_layout_313, ju_py_layout_313t, ju_py_layout_314, ju_py_layout_314t,
    ju_py_layout_315, ju_py_layout_315t, ju_py_layout_316, ju_py_layout_316t;

JU_HIDDEN extern const struct ju_py_value_layout ju_py_value_table_311, ju_py_value_table_312,
    ju_py_value_table_313, ju_py_value_table_313t, ju_py_value_table_314,
    ju_py_value_table_314t;

#endif
