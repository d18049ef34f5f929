#!/usr/bin/env python3
"""Target slowdown under each sampler at 1 kHz (a benchmark, not a test).

Usage: bench_perf_slowdown.py BUILD_DIR [--rounds N] [--seconds S] [--rate HZ]
                              [--python PYTHON] [--compare OTHER_BUILD_DIR]
                              [--only-perf]

A Python target (Debian's python3.11 by default) runs 4 busy threads, each
a pure-Python loop 30 frames deep; its main thread logs, every 0.25 s, the
iterations done by all of them, the wall time and the process's CPU time.
The samplers, each for S seconds (default 5; its first second, the
sampler's start-up, left out), in N rounds (default 3) that alternate
with runs without a sampler, so that the machine's other load falls on
all alike:

  jitunwind record --perf        perf events, never stopping the target
  jitunwind record               each sample stops every thread (ptrace)
  jitunwind record --nonblocking Python stacks read without stopping it
  py-spy record --nonblocking    and py-spy record (blocking), when
                                 BUILD_DIR/peers-venv holds py-spy (as
                                 bench_peers.py installs it)

--compare adds OTHER_BUILD_DIR's `record --perf`, run right after this
build's in each round (an A/B of two builds against one target); --only-perf
leaves out the other samplers.

Two figures per sampler, each the median over the rounds relative to the
median of the runs without a sampler: the target's iterations per second
of wall time (what a user sees; on a loaded machine it also moves with the
other load), and per second of its own CPU time (the work a CPU second
buys it: the cost a sampler adds inside the target, kernel work in its
context included, and not the time it is kept stopped). The sampler's own
CPU time per second is printed beside them, and for `record --perf` its CPU
per sample (the run's CPU over the samples it read, start-up included).
Goal for --perf: a slowdown of 3% or less. docs/performance.md holds a run's
figures.
"""

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_peers import run_sampler  # noqa: E402

THREADS, DEPTH = 4, 30

TARGET = r"""
import os, sys, threading, time
GATE, LOG = sys.argv[1], sys.argv[2]
THREADS, DEPTH = %d, %d
done = [0] * THREADS


def spin(k):
    n = 0
    while True:
        for i in range(1000):
            n += 1
        done[k] = n


def down(k, n):
    if n:
        return down(k, n - 1)
    spin(k)


for k in range(THREADS):
    threading.Thread(target=down, args=(k, DEPTH), daemon=True).start()
open(GATE + ".ready", "w").close()
with open(LOG, "w") as out:
    while os.path.exists(GATE):
        time.sleep(0.25)
        out.write("%%f %%f %%d\n" %% (time.perf_counter(), time.process_time(), sum(done)))
        out.flush()
""" % (THREADS, DEPTH)


def rates(log, start, end):
    """(iterations per wall second, per CPU second of the target) logged
    between two perf_counter times."""
    rows = []
    with open(log) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3:
                rows.append((float(parts[0]), float(parts[1]), int(parts[2])))
    inside = [r for r in rows if start <= r[0] <= end]
    if len(inside) < 2:
        return 0.0, 0.0
    (w0, c0, n0), (w1, c1, n1) = inside[0], inside[-1]
    return (n1 - n0) / (w1 - w0), (n1 - n0) / (c1 - c0) if c1 > c0 else 0.0


