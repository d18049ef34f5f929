/* The reads of the running-chain check (running_chain.c) in one system
 * call. The check must see the target as it is after the walk, so it
 * cannot use the sample's block cache; but what it reads is nearly known
 * beforehand: the thread state's current-frame field, the walked frames
 * (one span), and the frames the walk skips (the entry frames on the C
 * stack, the thread state's base frame). So, before each check, the page
 * of every walked frame and the pages the last check of the same thread
 * state had to read besides are read afresh at once; the check's reads
 * are served from them, and a read that is not (a page first met, or one
 * that failed) goes to the target alone, its pages remembered for that
 * thread state's next check. Remembered pages are only a guess of what to
 * read: every byte served was read after the walk, whatever they are. A
 * remembered page that served no read in the last AGE checks is
 * forgotten (a check that stops at a frame marker no longer reaches the
 * entry frames on the C stack; a whole check reads such a page alone
 * again).
 * Of each page only a part is read: the bytes from a grain below its
 * first walked frame to FRAME_GUESS past its last, and the parts of it a
 * check had to read alone (remembered with the page, widened as needed),
 * so a call copies what the check reads, not whole pages.
 * The call copies the pages twice over, one copy after the other, for the
 * check's two readings (running_chain.c): each reading is served from its
 * own copy, without a second call. When the next sample follows at once,
 * the call is cli_target_read_carrying's: the second copy goes into the
 * block cache, and the next sample's blocks come with it.
 * Several threads' checks share one call (cli_check_reads_plan): each
 * thread's pages are added after its walk, the call is made after the
 * last of those walks, and each thread's two readings are then served
 * from it once; every byte served was still read after that thread's
 * walk. A check made again (its chain changed) makes a call of its own,
 * and the shared call's copies are dropped (the threads whose checks
 * follow make their own calls too). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "read_batch.h"

#define PAGE 4096u
#define HELD 64u      /* pages read for one check */
#define KEPT 16u      /* pages remembered per thread state */
#define STATES 64u    /* thread states remembered */
#define PROBES 8u     /* slots a thread state may take, from its home slot */
#define AGE 8u        /* checks a remembered page stays unread before it is forgotten */
#define GRAIN 64u     /* a part's ends are multiples of this */
#define FRAME_GUESS 128u /* bytes read from a walked frame's address (a check that
                          * reads more reads it alone once, then remembers) */
#define MEMBERS 16u   /* thread states whose checks share a call */

struct cli_check_reads {
    uint64_t page[HELD]; /* the pages read for this check: the first n_held */
    uint16_t lo[HELD], hi[HELD]; /* the part of each read: [lo, hi) */
    uint16_t flo[HELD], fhi[HELD]; /* of that, the walked frames' part (none: flo > fhi) */
    size_t n_held;
    int both;            /* the second copy was read whole too */
    int copy;            /* the copy served: 0 or 1 */
    uint8_t data[2][HELD][PAGE];
    const uint8_t *second[HELD]; /* the second copy's pages: data[1], or carried blocks */
    struct {
        uint64_t tstate;
        uint64_t page[KEPT];
        uint16_t lo[KEPT], hi[KEPT]; /* the part of it the check read alone */
        uint64_t used[KEPT]; /* the check (checks) that last read from the page */
        size_t n, next; /* next: the entry a new page replaces once full */
        uint64_t checks; /* this thread state's checks begun with a fresh call */
    } seen[STATES];
    size_t at;          /* seen[] slot of the check under way */
    int on;             /* a check is under way */
    /* The thread states whose checks share the call held (shared: made),
     * and how far each was served: 0 not yet, 1 its first reading, 2 both. */
    uint64_t member[MEMBERS];
    uint8_t served[MEMBERS];
    size_t n_members;
    int shared;
};

/* The seen[] slot of `tstate`: its own among PROBES from its home slot,
 * else the first empty one there, else its home slot (taken over). The
 * threads checked together each keep their own slot. */
static size_t state_slot(const struct cli_check_reads *c, uint64_t tstate)
{
    size_t home = (size_t)(((tstate >> 4) * 0x9e3779b97f4a7c15ull) >> 58) % STATES, i;
    for (i = 0; i < PROBES; i++)
        if (c->seen[(home + i) % STATES].tstate == tstate)
            return (home + i) % STATES;
    for (i = 0; i < PROBES; i++)
        if (!c->seen[(home + i) % STATES].tstate)
            return (home + i) % STATES;
    return home;
}

