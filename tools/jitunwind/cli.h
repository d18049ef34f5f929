/* The jitunwind command: what its files share. Every file holds one
 * concern (main.c: arguments and dispatch; target.c: opening a process or
 * a core; threads.c: /proc listing; ptrace_regs.c / core_regs.c: registers;
 * build_ids.c: --exe against a core; stack.c: one thread's mixed stack;
 * stack_command.c: `stack`; signals.c: signals; range_watch.c: reading the
 * ranges again; labels.c, output_text.c,
 * output_json.c: printing; output_check.c: write errors; files.c: opening
 * files to read; record_command.c: `record` and `top`; profile.c and
 * output_{collapsed,speedscope,pprof}.c: the recorded profile).
 * Unwinding and decoding are the library's. */
#ifndef JITUNWIND_CLI_H
#define JITUNWIND_CLI_H

#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "jitunwind/jitunwind.h"

/* Exit codes (docs/cli.md, the man page). */
enum cli_exit {
    CLI_OK = 0,
    CLI_USAGE = 1,        /* bad arguments */
    CLI_NO_TARGET = 2,    /* no such process or core file */
    CLI_PERMISSION = 3,   /* memory or ptrace access refused */
    CLI_NOT_PYTHON = 4,   /* no CPython runtime in the target */
    CLI_VERSION = 5,      /* a CPython version the library has no layout for */
    CLI_PARTIAL = 6,      /* a result was printed, but some of it is missing */
    CLI_MISMATCH = 7,     /* the core is not the --exe's, or is not a usable core */
    CLI_OUTPUT = 8        /* the output could not be written */
};

#define CLI_MAX_TIDS 4096u
#define CLI_MAX_NATIVE 4096u  /* native frames per thread */
#define CLI_MAX_PY 2048u      /* Python frames a stack has room for at first; it
                               * grows to JITUNWIND_PY_MAX_FRAMES */
#define CLI_MAX_NOTES 8
#define CLI_NOTE_MAX 320
#define CLI_SYMBOL_MAX 256

struct cli_options {
    const char *command; /* "stack", "record", "top" */
    int pid;
    const char *core;
    const char *exe;
    int python_only;  /* --python: no ptrace, Python frames only */
    int native_all;   /* --native-all */
    int json;
    int locals;
    size_t max_frames; /* --max-frames: frames shown per thread; 0: all */
    int tids[64];     /* --threads */
    size_t n_tids;
    /* record / top */
    double hz;
    double duration;  /* seconds; 0: until interrupted */
    const char *output; /* NULL or "-": standard output */
    int idle;         /* --idle: keep the samples of idle threads (docs/cli.md) */
    int thread_roots; /* record --threads: a root frame per thread (collapsed, flamegraph) */
    const char *format; /* collapsed, speedscope, pprof */
    int nonblocking;
    int perf;         /* --perf: perf events, the process never stopped (perf_events.h) */
    int all;          /* --all (with --perf): every process of the machine (perf_procs.c) */
    unsigned stack_size; /* --stack-size: bytes of stack each perf sample copies */
    int no_cache;
    int no_chain_cache;
    int mark_frames;  /* --mark-frames: write CPython 3.15's frame marker */
    int stats;
    int quiet_starting; /* a live process still starting fails to open without a line
                         * (cli_target's `starting`): the caller opens it again */
    const char *debug_dirs; /* --debug-file-directory, else the environment's, or NULL */
};

/* --- signals.c --- */
/* Set by SIGINT/SIGTERM/SIGHUP: finish what is under way (detach), then stop. */
extern volatile sig_atomic_t cli_interrupted;
void cli_install_signal_handlers(void);
/* While a thread is held (from before its seize to its release), a stop
 * signal (SIGTSTP, SIGTTIN, SIGTTOU) waits: cli_hold_end stops the command
 * then, the thread released. */
void cli_hold_begin(void);
void cli_hold_end(void);
/* Interrupt a blocking call once after `usec` (SIGALRM, not restarted);
 * 0 disarms. */
