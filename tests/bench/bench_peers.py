#!/usr/bin/env python3
"""jitunwind side by side with py-spy and pystack (a benchmark, not a test).

Usage: bench_peers.py BUILD_DIR [--runs N] [--only stack|record|slowdown]

Installs py-spy and pystack from PyPI into BUILD_DIR/peers-venv on first use
(prints why and exits 0 when PyPI is out of reach), then, on each
interpreter present (Debian 3.11, pyenv 3.12 -X perf, pyenv 3.13, the test
bed's JIT on Debian 3.11, and the first JIT build of
$JITUNWIND_EXTRA_PYTHONS):

  stack: `jitunwind stack PID` (its layout cache filled by a first, untimed
         run; "first run": JITUNWIND_NO_CACHE=1, the interpreter's DWARF read
         as on a first run per interpreter build) vs `pystack remote --native PID` vs
         `py-spy dump --native --pid PID` on a process of 8 threads, each
         100 Python frames deep, sleeping (on the JIT build: each running a
         loop the JIT compiles): the median wall time of N runs, and what
         each showed in the last (threads, Python frames, native frames, frames in JIT or
         trampoline code named as such, frames without a name).
  record: `jitunwind record --nonblocking --idle` vs `py-spy record
         --nonblocking --idle` at 100 and 1000 Hz for 5 s on the same process
         (its threads sleep, so both keep idle threads): thread stacks
         recorded per second, counted in each one's output.

Prints one table per part; docs/cli.md holds a run's figures.
"""

import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

DEPTH = 100
THREADS = 8

TARGET = """\
import os, sys, threading, time
GATE = sys.argv[1]
DEPTH, THREADS = %d, %d
JIT = os.environ.get("BENCH_TESTBED") == "1"
HOT = os.environ.get("BENCH_HOT") == "1"


def wait():
    if HOT:  # a loop CPython's JIT compiles, calling C on every iteration
        while os.path.exists(GATE):
            for i in range(1000):
                os.getppid()
        return
    while os.path.exists(GATE):
        time.sleep(0.05)


def recurse(n):
    if n == 0:
        return wait()
    return recurse(n - 1)


if JIT:
    import _jitbed
    _jitbed.enable_trampolines("framed")
    levels = [None] * (DEPTH + 1)

    def make(i):
        def level():
            return wait() if i == DEPTH else levels[i + 1]()
        level.__name__ = level.__qualname__ = "level_%%d" %% i
        return level

    for i in range(DEPTH + 1):
        levels[i] = _jitbed.compile(make(i))

    def run():
        return levels[1]()
else:
    def run():
        return recurse(DEPTH - 1)


ready = threading.Barrier(THREADS + 1)


def worker():
    ready.wait()
    run()


threads = [threading.Thread(target=worker) for _ in range(THREADS - 1)]
for t in threads:
    t.start()
threading.Thread(target=lambda: (ready.wait(), open(GATE + ".ready", "w").close())).start()
worker()
for t in threads:
    t.join()
""" % (DEPTH, THREADS)


