/* `jitunwind stack`: every thread of a live process or a core, one at a
 * time: stop it (live), unwind, decode, print, release.
 *
 * Within one thread's turn the reads go through the command's page cache
 * and the reader's code-object cache (a 100-deep recursion reads its code
 * object, names and line table once, and its frames a page at a time,
 * instead of eight small reads a frame); both are forgotten or re-checked
 * at the next thread, since the other threads ran meanwhile. --no-cache
 * turns them off with the layout answers on disk. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Distinct code objects kept while one stack is read (5 KiB each, touched
 * only when used): more than a deep stack of distinct functions holds. */
#define CODE_CACHE_ENTRIES 1024u

/* --python: the OS threads that run a Python thread state (the listing). */
static size_t python_threads(struct cli_target *t, struct cli_thread *out, size_t max,
                             size_t *left_out)
{
    size_t i, count = 0;
    *left_out = 0;
    for (i = 0; i < t->n_py_threads; i++) {
        int tid = (int)t->py_threads[t->py_order[i]].native_thread_id;
        if (count && out[count - 1].tid == tid)
            continue; /* in the order by thread id: a thread's states are together */
        if (count == max) {
            ++*left_out;
            continue;
        }
        memset(&out[count], 0, sizeof out[count]);
        out[count].tid = tid;
        if (t->live)
            cli_thread_name(t->pid, &out[count]);
        count++;
    }
    return count;
}

/* --threads of a live process: each looked up by its id, however many
 * threads the process has. */
static size_t wanted_threads(struct cli_target *t, const struct cli_options *opt,
                             struct cli_thread *out)
{
    size_t i, j, n = 0;
    for (i = 0; i < opt->n_tids; i++) {
        for (j = 0; j < n && out[j].tid != opt->tids[i]; j++)
            ;
        if (j == n && cli_find_thread(t->pid, opt->tids[i], &out[n]) == 0)
            n++; /* each once, as given */
    }
    return n;
}

static size_t list_threads(struct cli_target *t, const struct cli_options *opt,
                           struct cli_thread *out, size_t max, int *code)
{
    size_t n = 0, left_out = 0;
    char err[256];
    *code = CLI_OK;
    if (opt->python_only) {
        n = python_threads(t, out, max, &left_out);
    } else if (!t->live) {
        if (cli_core_threads(t->core_path, out, max, &n, err, sizeof err) < 0) {
            fprintf(stderr, "jitunwind: %s\n", err);
            *code = CLI_MISMATCH;
        }
    } else if (opt->n_tids) {
        n = wanted_threads(t, opt, out);
    } else if (cli_list_threads(t->pid, out, max, &n, &left_out) < 0) {
        fprintf(stderr, "jitunwind: no process %d\n", t->pid);
        *code = CLI_NO_TARGET;
    }
    if (left_out)
        cli_target_note(t, "%zu threads left out: only the first %zu are shown (--threads "
                           "TID shows any)", left_out, max);
    return n;
}

/* --stats: what the command read, on stderr (stdout stays the stack). */
static void print_stats(struct cli_target *t)
{
    struct jitunwind_py_cache_stats cs = {0};
    jitunwind_pyreader_cache_stats(t->py, &cs); /* zeros with the cache off */
    fprintf(stderr, "reads: %llu\ncache hits: %llu\ncache misses: %llu\n",
            (unsigned long long)t->reads, (unsigned long long)cs.hits,
            (unsigned long long)cs.misses);
}

/* One thread's text is built in memory while the thread is held and
 * written once it is released: a reader that does not keep up (a pager)
 * never keeps a target thread stopped. CLI_OK, or the exit code after a
 * line (the output could not be written: no use reading on). */