void cli_tick(long usec);
/* A system call the kernel restarts after a handler (PTRACE_SEIZE) is left
 * by a signal through this jump, when cli_escape_armed. */
extern sigjmp_buf cli_escape;
extern volatile sig_atomic_t cli_escape_armed;

/* --- target.c --- */
struct cli_target {
    int live;
    int starting;          /* live: open failed as the process was starting (its
                            * interpreter not relocated or not initialised yet) */
    int pid;               /* live: the process; core: the one it was dumped from, or 0 */
    int pidfd;             /* live: the process itself, whatever takes its PID later; or -1 */
    int memfd;             /* live: /proc/PID/mem, which an execve leaves unreadable; or -1 */
    const char *core_path;
    int arch;
    jitunwind_process_reader *proc;
    jitunwind_core_reader *core;
    struct jitunwind_memory mem;   /* counts its reads into `reads`, then `raw` */
    struct jitunwind_memory raw;
    uint64_t reads;                /* reads of the target (block fills included) */
    uint64_t read_calls;           /* the system calls they took (a batch of blocks: one) */
    uint64_t read_bytes;           /* the bytes those calls copied */
    uint64_t writes;               /* writes into it (--mark-frames only) */
    struct cli_blocks *blocks;     /* record's per-sample read cache, or NULL */
    int fresh_reads;               /* set: reads bypass `blocks` (a check wants the bytes of now) */
    struct cli_check_reads *check_reads; /* those reads, in one call: check_reads.c */
    int carry_check;               /* set: the next check's call carries the next sample's
                                    * blocks (cli_target_read_carrying); the check clears it */
    int spans_in_blocks;           /* set: a read across blocks goes through them (record
                                    * --nonblocking, where calls cost most: target.c) */
    struct cli_read_log *read_log; /* without blocks: a running chain's pages (read_log.c) */
    jitunwind_modules *mods;
    jitunwind_registry *reg;
    jitunwind_pyreader *py;
    jitunwind_py_chains *chains;   /* record's per-thread frame chains, or NULL */
    /* The interpreter's thread states, listed once per command or sample
     * (cli_list_python_threads), and their positions by OS thread id. */
    struct jitunwind_py_thread *py_threads;
    size_t *py_order;
    size_t n_py_threads;
    /* Their Python names, JITUNWIND_PY_THREAD_NAME_MAX bytes each, read in
     * one pass (cli_python_thread_names); n_py_names is 0 until then. */
    char *py_names;
    size_t n_py_names;
    char py_list_error[JITUNWIND_ERROR_MESSAGE_MAX]; /* why the listing is short, or "" */
    struct jitunwind_py_location loc;
    uint64_t jit_descriptor;       /* jitunwind_jit_descriptor in the target, or 0 */
    uint64_t pc_outside;           /* a frame's pc outside every range and module, or 0
                                    * (stack.c sets it; range_watch.c reads it) */
    int threads_run;               /* Python frames are read while their threads run
                                    * (stack --python): running_chain.c */
    unsigned modules_epoch;        /* changes when modules are added (a dlopen seen):
                                    * what was looked up in them is looked up again */
    struct cli_py_memo *py_memo;   /* record --perf: Python frames kept for a thread's
                                    * next sample of the same reading (perf_py_memo.c),
                                    * or NULL */
    char notes[CLI_MAX_NOTES][CLI_NOTE_MAX];
    int n_notes;
};

/* Open the target of `opt` (a PID or a core): memory, modules, ranges and
 * the Python reader. Returns CLI_OK or an exit code after printing one
 * line on stderr. `need_native`: modules and ranges are loaded. */
int cli_target_open(struct cli_target *t, const struct cli_options *opt, int need_native);
/* record --perf --all: live process `pid` (opt gives the rest) whatever
 * it runs: memory, modules (their files taken from and kept in `files`,
 * shared by the processes of the run) and ranges, and the Python reader
 * when it is a CPython process of a supported version (t->py NULL
 * otherwise). CLI_OK or an exit code, mostly silent: a process of the
 * machine may end at any time. */
