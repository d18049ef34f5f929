#!/usr/bin/env python3
"""A native function that realigns its stack defines its CFA from rbx (as
ld.so's lazy-binding resolver does), and the function it calls saved rbx
and keeps changing it: the walk needs the thread's rbx and must restore it
from that callee's save slot. A Python target calls such a function through
ctypes and spins under it; `stack` (registers read with ptrace), `stack
--core` (registers from the core's notes) and `record --perf` (registers
copied with each sample) must each walk through it to the thread's root.

Usage: test_cli_realigned.py BUILD_DIR LIBRARY
Exit 0 on success, 1 on failure, 77 to skip.
"""

import os
import platform
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from demo_stack import end_target, fail  # noqa: E402
from ready_target import built_tool, record_perf, rooted_stacks, start_ready  # noqa: E402
from values_target import gcore  # noqa: E402

SKIP = 77
PYTHON = "/usr/bin/python3.11"
THROUGH = ["realigned_run", "ju_realigned_call", "realigned_spin"]

TARGET = r'''
import ctypes, sys
lib = ctypes.CDLL(sys.argv[2])
open(sys.argv[1], "w").close()
lib.realigned_run()
'''


def check_text(label, j, args):
    """`stack` output: the spin, the realigning function and its caller,
    and no cut-short stack."""
    r = subprocess.run([j, "stack"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=120)
    if r.returncode != 0:
        fail("%s: stack exited %d: %s" % (label, r.returncode, r.stderr))
    names = [line.split(" in ", 1)[1].split(" ")[0] for line in r.stdout.splitlines()
             if line.startswith("#") and " in " in line]
    if names[:3] != THROUGH[::-1] or "_start" not in names:
        fail("%s: not walked from the spin through ju_realigned_call to _start:\n%s"
             % (label, r.stdout))
    if "cut short" in r.stdout:
        fail("%s: a stack cut short:\n%s" % (label, r.stdout))
    print("ok: %s walked through ju_realigned_call (%d native frames)" % (label, len(names)))


def check_perf(j, target):
    r = record_perf(j, target, 1000, 2)
    if r is None:
        return False
    through = sum(count for frames, count in rooted_stacks(r) if frames[-3:] == THROUGH)
    if not through:
        fail("record --perf: no sample in the spin under ju_realigned_call:\n%s" % r.stdout)
    print("ok: record --perf: %d samples through ju_realigned_call, every stack from _start"
          % through)
    return True


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    if platform.machine() != "x86_64":
        print("skip: the realigning function is written in x86-64 assembly")
        return SKIP
    j = built_tool(sys.argv[1])
    if not os.access(PYTHON, os.X_OK):
        print("skip: %s is not installed" % PYTHON)
        return SKIP
    work = tempfile.mkdtemp(prefix="ju-realigned-")
    target = start_ready([PYTHON], TARGET, work, args=(sys.argv[2],))
    try:
        check_text("stack (ptrace)", j, [str(target.pid)])
        core = os.path.join(work, "core")
        if not gcore(target.pid, core):
            fail("gcore failed")
        check_text("stack --core", j, ["--core", core])
        perf = check_perf(j, target)
    finally:
        end_target(target)
        shutil.rmtree(work, ignore_errors=True)
    return 0 if perf else SKIP


if __name__ == "__main__":
    sys.exit(main())
