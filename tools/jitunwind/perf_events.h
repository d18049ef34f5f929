/* record --perf: perf events on a process's threads (perf_events.c), the
 * memory of one sample's stack copy (perf_stack_memory.c), a sample's
 * mixed stack (perf_sample_unwind.c), and when the Python thread states
 * and a thread's Python frames are read (perf_py_listing.c,
 * perf_py_memo.c). */
#ifndef JITUNWIND_CLI_PERF_EVENTS_H
#define JITUNWIND_CLI_PERF_EVENTS_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "cli.h"
#include "perf_attr.h"

/* The default copy of each sample's user stack, in bytes (--stack-size),
 * and the most the kernel copies (a sample's size is 16 bits). */
#define CLI_PERF_STACK_DEFAULT 16384u
#define CLI_PERF_STACK_MAX 65000u

/* One sample, valid during the callback only (it points into the ring). */
struct cli_perf_sample {
    uint32_t pid, tid;
    uint64_t time;                /* CLOCK_MONOTONIC, in nanoseconds */
    struct jitunwind_regs regs;   /* valid 0 when the kernel had no user registers */
    struct jitunwind_dwarf_regs all; /* them and the others a call preserves */
    const unsigned char *stack;   /* the copy of [regs.sp, regs.sp + stack_len) */
    size_t stack_len;
};

struct cli_perf_counts {
    uint64_t samples;      /* read from the rings */
    uint64_t lost;         /* PERF_RECORD_LOST: the kernel found the ring full */
    uint64_t throttled;    /* PERF_RECORD_THROTTLE: the kernel lowered the rate */
    uint64_t malformed;    /* a sample not laid out as asked */
    uint64_t mmaps;        /* MMAP2 records of the process */
    uint64_t modules_added;/* of them, file mappings added to the module set */
    uint64_t threads_seen; /* threads an event was opened on */
};

/* A --perf target's listing of Python thread states (cli_list_python_threads),
 * kept across ring readings (`pass`: one per reading) and read again only
 * when a sample may need it (perf_py_listing.c). */
/* The Python frames last read for a thread in one reading of the rings
 * (perf_py_memo.c), for its next samples in it: they stay in the stack
 * they were read into, as long as nothing was read into it since. */
struct cli_py_memo_marks {
    int32_t line;
    uint32_t flags;
};
struct cli_py_memo {
    int valid, tid;
    uint64_t pass;                 /* the reading they were read in */
    const struct cli_stack *stack; /* read into stack->py ... */
    uint64_t fills;                /* ... at its reading number `fills` */
    struct cli_py_read pyread;
    struct cli_py_memo_marks *marks; /* each frame's line and flags as read (of cap) */
    size_t cap;
    uint64_t reused;               /* samples given them without a reading */
};
struct cli_py_listing {
    int done;          /* listed at least once */
    double at;         /* when last listed, CLOCK_MONOTONIC seconds */
    uint64_t pass;     /* the reading it was last listed in */
    uint64_t listings; /* how many times it was listed */
    struct cli_py_memo memo; /* the target's py_memo once its samples are read */
};

struct cli_perf;
struct cli_exec_history;
typedef void (*cli_perf_sample_fn)(void *arg, const struct cli_perf_sample *s);

/* The events of every thread of `pid` at `hz` (the kernel's frequency
 * mode: it adjusts the period to reach it), each sample copying
 * `stack_size` bytes of stack. NULL with one line in `err` when refused
 * (the reason names kernel.perf_event_paranoid and the capabilities). */
struct cli_perf *cli_perf_open(int pid, int arch, double hz, unsigned stack_size, char *err,
                               size_t err_len);
/* --all: what the events of every process say besides samples. */
struct cli_perf_hooks {
    /* An executable file mapped by process `pid` (an MMAP2 record). */
    void (*mapping)(void *arg, int pid, const char *path, uint64_t start, uint64_t end,
                    uint64_t offset);
    /* Process `pid` ended or called execve: what is known of it is stale. */
    void (*ended)(void *arg, int pid);
    /* Said from every ring before any sample of the same reading (a
     * process's records may sit in another CPU's ring than its samples),
     * each with its time (CLOCK_MONOTONIC seconds): an executable file
     * mapping, a new process (fork, `ppid` its parent), an execve, the
     * process's end. */
    void (*early_mapping)(void *arg, int pid, const char *path, uint64_t start, uint64_t end,
                          uint64_t offset, double at);
    void (*forked)(void *arg, int pid, int ppid, double at);
    void (*exec)(void *arg, int pid, const char *comm, double at);
    void (*exited)(void *arg, int pid, double at);
};
/* One event per CPU sampling every process (pid -1), as cli_perf_open
 * otherwise; the refusal names kernel.perf_event_paranoid 0, which such
 * events need without CAP_PERFMON. */