int cli_target_open_any(struct cli_target *t, const struct cli_options *opt, int pid,
                        jitunwind_module_files *files);
/* A target of process `pid` without its memory or /proc (a process gone,
 * known from its perf records): empty modules (sharing `files`) and
 * ranges the caller fills, no Python reader. 0, or -1 (out of memory);
 * cli_target_close frees it. */
int cli_target_open_files(struct cli_target *t, int pid, jitunwind_module_files *files);
/* types_kept.c: the DWARF types of interpreter file `module`, opened once
 * and kept until cli_types_kept_free (--all): 0 (kept), 1 (opened but not
 * kept: the caller frees it), or < 0 with *out NULL. */
int cli_types_kept(const char *module, const char *cache_dir, jitunwind_dwarf_types **out);
void cli_types_kept_free(void);
/* proc_access.c: why a live process cannot be read. The reason the kernel
 * refused with `err` (uid, CAP_SYS_PTRACE, ptrace_scope, dumpable) into buf. */
void cli_access_reason(int pid, int err, char *buf, size_t len);
/* Says (on stderr) and returns the exit code when process `pid` is a zombie,
 * has lost its main thread or its memory map is refused; CLI_OK otherwise. */
int cli_process_unreadable(int pid);
void cli_target_close(struct cli_target *t);
/* Whether the live process has ended: 0 no, CLI_GONE_EXITED (a zombie,
 * reaped, or its PID taken by another process), CLI_GONE_EXECED (it runs
 * another program). */