def run_perf(cmd, seconds, grace):
    """run_sampler's (start, end, CPU seconds) for a `record --perf` command,
    and the samples it read (from its summary line; 0 if none said)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        err = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             timeout=seconds + grace).stderr
    except subprocess.TimeoutExpired as e:
        err = e.stderr or ""
    t1 = time.perf_counter()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    m = re.search(r"perf: (\d+) samples from", err if isinstance(err, str) else err.decode())
    return (t0, t1, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
            int(m.group(1)) if m else 0)


def samplers(build, pid, rate, seconds, work, compare=None, only_perf=False):
    ours = os.path.join(build, "tools", "jitunwind", "jitunwind")
    common = ["-F", str(rate), "-d", str(seconds), "-o", os.devnull]
    rows = [("jitunwind record --perf", [ours, "record", str(pid), "--perf"] + common)]
    if compare:
        other = os.path.join(compare, "tools", "jitunwind", "jitunwind")
        rows.append(("jitunwind record --perf (%s)" % compare,
                     [other, "record", str(pid), "--perf"] + common))
    if only_perf:
        return rows
    rows += [("jitunwind record (ptrace: stops each thread)", [ours, "record", str(pid)] + common),
             ("jitunwind record --nonblocking", [ours, "record", str(pid), "--nonblocking"] +
              common)]
    spy = os.path.join(build, "peers-venv", "bin", "py-spy")
    if os.access(spy, os.X_OK):
        out = os.path.join(work, "spy.txt")
        spy_common = ["-r", str(rate), "-d", str(seconds), "--pid", str(pid), "-f", "raw",
                      "-o", out]
        rows += [("py-spy record --nonblocking", [spy, "record", "--nonblocking"] + spy_common),
                 ("py-spy record (blocking)", [spy, "record"] + spy_common)]
    else:
        print("(py-spy not in %s: run tests/bench/bench_peers.py BUILD_DIR once to install "
              "it)" % os.path.dirname(spy))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--rate", type=int, default=1000)
    ap.add_argument("--python", default="/usr/bin/python3.11")
    ap.add_argument("--compare", help="another build directory: its record --perf too")
    ap.add_argument("--only-perf", action="store_true", help="record --perf only")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="ju-bench-slow-")
    script, gate, log = (os.path.join(work, n) for n in ("target.py", "gate", "log"))
    with open(script, "w") as f:
        f.write(TARGET)
    open(gate, "w").close()
    proc = subprocess.Popen([a.python, script, gate, log])
    results = {}
    try:
        while not os.path.exists(gate + ".ready"):
            if proc.poll() is not None:
                sys.exit("the target did not start")
            time.sleep(0.05)
        time.sleep(1.0)
        runs = samplers(a.build, proc.pid, a.rate, a.seconds, work, a.compare, a.only_perf)
        for r in range(a.rounds):
            for name, cmd in [("no sampler", None)] + runs:
                samples = 0
                if cmd and "--perf" in cmd:
                    t0, t1, cpu, samples = run_perf(cmd, a.seconds, grace=5)
                else:
                    t0, t1, cpu = run_sampler(cmd, a.seconds, grace=5)
                wall, per_cpu = rates(log, t0 + 1.0, t1)
                results.setdefault(name, []).append((wall, per_cpu, cpu / (t1 - t0),
                                                     1e6 * cpu / samples if samples else 0.0))
                print("round %d: %-46s %12.0f it/s  %12.0f it/CPU-s" % (r + 1, name, wall,
                                                                        per_cpu), flush=True)
                time.sleep(0.5)
    finally:
        os.unlink(gate)
        proc.wait(timeout=60)
        shutil.rmtree(work, ignore_errors=True)
    base_wall = statistics.median(x[0] for x in results["no sampler"]) or 1.0
    base_cpu = statistics.median(x[1] for x in results["no sampler"]) or 1.0
    print("\n## target slowdown at %d Hz (%s, %d busy threads, %d frames deep; median of %d "
          "rounds)\n" % (a.rate, a.python, THREADS, DEPTH, a.rounds))
    print("| sampler | it/s (wall) | vs none | it per target CPU-s | vs none (rounds) | "
          "sampler CPU | µs/sample |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, rows in results.items():
        wall = statistics.median(x[0] for x in rows)
        per_cpu = statistics.median(x[1] for x in rows)
        own = statistics.median(x[2] for x in rows)
        per_sample = [x[3] for x in rows if x[3]]
        print("| %s | %.0f | %.3f | %.0f | %.3f (%s) | %s | %s |" % (
            name, wall, wall / base_wall, per_cpu, per_cpu / base_cpu,
            ", ".join("%.3f" % (x[1] / base_cpu) for x in rows),
            "-" if name == "no sampler" else "%.0f%%" % (100 * own),
            "%.0f (%.0f-%.0f)" % (statistics.median(per_sample), min(per_sample),
                                 max(per_sample)) if per_sample else "-"))


if __name__ == "__main__":
    main()
