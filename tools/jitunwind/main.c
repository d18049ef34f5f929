/* jitunwind: mixed native + Python stacks of a live process or a core,
 * without a debugger, and a sampling profiler. Arguments and dispatch. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "perf_events.h"

static const char usage_text[] =
    "usage: jitunwind stack PID [--python] [--native-all] [--json] [--locals] [--threads TID,...]\n"
    "                       [--max-frames N] [--no-cache] [--stats]\n"
    "       jitunwind stack --core CORE [--exe PYTHON] [--native-all] [--json] [--locals]\n"
    "                       [--threads TID,...] [--max-frames N] [--no-cache] [--stats]\n"
    "       jitunwind record PID [-F HZ] [-d SECONDS] [-o FILE|-] [--idle]\n"
    "                       [--format collapsed|speedscope|pprof|flamegraph] [--threads]\n"
    "                       [--nonblocking] [--no-cache] [--no-chain-cache] [--mark-frames]\n"
    "                       [--stats]\n"
    "                       [--perf [--stack-size BYTES]]\n"
    "       jitunwind record --perf --all [--stack-size BYTES] [-F HZ] [-d SECONDS] [-o FILE|-]\n"
    "                       [--format ...] [--stats]\n"
    "       jitunwind top PID [-F HZ] [-d SECONDS] [--idle] [--nonblocking]\n"
    "                       [--perf [--stack-size BYTES]]\n"
    "       jitunwind top --perf --all [--stack-size BYTES] [-F HZ] [-d SECONDS]\n"
    "       (stack, record, top: [--debug-file-directory DIRS])\n"
    "       jitunwind --help | --version\n";

static const char help_text[] =
    "\n"
    "Show every thread's stack, native and Python frames interleaved, through\n"
    "CPython's JIT executors and perf trampolines (and any JIT that registers with\n"
    "libjitunwind); each native frame says how it was found (initial, rule, cfi,\n"
    "fp, lr) and a frame in JIT or trampoline code names its range and rule.\n"
    "\n"
    "stack options:\n"
    "  --core CORE      read a core file instead of a live process\n"
    "  --exe PYTHON     the executable the core was dumped from (checked by build id)\n"
    "  --python         Python frames only: no ptrace, the process is never stopped\n"
    "  --native-all     also show the interpreter's own native frames between eval loops\n"
    "  --json           one JSON document (schema in docs/cli.md)\n"
    "  --locals         each Python frame's arguments and locals (repr, bounded)\n"
    "  --threads LIST   only these thread ids (comma-separated); without it, at most\n"
    "                   4096 threads, and a note says how many were left out\n"
    "  --max-frames N   at most N frames per thread: the innermost N - N/2 and the\n"
    "                   outermost N/2, and a line saying how many were left out\n"
    "                   between them. Default: every frame (a Python chain is read\n"
    "                   up to 65536 frames; a longer one ends with a note)\n"
    "  --no-cache       read the interpreter's DWARF again rather than the answers kept\n"
    "                   in $XDG_CACHE_HOME/jitunwind (or ~/.cache/jitunwind), as\n"
    "                   JITUNWIND_NO_CACHE=1 does, and read every frame's code object\n"
    "                   and memory afresh (no caches at all)\n"
    "  --stats          print the target reads made at the end\n"
    "\n"
    "record / top options:\n"
    "  -F, --rate HZ    samples per second (default 100); any rate from 1 Hz: one\n"
    "                   the machine cannot reach is reported as achieved vs asked\n"
    "  -d, --duration SECONDS  how long (default: until Ctrl-C)\n"
    "  -o, --output FILE  output file (record; default, or -: standard output)\n"
    "  --idle           also keep the samples of idle threads: a Python thread that\n"
    "                   does not hold the GIL (asleep, blocked on I/O or a lock,\n"
    "                   waiting for the GIL). Without it they are left out\n"
    "  --format F       collapsed (default); speedscope (one profile per thread, its\n"
    "                   samples in time order); pprof (gzipped protobuf, each sample\n"
    "                   labelled with its thread); flamegraph (an SVG flame graph,\n"
    "                   self-contained)\n"
    "  --threads        record, collapsed and flamegraph: each thread's stacks under\n"
    "                   a root frame naming it, Thread TID \"name\" (its Python name\n"
    "                   where threading gives one)\n"
    "  --nonblocking    Python stacks only, read without stopping the process\n"
    "  --perf           perf events (cpu-clock) on every thread: each sample's user\n"
    "                   registers and stack copy unwound afterwards, Python frames read\n"
    "                   right after the sample and merged when they match it; the\n"
    "                   process is never stopped or traced. -F is per thread's CPU time\n"
    "  --all            with --perf, instead of a PID: every process of the machine (one\n"
    "                   event per CPU), each stack's root naming its process\n"
    "  --stack-size BYTES  stack copied per --perf sample (default 16384, at most 65000;\n"
    "                   a deeper native stack ends unreadable at the copy's end)\n"
    "  --no-cache       do not cache code objects, line tables or frame chains between\n"
    "                   samples, nor the interpreter's DWARF answers on disk\n"
    "  --no-chain-cache keep the other caches, but do not reuse a thread's unchanged\n"
    "                   frames between samples\n"
    "  --mark-frames    CPython 3.15+: let the frame-chain cache stop at the frame\n"
    "                   the interpreter keeps marked for profilers. This WRITES into\n"
    "                   the process: one pointer per thread per sample\n"
    "                   (tstate->last_profiled_frame), as CPython's own profiler does;\n"
    "                   every thread's marker is cleared first. Off by default\n"
    "  --stats          print the reads made and saved by the caches at the end\n"
    "                   (--perf --all: and the module files its processes share)\n"
    "The progress line on stderr is rewritten in place on a terminal; elsewhere\n"
    "it is a whole line at the first update, then at most every 10 s, and at the end.\n"
    "\n"
    "common options:\n"
    "  --debug-file-directory DIRS\n"
    "                   where separate debug files are (the -dbg packages' symbols and\n"
    "                   DWARF of a stripped interpreter): directories separated by ':',\n"
    "                   searched by build id (DIR/.build-id/xx/rest.debug) and by\n"
    "                   .gnu_debuglink, as gdb's debug-file-directory. Default:\n"
    "                   $JITUNWIND_DEBUG_FILE_DIRECTORY, else /usr/lib/debug\n"
    "\n"
    "A live process is stopped one thread at a time (PTRACE_SEIZE + PTRACE_INTERRUPT)\n"
    "and always released, also on Ctrl-C and before Ctrl-Z stops the command;\n"
    "record and top end when the process exits or execs.\n"
    "Exit codes: 0 ok, 1 usage, 2 no such process or file, 3 permission or ptrace\n"
    "refused, 4 not a Python process, 5 unsupported CPython version, 6 partial\n"
    "result, 7 core unusable or not the --exe's, 8 the output could not be written.\n";

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "jitunwind: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", usage_text);
    return CLI_USAGE;
}

static int parse_int(const char *s, int *out)
{
    char *end;
    long v;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v <= 0 || v > 0x7fffffff)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_double(const char *s, double *out)
{
    char *end;
    double v;
    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end || !(v > 0) || v > 1e6)
        return -1;
    *out = v;
    return 0;
}

/* -F: any finite rate from 1 Hz; what the machine cannot reach is said
 * at the end as achieved vs asked. */
