#!/usr/bin/env python3
"""Target slowdown under each sampler at 1 kHz (a benchmark, not a test).

Usage: bench_perf_slowdown.py BUILD_DIR [--rounds N] [--seconds S] [--rate HZ]
                              [--python PYTHON] [--compare OTHER_BUILD_DIR]
                              [--only-perf]

A Python target (Debian's python3.11 by default) runs 4 busy threads, each
a pure-Python loop 30 frames deep; its main thread logs, every 0.25 s, the
iterations done by all of them, the wall time and the process's CPU time.
Each sampler runs for S seconds (default 5; its first second, the
sampler's start-up, left out), with a run without a sampler before it, in
N rounds (default 3):

  kernel only                    BUILD_DIR/tests/bench/bench_perf_rings:
                                 record --perf's perf event on every
                                 thread, its rings read as record --perf
                                 reads them and only emptied (the
                                 kernel's share)
  kernel only, never woken       the same, the kernel never waking the
                                 reader (the rings read every 10 ms): what
                                 the wake-ups cost
  jitunwind record --perf        perf events, never stopping the target
  jitunwind record               each sample stops every thread (ptrace)
  jitunwind record --nonblocking Python stacks read without stopping it
  py-spy record --nonblocking    and py-spy record (blocking), when
                                 BUILD_DIR/peers-venv holds py-spy (as
                                 bench_peers.py installs it)

--compare adds OTHER_BUILD_DIR's `record --perf` (an A/B of two builds
against one target); --only-perf leaves out the samplers that are not
perf events.

Two figures per run, each relative to the mean of the runs without a
sampler just before and after it (the machine's other load drifts; this
pairs each run with its neighbours): the target's iterations per second of
wall time (what a user sees; on a loaded machine it also moves with the
other load), and per second of its own CPU time (the work a CPU second
buys it: the cost a sampler adds inside the target, kernel work in its
context included, and not the time it is kept stopped). The table gives
each sampler's median over the rounds and their range; what `record
--perf` loses beyond "kernel only" is the reader's share (a last line
gives it round by round: record --perf over kernel only), and a first row
each run without a sampler against the two beside it: the noise the
pairing leaves. Beside them: the
sampler's CPU a second of wall time, its CPU per sample (the run's CPU over
the samples it read, start-up included), and for `record --perf` the share
of samples kept native-only (their Python frames not matching) and how
long after its sample a sample's Python frames were read (mean, max).
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
    """run_sampler's (start, end, CPU seconds) for a perf events command
    (record --perf or bench_perf_rings), and from what it printed: the
    samples it read, the share kept native-only (%), and the mean and
    largest delay (ms) from a sample to the reading of its Python frames
    (None where not said)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        err = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             timeout=seconds + grace).stderr
    except subprocess.TimeoutExpired as e:
        err = e.stderr or ""
    t1 = time.perf_counter()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    err = err if isinstance(err, str) else err.decode()
    m = re.search(r"perf: (\d+) samples from", err)
    native = re.search(r"\(([\d.]+)%\) kept native-only", err)
    late = re.search(r"read ([\d.]+) ms after their sample on average, at most ([\d.]+) ms",
                     err)
    return (t0, t1, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
            int(m.group(1)) if m else 0, float(native.group(1)) if native else None,
            (float(late.group(1)), float(late.group(2))) if late else None)


