/* What a reader takes from its interpreter's symbols (pyreader.h), read in
 * one pass over the file's tables (its separate debug file's for a
 * stripped one) and kept per file: a profiler of every process opens a
 * reader for each process of the same interpreter, a debugger one at every
 * stop, and a pass is most of an opening's CPU (Debian's python3.11 has
 * 40,000 symbols in its debug file). A kept reading is used while the
 * file is the same (device, inode, size, modification time: one replaced
 * at its path is another) and, for a stripped file, its debug file as
 * found now is the one read, or still none (one installed, removed or
 * replaced since makes the reading stale). The oldest reading gives way. */
#include <pthread.h>
#include <string.h>

#include "internal.h"
#include "base/host_files.h"
#include "elf/elf.h"
#include "python/pyreader.h"

#define KEPT_FILES 8u
#define NAME_MAX_KEPT 32u /* a longer cold-exits name is read every time */

struct kept {
    struct ju_file_id file, debug;
    int uses_debug; /* read with a debug file looked for (the file has no .symtab) */
    int arch;
    char cold_exits[NAME_MAX_KEPT];
    struct ju_py_file_symbols s;
    unsigned long long age;
};

static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kept kept[KEPT_FILES];
static unsigned long long kept_clock;

/* The reading kept for (file, arch, cold exits) into *out, 1; or 0. */
static int kept_find(const struct ju_file_id *file, int arch, const char *cold, struct kept *out)
{
    size_t i;
    int hit = 0;
    pthread_mutex_lock(&kept_lock);
    for (i = 0; i < KEPT_FILES && !hit; i++)
        if (kept[i].file.exists && ju_file_id_same(&kept[i].file, file) && kept[i].arch == arch &&
            strcmp(kept[i].cold_exits, cold) == 0) {
            *out = kept[i];
            hit = 1;
        }
    pthread_mutex_unlock(&kept_lock);
    return hit;
}

/* Keep `e` in place of the same file's reading, else of the oldest. */
static void keep(struct kept *e)
{
    struct kept *at = NULL;
    size_t i;
    pthread_mutex_lock(&kept_lock);
    for (i = 0; i < KEPT_FILES && !at; i++)
        if (kept[i].file.exists && ju_file_id_same(&kept[i].file, &e->file) &&
            kept[i].arch == e->arch && strcmp(kept[i].cold_exits, e->cold_exits) == 0)
            at = &kept[i];
    if (!at)
        for (at = &kept[0], i = 1; i < KEPT_FILES; i++)
            if (kept[i].age < at->age)
                at = &kept[i];
    e->age = ++kept_clock;
    *at = *e;
    pthread_mutex_unlock(&kept_lock);
}

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
    char debug[4096];
    struct kept e;
    struct ju_file_id debug_now;
    int rc, used_debug;
    memset(&e, 0, sizeof e);
    ju_file_id_of_path(module, &e.file);
    if (e.file.exists && kept_find(&e.file, arch, cold, &e)) {
        if (e.uses_debug) {
            ju_elf_debug_file_now(module, JU_DEBUG_REMOTE, debug, sizeof debug);
            ju_file_id_of_path(debug[0] ? debug : NULL, &debug_now);
        }
        if (!e.uses_debug || ju_file_id_same(&e.debug, &debug_now)) {
            *out = e.s;
            return 0;
        }
    }
    debug[0] = '\0';
    if ((rc = read_file(module, arch, cold, out, debug, sizeof debug, &used_debug)) < 0)
        return rc;
    if (e.file.exists && strlen(cold) < sizeof e.cold_exits) {
        e.uses_debug = used_debug;
        ju_file_id_of_path(used_debug && debug[0] ? debug : NULL, &e.debug);
        e.arch = arch;
        ju_strlcpy(e.cold_exits, cold, sizeof e.cold_exits);
        e.s = *out;
        keep(&e);
    }
    return 0;
}
