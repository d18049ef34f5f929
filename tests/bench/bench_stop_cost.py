#!/usr/bin/env python3
"""What the plugins cost at stops the user never sees: a breakpoint on
getppid in a Python loop, its first HITS hits ignored, then one `bt`. Each
debugger runs the same commands without the plugin (stock) and with it, and
the ratio of the wall times is printed side by side (a program, not a test:
it prints figures and asserts nothing).

  LLDB 19 (Debian)     breakpoint modify -i HITS 1; continue; bt
  LLDB 22+ (the wheel) the same, with the frame provider registered
  gdb                  ignore 1 HITS; continue; bt (unwinder + frame filter)

Usage: bench_stop_cost.py BUILD_DIR [--hits 2000] [--python PATH] [--repeat 3]
The default target interpreter is the first JIT build of
$JITUNWIND_EXTRA_PYTHONS (JIT code on the stack at every hit), else Debian's
python3.11. Goal: each ratio <= 1.5."""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "support"))
from demo_stack import JIT_SCRIPT  # noqa: E402

TIMEOUT = 1800


def jit_interpreter():
    """(path, environment additions) of a JIT-enabled interpreter, or None."""
    for path in os.environ.get("JITUNWIND_EXTRA_PYTHONS", "").split(":"):
        if not path or not os.access(path, os.X_OK):
            continue
        env = dict(os.environ, PYTHON_JIT="1")
        probe = subprocess.run([path, "-c", "import sys; j = getattr(sys, '_jit', None); "
                                "print(bool(j and j.is_enabled()))"],
                               env=env, stdout=subprocess.PIPE, text=True, timeout=60)
        if probe.stdout.strip() == "True":
            return path
    return None


def gdb_command(plugin, hits, script, python):
    cmd = ["gdb", "-nx", "-batch", "-q", "-iex", "set debuginfod enabled off",
           "-iex", "set auto-load python-scripts off", "-iex", "set pagination off"]
    if plugin:
        cmd += ["-ex", "source %s/gdb-plugin/jitunwind-gdb.py" % REPO]
    for c in ("set breakpoint pending on", "break getppid", "run", "ignore 1 %d" % hits,
              "continue", "bt", "kill"):
        cmd += ["-ex", c]
    return cmd + ["--args", python, script]


def lldb_command(lldb, plugin, hits, script, python):
    cmd = [lldb, "--no-lldbinit", "--batch"]
    if plugin:
        cmd += ["-o", "command script import %s/lldb-plugin/jitunwind_lldb" % REPO]
    for c in ("breakpoint set -n getppid", "run", "breakpoint modify -i %d 1" % hits,
              "continue", "bt", "kill"):
        cmd += ["-o", c]
    return cmd + ["--", python, script]


def best_time(cmd, env, repeat):
    """Best wall seconds of `cmd`, and whether its output showed a backtrace."""
    best, shown = None, False
    for _ in range(repeat):
        start = time.monotonic()
        out = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, timeout=TIMEOUT).stdout
        took = time.monotonic() - start
        best = took if best is None else min(best, took)
        shown = shown or ("getppid" in out)
    return best, shown


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build")
    parser.add_argument("--hits", type=int, default=2000)
    parser.add_argument("--python")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    python = args.python or jit_interpreter() or "/usr/bin/python3.11"
    env = dict(os.environ, PYTHON_JIT="1")
    work = tempfile.mkdtemp(prefix="bench-stop-cost-")
    script = os.path.join(work, "jit_target.py")
    with open(script, "w") as f:
        f.write(JIT_SCRIPT)
    debuggers = []
    lldb19 = shutil.which("lldb-19")
    if lldb19:
        debuggers.append(("LLDB 19", lambda p: lldb_command(lldb19, p, args.hits, script, python)))
    wheel = os.path.join(args.build, "lldb-venv", "bin", "lldb")
    if os.access(wheel, os.X_OK):
        debuggers.append(("LLDB 22+", lambda p: lldb_command(wheel, p, args.hits, script, python)))
    if shutil.which("gdb"):
        debuggers.append(("gdb", lambda p: gdb_command(p, args.hits, script, python)))
    print("target: %s, %d ignored hits of a breakpoint on getppid, best of %d runs"
          % (python, args.hits, args.repeat))
    print("%-10s %10s %10s %8s" % ("debugger", "stock s", "plugin s", "ratio"))
    for name, command in debuggers:
        stock, stock_shown = best_time(command(False), env, args.repeat)
        ours, ours_shown = best_time(command(True), env, args.repeat)
        note = "" if stock_shown and ours_shown else "  (no getppid frame in a bt: check the run)"
        print("%-10s %10.2f %10.2f %7.2fx%s" % (name, stock, ours, ours / stock, note))
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
