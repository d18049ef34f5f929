/* record --perf: which JIT executors existed when a sample was taken. A
 * sample is unwound after it was taken, with the ranges read since, and a
 * JIT that replaces its executors continuously may have freed the one the
 * sample ran in and put another at its address meanwhile. The executors
 * are listed at each poll of the range watch and each kept with the time
 * it was first listed: it has existed at least from then until its last
 * listing (an executor freed and remade identically between two listings,
 * same code address, size and code object, is the same for naming). A
 * sample's JIT frame is trusted only when its executor was listed before
 * the sample was taken and at a listing after it (the caller lists again
 * before unwinding a sample newer than the last listing: at most once a
 * reading of the rings); otherwise it may be another executor's. */
#include <stdlib.h>
#include <string.h>

#include "perf_events.h"

struct cli_exec_history {
    struct cli_exec_seen *seen, *next; /* sorted by jit_code */
    size_t n;
    struct jitunwind_py_executor *scratch;
    double polled_at;  /* the watch's poll last taken */
    int off;           /* the interpreter keeps no executor list */
    int ever;          /* an executor was listed: the process runs a JIT */
};

struct cli_exec_history *cli_exec_history_new(void)
{
    struct cli_exec_history *h = calloc(1, sizeof *h);
    if (h && (!(h->seen = calloc(CLI_EXEC_SEEN, sizeof *h->seen)) ||
              !(h->next = calloc(CLI_EXEC_SEEN, sizeof *h->next)) ||
              !(h->scratch = calloc(CLI_EXEC_SEEN, sizeof *h->scratch)))) {
        cli_exec_history_free(h);
        return NULL;
    }
    return h;
}

void cli_exec_history_free(struct cli_exec_history *h)
{
    if (!h)
        return;
    free(h->seen);
    free(h->next);
    free(h->scratch);
    free(h);
}

static int by_code(const void *a, const void *b)
{
    const struct cli_exec_seen *x = a, *y = b;
    return x->jit_code < y->jit_code ? -1 : x->jit_code > y->jit_code;
}

/* The entry whose code holds `pc`, or NULL (binary search). */
static const struct cli_exec_seen *lookup(const struct cli_exec_seen *v, size_t n, uint64_t pc)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].jit_code + v[mid].jit_size <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && pc >= v[lo].jit_code && pc < v[lo].jit_code + v[lo].jit_size ? &v[lo]
                                                                                    : NULL;
}

void cli_exec_history_update(struct cli_exec_history *h, struct cli_target *t,
                             const struct cli_range_watch *w)
{
    size_t n = 0, i, m = 0;
    struct cli_exec_seen *swap;
    int rc;
    if (!h || h->off || !t->py || w->executors_at == h->polled_at)
        return; /* only when the watch polled: as often as it reads the list */
    h->polled_at = w->executors_at;
    rc = jitunwind_pyreader_executors(t->py, h->scratch, CLI_EXEC_SEEN, &n);
    if (rc == JITUNWIND_EUNSUPPORTED || rc == JITUNWIND_ENOTFOUND) {
        h->off = 1;
        return;
    }
    for (i = 0; i < n && i < CLI_EXEC_SEEN; i++) {
        const struct jitunwind_py_executor *e = &h->scratch[i];
        const struct cli_exec_seen *old;
        if (!e->jit_code || !e->jit_size)
            continue;
        h->ever = 1;
        h->next[m].jit_code = e->jit_code;
        h->next[m].jit_size = e->jit_size;
        h->next[m].code = e->code;
        old = lookup(h->seen, h->n, e->jit_code);
        h->next[m].first_seen = old && old->jit_code == e->jit_code &&
                                        old->jit_size == e->jit_size && old->code == e->code
                                    ? old->first_seen
                                    : w->executors_at;
        m++;
    }
    qsort(h->next, m, sizeof *h->next, by_code);
    swap = h->seen;
    h->seen = h->next;
    h->next = swap;
    h->n = m;
}

int cli_exec_history_jit(const struct cli_exec_history *h)
{
    return h && h->ever;
}

int cli_exec_history_stale(const struct cli_exec_history *h, double sampled)
{
    return h && !h->off && sampled >= h->polled_at;
}

int cli_exec_history_trusted(const struct cli_exec_history *h, uint64_t pc, double sampled,
                             uint64_t *code)
{
    const struct cli_exec_seen *e;
    if (!h || h->off)
        return -1;
    e = lookup(h->seen, h->n, pc);
    if (!e || e->first_seen > sampled)
        return 0;
    *code = e->code;
    return 1;
}
