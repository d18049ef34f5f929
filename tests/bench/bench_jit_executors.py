#!/usr/bin/env python3
"""`info jit-executors` on a program with about 1,000 JIT executors, as
time per executor (a program, not a test: it prints figures, asserts
nothing). Needs a JIT-enabled CPython (3.14 --enable-experimental-jit).

Usage: bench_jit_executors.py BUILD_DIR [PYTHON] [--loops 1000] [--repeat 3]
PYTHON defaults to the first JIT build in $JITUNWIND_EXTRA_PYTHONS.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

TIMER = r"""
python
import time, gdb
best = None
for _ in range(%(repeat)d):
    gdb.execute("maintenance flush register-cache", to_string=True)  # a fresh stop: no cached reader
    t = time.perf_counter()
    out = gdb.execute("info jit-executors", to_string=True)
    dt = time.perf_counter() - t
    best = dt if best is None else min(best, dt)
rows = sum(1 for l in out.splitlines() if l[:1].isdigit())
print("BENCH executors=%%d seconds=%%.4f" %% (rows, best))
end
"""


def program(loops):
    body = ["import os"]
    for i in range(loops):
        body.append("def f%d(n):\n    t = 0\n    for i in range(n):\n        t += i ^ %d\n"
                    "    return t" % (i, i))
    # CPython 3.14 invalidates executors that did not run between two
    # cleanups (every 100,000 trace runs): after each new one, every
    # executor made so far runs once more, so all of them stay alive.
    body.append("fs = [%s]" % ", ".join("f%d" % i for i in range(loops)))
    body.append("for j in range(len(fs)):\n    fs[j](5000)\n    for k in range(j + 1):\n"
                "        fs[k](3)")
    body.append("os.getppid()")
    return "\n".join(body) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("python", nargs="?")
    ap.add_argument("--loops", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    python = a.python or next(
        (p for p in os.environ.get("JITUNWIND_EXTRA_PYTHONS", "").split(":") if "jit" in p), None)
    if not python:
        print("no JIT interpreter given (argument or $JITUNWIND_EXTRA_PYTHONS)")
        return 2
    env = dict(os.environ, JITUNWIND_LIBRARY=os.path.join(a.build, "libjitunwind",
                                                          "libjitunwind.so"))
    with tempfile.TemporaryDirectory() as work:
        script = os.path.join(work, "many.py")
        with open(script, "w") as f:
            f.write(program(a.loops))
        timer = os.path.join(work, "timer.gdb")
        with open(timer, "w") as f:
            f.write(TIMER % {"repeat": a.repeat})
        out = subprocess.run(
            ["gdb", "-nx", "-batch", "-q", "-iex", "set debuginfod enabled off",
             "-ex", "source %s/gdb-plugin/jitunwind-gdb.py" % REPO,
             "-ex", "set breakpoint pending on", "-ex", "break getppid", "-ex", "run",
             "-x", timer, "-ex", "kill", "--args", python, script],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            timeout=1200).stdout
    m = re.search(r"BENCH executors=(\d+) seconds=([\d.]+)", out)
    if not m:
        print(out[-3000:])
        return 1
    n, seconds = int(m.group(1)), float(m.group(2))
    print("info jit-executors: %d executors (%d hot loops) in %.1f ms: %.1f us per executor "
          "(best of %d, %s)" % (n, a.loops, seconds * 1e3, seconds * 1e6 / max(n, 1), a.repeat,
                                python))
    return 0


if __name__ == "__main__":
    sys.exit(main())