static int show_thread(struct cli_target *t, const struct cli_options *opt,
                       struct cli_stack *s, struct cli_thread *th, int held, size_t shown)
{
    char *text = NULL;
    size_t len = 0;
    FILE *buf = open_memstream(&text, &len);
    if (!opt->no_cache) {
        cli_target_forget_reads(t);
        jitunwind_pyreader_cache_next_sample(t->py);
    }
    cli_stack_build(t, th, opt, s);
    if (buf) {
        if (shown == 0) {
            if (opt->json)
                cli_json_begin(buf, t);
            else
                cli_text_header(buf, t);
        }
        if (opt->json)
            cli_json_stack(buf, t, s, opt, shown == 0);
        else
            cli_text_stack(buf, t, s, opt);
        fclose(buf);
    }
    if (held)
        cli_ptrace_release(th);
    if (!buf) {
        fprintf(stderr, "jitunwind: out of memory\n");
        return CLI_NO_TARGET;
    }
    errno = 0;
    fwrite(text, 1, len, stdout);
    free(text);
    return cli_output_check(stdout, "the output");
}

int cli_stack_command(const struct cli_options *opt)
{
    static struct cli_thread threads[CLI_MAX_TIDS];
    struct cli_target t;
    struct cli_stack *s = NULL;
    size_t n, i, shown = 0, stopped = 0;
    int code, partial = 0, refused = 0;
    cli_install_signal_handlers();
    if ((code = cli_target_open(&t, opt, !opt->python_only)) != CLI_OK)
        goto done;
    t.threads_run = t.live && opt->python_only;
    /* Listed once, before any thread is stopped: each held thread then
     * reads only its own states again. */
    cli_list_python_threads(&t);
    if (t.py_list_error[0])
        cli_target_note(&t, "thread states: %s", t.py_list_error);
    n = list_threads(&t, opt, threads, CLI_MAX_TIDS, &code);
    if (code != CLI_OK)
        goto done;
    if (!opt->no_cache && (jitunwind_pyreader_cache_code(t.py, CODE_CACHE_ENTRIES) < 0 ||
                           cli_target_cache_reads(&t) < 0))
        fprintf(stderr, "jitunwind: no memory for the caches; reading without them\n");
    cli_python_thread_names(&t);
    for (i = 0; i < n; i++)
        cli_python_thread_name(&t, &threads[i]);
    if (!(s = cli_stack_new(JITUNWIND_PY_MAX_FRAMES))) {
        fprintf(stderr, "jitunwind: out of memory\n");
        code = CLI_NO_TARGET;
        goto done;
    }
    for (i = 0; i < n && !cli_interrupted; i++) {
        struct cli_thread *th = &threads[i];
        int held = 0;
        if (!cli_tid_wanted(opt, th->tid))
            continue;
        if (t.live && !opt->python_only) {
            int rc = cli_ptrace_stop(th);
            if (rc == -ESRCH || rc == -EINTR)
                continue; /* the thread ended since the listing, or Ctrl-C */
            if (rc == -EPERM && stopped == 0) {
                refused = 1; /* every thread of the process will refuse alike */
                cli_ptrace_refused(t.pid, strerror(EPERM),
                                   "--python reads Python frames without ptrace");
                break;
            }
            held = rc == 0;
            stopped += held;
        }
        if ((code = show_thread(&t, opt, s, th, held, shown)) != CLI_OK)
            goto done;
        shown++;
        partial |= s->partial;
    }
    if (refused) {
        code = CLI_PERMISSION;
        goto done;
    }
    if (shown == 0) {
        fprintf(stderr, "jitunwind: no thread to show%s\n",
                opt->n_tids ? " (none of --threads exists)" : "");
        code = opt->n_tids ? CLI_USAGE : CLI_NO_TARGET;
        goto done;
    }
    code = partial || cli_interrupted ? CLI_PARTIAL : CLI_OK;
    if (cli_interrupted)
        fprintf(stderr, "jitunwind: interrupted; the threads shown were released\n");
    if (opt->json)
        cli_json_end(stdout, &t, code);
    else
        cli_text_footer(stdout, &t);
    if (opt->stats)
        print_stats(&t);
    if (cli_output_check(stdout, "the output") != CLI_OK)
        code = CLI_OUTPUT;
done:
    cli_stack_free(s);
    cli_target_close(&t);
    return code;
}
