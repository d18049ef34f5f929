#!/usr/bin/env python3
"""`jitunwind record --perf` on a target whose Python stack changes faster
than a sample is read: its frames are read after the sample, so some reads
find another stack. The target switches between one eval-loop activation
(spin) and two (spin calling work through map, a C function), so a read that
found the other shape does not match the sample's eval-loop frames: such a
sample must be kept native-only and counted, never merged (a wrong merge
leaves Python frames no native frame was found to run).

Usage: test_cli_perf_mismatch.py BUILD_DIR
Exit 0 on success, 1 on failure, 77 to skip.
"""

import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from demo_stack import end_target, fail  # noqa: E402
from ready_target import built_tool, record_perf  # noqa: E402

SKIP = 77
PYTHON = "/usr/bin/python3.11"
UNPLACED = "[Python frames no native frame was found to run]"

TARGET = r'''
def work(i):
    x = 0
    for _ in range(20):
        x += i
    return x

def spin():
    while True:
        x = 0
        for _ in range(20):
            x += 1
        list(map(work, range(2)))

spin()
'''


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    j = built_tool(sys.argv[1])
    if not os.access(PYTHON, os.X_OK):
        print("skip: %s is not installed" % PYTHON)
        return SKIP
    target = subprocess.Popen([PYTHON, "-c", TARGET])
    try:
        time.sleep(0.5)
        r = record_perf(j, target, 500, 3)
        if r is None:
            return SKIP
        m = re.search(r"merged into (\d+) samples; (\d+) \(([\d.]+)%\) kept native-only", r.stderr)
        if not m:
            fail("no merge rate on stderr: %s" % r.stderr)
        merged, native = int(m.group(1)), int(m.group(2))
        if UNPLACED in r.stdout:
            fail("Python frames merged into a sample they do not match:\n%s" % r.stdout)
        for line in r.stdout.splitlines():
            frames = line.rpartition(" ")[0].split(";")
            if frames[0] != "_start":
                fail("a stack that does not reach _start: %s" % line)
            if any(f.startswith("work (") for f in frames) and \
                    not any(f.startswith("spin (") for f in frames):
                fail("work merged without the spin that called it: %s" % line)
        if not merged:
            fail("no sample was merged: %s" % r.stderr)
        print("ok: merged %d, native-only %d\n%s" % (merged, native, r.stderr.strip()))
        if not native:
            print("skip: no sample's Python frames changed before they were read: the "
                  "native-only path was not exercised")
            return SKIP
    finally:
        end_target(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
