/* `jitunwind record` and `jitunwind top`: sample a live process at a rate.
 * --nonblocking reads Python stacks without ever stopping it; otherwise each
 * sample stops each thread briefly (as `stack` does: seize, interrupt, read,
 * detach) for the mixed native + Python stack. Ctrl-C ends the run after
 * the thread being read is released, and the profile is still written. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "perf_events.h"
#include "profile.h"

#define CODE_CACHE_ENTRIES 4096u
/* Frame chains kept: the outermost CHAIN_FRAMES frames of CHAIN_THREADS
 * threads (about 1.4 KiB a frame: 11 MiB). */
#define CHAIN_THREADS 32u
#define CHAIN_FRAMES 256u
/* --nonblocking asks whether the process is still the one sampled (not
 * exited, not exec'ed) at most this often, and holds the stacks read since
 * the last answer until the next (profile_pending): a stack is counted only
 * once a check made after its reads found the process there. */
#define GONE_CHECK_SECONDS 0.001
#define GONE_CHECK_STACKS 256u
/* --nonblocking keeps its schedule: woken late, it takes the passes it
 * owes back to back, those of at most the last CATCH_UP_SECONDS (older
 * ones are missed). A pass counts as achieved only once taken. */
#define CATCH_UP_SECONDS 0.1
/* --nonblocking: the threads walked before their checks are made in one
 * call (cli_check_reads_plan); each has its own frames, room for
 * PY_FRAMES_FIRST at first, grown as a chain needs. */
#define SHARED_CHECKS 16u
/* --nonblocking lists the Python thread states anew at most this often;
 * in between it reads the last listing's thread states again
 * (jitunwind_pyreader_threads_again), which notices a thread state added
 * or taken out by its list links, and lists anew at once then. */
#define RELIST_SECONDS 0.5
#define PY_FRAMES_FIRST 128u

/* One thread's Python frames in a pass of --nonblocking. */
struct py_chain {
    struct jitunwind_py_frame *py; /* cap entries, n used */
    size_t n, cap;
    struct cli_chain_try first;    /* its first walk, its check shared */
};

