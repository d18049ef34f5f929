#!/usr/bin/env python3
"""`record --perf` on a thread that reads the clock without pause: many
samples are taken in the kernel's vDSO (clock_gettime), which no file maps.
Its image is added as a module, so those frames are named from its symbols
and unwound with its CFI: every stack reaches _start.

Usage: test_cli_perf_vdso.py BUILD_DIR
Exit 0 on success, 1 on failure, 77 to skip.
"""

import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from demo_stack import end_target, fail  # noqa: E402
from ready_target import built_tool, record_perf, rooted_stacks, start_ready  # noqa: E402

SKIP = 77
PYTHON = "/usr/bin/python3.11"

TARGET = r'''
import sys, time
open(sys.argv[1], "w").close()
while True:
    time.monotonic()
'''


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    j = built_tool(sys.argv[1])
    if not os.access(PYTHON, os.X_OK):
        print("skip: %s is not installed" % PYTHON)
        return SKIP
    work = tempfile.mkdtemp(prefix="ju-vdso-")
    target = start_ready([PYTHON], TARGET, work)
    try:
        r = record_perf(j, target, 1000, 3)
        if r is None:
            return SKIP
        in_vdso = 0
        for frames, count in rooted_stacks(r):
            if "?? (anonymous)" in frames:
                fail("a frame in no module: %s" % ";".join(frames))
            # libc's clock_gettime calls the vDSO's
            if frames[-2:] == ["clock_gettime", "clock_gettime"]:
                in_vdso += count
        if not in_vdso:
            print("skip: no sample was taken in the vDSO (a clock source it does not "
                  "serve?): %s" % r.stderr.strip())
            return SKIP
        print("ok: %d samples in the vDSO, every stack from _start" % in_vdso)
    finally:
        end_target(target)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
