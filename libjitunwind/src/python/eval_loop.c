/* The eval loop's code: the function _PyEval_EvalFrameDefault and the parts
 * a compiler splits off or clones from it. GCC names them after the
 * function with suffixes: `.cold` (the unlikely paths, where GCC 16 with LTO
 * puts the calls into JIT code), `.part.N`, `.constprop.N`, `.isra.N`,
 * `.lto_priv.N`, `.localalias`, chained (`.constprop.0.isra.0.cold`); clang
 * adds `.llvm.N`. Every part runs Python frames for the activation it
 * belongs to, so each is the eval loop. A `.part.N` piece is called (GCC's
 * partial inlining), so where the function called it both frames are on the
 * stack and count as two activations; no CPython build seen so far splits
 * the eval loop that way (GCC 16's LTO build has `.cold` only). */
#include <stdlib.h>

#include "internal.h"
#include "python/pyreader.h"
#include "elf/elf.h"

#define EVAL_FUNCTION "_PyEval_EvalFrameDefault"

/* Suffix words a compiler appends, each optionally followed by ".N". */
static const char *const suffix_words[] = {"cold", "part", "constprop", "isra", "lto_priv",
                                           "localalias", "llvm", "clone"};

/* The length of the suffix word at s (followed by '.' or the end), or 0. */
static size_t suffix_word(const char *s)
{
    size_t i;
    for (i = 0; i < sizeof suffix_words / sizeof suffix_words[0]; i++) {
        size_t n = strlen(suffix_words[i]);
        if (strncmp(s, suffix_words[i], n) == 0 && (s[n] == '.' || s[n] == '\0'))
            return n;
    }
    return 0;
}

int ju_py_is_eval_symbol(const char *name)
{
    size_t base = sizeof EVAL_FUNCTION - 1;
    const char *p;
    if (!name || strncmp(name, EVAL_FUNCTION, base) != 0)
        return 0;
    for (p = name + base; *p;) {
        size_t n;
        if (*p != '.' || !(n = suffix_word(p + 1)))
            return 0;
        p += 1 + n;
        if (p[0] == '.' && p[1] >= '0' && p[1] <= '9') /* ".N" */
            for (p++; *p >= '0' && *p <= '9'; p++)
                ;
    }
    return 1;
}

int ju_py_take_eval_part(void *arg, const char *name, const GElf_Sym *sym)
{
    struct ju_eval_parts *c = arg;
    size_t i;
    if (GELF_ST_TYPE(sym->st_info) != STT_FUNC || sym->st_size == 0 ||
        !ju_py_is_eval_symbol(name))
        return 0;
    for (i = 0; i < c->n; i++)
        if (c->spans[i].start == sym->st_value) { /* the same code under another name */
            c->spans[i].main |= strcmp(name, EVAL_FUNCTION) == 0;
            return 0;
        }
    if (c->n < JITUNWIND_PY_MAX_EVAL_RANGES) {
        c->spans[c->n].start = sym->st_value;
        c->spans[c->n].end = sym->st_value + sym->st_size;
        c->spans[c->n].main = strcmp(name, EVAL_FUNCTION) == 0;
        c->n++;
    }
    return 0;
}

static int by_start(const void *a, const void *b)
{
    const struct jitunwind_py_code_range *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

void ju_py_sort_eval_parts(struct jitunwind_py_code_range *parts, size_t n)
{
    qsort(parts, n, sizeof parts[0], by_start);
}

void ju_py_set_eval_parts(jitunwind_pyreader *r, const struct jitunwind_py_code_range *parts,
                          size_t n, uint64_t bias)
{
    size_t i;
    for (i = 0; i < n && i < JITUNWIND_PY_MAX_EVAL_RANGES; i++) {
        r->eval[i] = parts[i];
        r->eval[i].start += bias;
        r->eval[i].end += bias;
    }
    r->n_eval = i;
}

JITUNWIND_API int jitunwind_pyreader_eval_ranges(const jitunwind_pyreader *r,
                                                 struct jitunwind_py_code_range *out, size_t max,
                                                 size_t *count)
{
    size_t i;
    if (!r || !count || (!out && max))
        return JITUNWIND_EINVAL;
    for (i = 0; i < r->n_eval && i < max; i++)
        out[i] = r->eval[i];
    *count = r->n_eval;
    return 0;
}

JITUNWIND_API int jitunwind_pyreader_in_eval_loop(const jitunwind_pyreader *r, uint64_t addr)
{
    size_t i;
    for (i = 0; r && i < r->n_eval; i++)
        if (addr >= r->eval[i].start && addr < r->eval[i].end)
            return 1;
    return 0;
}

/* The part that is the function itself (its entry; SCAN recovers the
 * caller's frame from its prologue), or 0, 0. */
void ju_py_eval_main(const jitunwind_pyreader *r, uint64_t *start, uint64_t *end)
{
    size_t i;
    *start = *end = 0;
    for (i = 0; i < r->n_eval; i++)
        if (r->eval[i].main) {
            *start = r->eval[i].start;
            *end = r->eval[i].end;
        }
}
