#!/usr/bin/env python3
"""`jitunwind record --perf --all` and processes that were running before
recording started, never run execve, and end before they could be opened
through /proc: RUNS native programs are started first, each blocked on its
standard input. Once the recorder runs, it is stopped (SIGSTOP: the
kernel goes on sampling into the rings), BATCH runs are let go, each
spinning about 10 ms of CPU two calls below main, and reaped, and the
recorder is let go (SIGCONT): it reads their samples when they are gone,
and the rings say nothing of their start. Their samples must be unwound
natively from the mappings read from /proc when recording started: at
least MIN_SHOWN of the runs (fewer in proportion to the samples the rings
lost, never fewer than MIN_KEPT) must appear, rooted at `Process PID
"name"` with main > native_brief_outer > native_brief_inner complete to
the thread's root, and the summary must count the processes read at the
start.

Usage: test_cli_perf_all_running.py BUILD_DIR NATIVE_BRIEF
Exit 0 on success, 1 on failure, 77 to skip.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
sys.path.insert(0, HERE)
from demo_stack import fail  # noqa: E402
from test_cli_perf import per_cpu_refused, perf_test_start  # noqa: E402
from test_cli_perf_all_brief import check, runs_wanted  # noqa: E402

SKIP = 77
HZ, RUNS, MIN_SHOWN, MIN_KEPT = 500, 30, 24, 8
BATCH = 3  # runs while the recorder is stopped: ~0.1 s, less than the rings hold (0.5 s)


def main():
    j, code = perf_test_start(__doc__, 2)
    if code is not None:
        return code
    work = tempfile.mkdtemp(prefix="ju-perf-running-")
    runs, rec = [], None
    try:
        runs = [subprocess.Popen([sys.argv[2], "--wait"], stdin=subprocess.PIPE)
                for _ in range(RUNS)]
        time.sleep(0.5)  # every run is past its execve, blocked on its input
        out = os.path.join(work, "out.txt")
        rec = subprocess.Popen([j, "record", "--perf", "--all", "-F", str(HZ), "-o", out],
                               stderr=subprocess.PIPE, text=True)
        # The first progress line: the events are open and being read.
        first = rec.stderr.readline()
        if rec.poll() is None:
            for at in range(0, RUNS, BATCH):
                rec.send_signal(signal.SIGSTOP)
                for run in runs[at:at + BATCH]:
                    run.stdin.close()
                    run.wait()
                rec.send_signal(signal.SIGCONT)
                time.sleep(0.3)
            time.sleep(0.5)
            rec.send_signal(signal.SIGINT)
        err = first + rec.communicate()[1]
        if per_cpu_refused(rec.returncode, err):
            return SKIP
        with open(out) as f:
            shown = check(f.read(), {r.pid for r in runs},
                          os.path.basename(sys.argv[2])[:15])
        wanted, lost, read = runs_wanted(err, MIN_SHOWN, MIN_KEPT)
        if len(shown) < wanted:
            fail("only %d of %d runs started before recording have unwound stacks (at least "
                 "%d expected, %d of %d samples lost): %s"
                 % (len(shown), RUNS, wanted, lost, read + lost, err))
        running = re.search(r"for the (\d+) running at the start", err)
        if not running or int(running.group(1)) < RUNS:
            fail("the summary does not count the %d runs among the processes read at the "
                 "start: %s" % (RUNS, err))
        print("ok: %d of %d runs started before recording unwound (at least %d expected, "
              "%d of %d samples lost)" % (len(shown), RUNS, wanted, lost, read + lost))
        print(err.strip())
    finally:
        if rec is not None and rec.poll() is None:
            rec.send_signal(signal.SIGCONT)
        for run in runs:
            if run.poll() is None:
                run.kill()
                run.wait()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
