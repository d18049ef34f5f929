#!/usr/bin/env python3
"""`jitunwind record --perf --all`: every process of the machine sampled
at once, none traced. Three targets spin beside whatever else the machine
runs: Debian's python3.11 (CFI only), pyenv's 3.12.1 under -X perf
(trampolines), each at its own known Python depth under its own function
names, and a native program spinning two calls below main. Each target's stacks must be named by
their process (the root frame `Process PID "name"`), reach its thread's
root, and, for the Python ones, hold at least one merged stack of exactly
that target's frames in their known structure (never the other's). Every
stack of the profile must have a process root. The targets' TracerPid
stays 0.

Usage: test_cli_perf_all.py BUILD_DIR NATIVE_SPIN
Exit 0 on success, 1 on failure, 77 to skip.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
sys.path.insert(0, HERE)
from demo_stack import end_target, fail  # noqa: E402
from ready_target import start_ready  # noqa: E402
from test_cli_perf import (THREAD_ROOTS, UNNAMED_LIBC, per_cpu_refused,  # noqa: E402
                           perf_test_start, tracer_pid)

SKIP = 77
SECONDS, HZ = 10, 250
PYTHONS = {  # name: (command, depth)
    "deb": (["/usr/bin/python3.11"], 9),
    "pyenv": ([os.path.expanduser("~/.pyenv/versions/3.12.1/bin/python3.12"), "-X", "perf"], 6),
}
ROOTS = ("_start", UNNAMED_LIBC) + THREAD_ROOTS
NATIVE_FRAMES = ["main", "native_spin_outer", "native_spin_inner"]

TARGET = r'''
import sys
def spin_%(n)s():
    x = 0
    while True:
        x = (x + 1) & 0xffff

def down_%(n)s(n):
    if n:
        return down_%(n)s(n - 1)
    spin_%(n)s()

open(sys.argv[1], "w").close()
down_%(n)s(%(d)d)
'''


def check(text, targets, pythons=PYTHONS):
    """{pid: [stacks, merged]} of the targets after checking every line;
    `pythons` names the Python targets' functions."""
    seen = {pid: [0, 0] for pid in targets}
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            fail("not a collapsed line: %r" % line)
        frames = stack.split(";")
        if not frames[0].startswith("Process "):
            fail("a stack without its process: %s" % stack)
        pid = int(frames[0].split()[1])
        if pid not in targets:
            continue
        name, depth, comm = targets[pid]
        if frames[0] != 'Process %d "%s"' % (pid, comm):
            fail("process %d named otherwise than %s: %s" % (pid, comm, frames[0]))
        if len(frames) < 2 or frames[1] not in ROOTS:
            fail("process %d: a stack that does not reach its thread's root: %s" % (pid, stack))
        seen[pid][0] += int(count)
        if name == "native":
            got = [f for f in frames if f in NATIVE_FRAMES]
            if len(got) < 2 or got != NATIVE_FRAMES[:len(got)] or frames[-1] != got[-1]:
                fail("process %d: not main > native_spin_outer > native_spin_inner: %s"
                     % (pid, stack))
            continue
        for other in pythons:
            if other != name and any(f.startswith("down_%s (" % other) for f in frames):
                fail("process %d (%s): another target's frames: %s" % (pid, name, stack))
        downs = sum(f.startswith("down_%s (" % name) for f in frames)
        if downs:
            if downs != depth + 1 or not any(f.startswith("spin_%s (" % name) for f in frames):
                fail("process %d (%s): Python frames not its %d down + spin: %s"
                     % (pid, name, depth + 1, stack))
            seen[pid][1] += int(count)
        elif any(".py:" in f for f in frames):
            fail("process %d (%s): Python frames outside the known structure: %s"
                 % (pid, name, stack))
    return seen


def main():
    j, code = perf_test_start(__doc__, 2, [c[0] for c, _ in PYTHONS.values()])
    if code is not None:
        return code
    work = tempfile.mkdtemp(prefix="ju-perf-all-")
    procs, targets = [], {}
    try:
        for name, (command, depth) in PYTHONS.items():
            sub = os.path.join(work, name)
            os.mkdir(sub)
            p = start_ready(command, TARGET % {"n": name, "d": depth}, sub)
            procs.append(p)
            targets[p.pid] = (name, depth, os.path.basename(command[0])[:15])
        native = subprocess.Popen([sys.argv[2]])
        procs.append(native)
        targets[native.pid] = ("native", 0, os.path.basename(sys.argv[2])[:15])
        out = os.path.join(work, "out.txt")
        rec = subprocess.Popen([j, "record", "--perf", "--all", "-F", str(HZ), "-d",
                                str(SECONDS), "-o", out], stderr=subprocess.PIPE, text=True)
        traced = set()
        while rec.poll() is None:
            traced |= {tracer_pid(p.pid) for p in procs}
            time.sleep(0.05)
        err = rec.stderr.read()
        if per_cpu_refused(rec.returncode, err):
            return SKIP
        if traced - {0}:
            fail("a target was traced while recording (TracerPid %s)" % sorted(traced))
        if "processes sampled" not in err:
            fail("no count of the processes sampled: %s" % err)
        with open(out) as f:
            seen = check(f.read(), targets)
        for pid, (stacks, merged) in seen.items():
            name = targets[pid][0]
            if not stacks:
                fail("%s (process %d) was never sampled: %s" % (name, pid, err))
            if name in PYTHONS and not merged:
                fail("%s (process %d): no stack with its Python frames: %s" % (name, pid, err))
        print("ok: %s" % {targets[p][0]: v for p, v in seen.items()})
        print(err.strip())
    finally:
        for p in procs:
            end_target(p)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
