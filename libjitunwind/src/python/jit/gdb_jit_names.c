/* The names CPython gives the in-memory ELF objects it registers through
 * the GDB JIT interface for its executors' code, by version. Executors are
 * matched to those ranges by code address (executors.c), whatever their
 * name; the name only says which convention the target follows, so that a
 * range named otherwise than the version's layer expects is reported. */
#include <stdio.h>
#include <string.h>

#include "python/pyreader.h"

struct gdb_jit_name {
    uint32_t version;  /* 0xMMmm0000 */
    const char *name;  /* the whole name, or its prefix when `prefix` */
    int prefix;
    int provisional;   /* a version in development: its name may still change */
};

static const struct gdb_jit_name names[] = {
    {0x030f0000u, "py::jit:executor", 0, 0},
    /* CPython's main branch (3.16 in development) names each object
     * "py::jit_entry:<...>". */
    {0x03100000u, "py::jit_entry:", 1, 1},
};

static const struct gdb_jit_name *for_version(uint32_t version_hex)
{
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].version == (version_hex & 0xffff0000u))
            return &names[i];
    return NULL;
}

static int matches(const struct gdb_jit_name *n, const char *name)
{
    return n->prefix ? strncmp(name, n->name, strlen(n->name)) == 0 : strcmp(name, n->name) == 0;
}

void ju_py_note_gdb_jit_name(jitunwind_pyreader *r, const char *name)
{
    const struct gdb_jit_name *n = for_version(r->version_hex);
    char release[32];
    if (!n || !name || r->gdb_jit_note[0])
        return; /* one note per call of jitunwind_pyreader_executor_ranges */
    ju_py_release_name(r->version_hex, release, sizeof release);
    if (!matches(n, name))
        snprintf(r->gdb_jit_note, sizeof r->gdb_jit_note,
                 "an executor's GDB JIT range is named \"%.64s\", where CPython %s names them "
                 "\"%s%s\": matched by its code address", name, release, n->name,
                 n->prefix ? "*" : "");
    else if (n->provisional)
        snprintf(r->gdb_jit_note, sizeof r->gdb_jit_note,
                 "CPython %s (in development): executors' GDB JIT ranges named \"%s*\" (CPython's "
                 "main branch) seen and matched to their executors by code address; this name "
                 "is provisional", release, n->name);
}

JITUNWIND_API const char *jitunwind_pyreader_executor_ranges_note(const jitunwind_pyreader *r)
{
    return r ? r->gdb_jit_note : "";
}