enum { CLI_GONE_EXITED = 1, CLI_GONE_EXECED = 2 };
int cli_target_gone(const struct cli_target *t);
void cli_target_note(struct cli_target *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* record and stack: serve reads from 4 KiB blocks read once each until
 * cli_target_forget_reads (a sample of a running target, or one stopped
 * thread): a thread's frames and stack words lie together, so a sample
 * makes a few large reads instead of many small ones. */
int cli_target_cache_reads(struct cli_target *t);
void cli_target_forget_reads(struct cli_target *t);
/* The same within one sample: every block held (those read from, and those
 * read ahead for this sample) is read afresh in one call at the next read,
 * and the blocks read from stay the sample's. Without blocks: the pages
 * of the read log, if one is on (read_log.c). */
void cli_target_reread(struct cli_target *t);
/* record --nonblocking, where calls cost most: the pages of the last
 * check of a sample that the next one follows at once (no sleep between)
 * are read in the same call as the parts of the blocks the sample read
 * from, which are then the next sample's blocks, read already. Bytes
 * [lo[i], hi[i]) of each of the n pages are read twice over, one copy
 * after the other: into first[i] (that part's start), then into blocks
 * (with the part of the block this sample read), second[i] where page
 * i's second copy starts (the page's start, only that part held); a page
 * whose block finds no free slot (a crowded cache) has its second copy
 * read into first[n + i] instead, second[i] left as given.
 * Returns how many of the 2n copies were read, in that order, or -1
 * (nothing read: the caller reads them itself). A check that fails drops
 * what was carried (cli_target_reread). */
long cli_target_read_carrying(struct cli_target *t, const uint64_t *pages, const uint16_t *lo,
                              const uint16_t *hi, size_t n, void *const *first,
                              const uint8_t **second);
/* At each record --nonblocking sample, instead of cli_target_forget_reads:
 * blocks carried from the last check are this sample's, unless the loop
 * slept since (`slept`), when their parts are read again at the first read. */
void cli_target_next_sample(struct cli_target *t, int slept);
/* Re-read the ranges (a live target's JIT keeps registering). */
void cli_target_load_ranges(struct cli_target *t);

/* --- range_watch.c --- */
/* record and top read the ranges again when their sources change (see
 * range_watch.c); what the watch saw at the last reading. */
struct cli_range_watch {
    uint64_t generation;          /* the jitunwind descriptor's */
    long long map_size, map_mtime_ns; /* /tmp/perf-PID.map's; -1: none */
    uint64_t executors;           /* a fingerprint of the interpreter's executors */
    int executors_unsupported;    /* this version keeps none: not polled */
    double executors_at, outside_at; /* when last polled / reloaded for a pc outside */
    double outside_gap;           /* the wait before reading again for a pc outside */
    int outside_reread;           /* the last reading was for a pc outside */
    uint64_t vdso_start, vdso_end; /* the kernel's vDSO: no module, yet no JIT code */
    uint64_t reloads;
    struct jitunwind_py_executor *scratch;
};
void cli_range_watch_init(struct cli_target *t, struct cli_range_watch *w, double now);
/* Before a sample: read the ranges again if a source changed; 1 if read. */
int cli_range_watch_check(struct cli_target *t, struct cli_range_watch *w, double now);
void cli_range_watch_free(struct cli_range_watch *w);

/* --- files.c --- */
/* Open a file to read without blocking, a regular file only: the
 * descriptor, or -1 with the reason in `why`. */
int cli_open_regular(const char *path, char *why, size_t len);

/* --- cache_dir.c --- */
/* The layout cache's directory into buf, or NULL when caching is off. */
const char *cli_cache_dir(const struct cli_options *opt, char *buf, size_t size);

/* --- threads.c --- */
struct cli_thread {
    int tid;
    char name[32];
    struct jitunwind_regs regs;
    int have_regs;
    /* The other registers a call preserves, for CFI steps that need them
     * (jitunwind_cursor_set_registers); all.valid 0 when not read. */
    struct jitunwind_dwarf_regs all;
    char error[160];  /* why there are no registers */
};
/* Register `regno` (its DWARF number) of t is `value`. */
static inline void cli_thread_dwarf_reg(struct cli_thread *t, unsigned regno, uint64_t value)
{
    t->all.value[regno] = value;
    t->all.valid |= 1ull << regno;
}
/* The threads of live process `pid` (/proc/PID/task), at most `max`;
 * *left_out counts the others. */
int cli_list_threads(int pid, struct cli_thread *out, size_t max, size_t *count,
                     size_t *left_out);
/* Thread `tid` of process `pid`, looked up by its id: 0, or -1 when the
 * process has no such thread. */
int cli_find_thread(int pid, int tid, struct cli_thread *out);
/* t->name from /proc/PID/task/TID/comm ("" when gone). */
void cli_thread_name(int pid, struct cli_thread *t);
/* python_thread_names.c: the Python names (the threading module's) of the
 * thread states cli_list_python_threads listed, read in one pass; then
 * cli_python_thread_name makes t->name the thread's Python name where it
 * has one (1), else leaves it (0). */
void cli_python_thread_names(struct cli_target *target);
int cli_python_thread_name(const struct cli_target *target, struct cli_thread *t);
int cli_tid_wanted(const struct cli_options *opt, int tid);

/* --- ptrace_regs.c --- */
/* Stop thread `tid` (PTRACE_SEIZE + PTRACE_INTERRUPT), read its registers
 * into t->regs. 0, or -errno with t->error set (-ESRCH: the thread is gone;
 * -EAGAIN: it did not stop, or the seize did not return, in time; -EINTR:
 * Ctrl-C). On success the thread stays stopped until cli_ptrace_release. */
int cli_ptrace_stop(struct cli_thread *t);
/* Detach (re-injecting a signal that arrived meanwhile), or reap the thread
 * when it was killed meanwhile: always call after a successful stop. */
void cli_ptrace_release(struct cli_thread *t);
/* Detach the threads given up on (not stopped in time) that stopped since. */
void cli_ptrace_settle(void);

/* --- core_regs.c --- */
/* The threads of a core (NT_PRSTATUS notes), with their registers. */
int cli_core_threads(const char *core_path, struct cli_thread *out, size_t max, size_t *count,
                     char *err, size_t err_len);
/* The process id a core was dumped from (NT_PRPSINFO), or 0. */
int cli_core_pid(const char *core_path);
/* Whether a core's notes (threads, registers, mapped files) lie past its
 * end: a core cut short, or not a whole core. */
int cli_core_notes_cut(const char *core_path);

/* --- build_ids.c --- */
/* The GNU build id of the executable a core was dumped from (its first
 * page as the core or the mapped file holds it) and of a file: 0 with
 * hex in `out`, or -1 when unknown. */
int cli_core_exe_build_id(const struct cli_target *t, const char *exe_name, char *out,
                          size_t len);
int cli_file_build_id(const char *path, char *out, size_t len);
/* The same of the ELF image a core holds at [start, end). */
int cli_core_image_build_id(const struct cli_target *t, uint64_t start, uint64_t end,
                            char *out, size_t len);

/* --- core_files.c --- */
/* The files a core maps whose copy on disk is another build than the one
 * dumped (GNU build ids of the image in the core and of the file differ):
 * how many, at most CLI_CORE_FILES_CHECKED files looked at; `first` gets
 * "PATH is build X in the core, Y on disk" for `path` when it is one of
 * them (NULL: for the first found), else "". */
#define CLI_CORE_FILES_CHECKED 256
size_t cli_core_replaced_files(const struct cli_target *t, const char *path, char *first,
                               size_t size);

/* --- stack.c --- */
struct cli_native {
    struct jitunwind_frame f;
    uint32_t role;
    int hidden;                /* interpreter-internal, not shown without --native-all */
    struct jitunwind_range range; /* valid when has_range; name points into range_name */
    int has_range;
    char range_name[JITUNWIND_NAME_MAX];
    char symbol[CLI_SYMBOL_MAX];
    uint64_t offset;           /* from the symbol */
    const char *module;        /* valid while the target lives */
    char jit_label[CLI_SYMBOL_MAX]; /* a CPython executor's uop label, or "" */
    char jit_name[JITUNWIND_NAME_MAX]; /* its frame name (jitunwind_py_jit_frame_name), or "" */
};

/* What reading a thread's Python frames into a stack gave besides the
 * frames themselves (one struct: record --perf keeps it whole for the
 * thread's next samples, perf_py_memo.c). */
struct cli_py_read {
    size_t n_py;               /* the frames read */
    int py_status;             /* of the frame chain (0, or ELOOP/ELIMIT/EREAD/...) */
    char py_error[JITUNWIND_ERROR_MESSAGE_MAX + 32];
    int python_thread;         /* a Python thread state runs on it */
    int holds_gil;
};

struct cli_stack {
    struct cli_thread thread;
    struct cli_native native[CLI_MAX_NATIVE];
    size_t n_native;
    int stop_reason;
    struct jitunwind_py_frame *py; /* py_cap entries (pyread.n_py used), grown up to py_limit */
    size_t py_cap, py_limit;
    struct cli_py_read pyread;
    uint64_t py_fills;         /* cli_python_frames' readings into py: record --perf takes
                                * py again for a later sample while this is unchanged */
    struct jitunwind_mixed_item *items; /* CLI_MAX_NATIVE + py_cap entries */
    size_t n_items;
    /* --max-frames: items [cut_from, cut_to) are not shown; left_out
     * counts the frames among them that would have been. */
    size_t cut_from, cut_to, left_out;
    size_t hidden;
    int partial;               /* something is missing: regs, chain, anchors */
};

/* A stack whose Python frames may grow to `py_limit` (at most
 * JITUNWIND_PY_MAX_FRAMES), or NULL when out of memory. */
struct cli_stack *cli_stack_new(size_t py_limit);
void cli_stack_free(struct cli_stack *s);
/* Twice the room for Python frames (at most py_limit): 0, or -1 when at
 * the limit or out of memory (the arrays are left as they were). */
int cli_stack_grow_py(struct cli_stack *s);
/* List the thread states (before the threads are stopped one by one). */
void cli_list_python_threads(struct cli_target *t);
/* The first position in t->py_order of OS thread `tid`'s states
 * (t->n_py_threads when it has none). */
size_t cli_first_python_state(const struct cli_target *t, int tid);
/* Fill s->py with the Python frames of OS thread `tid` (all its thread
 * states of the last listing, each read again, joined); a chain longer
 * than s->py_cap is read again into a larger array, up to s->py_limit. */
void cli_python_frames(struct cli_target *t, int tid, struct cli_stack *s);
/* perf_py_memo.c: cli_python_frames through t->py_memo. take: 1 when s
 * holds the Python frames (and their status) as last read for `tid`, s->py
 * untouched since; keep: what was read for `tid` into s is kept. */
struct cli_py_memo;
int cli_py_memo_take(struct cli_py_memo *m, int tid, struct cli_stack *s);
void cli_py_memo_keep(struct cli_py_memo *m, int tid, const struct cli_stack *s);
/* The whole stack of `th` (its registers set, or not: then Python frames
 * only). */
void cli_stack_build(struct cli_target *t, const struct cli_thread *th,
                     const struct cli_options *opt, struct cli_stack *s);

/* --- read_log.c --- */
/* Without the block cache (--no-cache), from _begin to _end (a running
 * chain being read): the pages read are logged, cli_target_reread reads
 * them again in one call (cli_read_log_reread), and reads within them are
 * served from that copy (cli_read_log_serve: 1 if served) until _end.
 * _begin: 1 if the log is on (no block cache, a live process). */
int cli_read_log_begin(struct cli_target *t);
void cli_read_log_end(struct cli_target *t);
void cli_read_log_free(struct cli_target *t);
int cli_read_log_serve(struct cli_target *t, uint64_t addr, void *dst, size_t len);
void cli_read_log_note(struct cli_target *t, uint64_t addr, size_t len);
void cli_read_log_reread(struct cli_target *t);

/* --- check_reads.c: the running-chain check's reads in one call --- */
/* Before the check of `tstate`'s walked frames: read afresh, in one call,
 * each frame's page and the pages its last check read besides, twice over.
 * `reading` 0 reads them and serves the first copy; 1 (the check's second
 * reading, right after) serves the second copy, or reads afresh when it
 * was not read whole. */
void cli_check_reads_begin(struct cli_target *t, uint64_t tstate,
                           const struct jitunwind_py_frame *frames, size_t n, int reading);
void cli_check_reads_end(struct cli_target *t);
/* Several thread states' checks in one call: plan, then after each
 * thread's walk add its check's pages (cli_check_reads_add: 0, or -1 when
 * they do not fit beside the pages already added, nothing added then:
 * fetch, plan again and add it to the next call; the first added is
 * always taken, its pages past a full list read alone), then fetch, after
 * the last of those walks. Each added thread state's next check (both
 * readings) is then served from that call; a check begun otherwise (a
 * thread's chain read again) makes its own call, and the threads not yet
 * served then make theirs. */
void cli_check_reads_plan(struct cli_target *t);
int cli_check_reads_add(struct cli_target *t, uint64_t tstate,
                        const struct jitunwind_py_frame *frames, size_t n);
void cli_check_reads_fetch(struct cli_target *t);
/* A read of the check from those pages: 0, or -1 (not all held: read it
 * from the target, then report it through cli_check_reads_missed). */
int cli_check_reads_serve(struct cli_target *t, uint64_t addr, void *dst, size_t len);
void cli_check_reads_missed(struct cli_target *t, uint64_t addr, size_t len);

/* --- running_chain.c --- */
/* The Python frames of thread state *th while its thread runs (not
 * stopped): like jitunwind_pyreader_frames (or _reusing with t->chains)
 * from th->current_frame, into out (max), *got frames and the status, its
 * message in why (why_size bytes; "" for 0); the chain is checked again
 * after the walk and read again while it changed under the reader (*th
 * then holds the state as last read); *torn = 1 when it still changed
 * after the last try, or stayed doubtful while the thread moved (the
 * frames may not be one stack). With `left` (may be NULL: every frame in
 * out), a chain whose frames beyond a frame marker that vouches for them
 * the walk left in the chain cache (jitunwind_pyreader_frames_reusing_top)
 * is *got frames up to the marked one and *left frames left, which the
 * check's proof vouches for (jitunwind_py_chains_check_proof). */
int cli_read_running_chain(struct cli_target *t, struct jitunwind_py_thread *th,
                           struct jitunwind_py_frame *out, size_t max, size_t *got, int *torn,
                           char *why, size_t why_size, size_t *left);
/* cli_read_running_chain (with `left`, no message) in four steps, so that
 * several threads' checks share one call (cli_check_reads_plan): the first
 * try's walk into out (max) and *w (0, or -1 without the chain and block
 * caches: nothing done, read the chain with cli_read_running_chain); its
 * check's pages added to the planned call (cli_check_reads_add's answer);
 * once the call is fetched, its check (every thread's, before any thread
 * is read again: a try again makes a call of its own, after which the
 * shared call serves no more); then the tries again, as there. th, out
 * and max must be the same at each step. */
struct cli_chain_try {
    int rc;
    size_t got, left;
    int same; /* the check found the chain unchanged */
};
int cli_running_chain_walk(struct cli_target *t, const struct jitunwind_py_thread *th,
                           struct jitunwind_py_frame *out, size_t max, struct cli_chain_try *w);
int cli_running_chain_share(struct cli_target *t, const struct jitunwind_py_thread *th,
                            const struct jitunwind_py_frame *out, const struct cli_chain_try *w);
void cli_running_chain_check(struct cli_target *t, const struct jitunwind_py_thread *th,
                             struct jitunwind_py_frame *out, size_t max, struct cli_chain_try *w);
int cli_running_chain_finish(struct cli_target *t, struct jitunwind_py_thread *th,
                             struct jitunwind_py_frame *out, size_t max, size_t *got, int *torn,
                             size_t *left, const struct cli_chain_try *w);

/* --- ptrace_refused.c --- */
/* Say on stderr that ptrace of pid was refused: the tracer (PID, command
 * name) when one holds it, else `why` and where permission comes from;
 * then `instead`, what the command can do without ptrace. */
void cli_ptrace_refused(int pid, const char *why, const char *instead);

/* --- output_text.c, output_json.c --- */
const char *cli_role_name(uint32_t role);
/* Text from the target (names, paths) as a terminal may see it: `text`
 * escaped by jitunwind_text_escape into buf (4 bytes per byte of text
 * suffice), which is returned. Every printed name goes through it. */
const char *cli_shown(const char *text, char *buf, size_t len);
/* "py::jit:leaf [jit fp-preserving]": how a frame in a range is named
 * (escaped). */
void cli_native_label(const struct cli_native *n, char *buf, size_t len);

void cli_text_header(FILE *out, const struct cli_target *t);
void cli_text_stack(FILE *out, struct cli_target *t, const struct cli_stack *s,
                    const struct cli_options *opt);
void cli_text_footer(FILE *out, const struct cli_target *t);
void cli_json_begin(FILE *out, const struct cli_target *t);
void cli_json_stack(FILE *out, struct cli_target *t, const struct cli_stack *s,
                    const struct cli_options *opt, int first);
void cli_json_end(FILE *out, const struct cli_target *t, int exit_code);
void cli_json_string(FILE *out, const char *s);

/* --- output_check.c --- */
/* Flush `out`: CLI_OK, or CLI_OUTPUT after one line saying that writing
 * `what` ("the output", "the profile") failed, and why (errno as the
 * failed write left it: callers clear errno before writing). */
int cli_output_check(FILE *out, const char *what);

/* --- commands --- */
int cli_stack_command(const struct cli_options *opt);
int cli_record_command(const struct cli_options *opt);

#endif