def run_sampler(cmd, seconds, grace):
    """Run a sampler for about `seconds` (or sleep, for None): (start, end,
    its CPU seconds). A sampler that falls behind may run on past its
    duration (py-spy keeps sampling until it has its count): it is stopped
    `grace` seconds after."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    if cmd is None:
        time.sleep(seconds)
    else:
        try:
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           timeout=seconds + grace)
        except subprocess.TimeoutExpired:
            pass
    t1 = time.perf_counter()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return t0, t1, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def peers(build):
    venv = os.path.join(build, "peers-venv")
    pip, spy, pystack = (os.path.join(venv, "bin", n) for n in ("pip", "py-spy", "pystack"))
    if not (os.access(spy, os.X_OK) and os.access(pystack, os.X_OK)):
        if not os.path.exists(pip):
            subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        p = subprocess.run([pip, "-q", "install", "py-spy", "pystack"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            print("bench_peers: could not install py-spy and pystack from PyPI; nothing "
                  "to compare:\n" + p.stdout[-1500:])
            sys.exit(0)
    return spy, pystack


def interpreters(build):
    root = os.environ.get("PYENV_ROOT", "/root/.pyenv")
    out = [("Debian 3.11", ["/usr/bin/python3.11"], {}),
           ("pyenv 3.12 -X perf", [root + "/versions/3.12.1/bin/python3.12", "-X", "perf"], {}),
           ("pyenv 3.13", [root + "/versions/3.13.0/bin/python3.13"], {}),
           ("test bed JIT (3.11)", ["/usr/bin/python3.11"],
            {"PYTHONPATH": os.path.join(build, "testbed"), "BENCH_TESTBED": "1"})]
    for p in os.environ.get("JITUNWIND_EXTRA_PYTHONS", "").split(":"):
        if "jit" in os.path.basename(os.path.dirname(os.path.dirname(p))) and os.access(p, os.X_OK):
            out.append(("%s (JIT, threads in a hot loop)" % p.split("/")[-3], [p],
                        {"PYTHON_JIT": "1", "BENCH_HOT": "1"}))
            break
    return [(label, cmd, env) for label, cmd, env in out if os.access(cmd[0], os.X_OK)]


def start(cmd, env, work):
    script = os.path.join(work, "target.py")
    with open(script, "w") as f:
        f.write(TARGET)
    gate = os.path.join(work, "gate")
    for path in (gate + ".ready",):
        if os.path.exists(path):
            os.unlink(path)
    open(gate, "w").close()
    proc = subprocess.Popen(cmd + [script, gate], env=dict(os.environ, **env))
    deadline = time.time() + 60
    while not os.path.exists(gate + ".ready"):
        if proc.poll() is not None or time.time() > deadline:
            raise RuntimeError("the target did not start")
        time.sleep(0.05)
    time.sleep(0.3)  # every thread at the bottom of its recursion
    return proc, gate


def timed(cmd, runs, count, env=None):
    """(median seconds, counts, output, exit status) where the output is the
    run's that succeeded and showed the most JIT/trampoline frames by name
    (threads in JIT code move: each tool gets the same chances); a failed
    run only when none succeeded."""
    times, best = [], None
    for _ in range(runs):
        t = time.perf_counter()
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=120, env=env)
        times.append(time.perf_counter() - t)
        c = count(p.stdout)
        rank = (p.returncode == 0, c["jit/trampoline named"])
        if best is None or rank >= best[3]:
            best = (c, p.stdout, p.returncode, rank)
    return (statistics.median(times),) + best[:3]


JIT_NAMES = re.compile(r"py::jit|py::|\[jit|\[trampoline")


def count_ours(out):
    return {"threads": len(re.findall(r"^Thread \d+", out, re.M)),
            "python": len(re.findall(r"^\s+\[py\] ", out, re.M)),
            "native": len(re.findall(r"^#\d+ ", out, re.M)),
            "jit/trampoline named": len(re.findall(r"^#\d+ .* in py::", out, re.M)),
            "unnamed": len(re.findall(r"^#\d+ \S+ in \?\?", out, re.M))}


def count_pystack(out):
    return {"threads": len(re.findall(r"^Traceback for thread", out, re.M)),
            "python": len(re.findall(r"\(Python\) File", out)),
            "native": len(re.findall(r"\(C\) File", out)),
            "jit/trampoline named": len(re.findall(r"\(C\) File .* in py::", out)),
            "unnamed": len(re.findall(r"\(C\) File .* in \?\?\? ", out))}


def count_pyspy(out):
    lines = [l for l in out.splitlines() if l.startswith("    ")]
    python = [l for l in lines if re.search(r"\(.*\.py:\d+\)", l)]
    return {"threads": len(re.findall(r"^Thread \d+", out, re.M)),
            "python": len(python),
            "native": len(lines) - len(python),
            "jit/trampoline named": len([l for l in lines if "py::" in l]),
            "unnamed": len([l for l in lines if re.match(r"^\s+(0x[0-9a-f]+|\?\?\?) \(", l)])}


def bench_stack(build, spy, pystack, runs, work):
    ours = os.path.join(build, "tools", "jitunwind", "jitunwind")
    rows = []
    # jitunwind's layout cache (docs/cli.md) in a directory of this run: filled
    # by one untimed run per interpreter; JITUNWIND_NO_CACHE=1 times a first
    # run (the DWARF read, the in-run caches on).
    os.environ["XDG_CACHE_HOME"] = os.path.join(work, "cache")
    os.environ.pop("JITUNWIND_NO_CACHE", None)
    for label, cmd, env in interpreters(build):
        proc, gate = start(cmd, env, work)
        try:
            subprocess.run([ours, "stack", str(proc.pid)], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=120)
            first_run = dict(os.environ, JITUNWIND_NO_CACHE="1")
            tools = [("jitunwind stack", [ours, "stack", str(proc.pid)], count_ours, None),
                     ("jitunwind stack, first run", [ours, "stack", str(proc.pid)], count_ours,
                      first_run),
                     ("pystack remote --native", [pystack, "remote", "--native", str(proc.pid)],
                      count_pystack, None),
                     ("py-spy dump --native", [spy, "dump", "--native", "--pid", str(proc.pid)],
                      count_pyspy, None)]
            for name, tool_cmd, count, tool_env in tools:
                t, counts, out, rc = timed(tool_cmd, runs, count, tool_env)
                note = "" if rc == 0 else "exit %d: %s" % (rc, next(
                    (l.strip() for l in out.splitlines() if l.startswith("Error")),
                    out.strip().splitlines()[-1] if out.strip() else "")[:100])
                if "Unable to merge native stack" in out:
                    note = "says: Unable to merge native stack due to insufficient native " \
                           "information"
                rows.append((label, name, t, counts, out, note))
        finally:
            os.unlink(gate)
            proc.wait(timeout=60)
    print("\n## stack: %d threads x %d Python frames, median of %d runs (frames: the run "
          "with the most JIT/trampoline frames named)\n" % (THREADS, DEPTH, runs))
    print("| interpreter | tool | time (s) | threads | Python frames | native frames | "
          "JIT/trampoline frames named | frames without a name | note |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|")
    for label, name, t, c, _, note in rows:
        print("| %s | %s | %.3f | %d | %d | %d | %d | %d | %s |" % (
            label, name, t, c["threads"], c["python"], c["native"], c["jit/trampoline named"],
            c["unnamed"], note.replace("|", "/")))
    return rows


def spy_stacks(path):
    """Stacks in py-spy's raw (collapsed) output: one per thread per sample."""
    total = 0
    with open(path, errors="replace") as f:
        for line in f:
            head, _, count = line.rstrip("\n").rpartition(" ")
            if head and count.isdigit():
                total += int(count)
    return total


