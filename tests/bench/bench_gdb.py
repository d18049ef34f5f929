#!/usr/bin/env python3
"""How much the gdb plugin adds to stock gdb, as ratios on the same stop
(a program, not a test: run it by hand; it prints figures, asserts nothing).

  bt 3                     at the bottom of a DEPTH-deep C recursion
  thread apply all bt 1    in a Python process with THREADS threads
  thread apply all py-bt   the same stop (no stock equivalent: ratio to
                           stock `thread apply all bt 1`)

Usage: bench_gdb.py BUILD_DIR [--depth 100000] [--threads 1000] [--repeat 3]
Goal: each ratio <= 2.
"""

import argparse
import os
import subprocess
import sys
import tempfile

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PYTHON = "/usr/bin/python3.11"

RECURSION_C = r"""
#include <stdlib.h>
void bottom(void) { __asm__ volatile("" ::: "memory"); }
int down(int n) { if (n == 0) { bottom(); return 0; } return down(n - 1) + 1; }
int main(int argc, char **argv) { return down(atoi(argv[1])) == -1; }
"""

THREADS_PY = """
import os, sys, threading
n = int(sys.argv[1])
ready = threading.Barrier(n + 1)
done = threading.Event()
def worker():
    ready.wait()
    done.wait()
for _ in range(n):
    threading.Thread(target=worker, daemon=True).start()
ready.wait()
os.kill(os.getpid(), 5)  # SIGTRAP: gdb stops here with every thread parked
"""


def gdb(plugin, commands, args, env):
    cmd = ["gdb", "-nx", "-batch", "-q", "-iex", "set debuginfod enabled off",
           "-iex", "set auto-load python-scripts off", "-iex", "set pagination off"]
    if plugin:
        cmd += ["-ex", "source %s/gdb-plugin/jitunwind-gdb.py" % REPO]
    for c in commands:
        cmd += ["-ex", c]
    proc = subprocess.run(cmd + ["--args"] + args, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=1800)
    return proc.stdout


def timed(plugin, stop, measured, args, env, repeat):
    """Best seconds `measured` takes at the stop, timed inside gdb (process
    start-up and plugin load are not counted; the first command after the
    stop, which reads the target's tables, is)."""
    probe = ("python import time; t = time.monotonic(); "
             "o = gdb.execute(%r, to_string=True); "
             "print('ELAPSED %%f' %% (time.monotonic() - t)); print(o[-600:])" % measured)
    best, out = None, ""
    for _ in range(repeat):
        out = gdb(plugin, stop + [probe, "kill"], args, env)
        seconds = [float(line.split()[1]) for line in out.splitlines()
                   if line.startswith("ELAPSED ")]
        if not seconds:
            raise SystemExit("no timing from gdb:\n" + out[-2000:])
        best = seconds[0] if best is None else min(best, seconds[0])
    return max(best, 1e-4), out


def report(label, stock, plugin):
    print("%-40s stock %7.3f s   plugin %7.3f s   ratio %5.2fx" % (label, stock, plugin,
                                                                  plugin / stock))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--depth", type=int, default=100000)
    ap.add_argument("--threads", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    opts = ap.parse_args()
    env = dict(os.environ, JITUNWIND_LIBRARY=os.path.join(os.path.abspath(opts.build),
                                                          "libjitunwind", "libjitunwind.so"))
    with tempfile.TemporaryDirectory() as work:
        src = os.path.join(work, "recursion.c")
        exe = os.path.join(work, "recursion")
        with open(src, "w") as f:
            f.write(RECURSION_C)
        subprocess.run(["cc", "-O0", "-g", "-fno-omit-frame-pointer", "-o", exe, src], check=True)
        stop = ["break bottom", "run"]
        args = [exe, str(opts.depth)]
        stock, _ = timed(False, stop, "bt 3", args, env, opts.repeat)
        plugin, out = timed(True, stop, "bt 3", args, env, opts.repeat)
        if "#2 " not in out:
            print("bt 3 printed no frames:\n" + out[-2000:])
        report("bt 3 at %d C frames" % opts.depth, stock, plugin)

        script = os.path.join(work, "threads.py")
        with open(script, "w") as f:
            f.write(THREADS_PY)
        stop = ["handle SIGTRAP stop nopass", "run"]
        args = [PYTHON, script, str(opts.threads)]
        stock, _ = timed(False, stop, "thread apply all bt 1", args, env, opts.repeat)
        plugin, _ = timed(True, stop, "thread apply all bt 1", args, env, opts.repeat)
        report("thread apply all bt 1, %d threads" % opts.threads, stock, plugin)
        pybt, out = timed(True, stop, "thread apply all py-bt", args, env, opts.repeat)
        if "in worker" not in out:
            print("thread apply all py-bt did not show the workers:\n%s" % out[-2000:])
        report("thread apply all py-bt, %d threads" % opts.threads, stock, pybt)
    return 0


if __name__ == "__main__":
    sys.exit(main())