static size_t held_index(const struct cli_check_reads *c, uint64_t page)
{
    size_t i;
    for (i = 0; i < c->n_held; i++)
        if (c->page[i] == page)
            return i;
    return HELD;
}

/* Add bytes [lo, hi) of `page` (grains; a walked frame's part when
 * `frame`) to what is read for this check: a page listed already is
 * widened; none is added once the list is full. */
static int want(struct cli_check_reads *c, uint64_t page, unsigned lo, unsigned hi, int frame)
{
    size_t i = held_index(c, page);
    if (i == HELD) {
        if (c->n_held == HELD)
            return -1;
        i = c->n_held++;
        c->page[i] = page;
        c->lo[i] = (uint16_t)lo;
        c->hi[i] = (uint16_t)hi;
        c->flo[i] = PAGE;
        c->fhi[i] = 0;
    }
    if (lo < c->lo[i])
        c->lo[i] = (uint16_t)lo;
    if (hi > c->hi[i])
        c->hi[i] = (uint16_t)hi;
    if (frame && lo < c->flo[i])
        c->flo[i] = (uint16_t)lo;
    if (frame && hi > c->fhi[i])
        c->fhi[i] = (uint16_t)hi;
    return 0;
}

/* [lo, hi) widened to grains, within a page. */
static unsigned grain_down(size_t off)
{
    return (unsigned)(off & ~(size_t)(GRAIN - 1));
}

static unsigned grain_up(size_t off)
{
    size_t up = (off + GRAIN - 1) & ~(size_t)(GRAIN - 1);
    return (unsigned)(up > PAGE ? PAGE : up);
}

/* Forget the i-th remembered page of the thread state in seen[at]. */
static void forget(struct cli_check_reads *c, size_t at, size_t i)
{
    size_t last = --c->seen[at].n;
    c->seen[at].page[i] = c->seen[at].page[last];
    c->seen[at].lo[i] = c->seen[at].lo[last];
    c->seen[at].hi[i] = c->seen[at].hi[last];
    c->seen[at].used[i] = c->seen[at].used[last];
    c->seen[at].next = 0;
}

/* The check under way is `tstate`'s (its slot taken over when another
 * thread state held it: what a slot remembers is only a guess). */
static void check_of(struct cli_check_reads *c, uint64_t tstate)
{
    c->at = state_slot(c, tstate);
    if (c->seen[c->at].tstate != tstate) {
        c->seen[c->at].tstate = tstate;
        c->seen[c->at].n = c->seen[c->at].next = 0;
    }
}

/* Add to the call the pages of `tstate`'s check of frames[0..n): those
 * its last checks read besides, and the frames'. 0, or -1 when some page
 * found the list full (the pages added before it stay). */
static int add_state(struct cli_check_reads *c, uint64_t tstate,
                     const struct jitunwind_py_frame *frames, size_t n)
{
    size_t i;
    int full = 0;
    check_of(c, tstate);
    c->seen[c->at].checks++;
    for (i = 0; i < c->seen[c->at].n;) {
        if (c->seen[c->at].checks - c->seen[c->at].used[i] > AGE) { /* unread for AGE checks */
            forget(c, c->at, i);
            continue;
        }
        full |= want(c, c->seen[c->at].page[i], c->seen[c->at].lo[i], c->seen[c->at].hi[i], 0);
        i++;
    }
    for (i = 0; i < n; i++) {
        uint64_t page = frames[i].address & ~(uint64_t)(PAGE - 1);
        size_t off = (size_t)(frames[i].address - page);
        full |= want(c, page, grain_down(off), grain_up(off + FRAME_GUESS), 1);
    }
    return full ? -1 : 0;
}

