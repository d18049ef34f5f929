#!/usr/bin/env python3
"""`jitunwind record --perf`: perf events, the target never stopped nor
traced. A target spins at a known Python depth on its main thread and, once
recording has begun, starts a second thread spinning at another known
depth. The recorded stacks must each reach the thread's root (_start, or
the thread's clone), hold the Python frames of the thread in their known
structure when merged, and the target's TracerPid must stay 0 throughout.

Usage: test_cli_perf.py BUILD_DIR PYTHON[,ARG...] [ENV=VALUE...]
PYTHON "extra:NAME" runs each interpreter of $JITUNWIND_EXTRA_PYTHONS whose
file is named NAME (with the given environment, e.g. PYTHON_JIT=1).
Exit 0 on success, 1 on failure, 77 to skip.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from demo_stack import end_target, fail  # noqa: E402
from extra_pythons import debug_root  # noqa: E402
from ready_target import built_tool, interpreters, start_ready  # noqa: E402

SKIP = 77
SECONDS, HZ = 3, 200
# The most the kernel copies: a JIT's optimizer keeps a trace buffer of
# tens of KiB on the stack, and a sample taken in it must still reach _start.
STACK = 65000
DEPTH_MAIN, DEPTH_LATE = 12, 7
THREAD_ROOTS = ("__clone3", "clone3", "__clone", "clone", "start_thread")
# A libc without symbols (a distribution layout's own glibc) names its roots so.
UNNAMED_LIBC = "?? (libc.so.6)"
# A JIT frame whose executor is not known to have existed at the sample (one
# that replaces its executors continuously): named so, the walk may stop there.
REPLACED_JIT = "[JIT code replaced since the sample]"
# The JIT optimizer's frames (its trace buffer, its analysis context) can be
# deeper than the largest stack copy: a sample in them may stop in any of them.
OPTIMIZER = ("uop_optimize", "_Py_uop_analyze_and_optimize", "optimize_uops")

TARGET = r'''
import os, sys, threading
ready, trigger = sys.argv[1], sys.argv[2]

# The counters stay small ints: a JIT specialised on them is not thrown
# away and remade as they grow.
def spin_late():
    x = 0
    while True:
        x = (x + 1) & 0xffff

def down_late(n):
    if n:
        return down_late(n - 1)
    spin_late()

def spin_main():
    x, started = 0, False
    while True:
        x += 1
        if x == 200000:
            x = 0
            if not started and os.path.exists(trigger):
                started = True
                threading.Thread(target=down_late, args=(%d,), daemon=True).start()

def down_main(n):
    if n:
        return down_main(n - 1)
    spin_main()

open(ready, "w").close()
down_main(%d)
''' % (DEPTH_LATE - 1, DEPTH_MAIN - 1)


def perf_available():
    """Whether this process may open a cpu-clock event on itself."""
    import ctypes
    import struct
    libc = ctypes.CDLL(None, use_errno=True)
    attr = bytearray(128)
    struct.pack_into("IIQ", attr, 0, 1, 128, 0)  # PERF_TYPE_SOFTWARE, size, CPU_CLOCK
    struct.pack_into("Q", attr, 40, 1 << 5 | 1 << 6)  # exclude_kernel, exclude_hv
    buf = ctypes.create_string_buffer(bytes(attr), 128)
    nr = {"x86_64": 298, "aarch64": 241}.get(os.uname().machine)
    if nr is None:
        return "no perf_event_open number known for %s" % os.uname().machine
    fd = libc.syscall(nr, buf, 0, -1, -1, 0)
    if fd < 0:
        return os.strerror(ctypes.get_errno())
    os.close(fd)
    return None


def perf_test_start(doc, nargs, pythons=()):
    """A perf test's start from sys.argv: the built jitunwind and None, or
    None and the exit code: 2 with `doc` printed when not given `nargs`
    arguments, SKIP with the reason when perf events are refused or an
    interpreter of `pythons` is not installed."""
    if len(sys.argv) != nargs + 1:
        print(doc)
        return None, 2
    j = built_tool(sys.argv[1])
    why = perf_available()
    if why:
        print("skip: perf events are refused here (%s)" % why)
        return None, SKIP
    for python in pythons:
        if not os.access(python, os.X_OK):
            print("skip: %s is not installed" % python)
            return None, SKIP
    return j, None


def per_cpu_refused(returncode, err):
    """Whether a `record --perf --all` run that ended with `returncode` and
    `err` was refused per-CPU perf events (said, for a skip); any other
    failure fails the test."""
    if returncode == 3 and "perf events refused" in err:
        print("skip: per-CPU perf events are refused here: %s" % err.strip())
        return True
    if returncode != 0:
        fail("record --perf --all exited %d: %s" % (returncode, err))
    return False


def tracer_pid(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("TracerPid:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def check_stacks(text, python):
    """(merged stacks seen per thread, native-only stacks) after checking
    every line."""
    merged = {"main": 0, "late": 0}
    native = 0
    cut = {"optimizer": 0, "replaced": 0}
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            fail("not a collapsed line: %r" % line)
        frames = stack.split(";")
        if frames[0] == REPLACED_JIT:
            cut["replaced"] += int(count)
            continue
        if frames[0] != "_start" and frames[0] not in THREAD_ROOTS + (UNNAMED_LIBC,):
            if any(f in OPTIMIZER for f in frames):
                cut["optimizer"] += int(count)
                continue
            fail("%s: a stack that does not reach its thread's root: %s" % (python, stack))
        functions = {f.split(" (")[0] for f in frames if f.endswith(")") and ".py:" in f}
        for f in frames:
            if f.startswith("py::jit:") and (mains_or_lates(frames)) and \
                    f[len("py::jit:"):].split(" ")[0] not in functions:
                fail("%s: a JIT frame named for a function not on the stack: %s" % (python, stack))
        mains = sum(f.startswith("down_main (") for f in frames)
        lates = sum(f.startswith("down_late (") for f in frames)
        if mains and lates:
            fail("%s: both threads' frames in one stack: %s" % (python, stack))
        if mains:
            if frames[0] not in ("_start", UNNAMED_LIBC) or mains != DEPTH_MAIN or \
                    not any(f.startswith("spin_main (") for f in frames):
                fail("%s: the main thread's Python frames are not its %d down_main + spin_main: %s"
                     % (python, DEPTH_MAIN, stack))
            merged["main"] += int(count)
        elif lates:
            if frames[0] not in THREAD_ROOTS + (UNNAMED_LIBC,) or lates != DEPTH_LATE or \
                    not any(f.startswith("spin_late (") for f in frames):
                fail("%s: the late thread's Python frames are not its %d down_late + spin_late: %s"
                     % (python, DEPTH_LATE, stack))
            merged["late"] += int(count)
        elif any(" (" in f and f.endswith(")") and ".py:" in f for f in frames):
            fail("%s: Python frames outside the known structure: %s" % (python, stack))
        else:
            native += int(count)
    return merged, native, cut


def mains_or_lates(frames):
    """Whether a stack holds merged Python frames of the target."""
    return any(f.startswith(("down_main (", "down_late (")) for f in frames)


def run(j, command, env):
    """Record the target run by `command`; 0, or 77 when the interpreter is absent."""
    python = command[0]
    if not os.access(python, os.X_OK):
        print("skip: %s is not installed" % python)
        return SKIP
    work = tempfile.mkdtemp(prefix="ju-perf-")
    trigger = os.path.join(work, "trigger")
    target = start_ready(command, TARGET, work, [trigger], env=env)
    try:
        out = os.path.join(work, "out.txt")
        debug = debug_root(python)
        rec = subprocess.Popen([j, "record", str(target.pid), "--perf", "-F", str(HZ),
                                "-d", str(SECONDS), "-o", out, "--stack-size", str(STACK)] +
                               (["--debug-file-directory", debug] if debug else []),
                               stderr=subprocess.PIPE, text=True)
        first = rec.stderr.readline()  # the first progress line: sampling has begun
        if "samples" not in first:
            fail("no progress line from record --perf: %r" % first)
        open(trigger, "w").close()
        traced = set()
        while rec.poll() is None:
            traced.add(tracer_pid(target.pid))
            time.sleep(0.05)
        err = first + rec.stderr.read()
        if rec.returncode != 0:
            fail("record --perf exited %d: %s" % (rec.returncode, err))
        if traced - {0}:
            fail("the target was traced while recording (TracerPid %s)" % sorted(traced))
        if "perf: " not in err or " lost, " not in err or " throttled" not in err:
            fail("no perf summary (lost, throttled) on stderr: %s" % err)
        if "from 2 threads" not in err:
            fail("the thread started after recording began was not sampled: %s" % err)
        with open(out) as f:
            text = f.read()
        merged, native, cut = check_stacks(text, python)
        # Only the optimizer's stacks may stop short of the root in the
        # count; the replaced JIT code's are counted on their own line.
        short = re.search(r" (\d+) did not reach the thread's root", err)
        if not short or int(short.group(1)) != cut["optimizer"]:
            fail("%s: stacks did not reach their root: %s" % (python, err))
        if not merged["main"] or not merged["late"]:
            fail("%s: no merged stack of %s: %s" % (
                python, [k for k, v in merged.items() if not v], err))
        print("ok: %s: merged %s, native-only %d, cut short %s" % (python, merged, native, cut))
        print(err.strip())
    finally:
        end_target(target)
        shutil.rmtree(work, ignore_errors=True)
    return 0


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    j = built_tool(sys.argv[1])
    env = dict(os.environ)
    for kv in sys.argv[3:]:
        k, _, v = kv.partition("=")
        env[k] = v
    why = perf_available()
    if why:
        print("skip: perf events are refused here (%s)" % why)
        return SKIP
    commands = interpreters(sys.argv[2])
    if not commands:
        print("skip: JITUNWIND_EXTRA_PYTHONS names no %s" % sys.argv[2])
        return SKIP
    codes = [run(j, command, env) for command in commands]
    return 0 if 0 in codes else SKIP


if __name__ == "__main__":
    sys.exit(main())
