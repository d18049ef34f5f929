/* What a reader takes from its interpreter's symbols (pyreader.h), read in
 * one pass over the file's tables (its separate debug file's for a
 * stripped one) and kept per file (file_memo.h: while the file and its
 * debug file are the ones read): a profiler of every process opens a
 * reader for each process of the same interpreter, a debugger one at every
 * stop, and a pass is most of an opening's CPU (Debian's python3.11 has
 * 40,000 symbols in its debug file). */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "elf/elf.h"
#include "elf/file_memo.h"
#include "python/pyreader.h"

/* Readings kept per file; key: the architecture and the cold-exits name. */
JU_FILE_MEMO(readings, 8, struct ju_py_file_symbols);

struct pass {
    struct ju_wanted_symbols names;
    struct ju_eval_parts parts;
};

static int take(void *arg, const char *name, const GElf_Sym *sym)
{
    struct pass *p = arg;
    (void)ju_elf_take_wanted(&p->names, name, sym);
    return ju_py_take_eval_part(&p->parts, name, sym);
}

/* The pass over the file's tables; `debug` gets the debug file read ("":
 * none found) when *used_debug. */
static int read_file(const char *module, int arch, const char *cold, struct ju_py_file_symbols *s,
                     char *debug, size_t debug_size, int *used_debug)
{
    const char *names[JU_PY_N_SYMS] = {"_PyRuntime", "PyType_Type", "stencil_groups",
                                       "_PyOpcode_uop_name", cold};
    size_t n = *cold ? JU_PY_N_SYMS : JU_PY_SYM_COLD_EXITS;
    struct pass p;
    int rc;
    memset(s, 0, sizeof *s);
    p.names = (struct ju_wanted_symbols){names, n, n, s->values, s->sizes, s->found};
    p.parts = (struct ju_eval_parts){s->eval, 0};
    rc = ju_elf_each_symbol_noting(module, JU_DEBUG_REMOTE, take, &p, debug, debug_size,
                                   used_debug);
    if (rc < 0)
        return rc;
    s->n_eval = p.parts.n;
    ju_py_sort_eval_parts(s->eval, s->n_eval);
    ju_py_find_eval_outlined(module, arch, s->eval, &s->n_eval);
    return 0;
}

int ju_py_file_symbols(const char *module, int arch, const char *cold_exits,
                       struct ju_py_file_symbols *out)
{
    const char *cold = cold_exits ? cold_exits : "";
    char debug[4096], key[JU_FILE_MEMO_KEY];
    int rc, used_debug, keyed;
    keyed = snprintf(key, sizeof key, "%d %s", arch, cold) < (int)sizeof key;
    if (keyed && ju_file_memo_find(&readings, module, key, JU_DEBUG_REMOTE, out))
        return 0;
    debug[0] = '\0';
    if ((rc = read_file(module, arch, cold, out, debug, sizeof debug, &used_debug)) < 0)
        return rc;
    if (keyed)
        ju_file_memo_keep(&readings, module, key, used_debug ? debug : NULL, out);
    return 0;
}