/* The call: every page held, twice over. */
static void fetch(struct cli_target *t, struct cli_check_reads *c)
{
    void *dst[2 * HELD];
    uint64_t twice[2 * HELD];
    size_t lens[2 * HELD], i, k, m;
    long got;
    for (i = 0; i < c->n_held; i++) {
        twice[i] = twice[c->n_held + i] = c->page[i] + c->lo[i];
        lens[i] = lens[c->n_held + i] = (size_t)(c->hi[i] - c->lo[i]);
        dst[i] = c->data[0][i] + c->lo[i];
        c->second[i] = c->data[1][i];
        dst[c->n_held + i] = c->data[1][i] + c->lo[i];
    }
    if (!t->carry_check || (got = cli_target_read_carrying(t, c->page, c->lo, c->hi, c->n_held,
                                                           dst, c->second)) < 0) {
        got = cli_read_pieces(t->pid, twice, lens, 2 * c->n_held, dst);
        t->read_calls++;
        t->reads += got > 0 ? (uint64_t)got : 0;
        for (i = 0; got > 0 && i < (size_t)got; i++)
            t->read_bytes += lens[i];
    }
    t->carry_check = 0; /* a check tried again reads the target as it is then */
    c->both = got == (long)(2 * c->n_held);
    k = got > 0 ? (size_t)got : 0;
    if (k > c->n_held)
        k = c->n_held;
    /* A remembered page that is unreadable now is forgotten: the pages
     * after it in the call were not read either. */
    for (m = 0; k < c->n_held && m < (c->n_members ? c->n_members : 1); m++) {
        size_t at = c->n_members ? state_slot(c, c->member[m]) : c->at;
        for (i = 0; i < c->seen[at].n; i++)
            if (c->seen[at].page[i] == c->page[k]) {
                forget(c, at, i);
                break;
            }
    }
    c->n_held = k;
}

static size_t member_index(const struct cli_check_reads *c, uint64_t tstate)
{
    size_t m;
    for (m = 0; m < c->n_members; m++)
        if (c->member[m] == tstate)
            return m;
    return MEMBERS;
}

/* A reading of a thread state's check served from the shared call, when
 * it has one there not yet served: 1, else 0. */
static int serve_shared(struct cli_check_reads *c, uint64_t tstate, int reading)
{
    size_t m;
    if (!c->shared || (m = member_index(c, tstate)) == MEMBERS || c->served[m] != reading ||
        (reading == 1 && !c->both))
        return 0;
    c->served[m] = (uint8_t)(reading + 1);
    check_of(c, tstate);
    c->copy = reading;
    c->on = 1;
    return 1;
}

void cli_check_reads_plan(struct cli_target *t)
{
    struct cli_check_reads *c = t->check_reads;
    if (!c && !(c = t->check_reads = calloc(1, sizeof *c)))
        return;
    c->shared = 0;
    c->n_members = 0;
    c->n_held = 0;
}

int cli_check_reads_add(struct cli_target *t, uint64_t tstate,
                        const struct jitunwind_py_frame *frames, size_t n)
{
    struct cli_check_reads *c = t->check_reads;
    size_t before;
    if (!c || c->shared || !t->live || t->pid <= 0 || c->n_members == MEMBERS)
        return -1;
    before = c->n_held;
    if (add_state(c, tstate, frames, n) < 0 && c->n_members) {
        c->n_held = before; /* the pages it did add are dropped with it */
        c->seen[c->at].checks--;
        return -1;
    }
    c->member[c->n_members] = tstate;
    c->served[c->n_members++] = 0;
    return 0;
}

void cli_check_reads_fetch(struct cli_target *t)
{
    struct cli_check_reads *c = t->check_reads;
    if (!c || !c->n_members)
        return;
    fetch(t, c);
    c->shared = 1;
}

void cli_check_reads_begin(struct cli_target *t, uint64_t tstate,
                           const struct jitunwind_py_frame *frames, size_t n, int reading)
{
    struct cli_check_reads *c = t->check_reads;
    if (c && serve_shared(c, tstate, reading))
        return;
    if (reading == 1 && c && c->both && !c->shared && c->at == state_slot(c, tstate) &&
        c->seen[c->at].tstate == tstate) {
        c->copy = 1;
        c->on = 1;
        return;
    }
    if (!c && !(c = t->check_reads = calloc(1, sizeof *c)))
        return; /* every read of the check goes to the target alone */
    c->copy = c->both = 0;
    c->shared = 0; /* the shared call's copies give way to this one's */
    c->n_members = 0;
    c->n_held = 0;
    c->on = 1;
    if (!t->live || t->pid <= 0) {
        check_of(c, tstate);
        return;
    }
    (void)add_state(c, tstate, frames, n); /* pages past a full list are read alone */
    fetch(t, c);
}

