#!/usr/bin/env python3
"""`jitunwind record --perf --all` and a PID used by two processes in one
recording: a native program spinning two calls below main runs before the
recording starts (read from /proc at the start), is killed while the
recorder runs, and its PID is given to a Python process (Debian's
python3.11 spinning under known function names) through
/proc/sys/kernel/ns_last_pid. Each process's samples must be unwound with
its own files and named by its own program: the native one's stacks under
`Process PID "ju_native_spin"` with its native frames and no Python frame,
the Python one's under `Process PID "python3.11"` with at least one merged
stack of its known Python frames, never the other's frames.

Usage: test_cli_perf_all_reused.py BUILD_DIR NATIVE_SPIN
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
from test_cli_perf import THREAD_ROOTS, UNNAMED_LIBC, per_cpu_refused, perf_test_start  # noqa: E402

SKIP = 77
HZ = 250
PYTHON = "/usr/bin/python3.11"
LAST_PID = "/proc/sys/kernel/ns_last_pid"
ROOTS = ("_start", UNNAMED_LIBC) + THREAD_ROOTS
NATIVE_FRAMES = ["main", "native_spin_outer", "native_spin_inner"]
TRIES = 200  # forks until one gets the freed PID (other processes may take it first)

TARGET = r'''
import sys, time
def reborn_spin(end):
    x = 0
    while time.monotonic() < end:
        x = (x + 1) & 0xffff

def reborn_down(n, end):
    if n:
        return reborn_down(n - 1, end)
    reborn_spin(end)

reborn_down(3, time.monotonic() + float(sys.argv[1]))
'''
PY_FRAME = re.compile(r"^(\S+) \(.*\.py:\d+\)$")
PY_FRAMES = ["<module>", "reborn_down", "reborn_down", "reborn_down", "reborn_down",
             "reborn_spin"]


def python_frames(frames):
    """The Python frames of a collapsed stack (`name (file.py:line)`), by name."""
    return [m.group(1) for m in map(PY_FRAME.match, frames) if m]


def take_pid(pid, argv):
    """A process of `argv` with PID `pid`, or None after TRIES forks."""
    for _ in range(TRIES):
        try:
            with open(LAST_PID, "w") as f:
                f.write(str(pid - 1))
        except OSError as e:
            print("skip: %s cannot be written here (%s)" % (LAST_PID, e))
            return None
        proc = subprocess.Popen(argv)
        if proc.pid == pid:
            return proc
        proc.kill()
        proc.wait()
    fail("no fork of %d got the freed PID %d" % (TRIES, pid))


def check(text, pid):
    """(native stacks, merged Python stacks) of `pid` after checking each."""
    native = merged = 0
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        if not frames[0].startswith("Process %d " % pid):
            continue
        names = set(frames)
        pyframes = python_frames(frames)
        if frames[0] == 'Process %d "ju_native_spin"' % pid:
            if pyframes or any(f.startswith("reborn_") for f in frames):
                fail("the native process's stack holds Python frames: %s" % stack)
            if "native_spin_inner" in names:
                if frames[1] not in ROOTS or [f for f in frames if f in NATIVE_FRAMES] != \
                        NATIVE_FRAMES:
                    fail("the native process: not root > main > native_spin_outer > "
                         "native_spin_inner: %s" % stack)
                native += int(count)
        elif frames[0] == 'Process %d "python3.11"' % pid:
            if names & set(NATIVE_FRAMES):
                fail("the Python process's stack holds the native program's frames: %s"
                     % stack)
            if pyframes:
                if frames[1] not in ROOTS:
                    fail("the Python process: a stack not from its root: %s" % stack)
                if pyframes != PY_FRAMES[:len(pyframes)]:
                    fail("the Python process: Python frames not as it runs them: %s" % stack)
                if pyframes == PY_FRAMES:
                    merged += int(count)
        elif "native_spin_inner" in names or any(f.startswith("reborn_") for f in frames):
            fail("a stack of PID %d named by neither program: %s" % (pid, stack))
    return native, merged


def main():
    j, code = perf_test_start(__doc__, 2, (PYTHON,))
    if code is not None:
        return code
    if os.geteuid() != 0:
        print("skip: giving a PID to a new process (%s) needs root" % LAST_PID)
        return SKIP
    work = tempfile.mkdtemp(prefix="ju-perf-reused-")
    script = os.path.join(work, "reborn.py")
    with open(script, "w") as f:
        f.write(TARGET)
    native = subprocess.Popen([sys.argv[2]])
    rec = reborn = None
    try:
        time.sleep(0.3)  # past its execve
        out = os.path.join(work, "out.txt")
        rec = subprocess.Popen([j, "record", "--perf", "--all", "-F", str(HZ), "-o", out],
                               stderr=subprocess.PIPE, text=True)
        first = rec.stderr.readline()  # the events are open and being read
        if rec.poll() is None:
            time.sleep(1.0)
            pid = native.pid
            native.kill()
            native.wait()
            reborn = take_pid(pid, [PYTHON, script, "2.0"])
            if reborn is None:
                rec.send_signal(signal.SIGINT)
                rec.communicate()
                return SKIP
            reborn.wait(timeout=60)
            time.sleep(0.3)
            rec.send_signal(signal.SIGINT)
        err = first + rec.communicate(timeout=120)[1]
        if per_cpu_refused(rec.returncode, err):
            return SKIP
        with open(out) as f:
            native_samples, merged = check(f.read(), pid)
        if not native_samples:
            fail("no stack of the native program under its name: %s" % err)
        if not merged:
            fail("no merged stack of the Python process that took PID %d: %s" % (pid, err))
        print("ok: PID %d: %d native samples as ju_native_spin, %d merged Python samples as "
              "python3.11" % (pid, native_samples, merged))
    finally:
        for proc in (native, reborn):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
        if rec is not None and rec.poll() is None:
            rec.kill()
            rec.wait()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
