#!/usr/bin/env python3
"""`record --nonblocking`'s schedule, on cli.read_batch's target (a thread
100 Python frames deep, Debian's python3.11):

  checks   whether the process is still the one sampled (not exited, not
           exec'ed) is asked at most every millisecond, not at every pass:
           at a rate the machine cannot keep (-F 1000000), --stats' "exit
           and exec checks" are at most about one a millisecond of the run
           while the passes are many more; every stack is still whole.
  catchup  woken late, it takes the passes it owes back to back: the
           recorder stopped (SIGSTOP) for 40 ms ten times in a 2 s run at
           1 kHz still takes at least CATCH_UP_SHARE of the 2,000 passes,
           less those owed for longer than CATCH_UP_SECONDS (dropping them
           loses a fifth); stopped once for 0.5 s, it takes only the last
           CATCH_UP_SECONDS of the passes owed, not all 500.

Usage: test_cli_schedule.py BUILD_DIR checks|catchup
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
from demo_stack import end_target, fail  # noqa: E402
from ready_target import built_tool, start_ready  # noqa: E402
from test_cli_read_batch import PYTHON, TARGET, whole_recursion  # noqa: E402

SKIP = 77
SECONDS = 2.0
CATCH_UP_SHARE = 0.88
CATCH_UP_SECONDS = 0.1  # record_command.c's bound


def stat(err, name):
    m = re.search(r"^%s: (\d+)$" % name, err, re.M)
    if not m:
        fail("no %r line in --stats: %s" % (name, err[-2000:]))
    return int(m.group(1))


def mode_checks(j, pid):
    t0 = time.monotonic()
    r = subprocess.run([j, "record", str(pid), "--nonblocking", "-F", "1000000", "-d", "1.5",
                        "--stats"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=120)
    wall = time.monotonic() - t0
    if r.returncode != 0:
        fail("record -F 1000000 exited %d: %s" % (r.returncode, r.stderr))
    samples, checks = stat(r.stderr, "samples"), stat(r.stderr, "exit and exec checks")
    whole_recursion(r.stdout, "-F 1000000")
    if checks > 1000 * wall + 10:
        fail("%d exit and exec checks in %.2f s (%d passes): more than one a millisecond"
             % (checks, wall, samples))
    if samples < 2 * 1000 * wall:
        print("SKIP: only %d passes in %.2f s: too few to tell checks from passes"
              % (samples, wall))
        return SKIP
    print("ok: -F 1000000: %d exit and exec checks for %d passes in %.2f s" % (
        checks, samples, wall))
    return 0


def stopped_run(j, pid, stops, length):
    """A 1 kHz record of SECONDS stopped `stops` times for `length` s:
    (passes, seconds it was stopped, of them seconds past the bound)."""
    rec = subprocess.Popen([j, "record", str(pid), "--nonblocking", "-F", "1000", "-d",
                            str(SECONDS), "--stats"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    stopped = past = 0.0
    time.sleep(0.3)
    for _ in range(stops):
        t0 = time.monotonic()
        rec.send_signal(signal.SIGSTOP)
        time.sleep(length)
        rec.send_signal(signal.SIGCONT)
        stopped += time.monotonic() - t0
        past += max(0.0, time.monotonic() - t0 - CATCH_UP_SECONDS)
        time.sleep(0.08)
    out, err = rec.communicate(timeout=60)
    if rec.returncode != 0:
        fail("record -F 1000 exited %d: %s" % (rec.returncode, err))
    whole_recursion(out, "-F 1000 stopped")
    return stat(err, "samples"), stopped, past


def mode_catchup(j, pid):
    passes, stopped, past = stopped_run(j, pid, 10, 0.04)
    least = CATCH_UP_SHARE * 1000 * (SECONDS - past)
    if passes < least:
        fail("stopped 10 times for 40 ms (%.3f s in all, %.3f s past the bound): %d passes, "
             "fewer than %d" % (stopped, past, passes, least))
    print("ok: stopped 10 times for 40 ms (%.3f s in all): %d passes of the %d asked (at least "
          "%d)" % (stopped, passes, 1000 * SECONDS, least))
    passes, stopped, _ = stopped_run(j, pid, 1, 0.5)
    most = 1000 * (SECONDS - stopped + CATCH_UP_SECONDS) + 40
    if passes > most:
        fail("stopped once for %.3f s: %d passes, more than the %d not owed for longer than "
             "%.2f s" % (stopped, passes, most, CATCH_UP_SECONDS))
    print("ok: stopped once for %.3f s: %d passes (at most %d)" % (stopped, passes, most))
    return 0


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("checks", "catchup"):
        print(__doc__)
        return 2
    j = built_tool(sys.argv[1])
    if not os.access(PYTHON, os.X_OK):
        print("SKIP: %s is not installed" % PYTHON)
        return SKIP
    work = tempfile.mkdtemp(prefix="ju-schedule-")
    target = start_ready([PYTHON], TARGET, work)
    try:
        return (mode_checks if sys.argv[2] == "checks" else mode_catchup)(j, target.pid)
    finally:
        end_target(target)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
