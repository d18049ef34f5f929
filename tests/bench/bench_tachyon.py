#!/usr/bin/env python3
"""`jitunwind record --nonblocking` (plain, and with --mark-frames) against
CPython 3.15's own sampling profiler (Tachyon: `python3.15 -m
profiling.sampling attach`) and py-spy, on one CPython 3.15 target with its
JIT on (a benchmark, not a test).

Usage: bench_tachyon.py BUILD_DIR [--python PYTHON3.15] [--seconds S]
                        [--rates 1000,10000,100000] [--threads 1,8]

The target runs THREADS threads, each DEPTH (100) Python frames deep
(`recurse` calling itself, then `spin` looping), so every right stack of a
bench thread is exactly DEPTH `recurse` frames under `spin`. For each
thread count and rate, each sampler runs S seconds (default 5) and the
table gives:

  passes/s   samples per second achieved, as the sampler counts them (a
             pass over every thread: jitunwind's "samples", Tachyon's
             "Captured N samples")
  missed     the share of the rate x S passes asked that were not taken
  stacks     thread stacks recorded (the counts of the collapsed output)
  wrong      of them, stacks of a bench thread that are not DEPTH `recurse`
             frames under `spin` (itself maybe in os.path.exists); set
             BENCH_SHOW_WRONG=1 to print their innermost frames
  cpu        the sampler's CPU time (user + system, from wait4) / wall time
  us/pass    that CPU time, less the sampler's start, / passes: on a shared
             machine, where each sampler gets the scheduler's share, the
             figure runs compare best by. The start is the CPU time of a
             run of START_SECONDS at 1 Hz on the same target (Tachyon's is
             its interpreter's start, about 0.4 s of CPU here; py-spy's is
             not measured)
  target     the target's speed while sampled: its spin rounds per second
             (all threads) during the run, over the same in the
             BASELINE_SECONDS just before it, unsampled (1.00: no slowdown;
             the machine's load moves it too)

After each thread count and rate, a line per jitunwind row gives its
passes/s and CPU per pass as a multiple of Tachyon's (the goal: passes/s
at least 2). --mark-frames writes CPython 3.15's frame marker into the
target, as Tachyon does (its frame cache is on by default): the
like-for-like row.

Every sampler keeps every thread's stack at each pass (jitunwind --idle,
Tachyon -a in its default wall mode, py-spy --idle): without it jitunwind
keeps only the thread holding the GIL. When woken late, both take the
passes they owe back to back: Tachyon all of them, jitunwind those of the
last 0.1 s (older ones are missed). py-spy is run from PATH,
BUILD_DIR/peers-venv or BUILD_DIR/lldb-venv when present; it is never
downloaded here: when absent the table says so. --repeat N runs every
sampler N times in turn at each rate (A/B back to back on a shared
machine) and prints each run's row. --against OTHER_BUILD adds OTHER_BUILD's
jitunwind rows to each round (another build of the same code, main's say:
before and after a change, in the same rounds as Tachyon); --only-marked
leaves plain --nonblocking out.
"""

import argparse
import mmap
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

DEPTH = 100
START_SECONDS = 0.1
BASELINE_SECONDS = 1.0
DEFAULT_PYTHON = "/work/cpython-builds/p315/usr/bin/python3.15"

TARGET = r'''
import mmap, os, struct, sys, threading
GATE, DEPTH, THREADS, COUNTS = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
with open(COUNTS, "r+b") as f:
    counts = mmap.mmap(f.fileno(), 8 * THREADS)

def spin(slot):
    x = rounds = 0
    while True:
        x = (x + 1) & 0xffff  # a small int: the JIT's specialisation holds
        if x == 0:
            rounds += 1
            struct.pack_into("Q", counts, 8 * slot, rounds)
            if not os.path.exists(GATE):
                return

def recurse(n, slot):
    if n == 0:
        return spin(slot)
    return recurse(n - 1, slot)

threads = [threading.Thread(target=recurse, args=(DEPTH - 1, i + 1)) for i in range(THREADS - 1)]
for t in threads:
    t.start()
open(GATE + ".ready", "w").close()
recurse(DEPTH - 1, 0)
for t in threads:
    t.join()
'''