struct cli_perf *cli_perf_open_all(int arch, double hz, unsigned stack_size,
                                   const struct cli_perf_hooks *hooks, void *hooks_arg,
                                   char *err, size_t err_len);
void cli_perf_close(struct cli_perf *p); /* NULL ok */
/* Open events on the threads started since, drop those gone (call after a
 * reading): 0, -ESRCH when the process is gone, or -errno with `err` set. */
int cli_perf_sync_threads(struct cli_perf *p, char *err, size_t err_len);
/* Whether a ring holds a record not read yet (no system call). */
int cli_perf_pending(const struct cli_perf *p);
/* Wait until an event wakes the reader or `timeout_ms` passed (poll). */
int cli_perf_wait(struct cli_perf *p, int timeout_ms);
/* Every record waiting in the rings: samples to `fn` (may be NULL), the
 * file mappings of MMAP2 records into `mods` (may be NULL). */
void cli_perf_read(struct cli_perf *p, cli_perf_sample_fn fn, void *arg, jitunwind_modules *mods);
const struct cli_perf_counts *cli_perf_counts(const struct cli_perf *p);
/* The one-line reason perf events were refused with errno `err`. */
void cli_perf_refusal(int err, char *buf, size_t len);

/* --- vdso_module.c --- */
/* The vDSO at [start, end) of the target as a module (its image copied to
 * a private file, whose path goes into `path`; the caller unlinks it when
 * done): 0, or -1 (path ""). */
int cli_vdso_module(struct cli_target *t, uint64_t start, uint64_t end, char *path, size_t len);

/* --- perf_stack_memory.c --- */
/* Target memory for unwinding a sample: a read inside the stack copy is
 * served from it; a read wholly inside a module or a registered range
 * (code, which the unwinder reads to recognise calls and trampoline
 * states) goes to `code`; any other read fails with JITUNWIND_EREAD (the
 * walk then stops as UNREADABLE), never reading the live stack, which
 * has moved on since the sample. `copy` must outlive the memory's use. */
struct cli_stack_copy {
    uint64_t start;
    const unsigned char *bytes;
    size_t len;
    const struct jitunwind_memory *code; /* or NULL: reads outside the copy fail */
    const jitunwind_registry *reg;
    const jitunwind_modules *mods;
    uint64_t misses;     /* reads that failed */
};
struct jitunwind_memory cli_stack_copy_memory(struct cli_stack_copy *copy);

/* --- perf_sample_unwind.c --- */
/* Whether a sample's Python frames were merged into its native stack. */
enum cli_perf_merge {
    CLI_PERF_NATIVE_ONLY = 0,  /* no Python frames on the thread */
    CLI_PERF_MERGED = 1,       /* read after the sample and consistent with it */
    CLI_PERF_INCONSISTENT = 2, /* read, but not matching the sampled eval loops: left out */
    CLI_PERF_REPLACED = 3      /* in JIT code not known to exist at the sample: native-only */
};
/* The name of such a frame (the executor there now may be another's). */
#define CLI_PERF_REPLACED_JIT "[JIT code replaced since the sample]"
/* The mixed stack of sample `ps` into `s`: its native frames unwound by the
 * library from the sampled registers over the stack copy, its thread's
 * Python frames read now (the target runs on) and merged only when they
 * match the eval-loop frames the sample holds, and its JIT frames checked
 * against `h` (NULL: not checked). Returns enum cli_perf_merge. */
int cli_perf_stack(struct cli_target *t, const struct cli_perf_sample *ps,
                   const struct cli_options *opt, const struct cli_exec_history *h,
                   struct cli_stack *s);

/* --- perf_executors.c --- */
/* The JIT executors listed at the range watch's polls, each with the time
 * it was first listed (at most CLI_EXEC_SEEN, the newest). */
#define CLI_EXEC_SEEN 4096u
struct cli_exec_seen {
    uint64_t jit_code, jit_size, code;
    double first_seen; /* CLOCK_MONOTONIC seconds */
};
struct cli_exec_history *cli_exec_history_new(void);
void cli_exec_history_free(struct cli_exec_history *h); /* NULL ok */
/* After cli_range_watch_check: list the executors again if the watch has
 * polled them since the last update. */