def bench_record(build, spy, work, seconds=5, rates=(100, 1000)):
    """Thread stacks recorded per second by each, both told to keep idle
    threads (--idle): the target's threads sleep, and without --idle py-spy
    records none of them, and its "Samples" line counts only what it
    recorded. A sampler that falls behind takes longer than asked, or drops
    samples: the rate is over each run's wall time."""
    ours = os.path.join(build, "tools", "jitunwind", "jitunwind")
    label, cmd, env = interpreters(build)[0]
    proc, gate = start(cmd, env, work)
    threads = THREADS  # the main thread is one of the workers
    rows = []
    try:
        for rate in rates:
            out = os.path.join(work, "ours.txt")
            t = time.perf_counter()
            p = subprocess.run([ours, "record", str(proc.pid), "--nonblocking", "--idle", "-F",
                                str(rate), "-d", str(seconds), "--stats", "-o", out],
                               stderr=subprocess.PIPE, text=True, timeout=120)
            wall = time.perf_counter() - t
            stats = dict(re.findall(r"^(\w[\w ]*): (\d+)$", p.stderr, re.M))
            samples = int(stats.get("samples", 0))
            rows.append(("jitunwind record --nonblocking --idle", rate,
                         int(stats.get("stacks", 0)), wall,
                         "%d sampling passes; %s target reads (%.0f/pass)" % (
                             samples, stats.get("reads", "?"),
                             int(stats.get("reads", 0)) / max(samples, 1))))
            t = time.perf_counter()
            note, raw = "", os.path.join(work, "spy.txt")
            try:
                q = subprocess.run([spy, "record", "--nonblocking", "--idle", "-r", str(rate),
                                    "-d", str(seconds), "--pid", str(proc.pid), "-f", "raw",
                                    "-o", raw], stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, timeout=seconds + 60)
                stacks = spy_stacks(raw) if os.path.exists(raw) else 0
                sm = re.search(r"Samples: (\d+)", q.stdout)
                note = "its Samples line: %s" % (sm.group(1) if sm else "none")
                behind = re.findall(r"([\d.]+)s behind in sampling", q.stdout)
                if behind:
                    note += "; reported falling %ss behind" % behind[-1]
            except subprocess.TimeoutExpired:
                stacks, note = 0, "killed after %d s" % (seconds + 60)
            rows.append(("py-spy record --nonblocking --idle", rate, stacks,
                         time.perf_counter() - t, note))
    finally:
        os.unlink(gate)
        proc.wait(timeout=60)
    print("\n## record for %d s (%s, %d threads x %d frames, sleeping; both with --idle)\n"
          % (seconds, label, threads, DEPTH))
    print("| tool | rate asked (Hz) | thread stacks | wall (s) | stacks/s | per thread (Hz) "
          "| note |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for name, rate, stacks, wall, note in rows:
        print("| %s | %d | %d | %.1f | %.1f | %.1f | %s |" % (
            name, rate, stacks, wall, stacks / wall, stacks / wall / threads, note))


SLOWDOWN_TARGET = """\
import os, sys, time
GATE, COUNTS = sys.argv[1], sys.argv[2]


def work(n):
    if n:
        return work(n - 1)
    done, last = 0, time.perf_counter()
    open(GATE + ".ready", "w").close()
    with open(COUNTS, "w") as out:
        while os.path.exists(GATE):
            for i in range(2000):
                done += 1
            now = time.perf_counter()
            if now - last >= 0.25:
                out.write("%%f %%d\\n" %% (now, done))
                out.flush()
                last = now


work(%d)
""" % DEPTH


def work_rate(counts, start, end):
    """Iterations per second the target logged between two perf_counter times."""
    rows = [tuple(map(float, l.split())) for l in open(counts) if len(l.split()) == 2]
    inside = [r for r in rows if start <= r[0] <= end]
    if len(inside) < 2:
        return 0.0
    return (inside[-1][1] - inside[0][1]) / (inside[-1][0] - inside[0][0])


def bench_slowdown(build, spy, work, seconds=4, rate=100):
    """The target's own progress (a pure-Python loop 100 frames deep, one
    thread) with no sampler, then under each sampler at `rate` Hz."""
    ours = os.path.join(build, "tools", "jitunwind", "jitunwind")
    script, gate = os.path.join(work, "slow.py"), os.path.join(work, "slowgate")
    counts = os.path.join(work, "counts")
    with open(script, "w") as f:
        f.write(SLOWDOWN_TARGET)
    for path in (gate + ".ready", counts):
        if os.path.exists(path):
            os.unlink(path)
    open(gate, "w").close()
    proc = subprocess.Popen(["/usr/bin/python3.11", script, gate, counts])
    rows = []
    try:
        while not os.path.exists(gate + ".ready"):
            time.sleep(0.05)
        runs = [("no sampler", None),
                ("jitunwind record --nonblocking", [ours, "record", str(proc.pid), "--nonblocking",
                                                    "-F", str(rate), "-d", str(seconds), "-o",
                                                    os.devnull]),
                ("jitunwind record (mixed: each sample stops the thread)",
                 [ours, "record", str(proc.pid), "-F", str(rate), "-d", str(seconds), "-o",
                  os.devnull]),
                ("py-spy record --nonblocking", [spy, "record", "--nonblocking", "-r", str(rate),
                                                 "-d", str(seconds), "--pid", str(proc.pid),
                                                 "-f", "raw", "-o", os.path.join(work, "s.txt")]),
                ("py-spy record (blocking)", [spy, "record", "-r", str(rate), "-d", str(seconds),
                                              "--pid", str(proc.pid), "-f", "raw", "-o",
                                              os.path.join(work, "s.txt")])]
        for name, cmd in runs:
            t0, t1, _ = run_sampler(cmd, seconds, grace=60)
            # The sampler's first second (its start-up) is left out.
            rows.append((name, work_rate(counts, t0 + 1.0, t1)))
            time.sleep(0.5)
    finally:
        os.unlink(gate)
        proc.wait(timeout=60)
    base = rows[0][1] or 1.0
    print("\n## target slowdown at %d Hz (Debian 3.11, one thread, a loop %d frames deep)\n"
          % (rate, DEPTH))
    print("| sampler | target iterations/s | relative to no sampler |")
    print("|---|---:|---:|")
    for name, r in rows:
        print("| %s | %.0f | %.2f |" % (name, r, r / base))


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    build = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 5
    spy, pystack = peers(build)
    for name, path in (("py-spy", spy), ("pystack", pystack)):
        v = subprocess.run([path, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True).stdout.strip()
        print("%s: %s" % (name, v))
    work = tempfile.mkdtemp(prefix="bench-peers-", dir=build)
    try:
        only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
        rows = bench_stack(build, spy, pystack, runs, work) if only in (None, "stack") else []
        if only in (None, "record"):
            bench_record(build, spy, work)
        if only in (None, "slowdown"):
            bench_slowdown(build, spy, work)
        if "--show" in sys.argv:
            for label, name, _, _, out, _ in rows:
                print("\n### %s: %s\n%s" % (label, name, out[:4000]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())