void cli_check_reads_end(struct cli_target *t)
{
    if (t->check_reads)
        t->check_reads->on = 0;
}

/* Remember the parts of pages a read the check had to make alone covers
 * (a page remembered already is widened). */
static void remember(struct cli_check_reads *c, uint64_t addr, size_t len)
{
    uint64_t first = addr & ~(uint64_t)(PAGE - 1), last = (addr + len - 1) & ~(uint64_t)(PAGE - 1);
    size_t i, k, pages = (size_t)((last - first) / PAGE) + 1;
    for (k = 0; k < pages; k++) { /* counted: the top page of the space ends it */
        uint64_t page = first + k * PAGE;
        size_t *n = &c->seen[c->at].n;
        unsigned lo = k == 0 ? grain_down((size_t)(addr - page)) : 0;
        unsigned hi = k + 1 == pages ? grain_up((size_t)(addr + len - page)) : PAGE;
        for (i = 0; i < *n && c->seen[c->at].page[i] != page; i++)
            ;
        if (i == *n) {
            i = *n < KEPT ? (*n)++ : c->seen[c->at].next++ % KEPT;
            c->seen[c->at].page[i] = page;
            c->seen[c->at].lo[i] = (uint16_t)lo;
            c->seen[c->at].hi[i] = (uint16_t)hi;
        }
        if (lo < c->seen[c->at].lo[i])
            c->seen[c->at].lo[i] = (uint16_t)lo;
        if (hi > c->seen[c->at].hi[i])
            c->seen[c->at].hi[i] = (uint16_t)hi;
        c->seen[c->at].used[i] = c->seen[c->at].checks;
    }
}

/* The part of [addr, addr + len) within `page`, as offsets [*from, *to)
 * from the page's start (modulo 2^64: the top page of the space too). */
static void part_of(uint64_t addr, size_t len, uint64_t page, uint64_t *from, uint64_t *to)
{
    *from = (addr > page ? addr : page) - page;
    *to = (addr + len < page + PAGE ? addr + len : page + PAGE) - page;
}

int cli_check_reads_serve(struct cli_target *t, uint64_t addr, void *dst, size_t len)
{
    struct cli_check_reads *c = t->check_reads;
    uint64_t first = addr & ~(uint64_t)(PAGE - 1);
    size_t done = 0, k;
    if (!c || !c->on || len == 0 || addr + len < addr)
        return -1;
    /* Served only when every byte it covers was read for this check
     * (counted: the top page of the space ends it). */
    for (k = 0; k <= (size_t)(((addr + len - 1) - first) / PAGE); k++) {
        uint64_t page = first + k * PAGE, from, to;
        size_t idx = held_index(c, page);
        part_of(addr, len, page, &from, &to);
        if (idx == HELD || from < c->lo[idx] || to > c->hi[idx])
            return -1;
    }
    /* A remembered page read from stays, unless the walked frames' part
     * of it alone served the read (a part remembered from a whole check
     * goes once checks stop at a marker above it). */
    for (k = 0; k < c->seen[c->at].n; k++) {
        uint64_t page = c->seen[c->at].page[k], from, to;
        size_t idx;
        if (page < first || page >= addr + len)
            continue;
        idx = held_index(c, page);
        part_of(addr, len, page, &from, &to);
        if (idx == HELD || from < c->flo[idx] || to > c->fhi[idx])
            c->seen[c->at].used[k] = c->seen[c->at].checks;
    }
    while (done < len) {
        uint64_t at = addr + done, page = at & ~(uint64_t)(PAGE - 1);
        size_t off = (size_t)(at - page), piece = PAGE - off;
        if (piece > len - done)
            piece = len - done;
        size_t idx = held_index(c, page);
        memcpy((uint8_t *)dst + done, (c->copy ? c->second[idx] : c->data[0][idx]) + off, piece);
        done += piece;
    }
    return 0;
}

void cli_check_reads_missed(struct cli_target *t, uint64_t addr, size_t len)
{
    struct cli_check_reads *c = t->check_reads;
    if (c && c->on && len > 0 && addr + len > addr)
        remember(c, addr, len);
}