void cli_exec_history_update(struct cli_exec_history *h, struct cli_target *t,
                             const struct cli_range_watch *w);
/* Whether an executor was ever listed (the process runs a JIT). */
int cli_exec_history_jit(const struct cli_exec_history *h);
/* Whether the last listing is older than a sample taken at `sampled`: the
 * caller then lists again (through the range watch) before unwinding it. */
int cli_exec_history_stale(const struct cli_exec_history *h, double sampled);
/* Whether pc's executor was listed before `sampled`: 1 (its code object
 * into *code), 0 (no such executor, or only listed since: the sample's
 * JIT frame may be another's), -1 (no history: nothing to check). */
int cli_exec_history_trusted(const struct cli_exec_history *h, uint64_t pc, double sampled,
                             uint64_t *code);

/* --- perf_procs.c --- */
/* record --perf --all: the processes samples came from, each opened at its
 * third sample (perf_procs.c says why). */
enum { CLI_PERF_PROC_FREE = 0, CLI_PERF_PROC_OPEN = 1, CLI_PERF_PROC_UNREADABLE = 2,
       CLI_PERF_PROC_PENDING = 3, /* seen, not opened yet */
       CLI_PERF_PROC_RECORDS = 4  /* not opened: its modules from its records (native only) */ };
struct cli_perf_proc {
    int pid;
    int state;
    int stale;             /* ended or ran another program: opened again at its next use */
    double started;        /* its start, CLOCK_MONOTONIC seconds */
    double used, tried;    /* when last sampled, when last opened */
    uint64_t pass;         /* the ring reading it was last checked in */
    unsigned pending;      /* samples seen before it was opened */
    char comm[16];         /* its name then (raw) */
    struct cli_target t;   /* t.py NULL: not a Python process */
    struct cli_range_watch watch;
    struct cli_exec_history *execs; /* its JIT executors' history, or NULL */
    char vdso_path[64];    /* its vDSO's image as a module, or "" */
    struct cli_py_listing py_listing; /* t's Python thread states */
};
struct cli_perf_procs_counts {
    uint64_t opened, python, closed, evicted, unreadable, uncached;
    double open_seconds;      /* spent opening processes */
    double open_cpu_seconds;  /* of them, on the reader's CPU time */
    uint64_t unread_samples;  /* of processes that could not be opened (gone already) */
    uint64_t pending_samples; /* of processes before they were opened */
    uint64_t record_samples;  /* of those two kinds, unwound from the process's records */
    uint64_t running;         /* processes running at the start, read from /proc */
    uint64_t earlier_samples; /* taken before the process holding the PID now started */
};
struct cli_perf_procs;
struct cli_perf_procs *cli_perf_procs_new(const struct cli_options *opt);
void cli_perf_procs_free(struct cli_perf_procs *ps); /* NULL ok */
/* The process that took a sample at `sampled` (seconds), its ranges read
 * again at its first sample of ring reading `pass` (its Python threads
 * when a sample needs them: p->py_listing);
 * NULL when it cannot be read (counted). */
struct cli_perf_proc *cli_perf_procs_get(struct cli_perf_procs *ps, int pid, double sampled,
                                         uint64_t pass, double now);
/* struct cli_perf_hooks's, `arg` being the cli_perf_procs. */
void cli_perf_procs_ended(void *arg, int pid);
void cli_perf_procs_mapping(void *arg, int pid, const char *path, uint64_t start,
                            uint64_t end, uint64_t offset);
const struct cli_perf_procs_counts *cli_perf_procs_counts(const struct cli_perf_procs *ps);
/* The counts of the module files its processes share; with each file
 * shared by several module sets now (--stats). */
void cli_perf_procs_files(const struct cli_perf_procs *ps, struct jitunwind_module_files_stats *out);
void cli_perf_procs_print_files(const struct cli_perf_procs *ps, FILE *f);
/* Every open Python process's thread names, read now (for a profile's
 * names at its end); then cli_perf_procs_python_thread_name gives TH's
 * Python name where one of them holds a thread state of TH->tid, and
 * leaves TH->name alone otherwise. */
void cli_perf_procs_read_thread_names(struct cli_perf_procs *ps);
void cli_perf_procs_python_thread_name(const struct cli_perf_procs *ps, struct cli_thread *th);
/* struct cli_perf_hooks's early ones, `arg` being the cli_perf_procs:
 * into its records (perf_records.c). */
