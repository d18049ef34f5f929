/* Prints the library's layout table for a CPython build, one line per field
 * that the headers describe: "name kind type paths value", for
 * test_layout_headers.py. Usage: dump_py_layout VERSION_HEX FREE_THREADED ARCH
 * (ARCH: x86_64 or aarch64). Then the value layout's fields ("values.NAME",
 * offsets from the struct's start). Exits 2 when there is no such table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "python/pyreader.h"

int main(int argc, char **argv)
{
    const struct ju_py_layout *L;
    struct ju_py_field_info f;
    size_t i;
    int arch;
    if (argc != 4) {
        fprintf(stderr, "usage: %s VERSION_HEX FREE_THREADED x86_64|aarch64\n", argv[0]);
        return 2;
    }
    arch = strcmp(argv[3], "aarch64") == 0  ? JITUNWIND_ARCH_AARCH64
           : strcmp(argv[3], "x86_64") == 0 ? JITUNWIND_ARCH_X86_64
                                            : 0;
    L = ju_py_layout_for_build((uint32_t)strtoul(argv[1], NULL, 0), atoi(argv[2]), arch);
    if (!arch || !L) {
        fprintf(stderr, "no table for %s (free-threaded %s) on %s\n", argv[1], argv[2], argv[3]);
        return 2;
    }
    printf("# %s\n", L->name);
    for (i = 0; ju_py_layout_field(L, i, &f); i++)
        if (f.value != JU_PY_NONE)
            printf("%s %s %s %s %u\n", f.name,
                   /* a field the table leaves to DWARF has no value of its own */
                   f.build_specific || f.value == JU_PY_FROM_DWARF ? "build-specific"
                   : f.size_of                                     ? "sizeof"
                                                                   : "member",
                   f.type,
                   f.paths ? f.paths : "-", f.value);
    {
        /* the value layout a reader starts from (no debug offsets, no
         * DWARF): object fields from the object's start */
        struct ju_py_values values;
        ju_py_values_start(&values, L, L->version);
        if (values.borrowed)
            return 0; /* another version's table: nothing of this one to compare */
        for (i = JU_PYF_JIT_END; i < JU_PYF_COUNT; i++) {
            const struct ju_py_field_desc *v = &ju_py_fields[i];
            uint32_t off = ju_py_slot(&values.V, v->slot);
            if (off != JU_PY_NONE)
                printf("values.%s member %s %s %u\n", v->name, ju_py_holders[v->holder].type,
                       v->paths, off + ju_pyv_base(L, v->holder));
        }
    }
    return 0;
}
