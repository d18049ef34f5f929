/* --no-cache reads each field of the target on its own, at its own moment.
 * A running chain's check (running_chain.c) needs what the walk read copied
 * in one call, as the block cache gives it: while a chain is read, the pages its
 * reads fell in are logged (addresses only, at most LOG_PAGES: a walk that
 * read more is checked over the first ones, the rest read field by field),
 * and cli_target_reread reads them all again in one call; until the chain
 * is read, reads within those pages are served from that copy. The walk
 * itself still reads field by field, as --no-cache promises. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "read_batch.h"

#define PAGE 4096u
#define LOG_PAGES CLI_READ_BATCH_MAX
#define SPAN_PAGES 4u /* a longer read is neither logged nor served */

struct cli_read_log {
    int on;                       /* between cli_read_log_begin and _end */
    uint64_t page[LOG_PAGES];     /* logged page addresses */
    size_t n_pages;
    size_t n_held;                /* page[0..n_held) are in data, as last read again */
    uint8_t data[LOG_PAGES][PAGE];
};

static long held_index(const struct cli_read_log *l, uint64_t base, size_t limit)
{
    size_t i;
    for (i = 0; i < limit; i++)
        if (l->page[i] == base)
            return (long)i;
    return -1;
}

int cli_read_log_begin(struct cli_target *t)
{
    if (t->blocks || !t->live || t->pid <= 0)
        return 0;
    if (!t->read_log && !(t->read_log = calloc(1, sizeof *t->read_log)))
        return 0; /* no log: the check reads field by field */
    t->read_log->on = 1;
    t->read_log->n_pages = t->read_log->n_held = 0;
    return 1;
}

void cli_read_log_end(struct cli_target *t)
{
    if (t->read_log)
        t->read_log->on = 0;
}

void cli_read_log_free(struct cli_target *t)
{
    free(t->read_log);
    t->read_log = NULL;
}

/* The pages of [addr, addr+len), or 0 when the read is empty, wraps or
 * spans more than SPAN_PAGES. */
static size_t span(uint64_t addr, size_t len, uint64_t *first)
{
    uint64_t last;
    if (len == 0 || addr + len < addr)
        return 0;
    *first = addr & ~(uint64_t)(PAGE - 1);
    last = (addr + len - 1) & ~(uint64_t)(PAGE - 1);
    return last - *first < (uint64_t)SPAN_PAGES * PAGE ? (size_t)((last - *first) / PAGE) + 1 : 0;
}

int cli_read_log_serve(struct cli_target *t, uint64_t addr, void *dst, size_t len)
{
    struct cli_read_log *l = t->read_log;
    uint64_t first, base;
    size_t n = l && l->on && l->n_held ? span(addr, len, &first) : 0, k;
    long at[SPAN_PAGES];
    if (!n)
        return 0;
    for (k = 0; k < n; k++)
        if ((at[k] = held_index(l, first + k * PAGE, l->n_held)) < 0)
            return 0;
    for (k = 0, base = first; k < n; k++, base += PAGE) {
        uint64_t from = addr > base ? addr : base;
        uint64_t to = addr + len < base + PAGE ? addr + len : base + PAGE;
        memcpy((uint8_t *)dst + (from - addr), l->data[at[k]] + (from - base), to - from);
    }
    return 1;
}

void cli_read_log_note(struct cli_target *t, uint64_t addr, size_t len)
{
    struct cli_read_log *l = t->read_log;
    uint64_t first;
    size_t n = l && l->on ? span(addr, len, &first) : 0, k;
    for (k = 0; k < n && l->n_pages < LOG_PAGES; k++)
        if (held_index(l, first + k * PAGE, l->n_pages) < 0)
            l->page[l->n_pages++] = first + k * PAGE;
}

/* Every logged page read again in one call (the process refused it: one
 * read a page, still before any is served); a page that cannot be read
 * (and those after it) is then read field by field. */
void cli_read_log_reread(struct cli_target *t)
{
    struct cli_read_log *l = t->read_log;
    void *dst[LOG_PAGES];
    size_t i;
    long got;
    if (!l || !l->on)
        return;
    for (i = 0; i < l->n_pages; i++)
        dst[i] = l->data[i];
    l->n_held = 0;
    if (!l->n_pages)
        return;
    got = cli_read_blocks(t->pid, l->page, l->n_pages, PAGE, dst);
    t->read_calls++;
    if (got < 0)
        for (got = 0; (size_t)got < l->n_pages; got++) {
            t->read_calls++;
            if (t->raw.read(t->raw.arg, l->page[got], l->data[got], PAGE) < 0)
                break;
        }
    t->reads += (uint64_t)got;
    t->read_bytes += (uint64_t)got * PAGE;
    l->n_held = (size_t)got;
}
