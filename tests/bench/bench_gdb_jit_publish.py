#!/usr/bin/env python3
"""What publishing through the GDB JIT interface costs stock debuggers (a
program, not a test: run it by hand; it prints figures, asserts nothing).

tests/jitpublish/jit_host registers N one-instruction ranges (plus its two
real ones) with publishing on, in images of
JITUNWIND_GDB_JIT_RANGES_PER_OBJECT ranges, then stops in a callee of its
JIT code. For gdb and lldb-19 (batch mode, no init files) it times the
whole session -- start-up, `run` (images announced to the attached
debugger: on every registration in mode EACH, per full image and flush in
mode BATCHED), and `bt` -- for N = RANGES and N = 0, and prints the ratio; then the same with the images already registered before
the debugger attaches (`attach` to a process that waits), the case of a
debugger called to a running JIT.

Usage: bench_gdb_jit_publish.py BUILD_DIR [--ranges 5000] [--repeat 3]
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time


def timed(cmd, repeat):
    best, out = None, ""
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=1800).stdout
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    return best, out


def launch_cmd(debugger, host, n, mode):
    if debugger == "gdb":
        return ["gdb", "-batch", "-nx", "-ex", "break jit_callee", "-ex", "run %d %d" % (n, mode),
                "-ex", "bt", host]
    return ["lldb-19", "--batch", "--no-lldbinit", "-o", "b jit_callee", "-o",
            "process launch -- %d %d" % (n, mode), "-o", "bt", host]


def attach_time(debugger, host, n, repeat):
    """Start the host stopped before its JIT call (SIGSTOP after
    registering, via JIT_HOST_WAIT), attach, bt, and look the JIT code up."""
    best = None
    for _ in range(repeat):
        env = dict(os.environ, JIT_HOST_WAIT="1")
        proc = subprocess.Popen([host, str(n), "1"], env=env, stdout=subprocess.PIPE, text=True)
        line = proc.stdout.readline()  # registered everything
        tramp = line.split(" at ")[1].split(",")[0]
        if debugger == "gdb":
            cmd = ["gdb", "-batch", "-nx", "-p", str(proc.pid), "-ex", "bt",
                   "-ex", "info symbol " + tramp]
        else:
            cmd = ["lldb-19", "--batch", "--no-lldbinit", "-p", str(proc.pid), "-o", "bt",
                   "-o", "image lookup -a " + tramp]
        t0 = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=1800).stdout
        dt = time.perf_counter() - t0
        if "jit:tramp [trampoline sub8]" not in out:
            print("  (%s after attach does not name the JIT code at %s)" % (debugger, tramp))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        best = dt if best is None else min(best, dt)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--ranges", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    host = os.path.join(args.build, "tests", "jitpublish", "jit_host")
    if not os.path.exists(host):
        sys.exit("no %s: build the project first" % host)
    print("%-6s %-24s %10s %10s %8s" % ("", "session", "0 ranges", "%d" % args.ranges, "ratio"))
    for debugger, exe in (("gdb", "gdb"), ("lldb", "lldb-19")):
        if not shutil.which(exe):
            print("%-6s not installed" % debugger)
            continue
        for mode, what in ((1, "run + bt (each)"), (2, "run + bt (batched)")):
            base, _ = timed(launch_cmd(debugger, host, 0, mode), args.repeat)
            many, out = timed(launch_cmd(debugger, host, args.ranges, mode), args.repeat)
            named = "jit:tramp [trampoline sub8]" in out
            print("%-6s %-24s %9.2fs %9.2fs %7.1fx%s" % (
                debugger, what, base, many, many / base,
                "" if named else "  (bt did not name the JIT frame!)"))
        base = attach_time(debugger, host, 0, args.repeat)
        many = attach_time(debugger, host, args.ranges, args.repeat)
        print("%-6s %-24s %9.2fs %9.2fs %7.1fx" % (debugger, "attach + bt", base, many,
                                                    many / base))


if __name__ == "__main__":
    main()