def samplers(build, pid, rate, seconds, work, compare=None, only_perf=False):
    ours = os.path.join(build, "tools", "jitunwind", "jitunwind")
    rings = os.path.join(build, "tests", "bench", "bench_perf_rings")
    common = ["-F", str(rate), "-d", str(seconds), "-o", os.devnull]
    rows = [("kernel only (rings emptied)", [rings, str(pid), str(seconds), str(rate)]),
            ("kernel only, never woken", [rings, str(pid), str(seconds), str(rate), "16384", "0"]),
            ("jitunwind record --perf", [ours, "record", str(pid), "--perf"] + common)]
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
    ap.add_argument("--only-perf", action="store_true", help="perf events only")
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
        last_none = measure(None, a, log)
        nones = [last_none]
        for r in range(a.rounds):
            for name, cmd in runs:
                run = measure(cmd, a, log)
                none = measure(None, a, log)
                pair = [(x + y) / 2 for x, y in zip(last_none[:2], none[:2])]
                results.setdefault(name, []).append(
                    (run[0] / pair[0] if pair[0] else 0.0, run[1] / pair[1] if pair[1] else 0.0)
                    + run[2:])
                last_none = none
                nones.append(none)
                print("round %d: %-46s %.3f of the wall rate, %.3f per CPU-s" % (
                    r + 1, name, results[name][-1][0], results[name][-1][1]), flush=True)
    finally:
        os.unlink(gate)
        proc.wait(timeout=60)
        shutil.rmtree(work, ignore_errors=True)
    print("\n## target slowdown at %d Hz (%s, %d busy threads, %d frames deep; %d rounds, "
          "each run against the runs without a sampler beside it)\n" % (
              a.rate, a.python, THREADS, DEPTH, a.rounds))
    print("Without a sampler: %.0f it/s (wall), %.0f it per target CPU-s (medians of %d runs)\n"
          % (statistics.median(x[0] for x in nones), statistics.median(x[1] for x in nones),
             len(nones)))
    # Each run without a sampler against the two beside it (the sampler runs
    # between left out): what the pairing leaves of the machine's noise.
    noise = [(b[0] / ((x[0] + c[0]) / 2), b[1] / ((x[1] + c[1]) / 2), None, 0.0, None, None)
             for x, b, c in zip(nones, nones[1:], nones[2:]) if x[0] and x[1] and c[0] and c[1]]
    if noise:
        results = dict([("no sampler (against its neighbours: the noise)", noise)] +
                       list(results.items()))
    print("| sampler | it per target CPU-s: median (range) | wall rate: median (range) | "
          "sampler CPU | µs/sample | native-only | Python read after (ms, mean/max) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, rows in results.items():
        def spread(k, fmt="%.3f"):
            xs = [x[k] for x in rows if x[k] is not None]
            if not xs:
                return "-"
            return (fmt + " (" + fmt + "-" + fmt + ")") % (statistics.median(xs), min(xs), max(xs))
        lates = [x[5] for x in rows if x[5]]
        print("| %s | %s | %s | %s | %s | %s | %s |" % (
            name, spread(1), spread(0),
            "-" if rows[0][2] is None else "%.0f%%" % (100 * statistics.median(x[2] for x in rows)),
            spread(3, "%.0f") if any(x[3] for x in rows) else "-",
            spread(4, "%.1f%%"),
            "%.1f / %.1f" % (statistics.median(x[0] for x in lates), max(x[1] for x in lates))
            if lates else "-"))
    floor, ours = results.get("kernel only (rings emptied)"), results.get("jitunwind record --perf")
    if floor and ours:
        share = [o[1] / f[1] for f, o in zip(floor, ours) if f[1]]
        print("\nrecord --perf against the kernel only, round by round (the reader's share: "
              "below 1.000 is what the reader costs the target beyond the kernel's sampling): "
              "median %.3f (%s)" % (statistics.median(share), ", ".join("%.3f" % x for x in share)))


def measure(cmd, a, log):
    """One run (None: no sampler): the target's wall and per-CPU rates, the
    run's CPU a wall second, its CPU per sample (µs; 0 unknown), the share
    kept native-only, the Python frames' delay (run_perf's)."""
    native = late = None
    samples = 0
    if cmd:
        t0, t1, cpu, samples, native, late = run_perf(cmd, a.seconds, grace=5)
    else:
        t0, t1, cpu = run_sampler(None, a.seconds, grace=5)
    wall, per_cpu = rates(log, t0 + 1.0, t1)
    time.sleep(0.5)
    return (wall, per_cpu, cpu / (t1 - t0), 1e6 * cpu / samples if samples else 0.0, native,
            late)


if __name__ == "__main__":
    main()
