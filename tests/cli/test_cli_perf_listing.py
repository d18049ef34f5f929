#!/usr/bin/env python3
"""`jitunwind record --perf` keeps its listing of the target's Python thread
states between ring readings, yet never misses a thread's Python frames for
it. The target (Debian's python3.11) starts a thread every 0.1 s, each
spinning 0.3 s at a known Python depth, then sleeping (no samples) before it
ends; its thread states come and go, their memory reused. Two things must
hold:

- the threads' samples in Python code (the eval loop's frames) have their
  Python frames merged (at most MAX_UNMERGED of them native-only): a thread
  whose state the kept listing lacks makes it be read again at once;
- the listing is read far less often than the rings (--stats: at most
  MAX_LISTING_SHARE of the readings), where it was read at each;
- the rings are read when woken or every 10 ms, not in a loop: an ended
  thread's event, hung up, does not keep the reader's poll returning
  (at most MAX_READINGS a second);
- a thread's later samples in one reading take the Python frames read for
  its first (--stats: some reused), and are still checked one by one (the
  merged ones above hold the thread's frames).

Usage: test_cli_perf_listing.py BUILD_DIR
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
from test_cli_perf import THREAD_ROOTS, UNNAMED_LIBC, perf_test_start  # noqa: E402

SKIP = 77
PYTHON = "/usr/bin/python3.11"
SECONDS, HZ = 4, 1000
DEPTH = 6
MAX_UNMERGED = 0.2
MAX_LISTING_SHARE = 0.5
MAX_READINGS = 400  # a second: every 10 ms, and a wake-up each 8 samples of a thread at HZ
EVAL = "_PyEval_EvalFrameDefault"

TARGET = r'''
import sys, threading, time
ready = sys.argv[1]

def spin_brief():
    end = time.monotonic() + 0.3
    x = 0
    while time.monotonic() < end:
        x = (x + 1) & 0xffff
    time.sleep(0.2)  # off the CPU: no sample is taken as the thread ends

def down_brief(n):
    if n:
        return down_brief(n - 1)
    spin_brief()

open(ready, "w").close()
while True:
    threading.Thread(target=down_brief, args=(%d,), daemon=True).start()
    time.sleep(0.1)
''' % (DEPTH - 1)


def count(text):
    """(merged, native-only) samples of the started threads in Python code
    (native-only: the eval loop's frames and no Python frame), after
    checking each merged one's Python frames."""
    merged = unmerged = 0
    for line in text.splitlines():
        stack, _, n = line.rpartition(" ")
        if not stack or not n.isdigit():
            fail("not a collapsed line: %r" % line)
        frames = stack.split(";")
        if frames[0] not in THREAD_ROOTS + (UNNAMED_LIBC,):
            continue
        downs = sum(f.startswith("down_brief (") for f in frames)
        if downs:
            if downs != DEPTH or not any(f.startswith("spin_brief (") for f in frames):
                fail("the thread's Python frames are not its %d down_brief + spin_brief: %s"
                     % (DEPTH, stack))
            merged += int(n)
        elif EVAL in frames and not any(".py:" in f for f in frames):
            unmerged += int(n)
    return merged, unmerged


def main():
    j, code = perf_test_start(__doc__, 1, [PYTHON])
    if code is not None:
        return code
    work = tempfile.mkdtemp(prefix="ju-perf-listing-")
    target = start_ready([PYTHON], TARGET, work)
    try:
        out = os.path.join(work, "out.txt")
        rec = subprocess.run([j, "record", str(target.pid), "--perf", "-F", str(HZ),
                              "-d", str(SECONDS), "-o", out, "--stats"],
                             stderr=subprocess.PIPE, text=True, timeout=120)
        if rec.returncode != 0:
            fail("record --perf exited %d: %s" % (rec.returncode, rec.stderr))
        with open(out) as f:
            merged, unmerged = count(f.read())
        if merged + unmerged < 50:
            fail("too few samples of the started threads (%d): %s"
                 % (merged + unmerged, rec.stderr))
        share = unmerged / (merged + unmerged)
        if share > MAX_UNMERGED:
            fail("%d of %d samples of the started threads (%.0f%%) lack their Python frames "
                 "(at most %.0f%% allowed): %s" % (unmerged, merged + unmerged, 100 * share,
                                                   100 * MAX_UNMERGED, rec.stderr))
        readings = re.search(r"^ring readings: (\d+)$", rec.stderr, re.M)
        listings = re.search(r"^Python thread listings: (\d+)$", rec.stderr, re.M)
        if not readings or not listings:
            fail("--stats said no ring readings or Python thread listings: %s" % rec.stderr)
        readings, listings = int(readings.group(1)), int(listings.group(1))
        if readings > MAX_READINGS * SECONDS:
            fail("the rings were read %d times in %d s (at most %d a second allowed): the "
                 "reader spins" % (readings, SECONDS, MAX_READINGS))
        if readings < 20 or listings > MAX_LISTING_SHARE * readings:
            fail("the Python threads were listed %d times in %d ring readings (at most %.0f%% "
                 "of them allowed)" % (listings, readings, 100 * MAX_LISTING_SHARE))
        reused = re.search(r"^Python frames reused within a reading: (\d+)$", rec.stderr, re.M)
        if not reused or int(reused.group(1)) == 0:
            fail("no sample took the Python frames read for its thread's earlier sample in "
                 "the same reading: %s" % rec.stderr)
        print("ok: %d merged, %d native-only; %d listings in %d ring readings; %s reused"
              % (merged, unmerged, listings, readings, reused.group(1)))
    finally:
        end_target(target)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
