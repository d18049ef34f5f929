#!/usr/bin/env python3
"""`jitunwind record --perf` through the test bed's JIT code and perf
trampolines (Debian 3.11, no frame pointers): the demo's structure, with a
leaf that spins in Python so that a cpu-clock event samples it. Every stack
must reach _start, pass through the JIT ranges (py::jit:middle,
py::jit:leaf) and trampolines named as such, and hold the Python frames
outer, middle, inner, leaf in that order.

Usage: test_cli_perf_testbed.py BUILD_DIR
Exit 0 on success, 1 on failure, 77 to skip.
"""

import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from demo_stack import demo_setup, end_target, fail  # noqa: E402
from ready_target import built_tool, record_perf, start_ready  # noqa: E402

SKIP = 77

TARGET = r'''
import sys
import _jitbed

def leaf():
    x = 0
    while True:
        x = (x + 1) & 0xffff

def inner():
    return jit_leaf()

def middle():
    _jitbed.set_trampoline_layout(_jitbed.TRAMPOLINE_LAYOUTS[0])
    return inner()

def outer():
    return jit_middle()

jit_leaf = _jitbed.compile(leaf)
jit_middle = _jitbed.compile(middle)
_jitbed.enable_trampolines("framed")
open(sys.argv[1], "w").close()
outer()
'''


def python_names(frames):
    return [f.split(" (")[0] for f in frames if " (" in f and ".py:" in f]


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    build = sys.argv[1]
    j = built_tool(build)
    setup = demo_setup(build)
    if setup is None:
        return SKIP
    python, _, env = setup
    work = tempfile.mkdtemp(prefix="ju-perf-testbed-")
    target = start_ready([python], TARGET, work,
                         env=env)
    try:
        r = record_perf(j, target, 200, 3)
        if r is None:
            return SKIP
        if " 0 did not reach the thread's root" not in r.stderr:
            fail("stacks did not reach their root: %s" % r.stderr)
        merged = 0
        for line in r.stdout.splitlines():
            stack, _, count = line.rpartition(" ")
            frames = stack.split(";")
            if frames[0] != "_start":
                fail("a stack that does not reach _start: %s" % stack)
            names = python_names(frames)
            if not names:
                continue  # kept native-only: its Python frames did not match
            if names[-4:] != ["outer", "middle", "inner", "leaf"]:
                fail("Python frames not outer, middle, inner, leaf: %s" % stack)
            for want in ("py::jit:middle", "py::jit:leaf", "[trampoline framed]"):
                if not any(want in f for f in frames):
                    fail("no %s frame: %s" % (want, stack))
            merged += int(count)
        if not merged:
            fail("no sample with its Python frames: %s" % r.stderr)
        print("ok: %d samples through the test bed's JIT and trampolines\n%s" % (
            merged, r.stderr.strip()))
    finally:
        end_target(target)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
