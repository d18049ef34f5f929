#!/usr/bin/env python3
"""What LLDB's `jit-image refresh` costs near the caps on what a target's
JIT descriptor can make the debugger hold (a program, not a test: run it by
hand; it prints figures, asserts nothing).

tests/jitpublish/jit_host registers N one-instruction ranges in the
jitunwind descriptor (GDB JIT publishing off) and waits, calling
jit_host_tick every 10 ms; LLDB (batch mode, no init files) attaches,
imports the plugin, and times, inside LLDB: the attach's own stop (the stop
hook's first image); two stops at a breakpoint on jit_host_tick with the
ranges unchanged (`process continue`: the 10 ms wait, the stop and its
stop hook); `jit-image refresh` twice (the ranges read whole again, the
image reloaded when they changed); a stop after the target registered one
more range (an expression; the stop hook writes a new image); and
`jit-image` (status). The descriptor's read keeps at most
JITUNWIND_JIT_MAX_BYTES (64 MiB: about 414,000 unnamed ranges); N past it
shows the cost of what is left out.

Usage: bench_jit_image_refresh.py BUILD_DIR [--ranges 1000,100000,400000,1000000]
       [--lldb lldb-19] [--repo CHECKOUT (whose plugin and binding are timed)]
"""

import argparse
import os
import re
import signal
import subprocess
import sys
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CLOCK = "script import time; lldb.ju_t0 = time.perf_counter()"
ADDED = 0x7e0000000000  # one more range, never mapped in jit_host (only described)
SHOW = "script print('bench %s %%.2f s' %% (time.perf_counter() - lldb.ju_t0))"


def session(lldb, repo, host, n):
    env = dict(os.environ, JIT_HOST_WAIT="1")
    t0 = time.perf_counter()
    proc = subprocess.Popen([host, str(n), "0"], env=env, stdout=subprocess.PIPE, text=True)
    proc.stdout.readline()  # registered everything
    registered = time.perf_counter() - t0
    cmd = [lldb, "--batch", "--no-lldbinit",
           "-o", "command script import %s/lldb-plugin/jitunwind_lldb" % repo,
           "-o", CLOCK, "-o", "process attach -p %d" % proc.pid, "-o", SHOW % "attach",
           "-o", "breakpoint set -n jit_host_tick",
           "-o", CLOCK, "-o", "process continue", "-o", SHOW % "stop1",
           "-o", CLOCK, "-o", "process continue", "-o", SHOW % "stop2",
           "-o", CLOCK, "-o", "jit-image refresh", "-o", SHOW % "refresh1",
           "-o", CLOCK, "-o", "jit-image refresh", "-o", SHOW % "refresh2",
           "-o", "expression (int)jitunwind_jit_register((void *)%#x, 16, 1, 1, 0, 0, 0)" % ADDED,
           "-o", CLOCK, "-o", "process continue", "-o", SHOW % "changed",
           "-o", CLOCK, "-o", "jit-image", "-o", SHOW % "status",
           "-o", "process kill"]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=3600).stdout
    whole = time.perf_counter() - t0
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    figures = dict(re.findall(r"^bench (\w+) ([\d.]+) s$", out, re.M))
    status = re.search(r"^jit-image: .*$", out[out.rfind("(lldb) jit-image\n"):], re.M)
    return registered, whole, figures, status.group(0) if status else "(no status)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--ranges", default="1000,100000,400000,1000000")
    ap.add_argument("--lldb", default="lldb-19")
    ap.add_argument("--repo", default=REPO)
    args = ap.parse_args()
    host = os.path.join(args.build, "tests", "jitpublish", "jit_host")
    if not os.path.exists(host):
        sys.exit("no %s: build the project first" % host)
    print("%9s %9s %9s %9s %9s %9s %9s %9s %9s %9s  %s" % (
        "ranges", "register", "attach", "stop", "stop", "refresh", "again", "changed", "status",
        "session", "jit-image says"))
    for n in (int(x) for x in args.ranges.split(",")):
        registered, whole, f, status = session(args.lldb, args.repo, host, n)
        print("%9d %8.2fs" % (n, registered)
              + "".join(" %8ss" % f.get(k, "?") for k in ("attach", "stop1", "stop2", "refresh1",
                                                          "refresh2", "changed", "status"))
              + " %8.2fs  %s" % (whole, status))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