struct sampler {
    const struct cli_options *opt;
    struct cli_target t;
    struct profile prof;
    struct cli_stack *s;
    struct cli_thread threads[CLI_MAX_TIDS];
    size_t n_threads;
    double listed_at;
    struct cli_range_watch watch; /* the mixed mode's ranges, read again as they change */
    double deadline;  /* -d: when sampling stops (0: at Ctrl-C) */
    uint64_t errors;
    uint64_t torn;    /* --nonblocking: chains that kept changing while read (errors too) */
    int gone;         /* CLI_GONE_EXITED or CLI_GONE_EXECED once the process has ended */
    int said_left_out;
    int logged;       /* off a terminal: a progress line was written, at logged_at */
    double logged_at;
    uint32_t *ids;    /* a stack's frame ids: room for every item of sm->s, and one */
    size_t ids_cap;
    struct cli_perf *perf;      /* --perf */
    struct cli_exec_history *execs; /* --perf: the JIT executors' history */
    uint64_t perf_merge[4];     /* samples by enum cli_perf_merge */
    uint64_t perf_incomplete;   /* samples whose native walk did not reach the root */
    uint64_t perf_replaced_cut; /* CLI_PERF_REPLACED samples whose walk stopped there */
    uint64_t perf_stops[16];    /* of them, by stop reason */
    double perf_late_sum, perf_late_max; /* from each sample that read Python frames to its
                                          * unwinding, in seconds */
    uint64_t pushed_left_out;   /* --nonblocking: innermost frames being pushed */
    char vdso_path[64];         /* --perf: the vDSO's image as a module, or "" */
    struct cli_perf_procs *procs; /* --perf --all: the processes sampled */
    uint64_t pass;              /* --perf: readings of the rings */
    struct cli_py_listing py_listing; /* --perf: t's Python thread states */
    uint64_t after_end;         /* --perf --all: samples read after -d's end, left out */
    struct profile_pending pending; /* --nonblocking: stacks not yet vouched for */
    double checked_at;          /* --nonblocking: when the process was last found there */
    uint64_t gone_checks;       /* --nonblocking: those checks */
    uint64_t left_out_at_end;   /* --nonblocking: passes read after the last good check */
    struct profile_tails tails; /* --nonblocking --mark-frames: ids the marker vouches for */
    struct py_chain chains[SHARED_CHECKS]; /* --nonblocking: a pass's threads */
    size_t n_py;                /* --nonblocking: the thread states listed, */
    double py_listed_at;        /* when, */
    uint64_t py_listings;       /* and how many listings were made */
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint32_t native_id(struct sampler *sm, const struct cli_native *n)
{
    char label[4 * JITUNWIND_NAME_MAX + CLI_SYMBOL_MAX];
    const char *module = n->module ? n->module : "";
    const char *base = strrchr(module, '/');
    base = base ? base + 1 : module;
    if (n->has_range) {
        cli_native_label(n, label, sizeof label);
        return profile_frame(&sm->prof, n->role == JITUNWIND_ROLE_JIT ? PROFILE_JIT
                                                                      : PROFILE_TRAMPOLINE,
                             label, "", 0);
    }
    if (n->symbol[0])
        return profile_frame(&sm->prof, PROFILE_NATIVE, n->symbol, module, 0);
    snprintf(label, sizeof label, "?? (%s)", base[0] ? base : "anonymous");
    return profile_frame(&sm->prof, PROFILE_NATIVE, label, module, 0);
}

static uint32_t python_id(struct sampler *sm, const struct jitunwind_py_frame *f)
{
    return profile_frame_hinted(&sm->prof, f->code, PROFILE_PYTHON,
                                f->qualname[0] ? f->qualname : "<unknown>", f->filename, f->line);
}

/* Python frames that no native frame was found to run (an eval loop the
 * library did not recognise) are kept at the leaf end, under this frame:
 * the native frames stay the stack's root, as `stack` prints them. */
#define UNPLACED_LABEL "[Python frames no native frame was found to run]"

static int unplaced(const struct cli_stack *s, const struct jitunwind_mixed_item *it)
{
    return s->n_native && it->kind == JITUNWIND_MIXED_PYTHON &&
           it->anchor == JITUNWIND_MIXED_NO_ANCHOR;
}

/* Room for n ids in sm->ids: 0, or -1 (counted as an error) when out of
 * memory. */
static int ids_room(struct sampler *sm, size_t n)
{
    uint32_t *ids;
    if (n <= sm->ids_cap)
        return 0;
    if (!(ids = realloc(sm->ids, n * sizeof *ids))) {
        sm->errors++;
        return -1;
    }
    sm->ids = ids;
    sm->ids_cap = n;
    return 0;
}

/* A stack's ids (sm->ids[0..depth), root first) into the profile; with
 * --nonblocking held until the process is vouched for (vouch). */
static void keep_stack(struct sampler *sm, uint32_t thread, uint32_t depth)
{
    if (!depth)
        return;
    if (!sm->opt->nonblocking)
        profile_add_for(&sm->prof, thread, sm->ids, depth);
    else if (profile_pending_add(&sm->pending, thread, sm->ids, depth) < 0)
        sm->errors++;
}

/* One thread's stack into the profile, root first. The eval loop's own
 * frames are left out (the Python frames they run stand for them), and so
 * are the interpreter's internal calls between them, as `stack` hides them. */
static void record_stack(struct sampler *sm, const struct cli_stack *s, uint32_t thread,
                         uint32_t root)
{
    uint32_t depth = 0, id;
    size_t i, n_unplaced = 0;
    if (ids_room(sm, s->n_items + 2) < 0) /* the items, the root and the unplaced label */
        return;
    if (root != UINT32_MAX)
        sm->ids[depth++] = root;
    for (i = s->n_items; i-- > 0;) {
        const struct jitunwind_mixed_item *it = &s->items[i];
        if (unplaced(s, it)) {
            n_unplaced++;
            continue;
        }
        if (it->kind == JITUNWIND_MIXED_NATIVE) {
            const struct cli_native *n = &s->native[it->index];
            if (n->hidden || n->role == JITUNWIND_ROLE_EVAL)
                continue;
            id = native_id(sm, n);
        } else {
            id = python_id(sm, &s->py[it->index]);
        }
        if (id != UINT32_MAX)
            sm->ids[depth++] = id;
    }
    if (n_unplaced &&
        (id = profile_frame(&sm->prof, PROFILE_NATIVE, UNPLACED_LABEL, "", 0)) != UINT32_MAX)
        sm->ids[depth++] = id;
    for (i = s->n_items; n_unplaced && i-- > 0;)
        if (unplaced(s, &s->items[i]) &&
            (id = python_id(sm, &s->py[s->items[i].index])) != UINT32_MAX)
            sm->ids[depth++] = id;
    keep_stack(sm, thread, depth);
}

/* --nonblocking: a thread's Python frames (innermost first: s->py, then
 * `left` more the walk left in the chain cache) into the profile, root
 * first. The outermost `beyond` of them are the frames the check's marker
 * proof `proof` vouched for (0: none): while the same proof vouches for
 * them they are the same frames as at the thread's last stack, whose ids
 * `tail` (profile_tail_get, or NULL) are taken again instead of being
 * looked up by their names. Frames left are never among those looked up:
 * the caller copies them into s->py unless their ids are there
 * (left_ids_held). */
static void record_python(struct sampler *sm, const struct py_chain *s, uint32_t thread,
                          uint64_t key, uint64_t proof, const uint32_t *tail, size_t beyond,
                          size_t left)
{
    size_t i = s->n + left;
    uint32_t depth = 0, id;
    int reused = 0;
    if (ids_room(sm, s->n + left + 1) < 0)
        return;
    if (tail && beyond <= s->n + left && beyond >= left) {
        memcpy(sm->ids, tail, beyond * sizeof *tail);
        depth = (uint32_t)beyond;
        i -= beyond;
        sm->tails.reused += beyond;
        reused = 1;
    }
    if (!reused && left) { /* the caller made sure of the ids: not reached */
        sm->errors++;
        return;
    }
    while (i-- > 0)
        if ((id = python_id(sm, &s->py[i])) != UINT32_MAX)
            sm->ids[depth++] = id;
    if (proof && !reused && depth == s->n && beyond <= depth)
        profile_tail_put(&sm->tails, key, proof, sm->ids, beyond);
    keep_stack(sm, thread, depth);
}

/* --nonblocking: is the process still the one sampled? The stacks held
 * were all read before this check: counted when it is, forgotten (with
 * their passes) when it exited or exec'ed since the last check, as what
 * they read may be another program's, or another process's that took the
 * PID. 0, or CLI_GONE_*. */
static int vouch(struct sampler *sm, double t)
{
    sm->gone_checks++;
    sm->checked_at = t;
    if ((sm->gone = cli_target_gone(&sm->t)) != 0) {
        sm->left_out_at_end += sm->pending.passes;
        profile_pending_drop(&sm->pending, &sm->prof);
        profile_tails_clear(&sm->tails); /* their ids may be gone with the frames */
        return sm->gone;
    }
    profile_pending_commit(&sm->pending, &sm->prof);
    return 0;
}

static int vouch_due(const struct sampler *sm, double t)
{
    return t - sm->checked_at >= GONE_CHECK_SECONDS ||
           sm->pending.stacks >= GONE_CHECK_STACKS;
}

/* The profile's entry for OS thread `tid`, named (`name`, or its comm) when
 * first seen; the names are read again before the profile is written. */
static uint32_t sampled_thread(struct sampler *sm, int tid, const char *name)
{
    size_t before = sm->prof.n_threads;
    uint32_t at = profile_thread(&sm->prof, tid, name);
    if (at != UINT32_MAX && sm->prof.n_threads > before && !sm->prof.threads[at].name[0]) {
        struct cli_thread th = {.tid = tid};
        cli_thread_name(sm->opt->all ? tid : sm->t.pid, &th);
        snprintf(sm->prof.threads[at].name, sizeof sm->prof.threads[at].name, "%s", th.name);
    }
    return at;
}

/* A thread's name may be set after it was first sampled: the name it has at
 * the end, its Python name where it has one, is the one profiles show (a
 * thread that has ended keeps the name it had). */
static void name_threads(struct sampler *sm)
{
    size_t i;
    if (!sm->opt->all) {
        cli_list_python_threads(&sm->t);
        cli_python_thread_names(&sm->t);
    } else if (sm->procs) { /* each process has its own reader (perf_procs.c) */
        cli_perf_procs_read_thread_names(sm->procs);
    }
    for (i = 0; i < sm->prof.n_threads; i++) {
        struct cli_thread th = {.tid = sm->prof.threads[i].tid};
        if (th.tid <= 0)
            continue;
        cli_thread_name(sm->opt->all ? th.tid : sm->t.pid, &th); /* /proc/TID is the thread's */
        if (!sm->opt->all)
            cli_python_thread_name(&sm->t, &th);
        else if (sm->procs)
            cli_perf_procs_python_thread_name(sm->procs, &th);
        if (th.name[0])
            snprintf(sm->prof.threads[i].name, sizeof sm->prof.threads[i].name, "%s", th.name);
    }
}

/* A thread read while it runs may be pushing a frame: its innermost frame
 * is linked before its code is readable (JITUNWIND_PYFRAME_BAD_CODE). That
 * frame is left out, the sample being its caller's, and counted. */
static void drop_frame_being_pushed(struct sampler *sm, struct py_chain *s)
{
    if (s->n == 0 || !(s->py[0].flags & JITUNWIND_PYFRAME_BAD_CODE))
        return;
    memmove(s->py, s->py + 1, (s->n - 1) * sizeof *s->py);
    s->n--;
    sm->pushed_left_out++;
}

/* Twice the room (at most JITUNWIND_PY_MAX_FRAMES; PY_FRAMES_FIRST when
 * none yet): 0, or -1 (as it was) at the limit or out of memory. */
static int py_chain_grow(struct py_chain *s)
{
    size_t cap = s->cap ? 2 * s->cap : PY_FRAMES_FIRST;
    struct jitunwind_py_frame *py;
    if (cap > JITUNWIND_PY_MAX_FRAMES)
        cap = JITUNWIND_PY_MAX_FRAMES;
    if (cap <= s->cap || !(py = realloc(s->py, cap * sizeof *py)))
        return -1;
    s->py = py;
    s->cap = cap;
    return 0;
}

static int sampled_python(const struct sampler *sm, const struct jitunwind_py_thread *pt)
{
    return pt->current_frame && (sm->opt->idle || pt->holds_gil != 0);
}

/* Whether the ids of the `left` frames a walk left in the chain cache,
 * which the check's marker proof vouched for, are the thread's last
 * stack's `tail` (record_python takes them there); if not, those frames
 * are copied after s->py's. 0, or -1 (the stack cannot be recorded). */
static int left_ids_held(struct sampler *sm, struct py_chain *s, uint64_t key,
                         const uint32_t *tail, size_t beyond, size_t *left)
{
    size_t more = 0;
    if (!*left || (tail && beyond == *left))
        return 0;
    while (s->n + *left > s->cap)
        if (py_chain_grow(s) < 0)
            return -1;
    if (jitunwind_py_chains_tail(sm->t.chains, key, s->py + s->n, s->cap - s->n, &more) < 0 ||
        more != *left)
        return -1;
    s->n += more;
    *left = 0;
    return 0;
}

/* --nonblocking: a thread's chain read (its first walk and its check made
 * already, into s, when `walked`) and recorded. A thread that runs on
 * changes its chain under the reader: a chain cut short is counted as an
 * error and recorded as read; one that kept changing (running_chain.c) is
 * counted and left out. A chain longer than the room is read again into
 * twice the room. */
static void finish_chain(struct sampler *sm, struct jitunwind_py_thread *pt, struct py_chain *s,
                         int walked)
{
    size_t got = 0, beyond = 0, left = 0;
    const uint32_t *tail;
    uint64_t proof;
    int torn, rc;
    rc = walked ? cli_running_chain_finish(&sm->t, pt, s->py, s->cap, &got, &torn, &left,
                                           &s->first)
                : cli_read_running_chain(&sm->t, pt, s->py, s->cap, &got, &torn, NULL, 0, &left);
    while (rc == JITUNWIND_ELIMIT && got == s->cap && py_chain_grow(s) == 0)
        rc = cli_read_running_chain(&sm->t, pt, s->py, s->cap, &got, &torn, NULL, 0, &left);
    if (rc < 0 || torn)
        sm->errors++;
    if (torn) {
        sm->torn++;
        return;
    }
    s->n = got;
    proof = jitunwind_py_chains_check_proof(sm->t.chains, pt->tstate, &beyond);
    tail = proof ? profile_tail_get(&sm->tails, pt->tstate, proof, beyond) : NULL;
    if (left_ids_held(sm, s, pt->tstate, tail, beyond, &left) < 0) {
        sm->errors++;
        return;
    }
    drop_frame_being_pushed(sm, s);
    record_python(sm, s, sampled_thread(sm, (int)pt->native_thread_id, NULL), pt->tstate, proof,
                  tail, beyond, left);
}

/* The checks of the threads walked, ts[0..n) with their chains, in one
 * call (`carry`: it reads the next pass's blocks too), every one made
 * before any chain is read again, then each chain finished. */
static void finish_shared(struct sampler *sm, struct jitunwind_py_thread *const *ts, size_t n,
                          int carry)
{
    size_t k;
    sm->t.carry_check = carry;
    cli_check_reads_fetch(&sm->t);
    sm->t.carry_check = 0;
    for (k = 0; k < n; k++)
        cli_running_chain_check(&sm->t, ts[k], sm->chains[k].py, sm->chains[k].cap,
                                &sm->chains[k].first);
    for (k = 0; k < n; k++)
        finish_chain(sm, ts[k], &sm->chains[k], 1);
}

/* --nonblocking: every Python thread's frames, read while it runs (the
 * thread states listed as RELIST_SECONDS says). The threads are walked,
 * up to SHARED_CHECKS at a time, before their checks, which are read in
 * one call. When the next sample follows at once (`behind`), the last
 * call also reads the next sample's blocks (cli_target_read_carrying). */
static void sample_python(struct sampler *sm, int behind, double t)
{
    static struct jitunwind_py_thread pts[JITUNWIND_PY_MAX_THREADS];
    struct jitunwind_py_thread *walked[SHARED_CHECKS];
    size_t n, i, k = 0;
    if (!sm->n_py || t - sm->py_listed_at >= RELIST_SECONDS ||
        jitunwind_pyreader_threads_again(sm->t.py, pts, sm->n_py) != 1) {
        sm->n_py = 0;
        sm->py_listed_at = t;
        sm->py_listings++;
        if (jitunwind_pyreader_threads(sm->t.py, pts, JITUNWIND_PY_MAX_THREADS, &sm->n_py) < 0)
            sm->errors++;
    }
    n = sm->n_py;
    for (i = 0; i < n; i++) {
        struct py_chain *s;
        if (!sampled_python(sm, &pts[i]))
            continue;
        if (k == SHARED_CHECKS) {
            finish_shared(sm, walked, k, 0);
            k = 0;
        }
        s = &sm->chains[k];
        if (!s->cap && py_chain_grow(s) < 0) {
            sm->errors++;
            continue;
        }
        if (k == 0)
            cli_check_reads_plan(&sm->t);
        if (cli_running_chain_walk(&sm->t, &pts[i], s->py, s->cap, &s->first) < 0) {
            finish_chain(sm, &pts[i], s, 0); /* no caches: read alone */
            continue;
        }
        if (cli_running_chain_share(&sm->t, &pts[i], s->py, &s->first) < 0) {
            /* No room beside the others: they are finished first, and
             * this one starts the next call. */
            struct py_chain moved = *s;
            finish_shared(sm, walked, k, 0);
            *s = sm->chains[0];
            sm->chains[0] = moved;
            s = &sm->chains[0];
            k = 0;
            cli_check_reads_plan(&sm->t);
            if (cli_running_chain_share(&sm->t, &pts[i], s->py, &s->first) < 0) {
                /* its check makes its own call */
                cli_running_chain_check(&sm->t, &pts[i], s->py, s->cap, &s->first);
                finish_chain(sm, &pts[i], s, 1);
                continue;
            }
        }
        walked[k++] = &pts[i];
    }
    if (k)
        finish_shared(sm, walked, k, behind);
}

static void list_os_threads(struct sampler *sm, double t)
{
    size_t left_out;
    if (cli_list_threads(sm->t.pid, sm->threads, CLI_MAX_TIDS, &sm->n_threads, &left_out) < 0) {
        sm->gone = CLI_GONE_EXITED;
        return;
    }
    sm->listed_at = t;
    if (left_out && !sm->said_left_out) {
        sm->said_left_out = 1;
        fprintf(stderr, "jitunwind: process %d has %zu threads more than the %u sampled\n",
                sm->t.pid, left_out, CLI_MAX_TIDS);
    }
}

/* Blocking: each thread stopped in turn for its mixed stack; the thread
 * states are listed once per sample. A thread's stack is recorded only
 * once the process is known to be still the one sampled (not ended, its
 * PID not taken by another). */
static void sample_mixed(struct sampler *sm, double t)
{
    size_t i;
    if (t - sm->listed_at > 1.0 || sm->n_threads == 0)
        list_os_threads(sm, t);
    if (sm->gone)
        return;
    cli_range_watch_check(&sm->t, &sm->watch, t);
    cli_list_python_threads(&sm->t);
    if (sm->t.py_list_error[0])
        sm->errors++;
    for (i = 0; i < sm->n_threads && !cli_interrupted; i++) {
        struct cli_thread *th = &sm->threads[i];
        int rc;
        if (sm->deadline > 0 && now() >= sm->deadline)
            break;
        rc = cli_ptrace_stop(th);
        if (rc == -ESRCH || rc == -EINTR)
            continue;
        if (rc < 0) {
            sm->errors++;
            continue;
        }
        cli_target_forget_reads(&sm->t); /* the others ran: their memory moved */
        cli_stack_build(&sm->t, th, sm->opt, sm->s);
        cli_ptrace_release(th);
        /* Asked once the thread is released: telling an exit from an exec
         * may wait for the process to finish dying. */
        if ((sm->gone = cli_target_gone(&sm->t)) != 0)
            return; /* what was read is not the process sampled */
        if (sm->s->pyread.py_status < 0 || sm->s->stop_reason != JITUNWIND_STOP_END)
            sm->errors++;
        if (!sm->opt->idle && sm->s->pyread.holds_gil == 0)
            continue; /* idle: see docs/cli.md */
        record_stack(sm, sm->s, sampled_thread(sm, th->tid, th->name), UINT32_MAX);
    }
}

/* --perf --all: a stack's root names its process, as speedscope names a
 * thread: `Process PID "name"` (the name it had when first sampled). */
static uint32_t process_frame(struct sampler *sm, const struct cli_perf_proc *p)
{
    char label[64];
    snprintf(label, sizeof label, "Process %d \"%s\"", p->pid, p->comm);
    return profile_frame(&sm->prof, PROFILE_NATIVE, label, "", 0);
}

/* --perf: one sample read from the rings, unwound and recorded. */
static void perf_sample(void *arg, const struct cli_perf_sample *ps)
{
    struct sampler *sm = arg;
    struct cli_target *t = &sm->t;
    struct cli_range_watch *watch = &sm->watch;
    struct cli_exec_history *execs = sm->execs;
    struct cli_py_listing *listing = &sm->py_listing;
    uint32_t root = UINT32_MAX;
    int merge;
    double late;
    sm->prof.samples++;
    if (sm->opt->all) {
        struct cli_perf_proc *p;
        /* Opening processes may take longer than the samples' pace: the
         * run still ends when -d says. */
        if (sm->deadline > 0 && now() >= sm->deadline) {
            sm->prof.samples--;
            sm->after_end++;
            return;
        }
        p = cli_perf_procs_get(sm->procs, (int)ps->pid, (double)ps->time / 1e9, sm->pass,
                               now());
        if (!p)
            return; /* a process gone before its sample was read: counted there */
        t = &p->t;
        listing = &p->py_listing;
        watch = p->state == CLI_PERF_PROC_OPEN ? &p->watch : NULL; /* none to read again */
        execs = p->execs;
        root = process_frame(sm, p);
    }
    if (!sm->opt->no_cache) {
        jitunwind_pyreader_cache_next_sample(t->py);
        cli_target_forget_reads(t);
    }
    if (cli_exec_history_stale(execs, (double)ps->time / 1e9)) {
        /* The executors are listed (and the ranges read again if they
         * changed) after the sample, so that its JIT frames can be checked. */
        watch->executors_at = 0;
        cli_range_watch_check(t, watch, now());
        cli_exec_history_update(execs, t, watch);
    }
    t->pc_outside = 0;
    cli_py_listing_before(t, listing, sm->pass, (int)ps->tid, now());
    cli_py_memo_reading(&listing->memo, sm->pass);
    t->py_memo = sm->opt->no_cache ? NULL : &listing->memo;
    late = now() - (double)ps->time / 1e9;
    merge = cli_perf_stack(t, ps, sm->opt, execs, sm->s);
    if (cli_py_listing_after(t, listing, sm->pass, (int)ps->tid, sm->s->pyread.python_thread,
                             merge == CLI_PERF_INCONSISTENT, now()))
        merge = cli_perf_stack(t, ps, sm->opt, execs, sm->s);
    /* Code made since the ranges were read (a warming JIT): read them again
     * and unwind the sample once more, its copy still at hand. */
    if (sm->s->stop_reason != JITUNWIND_STOP_END && t->pc_outside && watch &&
        cli_range_watch_check(t, watch, now())) {
        cli_exec_history_update(execs, t, watch);
        merge = cli_perf_stack(t, ps, sm->opt, execs, sm->s);
    }
    sm->perf_merge[merge]++;
    if (merge == CLI_PERF_MERGED || merge == CLI_PERF_INCONSISTENT) {
        sm->perf_late_sum += late;
        if (late > sm->perf_late_max)
            sm->perf_late_max = late;
    }
    if (sm->s->stop_reason != JITUNWIND_STOP_END && merge == CLI_PERF_REPLACED) {
        sm->perf_replaced_cut++; /* no unwind rule for code that is gone */
    } else if (sm->s->stop_reason != JITUNWIND_STOP_END) {
        sm->perf_incomplete++;
        sm->perf_stops[(unsigned)sm->s->stop_reason & 15u]++;
        sm->errors++;
    }
    record_stack(sm, sm->s, sampled_thread(sm, (int)ps->tid, NULL), root);
}

/* --perf: the thread list is read again (threads started since get
 * events, an ended process is seen) every PERF_SYNC_SECONDS, whether the
 * rings hold anything or not. */
#define PERF_SYNC_SECONDS 0.1

/* --perf: what the rings hold; the thread list is read again at most every
 * PERF_SYNC_SECONDS, the Python thread states when a sample needs them
 * (perf_py_listing.c). */
static void sample_perf(struct sampler *sm, double t)
{
    char err[256] = "";
    sm->pass++;
    if (sm->opt->all) { /* each process's are checked at its first sample of the reading */
        cli_perf_read(sm->perf, perf_sample, sm, NULL);
        return;
    }
    cli_range_watch_check(&sm->t, &sm->watch, t);
    cli_exec_history_update(sm->execs, &sm->t, &sm->watch);
    cli_perf_read(sm->perf, perf_sample, sm, sm->t.mods);
    if (t - sm->listed_at > PERF_SYNC_SECONDS) {
        sm->listed_at = t;
        if (cli_perf_sync_threads(sm->perf, err, sizeof err) == -ESRCH)
            sm->gone = CLI_GONE_EXITED;
        else if (err[0])
            sm->errors++;
    }
}

static void perf_summary(struct sampler *sm)
{
    const struct cli_perf_counts *c = cli_perf_counts(sm->perf);
    uint64_t py = sm->perf_merge[CLI_PERF_MERGED] + sm->perf_merge[CLI_PERF_INCONSISTENT];
    uint64_t replaced = sm->perf_merge[CLI_PERF_REPLACED];
    unsigned r, shown;
    fprintf(stderr, "jitunwind: perf: %llu samples from %llu threads, %llu lost, %llu throttled, "
                    "%llu did not reach the thread's root",
            (unsigned long long)c->samples, (unsigned long long)c->threads_seen,
            (unsigned long long)c->lost, (unsigned long long)c->throttled,
            (unsigned long long)sm->perf_incomplete);
    for (r = 0, shown = 0; r < 16; r++)
        if (sm->perf_stops[r])
            fprintf(stderr, "%s%llu %s", shown++ ? ", " : " (",
                    (unsigned long long)sm->perf_stops[r], jitunwind_stop_reason_string((int)r));
    fprintf(stderr, "%s\n", sm->perf_incomplete ? ")" : "");
    if (sm->procs) {
        const struct cli_perf_procs_counts *pc = cli_perf_procs_counts(sm->procs);
        struct jitunwind_module_files_stats files;
        cli_perf_procs_files(sm->procs, &files);
        fprintf(stderr, "jitunwind: perf: %llu processes sampled (%llu of them Python), %llu "
                        "gone before they could be read (%llu samples left out), %llu samples of "
                        "processes before they were opened left out, %llu samples of "
                        "processes not opened unwound native-only from their perf records "
                        "(or, for the %llu running at the start, their maps read then), "
                        "%llu samples taken before their PID's process started left out; "
                        "%.1f s spent opening processes (%.2f s of CPU; %llu module files "
                        "opened, reused %llu times)",
                (unsigned long long)pc->opened, (unsigned long long)pc->python,
                (unsigned long long)pc->unreadable, (unsigned long long)pc->unread_samples,
                (unsigned long long)pc->pending_samples, (unsigned long long)pc->record_samples,
                (unsigned long long)pc->running, (unsigned long long)pc->earlier_samples,
                pc->open_seconds, pc->open_cpu_seconds, (unsigned long long)files.opened,
                (unsigned long long)files.reused);
        if (sm->after_end)
            fprintf(stderr, "; %llu samples read after the end left out",
                    (unsigned long long)sm->after_end);
        fprintf(stderr, "\n");
    }
    if (replaced)
        fprintf(stderr, "jitunwind: perf: %llu samples in JIT code not known to exist when they "
                        "were taken (executors replaced since) kept native-only, named "
                        "\"%s\"; %llu of them cut short there\n",
                (unsigned long long)replaced, CLI_PERF_REPLACED_JIT,
                (unsigned long long)sm->perf_replaced_cut);
    if (py)
        fprintf(stderr, "jitunwind: perf: Python frames merged into %llu samples; %llu "
                        "(%.1f%%) kept native-only, their Python frames not matching the "
                        "sample; read %.1f ms after their sample on average, at most %.1f ms\n",
                (unsigned long long)sm->perf_merge[CLI_PERF_MERGED],
                (unsigned long long)sm->perf_merge[CLI_PERF_INCONSISTENT],
                100.0 * (double)sm->perf_merge[CLI_PERF_INCONSISTENT] / (double)py,
                1e3 * sm->perf_late_sum / (double)py, 1e3 * sm->perf_late_max);
}

/* A rate the machine did not reach is said, as achieved vs asked (a
 * sample is one pass over the threads). */
static void achieved(const struct sampler *sm)
{
    double got = sm->prof.seconds > 0 ? (double)sm->prof.samples / sm->prof.seconds : 0;
    if (sm->prof.seconds > 0 && got < 0.95 * sm->opt->hz)
        fprintf(stderr, "jitunwind: asked for %.0f samples/s, achieved %.0f/s: %.1f%% of the "
                        "samples asked were missed\n",
                sm->opt->hz, got, 100.0 * (1.0 - got / sm->opt->hz));
}

/* Off a terminal, a progress line at most this often (the first one says
 * that sampling has begun), each a line of its own. */
#define PROGRESS_LOG_SECONDS 10.0

/* The progress line: on a terminal rewritten in place (\r) as sampling
 * goes; elsewhere (a pipe, a log) a whole line at the first update, then at
 * most every PROGRESS_LOG_SECONDS, and at the end. */
static void progress(struct sampler *sm, double elapsed, int final)
{
    struct jitunwind_py_cache_stats cs = {0};
    struct jitunwind_py_chain_stats ch = {0}; /* stays zero without the chain cache */
    int tty = isatty(STDERR_FILENO);
    if (!final && !tty) {
        if (sm->logged && elapsed - sm->logged_at < PROGRESS_LOG_SECONDS)
            return;
        sm->logged = 1;
        sm->logged_at = elapsed;
    }
    fprintf(stderr, "%sjitunwind:", tty ? "\r" : "");
    fprintf(stderr, " %.1f s, %llu samples, %.1f Hz, %llu errors, %.0f reads/sample",
            elapsed, (unsigned long long)sm->prof.samples,
            elapsed > 0 ? (double)sm->prof.samples / elapsed : 0.0,
            (unsigned long long)sm->errors,
            sm->prof.samples ? (double)sm->t.reads / (double)sm->prof.samples : 0.0);
    if (jitunwind_pyreader_cache_stats(sm->t.py, &cs) == 0 && (cs.hits || cs.misses))
        fprintf(stderr, ", cache %.0f%% hits, %llu reads saved",
                100.0 * (double)cs.hits / (double)(cs.hits + cs.misses),
                (unsigned long long)cs.reads_saved);
    if (jitunwind_py_chains_stats(sm->t.chains, &ch) == 0 && ch.walks && sm->prof.samples)
        fprintf(stderr, ", %.0f frames/sample reused",
                (double)ch.frames_reused / (double)sm->prof.samples);
    if (ch.marker_writes)
        fprintf(stderr, ", %llu reads saved at markers", (unsigned long long)ch.marker_frames);
    fprintf(stderr, final || !tty ? "\n" : "   ");
    fflush(stderr);
}

static void stats(struct sampler *sm)
{
    struct jitunwind_py_cache_stats cs = {0};
    struct jitunwind_py_chain_stats ch = {0};
    jitunwind_pyreader_cache_stats(sm->t.py, &cs);
    if (sm->t.chains)
        jitunwind_py_chains_stats(sm->t.chains, &ch);
    fprintf(stderr, "samples: %llu\nstacks: %llu\nerrors: %llu\nreads: %llu\n"
                    "cache hits: %llu\ncache misses: %llu\ncache invalidated: %llu\n"
                    "reads saved: %llu\n"
                    "chain walks: %llu\nchain frames reused: %llu\nchain reads saved: %llu\n"
                    "ranges read again: %llu\n",
            (unsigned long long)sm->prof.samples, (unsigned long long)sm->prof.stacks_seen,
            (unsigned long long)sm->errors, (unsigned long long)sm->t.reads,
            (unsigned long long)cs.hits, (unsigned long long)cs.misses,
            (unsigned long long)cs.invalidated, (unsigned long long)cs.reads_saved,
            (unsigned long long)ch.walks, (unsigned long long)ch.frames_reused,
            (unsigned long long)ch.reads_saved, (unsigned long long)sm->watch.reloads);
    fprintf(stderr, "read calls: %llu\nread bytes: %llu\n", (unsigned long long)sm->t.read_calls,
            (unsigned long long)sm->t.read_bytes);
    if (sm->procs)
        cli_perf_procs_print_files(sm->procs, stderr);
    if (sm->perf && !sm->opt->all)
        fprintf(stderr, "ring readings: %llu\nPython thread listings: %llu\n"
                        "Python frames reused within a reading: %llu\n",
                (unsigned long long)sm->pass, (unsigned long long)sm->py_listing.listings,
                (unsigned long long)sm->py_listing.memo.reused);
    if (sm->opt->nonblocking)
        fprintf(stderr, "frames being pushed left out: %llu\ntorn chains: %llu\n"
                        "exit and exec checks: %llu\nPython thread listings: %llu\n",
                (unsigned long long)sm->pushed_left_out, (unsigned long long)sm->torn,
                (unsigned long long)sm->gone_checks, (unsigned long long)sm->py_listings);
    if (sm->opt->mark_frames)
        fprintf(stderr, "marker stops: %llu\nmarker frames unread: %llu\nmarker misses: %llu\n"
                        "marker writes: %llu\nmarker checks: %llu\n"
                        "frame ids the marker vouched for: %llu\n"
                        "code objects the marker vouched for: %llu\n",
                (unsigned long long)ch.marker_stops, (unsigned long long)ch.marker_frames,
                (unsigned long long)ch.marker_misses, (unsigned long long)ch.marker_writes,
                (unsigned long long)ch.marker_checks, (unsigned long long)sm->tails.reused,
                (unsigned long long)ch.marker_codes);
}

/* record --threads: the merged formats with a root frame per thread. */
static int write_thread_rooted(const struct cli_options *opt, FILE *out, const struct profile *p)
{
    struct profile rooted;
    int rc = -1;
    profile_init(&rooted, p->hz);
    if (profile_thread_rooted(p, &rooted) == 0)
        rc = strcmp(opt->format, "flamegraph") == 0 ? output_flamegraph(out, &rooted)
                                                     : output_collapsed(out, &rooted);
    profile_free(&rooted);
    return rc;
}

/* How long a process caught as it starts is waited for: at most the
 * run's duration, and this long without one. */
#define START_WAIT_SECONDS 2.0

/* Open the target; a process caught in its first moments (just started,
 * or just exec'ed another Python program) is opened again every 10 ms
 * until its interpreter is up, for at most START_WAIT_SECONDS or the
 * run's duration: what is recorded is then the program it became. The
 * last attempt says why it failed. */
static int open_started(struct sampler *sm, const struct cli_options *opt)
{
    struct cli_options quiet = *opt;
    double give_up = now() + (opt->duration > 0 && opt->duration < START_WAIT_SECONDS
                                  ? opt->duration : START_WAIT_SECONDS);
    int code;
    quiet.quiet_starting = 1;
    while ((code = cli_target_open(&sm->t, &quiet, !opt->nonblocking)) != CLI_OK &&
           sm->t.starting && now() < give_up && !cli_interrupted) {
        cli_target_close(&sm->t);
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    if (code != CLI_OK && sm->t.starting) { /* said now, by an attempt that may say it */
        cli_target_close(&sm->t);
        code = cli_target_open(&sm->t, opt, !opt->nonblocking);
    }
    return code;
}

/* The output is opened before sampling starts, so that a path that cannot
 * be written is said at once rather than after the run. */
static int write_profile(struct sampler *sm, FILE *out)
{
    const struct cli_options *opt = sm->opt;
    int rc;
    errno = 0;
    if (!sm->gone)
        name_threads(sm);
    if (strcmp(opt->format, "speedscope") == 0)
        rc = output_speedscope(out, &sm->prof);
    else if (opt->thread_roots)
        rc = write_thread_rooted(opt, out, &sm->prof);
    else if (strcmp(opt->format, "flamegraph") == 0)
        rc = output_flamegraph(out, &sm->prof);
    else if (strcmp(opt->format, "pprof") == 0)
        rc = output_pprof(out, &sm->prof);
    else
        rc = output_collapsed(out, &sm->prof);
    if (cli_output_check(out, "the profile") != CLI_OK)
        return -1;
    if (rc < 0)
        fprintf(stderr, "jitunwind: writing the profile failed\n");
    return rc;
}

struct hot {
    uint32_t frame;
    uint64_t self, total;
};

static int by_self(const void *a, const void *b)
{
    const struct hot *x = a, *y = b;
    if (x->self != y->self)
        return x->self < y->self ? 1 : -1;
    return x->total < y->total ? 1 : x->total > y->total ? -1 : 0;
}

/* `top`: the functions seen most, innermost (own) and anywhere on a stack
 * (total), since the start; a Python function's lines are added up. */
static void show_top(struct sampler *sm, double elapsed)
{
    const struct profile *p = &sm->prof;
    struct profile funcs;
    struct hot *h = NULL;
    uint32_t *fid = calloc(p->n_frames + 1, sizeof *fid), *seen = NULL;
    size_t i, shown;
    uint32_t d;
    profile_init(&funcs, 0);
    for (i = 0; fid && i < p->n_frames; i++)
        fid[i] = profile_frame(&funcs, p->frames[i].kind, p->frames[i].name, p->frames[i].file, 0);
    if (!fid || !(h = calloc(funcs.n_frames + 1, sizeof *h)) ||
        !(seen = calloc(funcs.n_frames + 1, sizeof *seen)))
        goto done;
    for (i = 0; i < funcs.n_frames; i++)
        h[i].frame = (uint32_t)i;
    for (i = 0; i < p->n_stacks; i++) {
        const struct profile_stack *s = &p->stacks[i];
        if (!s->depth || fid[s->frames[s->depth - 1]] == UINT32_MAX)
            continue;
        h[fid[s->frames[s->depth - 1]]].self += s->count;
        for (d = 0; d < s->depth; d++) {
            uint32_t f = fid[s->frames[d]];
            if (f == UINT32_MAX || seen[f] == i + 1)
                continue; /* recursion counts once per stack */
            seen[f] = (uint32_t)(i + 1);
            h[f].total += s->count;
        }
    }
    qsort(h, funcs.n_frames, sizeof *h, by_self);
    if (isatty(STDOUT_FILENO))
        printf("\033[H\033[2J");
    if (sm->opt->all)
        printf("jitunwind top: every process,");
    else
        printf("jitunwind top: process %d,", sm->t.pid);
    printf(" %.1f s, %llu samples, %llu stacks, %llu errors\n\n", elapsed,
           (unsigned long long)p->samples, (unsigned long long)p->stacks_seen,
           (unsigned long long)sm->errors);
    printf("%7s %7s  %s\n", "%Own", "%Total", "Function");
    for (shown = 0; shown < funcs.n_frames && shown < 25; shown++) {
        const struct profile_frame *f = &funcs.frames[h[shown].frame];
        double n = p->stacks_seen ? (double)p->stacks_seen : 1.0;
        char label[8192];
        if (!h[shown].self && !h[shown].total)
            break;
        profile_function_label(f, label, sizeof label);
        printf("%6.1f%% %6.1f%%  %s\n", 100.0 * (double)h[shown].self / n,
               100.0 * (double)h[shown].total / n, label);
    }
done:
    profile_free(&funcs);
    free(fid);
    free(h);
    free(seen);
}

int cli_record_command(const struct cli_options *opt)
{
    struct sampler *sm = calloc(1, sizeof *sm);
    FILE *out = stdout;
    double start, next, period = 1.0 / opt->hz, last_shown = 0;
    int code, top = strcmp(opt->command, "top") == 0, behind = 0;
    if (!sm || !(sm->s = cli_stack_new(JITUNWIND_PY_MAX_FRAMES))) {
        fprintf(stderr, "jitunwind: out of memory\n");
        free(sm);
        return CLI_NO_TARGET;
    }
    sm->opt = opt;
    cli_install_signal_handlers();
    profile_init(&sm->prof, opt->hz);
    profile_mark(&sm->prof, &sm->pending.mark);
    sm->t.pidfd = sm->t.memfd = -1;
    if (opt->all) {
        static const struct cli_perf_hooks hooks = {
            cli_perf_procs_mapping, cli_perf_procs_ended, cli_perf_procs_early_mapping,
            cli_perf_procs_forked, cli_perf_procs_exec, cli_perf_procs_exited};
        char err[320] = "";
        if (!(sm->procs = cli_perf_procs_new(opt)) ||
            !(sm->perf = cli_perf_open_all(jitunwind_host_arch(), opt->hz, opt->stack_size,
                                           &hooks, sm->procs, err, sizeof err))) {
            fprintf(stderr, "jitunwind: %s\n", sm->procs ? err : "out of memory");
            code = sm->procs ? CLI_PERMISSION : CLI_NO_TARGET;
            goto done;
        }
        cli_perf_procs_read_running(sm->procs);
        goto opened;
    }
    if ((code = open_started(sm, opt)) != CLI_OK)
        goto done;
    if (opt->perf) {
        char err[320] = "";
        if (!(sm->perf = cli_perf_open(sm->t.pid, sm->t.arch, opt->hz, opt->stack_size, err,
                                       sizeof err))) {
            fprintf(stderr, "jitunwind: %s\n", err);
            code = CLI_PERMISSION;
            goto done;
        }
    }
    if (!opt->no_cache && (jitunwind_pyreader_cache_code(sm->t.py, CODE_CACHE_ENTRIES) < 0 ||
                           cli_target_cache_reads(&sm->t) < 0))
        fprintf(stderr, "jitunwind: no memory for the caches; reading without them\n");
    sm->t.spans_in_blocks = opt->nonblocking;
    if (!opt->no_cache && !opt->no_chain_cache &&
        jitunwind_py_chains_new(CHAIN_THREADS, CHAIN_FRAMES, &sm->t.chains) < 0)
        fprintf(stderr, "jitunwind: no memory for the frame-chain cache; reading without it\n");
    if (opt->mark_frames && sm->t.chains) {
        int cleared = jitunwind_py_chains_mark_frames(sm->t.chains, sm->t.py);
        const struct jitunwind_error *e = jitunwind_pyreader_last_error(sm->t.py);
        if (cleared < 0)
            fprintf(stderr, "jitunwind: --mark-frames: %s; sampling without frame markers\n",
                    e->code == cleared && e->message[0] ? e->message
                                                        : jitunwind_strerror(cleared));
        else
            fprintf(stderr, "jitunwind: frame markers on: %d thread%s' marker cleared; one "
                            "pointer per thread per sample is written into process %d\n",
                    cleared, cleared == 1 ? "" : "s", sm->t.pid);
    }
    if (!opt->nonblocking && !opt->perf) {
        /* Find out now whether ptrace is allowed, rather than at each sample. */
        struct cli_thread probe;
        memset(&probe, 0, sizeof probe);
        probe.tid = sm->t.pid;
        if (cli_ptrace_stop(&probe) == -EPERM) {
            cli_ptrace_refused(sm->t.pid, probe.error,
                               "--nonblocking samples Python stacks without it");
            code = CLI_PERMISSION;
            goto done;
        }
        if (probe.have_regs)
            cli_ptrace_release(&probe);
    }
opened:
    if (!top && opt->output && strcmp(opt->output, "-") != 0 &&
        !(out = fopen(opt->output, "we"))) {
        fprintf(stderr, "jitunwind: cannot write %s: %s\n", opt->output, strerror(errno));
        out = stdout;
        code = CLI_NO_TARGET;
        goto done;
    }
    start = next = last_shown = now();
    if (!opt->nonblocking && !opt->all)
        cli_range_watch_init(&sm->t, &sm->watch, start);
    if (opt->perf && !opt->all && sm->t.py)
        sm->execs = cli_exec_history_new();
    cli_exec_history_update(sm->execs, &sm->t, &sm->watch);
    if (opt->perf && !opt->all) /* a sample taken in it is not stopped at a call boundary */
        cli_vdso_module(&sm->t, sm->watch.vdso_start, sm->watch.vdso_end, sm->vdso_path,
                        sizeof sm->vdso_path);
    if (opt->duration > 0)
        sm->deadline = start + opt->duration;
    while (!cli_interrupted && !sm->gone) {
        double t = now();
        struct timespec ts;
        if (sm->deadline > 0 && t >= sm->deadline)
            break;
        if (opt->perf && !cli_perf_pending(sm->perf) && t - sm->listed_at <= PERF_SYNC_SECONDS)
            goto shown; /* nothing sampled since the last reading: nothing to check or read */
        if (opt->nonblocking) {
            if (vouch_due(sm, t) && vouch(sm, t))
                break;
        } else if (!opt->all && (sm->gone = cli_target_gone(&sm->t)) != 0)
            break;
        if (opt->perf) {
            sample_perf(sm, t);
            goto shown;
        }
        sm->prof.samples++;
        sm->pending.passes += opt->nonblocking;
        if (!opt->no_cache) {
            jitunwind_pyreader_cache_next_sample(sm->t.py);
            if (opt->nonblocking) /* sample_mixed forgets before each thread itself */
                cli_target_next_sample(&sm->t, !behind);
        }
        if (opt->nonblocking)
            sample_python(sm, behind && !opt->no_cache, t);
        else
            sample_mixed(sm, t);
    shown:
        t = now();
        if (t - last_shown >= (top ? 1.0 : 0.5)) {
            last_shown = t;
            if (top) {
                errno = 0;
                show_top(sm, t - start);
                if ((code = cli_output_check(stdout, "the output")) != CLI_OK)
                    break;
            } else
                progress(sm, t - start, 0);
        }
        if (opt->perf) { /* woken by samples: their Python frames are read at once */
            cli_perf_wait(sm->perf, CLI_PERF_POLL_MS);
            continue;
        }
        next += period;
        if ((behind = next <= t) != 0) {
            /* Behind: the next sample is due now, no sleep. Blocking
             * sampling stops the threads at every sample: no burst of
             * stops to catch up, the achieved rate says so. */
            if (!opt->nonblocking)
                next = t;
            else if (t - next > CATCH_UP_SECONDS)
                next = t - CATCH_UP_SECONDS;
            continue;
        }
        ts.tv_sec = (time_t)next;
        ts.tv_nsec = (long)((next - (double)ts.tv_sec) * 1e9);
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    }
    if (opt->nonblocking && !sm->gone)
        vouch(sm, now());
    sm->prof.seconds = now() - start;
    if (top && code == CLI_OK)
        show_top(sm, sm->prof.seconds);
    progress(sm, sm->prof.seconds, 1);
    if (sm->perf)
        perf_summary(sm);
    else
        achieved(sm);
    if (sm->gone)
        fprintf(stderr, "jitunwind: process %d %s; the profile holds what was sampled\n",
                sm->t.pid, sm->gone == CLI_GONE_EXECED ? "executed another program" : "exited");
    if (sm->left_out_at_end)
        fprintf(stderr, "jitunwind: %llu sampling passes read after the last check that found "
                        "process %d there left out\n",
                (unsigned long long)sm->left_out_at_end, sm->t.pid);
    if (opt->stats)
        stats(sm);
    if (top ? code != CLI_OK || cli_output_check(stdout, "the output") != CLI_OK
            : write_profile(sm, out) < 0)
        code = CLI_OUTPUT;
done:
    if (out != stdout && fclose(out) != 0 && code == CLI_OK) {
        fprintf(stderr, "jitunwind: writing %s failed: %s\n", opt->output, strerror(errno));
        code = CLI_OUTPUT;
    }
    cli_perf_close(sm->perf);
    cli_perf_procs_free(sm->procs);
    cli_py_memo_free(&sm->py_listing.memo);
    cli_exec_history_free(sm->execs);
    cli_types_kept_free();
    if (sm->vdso_path[0])
        unlink(sm->vdso_path);
    profile_free(&sm->prof);
    profile_pending_free(&sm->pending);
    profile_tails_free(&sm->tails);
    cli_range_watch_free(&sm->watch);
    jitunwind_py_chains_free(sm->t.chains);
    cli_target_close(&sm->t);
    cli_stack_free(sm->s);
    for (size_t i = 0; i < SHARED_CHECKS; i++)
        free(sm->chains[i].py);
    free(sm->ids);
    free(sm);
    return code;
}