static int parse_rate(const char *s, double *out)
{
    char *end;
    double v;
    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= 1) || v > 1e12)
        return -1;
    *out = v;
    return 0;
}

static int parse_tids(const char *s, struct cli_options *opt)
{
    char buf[1024], *save = NULL, *tok;
    snprintf(buf, sizeof buf, "%s", s);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (opt->n_tids >= sizeof opt->tids / sizeof opt->tids[0] ||
            parse_int(tok, &opt->tids[opt->n_tids]) < 0)
            return -1;
        opt->n_tids++;
    }
    return opt->n_tids ? 0 : -1;
}

/* The value of option argv[*i], or NULL (a usage error was printed). */
static const char *value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        usage_error("%s needs a value", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

static int parse(int argc, char **argv, struct cli_options *opt)
{
    int i, is_stack = strcmp(opt->command, "stack") == 0;
    int is_record = strcmp(opt->command, "record") == 0;
    opt->hz = 100;
    opt->format = "collapsed";
    for (i = 2; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "--core") == 0 && is_stack) {
            if (!(opt->core = value(argc, argv, &i)))
                return CLI_USAGE;
        } else if (strcmp(a, "--exe") == 0 && is_stack) {
            if (!(opt->exe = value(argc, argv, &i)))
                return CLI_USAGE;
        } else if (strcmp(a, "--python") == 0 && is_stack) {
            opt->python_only = 1;
        } else if (strcmp(a, "--native-all") == 0 && is_stack) {
            opt->native_all = 1;
        } else if (strcmp(a, "--json") == 0 && is_stack) {
            opt->json = 1;
        } else if (strcmp(a, "--locals") == 0 && is_stack) {
            opt->locals = 1;
        } else if (strcmp(a, "--threads") == 0 && is_stack) {
            if (!(v = value(argc, argv, &i)))
                return CLI_USAGE;
            if (parse_tids(v, opt) < 0)
                return usage_error("--threads wants thread ids separated by commas, not %s", v);
        } else if (strcmp(a, "--threads") == 0 && is_record) {
            opt->thread_roots = 1;
        } else if (strcmp(a, "--max-frames") == 0 && is_stack) {
            int n;
            if (!(v = value(argc, argv, &i)))
                return CLI_USAGE;
            if (parse_int(v, &n) < 0)
                return usage_error("--max-frames wants a positive number of frames, not %s", v);
            opt->max_frames = (size_t)n;
        } else if ((strcmp(a, "-F") == 0 || strcmp(a, "--rate") == 0) && !is_stack) {
            if (!(v = value(argc, argv, &i)))
                return CLI_USAGE;
            if (parse_rate(v, &opt->hz) < 0)
                return usage_error("-F wants a rate of at least 1 Hz, not %s", v);
        } else if ((strcmp(a, "-d") == 0 || strcmp(a, "--duration") == 0) && !is_stack) {
            if (!(v = value(argc, argv, &i)))
                return CLI_USAGE;
            if (parse_double(v, &opt->duration) < 0)
                return usage_error("-d wants a positive number of seconds, not %s", v);
        } else if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) && !is_stack) {
            if (!(opt->output = value(argc, argv, &i)))
                return CLI_USAGE;
        } else if (strcmp(a, "--format") == 0 && !is_stack) {
            if (!(v = value(argc, argv, &i)))
                return CLI_USAGE;
            if (strcmp(v, "collapsed") && strcmp(v, "speedscope") && strcmp(v, "pprof") &&
                strcmp(v, "flamegraph"))
                return usage_error("--format is collapsed, speedscope, pprof or flamegraph, "
                                   "not %s", v);
            opt->format = v;
        } else if (strcmp(a, "--idle") == 0 && !is_stack) {
            opt->idle = 1;
        } else if (strcmp(a, "--nonblocking") == 0 && !is_stack) {
            opt->nonblocking = 1;
        } else if (strcmp(a, "--perf") == 0 && !is_stack) {
            opt->perf = 1;
        } else if (strcmp(a, "--all") == 0 && !is_stack) {
            opt->all = 1;
        } else if (strcmp(a, "--stack-size") == 0 && !is_stack) {
            int n;
            if (!(v = value(argc, argv, &i)))
                return CLI_USAGE;
            if (parse_int(v, &n) < 0 || n < 64 || n > (int)CLI_PERF_STACK_MAX)
                return usage_error("--stack-size wants 64 to 65000 bytes, not %s", v);
            opt->stack_size = (unsigned)n & ~7u;
        } else if (strcmp(a, "--no-cache") == 0) {
            opt->no_cache = 1;
        } else if (strcmp(a, "--no-chain-cache") == 0 && !is_stack) {
            opt->no_chain_cache = 1;
        } else if (strcmp(a, "--mark-frames") == 0 && !is_stack) {
            opt->mark_frames = 1;
        } else if (strcmp(a, "--stats") == 0) {
            opt->stats = 1;
        } else if (strcmp(a, "--debug-file-directory") == 0) {
            if (!(opt->debug_dirs = value(argc, argv, &i)))
                return CLI_USAGE;
        } else if (a[0] != '-' && !opt->pid) {
            if (parse_int(a, &opt->pid) < 0)
                return usage_error("%s is not a process id", a);
        } else {
            return usage_error("unknown or misplaced argument %s", a);
        }
    }
    if (opt->perf && opt->nonblocking)
        return usage_error("%s", "--perf and --nonblocking are two ways of sampling: give one");
    if (opt->all && !opt->perf)
        return usage_error("%s", "--all goes with --perf");
    if (opt->all && (opt->pid || opt->mark_frames))
        return usage_error("%s", opt->pid ? "give a PID or --all, not both"
                                          : "--mark-frames goes with one PID, not --all");
    if (opt->thread_roots && strcmp(opt->format, "collapsed") != 0 &&
        strcmp(opt->format, "flamegraph") != 0)
        return usage_error("--threads goes with --format collapsed or flamegraph (%s is "
                           "per thread already)", opt->format);
    if (opt->thread_roots && opt->all)
        return usage_error("%s", "--threads goes with one PID, not --all");
    if (opt->stack_size && !opt->perf)
        return usage_error("%s", "--stack-size goes with --perf");
    if (!opt->stack_size)
        opt->stack_size = CLI_PERF_STACK_DEFAULT;
    if (opt->core && opt->pid)
        return usage_error("%s", "give a PID or --core, not both");
    if (opt->mark_frames && (opt->no_cache || opt->no_chain_cache))
        return usage_error("%s", "--mark-frames needs the frame-chain cache");
    if (opt->exe && !opt->core)
        return usage_error("%s", "--exe goes with --core");
    if (opt->core && opt->python_only)
        return usage_error("%s", "--python is for live processes (a core never runs)");
    if (!opt->core && !opt->pid && !opt->all)
        return usage_error("%s", is_stack ? "give a PID or --core CORE" : "give a PID");
    return CLI_OK;
}