void cli_perf_procs_early_mapping(void *arg, int pid, const char *path, uint64_t start,
                                  uint64_t end, uint64_t offset, double at);
void cli_perf_procs_forked(void *arg, int pid, int ppid, double at);
void cli_perf_procs_exec(void *arg, int pid, const char *comm, double at);
void cli_perf_procs_exited(void *arg, int pid, double at);
/* Once the events are open: the processes running already, into its
 * records (perf_running.c). */
void cli_perf_procs_read_running(struct cli_perf_procs *ps);

/* --- perf_py_listing.c: struct cli_py_listing, above --- */
/* Before a sample of `tid` is read: lists the states again when the listing
 * is missing, old, failed, or lacks `tid` (once a reading). */
void cli_py_listing_before(struct cli_target *t, struct cli_py_listing *l, uint64_t pass,
                           int tid, double now);
/* After: a sample that read no Python thread (`python_thread` 0) while
 * `tid` had a listed state, or whose Python frames did not fit its native
 * ones (`misfit`), lists them again, once a reading; 1 when `tid` has a
 * listed state after that listing (the sample is worth reading again). */
int cli_py_listing_after(struct cli_target *t, struct cli_py_listing *l, uint64_t pass,
                         int tid, int python_thread, int misfit, double now);

/* --- perf_py_memo.c (and cli.h) --- */
/* A new reading of the rings: what was kept for the last one is dropped. */
void cli_py_memo_reading(struct cli_py_memo *m, uint64_t pass);
void cli_py_memo_free(struct cli_py_memo *m); /* what it kept; it may be used again */

/* --- perf_records.c --- */
/* record --perf --all: each process's executable file mappings and name as
 * the rings said them since its start (fork or execve) was seen, so that
 * the samples of a process that could not be opened are unwound natively
 * from the files it mapped. */
struct cli_perf_records;
/* Processes remembered at once (the least recently touched forgotten for a
 * new one). */
#define CLI_PERF_RECS_MAX 512u
/* Its module sets share `files` (the run's, outliving it). */
struct cli_perf_records *cli_perf_records_new(jitunwind_module_files *files);
void cli_perf_records_free(struct cli_perf_records *rs); /* NULL ok */
void cli_perf_records_mapping(struct cli_perf_records *rs, int pid, const char *path,
                              uint64_t start, uint64_t end, uint64_t offset, double at);
void cli_perf_records_forked(struct cli_perf_records *rs, int pid, int ppid, double at);
void cli_perf_records_exec(struct cli_perf_records *rs, int pid, const char *comm, double at);
void cli_perf_records_exited(struct cli_perf_records *rs, int pid, double at);
/* A process running when recording started, `since` its start (/proc's),
 * known from then on as one whose start was seen; its mappings follow
 * (cli_perf_records_mapping, at the time its maps were read). */
void cli_perf_records_running(struct cli_perf_records *rs, int pid, const char *comm,
                              double since);
void cli_perf_records_forget(struct cli_perf_records *rs, int pid);
/* Whether `pid` is the process read from /proc at the start (no start of
 * another on its PID in the rings since). */
int cli_perf_records_read_at_start(struct cli_perf_records *rs, int pid);

/* --- perf_running.c --- */
/* Every process running now (but `self`), at most half of
 * CLI_PERF_RECS_MAX with a file mapped, into `rs` from its /proc files:
 * how many. Called once the events are open, so that what changes after
 * is in the rings. */
size_t cli_perf_records_read_running(struct cli_perf_records *rs, int self);
/* Process `pid`'s name (raw: escaped where printed) and start time in
 * seconds of CLOCK_MONOTONIC (the kernel gives it in clock ticks of
 * CLOCK_BOOTTIME, which runs ahead by the time the machine was
 * suspended): 0, or -1 when it is gone or a zombie. */
int cli_proc_stat(int pid, char *comm, size_t len, double *start);
/* Process `pid` as its records say it at `sampled` (state
 * CLI_PERF_PROC_RECORDS: modules only, no memory but a sample's copy), or
 * NULL when its start was not seen, it mapped nothing, the sample is
 * older than its start or newer than its end (the PID another's whose
 * start a lost record hid). Valid until the next call into `rs`. */
struct cli_perf_proc *cli_perf_records_proc(struct cli_perf_records *rs, int pid,
                                            double sampled, double now);

#endif
