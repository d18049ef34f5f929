/* When a --perf reader lists a process's Python thread states again.
 * Listing reads every state of every interpreter (a read call per page of
 * them), while each sample's thread reads its own state again anyway
 * (stack.c checks the state still belongs to the thread); so the listing
 * is kept across ring readings and read again only when it may lack what
 * a sample needs: before the sample is read, when its thread has no listed
 * state (a thread started since); after, when the sample found no Python
 * thread though one was listed (the state is no longer the thread's) or
 * its Python frames did not fit its native ones (the thread may have a
 * state the listing lacks, in another interpreter), and then the sample
 * is read again. Each of those lists at most once a reading, so a thread
 * that never runs Python costs what listing at every reading did; and the
 * listing is read again once it is CLI_PY_LISTING_AGE old, whatever the
 * samples say. */
#include "perf_events.h"

#define CLI_PY_LISTING_AGE 1.0 /* seconds */

static int listed(const struct cli_target *t, int tid)
{
    size_t k = cli_first_python_state(t, tid);
    return k < t->n_py_threads &&
           t->py_threads[t->py_order[k]].native_thread_id == (uint64_t)(unsigned)tid;
}

static void list_now(struct cli_target *t, struct cli_py_listing *l, uint64_t pass,
                     double now)
{
    cli_list_python_threads(t);
    l->memo.valid = 0; /* read after a new listing, not kept from before it */
    l->at = now;
    l->pass = pass;
    l->done = 1;
    l->listings++;
}

void cli_py_listing_before(struct cli_target *t, struct cli_py_listing *l, uint64_t pass,
                           int tid, double now)
{
    if (!t->py)
        return;
    if (!l->done || now - l->at >= CLI_PY_LISTING_AGE || t->py_list_error[0] ||
        (l->pass != pass && !listed(t, tid)))
        list_now(t, l, pass, now);
}

int cli_py_listing_after(struct cli_target *t, struct cli_py_listing *l, uint64_t pass,
                         int tid, int python_thread, int misfit, double now)
{
    int was_listed;
    if (!t->py || l->pass == pass)
        return 0;
    was_listed = listed(t, tid);
    if (!misfit && (python_thread || !was_listed))
        return 0;
    list_now(t, l, pass, now);
    return listed(t, tid);
}