/* Standard descriptors that are closed are opened on /dev/null, so that no
 * file the command opens (a core, a cache entry) takes their number and
 * gets what is printed. Returns whether standard output was closed. */
static int fill_closed_standard_fds(void)
{
    int fd, stdout_closed = fcntl(STDOUT_FILENO, F_GETFD) < 0;
    for (fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
            return stdout_closed;
    return stdout_closed;
}

int main(int argc, char **argv)
{
    struct cli_options opt;
    int code, stdout_closed = fill_closed_standard_fds();
    memset(&opt, 0, sizeof opt);
    if (argc < 2)
        return usage_error("%s", "no command");
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        printf("%s%s", usage_text, help_text);
        return CLI_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("jitunwind %s\n", jitunwind_version_string());
        return CLI_OK;
    }
    opt.command = argv[1];
    if (strcmp(opt.command, "stack") && strcmp(opt.command, "record") &&
        strcmp(opt.command, "top"))
        return usage_error("unknown command %s", opt.command);
    if (argc > 2 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0)) {
        printf("%s%s", usage_text, help_text);
        return CLI_OK;
    }
    if ((code = parse(argc, argv, &opt)) != CLI_OK)
        return code;
    if (stdout_closed && (!opt.output || strcmp(opt.output, "-") == 0)) {
        fprintf(stderr, "jitunwind: standard output is closed: nothing could be written\n");
        return CLI_OUTPUT;
    }
    if (!opt.debug_dirs && (opt.debug_dirs = getenv("JITUNWIND_DEBUG_FILE_DIRECTORY")) &&
        !*opt.debug_dirs)
        opt.debug_dirs = NULL;
    if (jitunwind_set_debug_file_directories(opt.debug_dirs) < 0)
        return usage_error("%s", "the debug file directories are too long");
    if (strcmp(opt.command, "stack") == 0)
        return cli_stack_command(&opt);
    return cli_record_command(&opt);
}