def run_timed(cmd, env=None):
    """(stdout+stderr text, wall seconds, cpu seconds) of a command."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env)
    out = proc.stdout.read()
    _, status, ru = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - start
    return out, wall, ru.ru_utime + ru.ru_stime, proc.returncode


def judge(stacks):
    """(stacks, wrong) from [(frames root first, count)]: a stack holding a
    `recurse` frame belongs to a bench thread."""
    total = wrong = 0
    for frames, count in stacks:
        names = [f for f in frames]
        rec = sum(1 for f in names if is_func(f, "recurse"))
        if not rec:
            continue
        total += count
        # spin may be in its call of os.path.exists
        while len(names) > 1 and is_func(names[-1], "exists"):
            names = names[:-1]
        if rec != DEPTH or not is_func(names[-1], "spin"):
            wrong += count
            if os.environ.get("BENCH_SHOW_WRONG"):
                print("wrong: %s" % ";".join(names[-4:]))
    return total, wrong


def is_func(frame, name):
    # jitunwind: "name (file:line)"; Tachyon: "file:name:line"; py-spy: "name (file:line)"
    return frame.startswith(name + " (") or (":%s:" % name) in frame


def collapsed(path):
    out = []
    try:
        with open(path) as f:
            for line in f:
                stack, _, count = line.rstrip("\n").rpartition(" ")
                if stack and count.isdigit():
                    out.append((stack.split(";"), int(count)))
    except OSError:
        pass
    return out


def rounds(counts):
    """The target's spin rounds so far, all threads."""
    return sum(struct.unpack_from("Q", counts, 8 * i)[0] for i in range(len(counts) // 8))


def jitunwind(args, pid, rate, work, extra=(), build=None):
    path = os.path.join(work, "ju.txt")
    cmd = [os.path.join(build or args.build, "tools", "jitunwind", "jitunwind"), "record", str(pid),
           "--nonblocking", "--idle", "-F", str(rate), "-d", str(args.seconds), "-o",
           path] + list(extra)
    out, wall, cpu, rc = run_timed(cmd)
    m = re.findall(r"([\d.]+) s, (\d+) samples", out)
    passes = int(m[-1][1]) if m else 0
    secs = float(m[-1][0]) if m else args.seconds
    return passes, secs, collapsed(path), (cpu, wall), rc, out


def jitunwind_marked(args, pid, rate, work):
    return jitunwind(args, pid, rate, work, ["--mark-frames"])


def against(args, pid, rate, work):
    return jitunwind(args, pid, rate, work, build=args.against)


def against_marked(args, pid, rate, work):
    return jitunwind(args, pid, rate, work, ["--mark-frames"], build=args.against)


def tachyon(args, pid, rate, work):
    path = os.path.join(work, "tachyon.txt")
    cmd = [args.python, "-m", "profiling.sampling", "attach", "-a", "-r", str(rate),
           "-d", str(args.seconds), "--collapsed", "-o", path, str(pid)]
    out, wall, cpu, rc = run_timed(cmd)
    m = re.search(r"Captured (\d+) samples in ([\d.]+) seconds", out)
    passes, secs = (int(m.group(1)), float(m.group(2))) if m else (0, args.seconds)
    return passes, secs, collapsed(path), (cpu, wall), rc, out


def find_py_spy(build):
    for cand in (shutil.which("py-spy"), os.path.join(build, "peers-venv", "bin", "py-spy"),
                 os.path.join(build, "lldb-venv", "bin", "py-spy")):
        if cand and os.access(cand, os.X_OK):
            return cand
    return None


def py_spy(args, pid, rate, work):
    path = os.path.join(work, "pyspy.txt")
    cmd = [args.py_spy, "record", "--pid", str(pid), "--rate", str(rate), "--duration",
           str(args.seconds), "--format", "raw", "--nonblocking", "--idle", "-o", path]
    out, wall, cpu, rc = run_timed(cmd)
    m = re.search(r"Samples: (\d+)", out)
    stacks = collapsed(path)
    passes = int(m.group(1)) if m else 0
    return passes, args.seconds, stacks, (cpu, wall), rc, out


def run_row(args, name, fn, threads, rate, pid, work, counts, start):
    """One sampler's run at `rate`: its row printed; (passes/s, CPU s per
    pass), or None when it failed."""
    before = rounds(counts)
    time.sleep(BASELINE_SECONDS)
    base = (rounds(counts) - before) / BASELINE_SECONDS
    before, t0 = rounds(counts), time.monotonic()
    passes, secs, stacks, (cpu, wall), rc, out = fn(args, pid, rate, work)
    during = (rounds(counts) - before) / (time.monotonic() - t0)
    if rc != 0:
        print("%-8d %-8d %-38s exit %d: %s" % (threads, rate, name, rc, out.strip()[-200:]))
        return None
    asked = rate * secs
    total, wrong = judge(stacks)
    row = (passes / secs if secs else 0,
           max(0.0, cpu - start.get(fn, 0.0)) / passes if passes else 0)
    print("%-8d %-8d %-38s %10.0f %7.1f%% %9d %8d %5.0f%% %8.1f %7.2f" % (
        threads, rate, name, row[0], 100.0 * max(0.0, asked - passes) / asked if asked else 0,
        total, wrong, 100.0 * cpu / wall if wall else 0, 1e6 * row[1],
        during / base if base else 0))
    sys.stdout.flush()
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--python", default=DEFAULT_PYTHON)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--rates", default="1000,10000,100000,1000000",
                    help="1000000 is reached by no sampler here: the unlimited rate")
    ap.add_argument("--threads", default="1,8")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--against", help="another build whose jitunwind runs in the same rounds")
    ap.add_argument("--only-marked", action="store_true", help="no plain --nonblocking rows")
    args = ap.parse_args()
    if not os.access(args.python, os.X_OK):
        print("%s is not installed: nothing to compare" % args.python)
        return 0
    args.py_spy = find_py_spy(args.build)
    ours = [("jitunwind --nonblocking", jitunwind),
            ("jitunwind --nonblocking --mark-frames", jitunwind_marked)]
    if args.against:
        ours += [("against --nonblocking", against),
                 ("against --nonblocking --mark-frames", against_marked)]
    if args.only_marked:
        ours = [o for o in ours if "--mark-frames" in o[0]]
    samplers = ours + [("tachyon -a", tachyon)]
    if args.py_spy:
        samplers.append(("py-spy --nonblocking", py_spy))
    else:
        print("py-spy: not installed (not on PATH nor in %s/peers-venv or lldb-venv; not "
              "downloaded here)" % args.build)
    env = dict(os.environ, PYTHON_JIT="1")
    print("target: %s, JIT on, %d frames deep, %d s per run" % (args.python, DEPTH,
                                                                args.seconds))
    if args.against:
        print("jitunwind: %s; against: %s" % (args.build, args.against))
    print("%-8s %-8s %-38s %10s %8s %9s %8s %6s %8s %7s" % (
        "threads", "rate", "sampler", "passes/s", "missed", "stacks", "wrong", "cpu", "us/pass",
        "target"))
    for threads in [int(t) for t in args.threads.split(",")]:
        work = tempfile.mkdtemp(prefix="ju-bench-tachyon-")
        gate = os.path.join(work, "gate")
        counts_path = os.path.join(work, "counts")
        with open(counts_path, "wb") as f:
            f.write(b"\0" * 8 * threads)
        open(gate, "w").close()
        target = subprocess.Popen([args.python, "-c", TARGET, gate, str(DEPTH), str(threads),
                                   counts_path], env=env)
        with open(counts_path, "r+b") as f:
            counts = mmap.mmap(f.fileno(), 8 * threads)
        try:
            while not os.path.exists(gate + ".ready"):
                if target.poll() is not None:
                    print("the target exited")
                    return 1
                time.sleep(0.05)
            time.sleep(1.0)  # the JIT compiles the loop
            start_args = argparse.Namespace(**dict(vars(args), seconds=START_SECONDS))
            start = {fn: fn(start_args, target.pid, 1, work)[3][0] for _, fn in samplers
                     if fn is not py_spy}
            for rate in [int(r) for r in args.rates.split(",")]:
                for _ in range(args.repeat):
                    rows = {fn: run_row(args, name, fn, threads, rate, target.pid, work, counts,
                                        start) for name, fn in samplers}
                    theirs = rows.get(tachyon)
                    for name, fn in ours:
                        if rows.get(fn) and theirs and theirs[0] and theirs[1]:
                            print("%-8d %-8d %s / tachyon: passes/s x%.2f, CPU per pass x%.2f"
                                  % (threads, rate, name,
                                     rows[fn][0] / theirs[0], rows[fn][1] / theirs[1]))
        finally:
            os.unlink(gate)
            try:
                target.wait(timeout=10)
            except subprocess.TimeoutExpired:
                target.kill()
                target.wait()
            counts.close()
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
