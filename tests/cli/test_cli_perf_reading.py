#!/usr/bin/env python3
"""When `jitunwind record --perf` reads the rings, and what it says of it.
The reader reads the rings when an event wakes it or every 10 ms; a
reading that finds them empty reads nothing of the process. Two targets
(Debian's python3.11):

- one whose threads all sleep (no sample is taken): the rings are read only
  at the thread list's syncs (every 0.1 s), not at each of the reader's
  10 ms polls (--stats: at most MAX_READINGS_IDLE readings a second);
- one thread spinning DEPTH Python frames deep: its samples have their
  Python frames merged, and the summary says how long after its sample a
  sample's Python frames were read, on average and at most (the average
  not above the largest).

Usage: test_cli_perf_reading.py BUILD_DIR
Exit 0 on success, 1 on failure, 77 to skip.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
sys.path.insert(0, HERE)
from demo_stack import end_target, fail  # noqa: E402
from ready_target import start_ready  # noqa: E402
from test_cli_perf import perf_test_start  # noqa: E402

SKIP = 77
PYTHON = "/usr/bin/python3.11"
SECONDS, HZ = 2, 1000
DEPTH = 5
# The thread list's syncs (10 a second) and a few besides; the reader's
# polls alone would read 100 times a second.
MAX_READINGS_IDLE = 15

IDLE = r'''
import sys, threading, time
threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
open(sys.argv[1], "w").close()
time.sleep(3600)
'''

BUSY = r'''
import sys

def spin():
    x = 0
    while True:
        x = (x + 1) & 0xffff

def down(n):
    if n:
        return down(n - 1)
    spin()

open(sys.argv[1], "w").close()
down(%d)
''' % (DEPTH - 1)


def record(j, source, work):
    """record --perf --stats of a target running `source` (the profile in
    WORK/out.txt): what it said on stderr."""
    target = start_ready([PYTHON], source, work)
    try:
        rec = subprocess.run([j, "record", str(target.pid), "--perf", "-F", str(HZ), "-d",
                              str(SECONDS), "-o", os.path.join(work, "out.txt"), "--stats"],
                             stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        end_target(target)
    if rec.returncode != 0:
        fail("record --perf exited %d: %s" % (rec.returncode, rec.stderr))
    return rec.stderr


def idle(j, work):
    err = record(j, IDLE, work)
    readings = re.search(r"^ring readings: (\d+)$", err, re.M)
    if not readings:
        fail("--stats said no ring readings: %s" % err)
    if int(readings.group(1)) > MAX_READINGS_IDLE * SECONDS:
        fail("the rings of a target that took no sample were read %s times in %d s (at most "
             "%d a second allowed): empty readings are not skipped" % (
                 readings.group(1), SECONDS, MAX_READINGS_IDLE))
    return int(readings.group(1))


def busy(j, work):
    err = record(j, BUSY, work)
    m = re.search(r"Python frames merged into (\d+) samples; \d+ \([\d.]+%\) kept native-only, "
                  r"their Python frames not matching the sample; read ([\d.]+) ms after their "
                  r"sample on average, at most ([\d.]+) ms", err)
    if not m:
        fail("the summary does not say how long after their samples the Python frames were "
             "read: %s" % err)
    merged, mean, most = int(m.group(1)), float(m.group(2)), float(m.group(3))
    if merged == 0:
        fail("no sample of the spinning thread had its Python frames merged: %s" % err)
    if mean > most:
        fail("the average delay (%.1f ms) is above the largest (%.1f ms)" % (mean, most))
    with open(os.path.join(work, "out.txt")) as f:
        if not any(line.count(";down (") == DEPTH for line in f):
            fail("no stack holds the thread's %d down frames" % DEPTH)
    return merged, mean, most


def main():
    j, code = perf_test_start(__doc__, 1, [PYTHON])
    if code is not None:
        return code
    work = tempfile.mkdtemp(prefix="ju-perf-reading-")
    try:
        readings = idle(j, work)
        merged, mean, most = busy(j, work)
        print("ok: %d ring readings of an idle target in %d s; %d samples merged, their Python "
              "frames read %.1f ms after on average, at most %.1f ms" % (
                  readings, SECONDS, merged, mean, most))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
