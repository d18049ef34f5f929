#!/usr/bin/env python3
"""`jitunwind record --perf --all` and processes that end before they could
be opened through /proc: a native program that spins about 10 ms of CPU
two calls below main and exits is run RUNS times, one after the other,
while recording. Their samples must be unwound natively from what the
perf rings said of each process (its mappings, its name): at least
MIN_SHOWN of the runs (fewer in proportion to the samples the rings lost,
but never fewer than MIN_KEPT) must appear, each rooted at `Process PID "name"` with
the stack main > native_brief_outer > native_brief_inner (a stack may go on
below, into clock_gettime) complete to the thread's root, and the summary
must count such samples.

Usage: test_cli_perf_all_brief.py BUILD_DIR NATIVE_BRIEF
Exit 0 on success, 1 on failure, 77 to skip.
"""

import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
sys.path.insert(0, HERE)
from demo_stack import fail  # noqa: E402
from test_cli_perf import (THREAD_ROOTS, UNNAMED_LIBC, per_cpu_refused,  # noqa: E402
                           perf_test_start)

SKIP = 77
HZ, RUNS, MIN_SHOWN = 1000, 60, 55
MIN_KEPT = 15  # runs that must be unwound however many samples were lost
ROOTS = ("_start", UNNAMED_LIBC) + THREAD_ROOTS
NATIVE_FRAMES = ["main", "native_brief_outer", "native_brief_inner"]


def check(text, pids, comm):
    """The runs whose stacks hold the known frames, every such stack checked."""
    shown = set()
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            fail("not a collapsed line: %r" % line)
        frames = stack.split(";")
        pid = int(frames[0].split()[1]) if frames[0].startswith("Process ") else 0
        if pid not in pids:
            continue
        got = [f for f in frames if f in NATIVE_FRAMES]
        if not got:
            continue  # the loader or exit, before or after main
        if frames[0] != 'Process %d "%s"' % (pid, comm):
            fail("process %d named otherwise than %s: %s" % (pid, comm, frames[0]))
        at = frames.index(got[0])
        if (frames[1] not in ROOTS or got != NATIVE_FRAMES[:len(got)]
                or frames[at:at + len(got)] != got):
            fail("process %d: not root > main > native_brief_outer > native_brief_inner: %s"
                 % (pid, stack))
        if len(got) == len(NATIVE_FRAMES):
            shown.add(pid)
    return shown


def runs_wanted(err, min_shown, min_kept):
    """(runs wanted, samples lost, samples read) after the run's summary
    `err`: samples the rings lost (the reader behind, on a busy machine:
    they are counted, never unwound) take whole runs with them, their
    mapping records too, so the runs asked for shrink in proportion, to
    no fewer than `min_kept`."""
    counts = re.search(r"perf: (\d+) samples from \d+ threads, (\d+) lost", err)
    if not counts:
        fail("no perf summary line: %s" % err)
    read, lost = int(counts.group(1)), int(counts.group(2))
    return max(min_kept, math.ceil(min_shown * read / max(1, read + lost))), lost, read


def main():
    j, code = perf_test_start(__doc__, 2)
    if code is not None:
        return code
    work = tempfile.mkdtemp(prefix="ju-perf-brief-")
    try:
        out = os.path.join(work, "out.txt")
        rec = subprocess.Popen([j, "record", "--perf", "--all", "-F", str(HZ), "-o", out],
                               stderr=subprocess.PIPE, text=True)
        # The first progress line: the events are open and being read (on a
        # busy machine that can take seconds); a refusal ends it at once.
        first = rec.stderr.readline()
        pids = set()
        if rec.poll() is None:
            for _ in range(RUNS):
                run = subprocess.Popen([sys.argv[2]])
                pids.add(run.pid)
                run.wait()
            time.sleep(0.5)
            rec.send_signal(2)
        err = first + rec.communicate()[1]
        if per_cpu_refused(rec.returncode, err):
            return SKIP
        with open(out) as f:
            shown = check(f.read(), pids, os.path.basename(sys.argv[2])[:15])
        wanted, lost, read = runs_wanted(err, MIN_SHOWN, MIN_KEPT)
        if len(shown) < wanted:
            fail("only %d of %d short-lived runs have unwound stacks (at least %d expected, "
                 "%d of %d samples lost): %s" % (len(shown), RUNS, wanted, lost, read + lost, err))
        if "unwound native-only from their perf records" not in err:
            fail("no count of the samples unwound from perf records: %s" % err)
        print("ok: %d of %d short-lived runs unwound (at least %d expected, %d of %d samples lost)"
              % (len(shown), RUNS, wanted, lost, read + lost))
        print(err.strip())
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
