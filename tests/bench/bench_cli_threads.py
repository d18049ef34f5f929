#!/usr/bin/env python3
"""`jitunwind stack` time against the number of threads (a program, not a
test: run it by hand; it prints figures, asserts nothing). Each thread of
a Python target (Debian's python3.11) sleeps 20 frames deep; each count is
timed as the median of --repeat runs, with the layout cache filled, in
both modes: ptrace (native + Python) and --python.

Usage: bench_cli_threads.py BUILD_DIR [--threads 100,500,1000,2000] [--repeat 3]
Goal: linear in threads; 2,000 threads in under 1 s.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from test_cli_process import PYTHON, THREADS  # noqa: E402


def timed(cmd, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        times.append(time.perf_counter() - t0)
        if p.returncode not in (0, 6):
            sys.exit("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--threads", default="100,500,1000,2000")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    j = os.path.join(args.build, "tools", "jitunwind", "jitunwind")
    work = tempfile.mkdtemp(prefix="bench-cli-threads-")
    script = os.path.join(work, "target.py")
    with open(script, "w") as f:
        f.write(THREADS)
    print("%8s %12s %14s %18s" % ("threads", "stack (s)", "--python (s)", "ms per thread"))
    for count in [int(c) for c in args.threads.split(",")]:
        ready = os.path.join(work, "ready.%d" % count)
        proc = subprocess.Popen([PYTHON, script, ready, str(count), "20", "1"])
        try:
            while not os.path.exists(ready):
                if proc.poll() is not None:
                    sys.exit("the target exited (%s)" % proc.returncode)
                time.sleep(0.05)
            subprocess.run([j, "stack", str(proc.pid), "--python"], stdout=subprocess.DEVNULL)
            mixed = timed([j, "stack", str(proc.pid)], args.repeat)
            python = timed([j, "stack", str(proc.pid), "--python"], args.repeat)
            print("%8d %12.3f %14.3f %18.3f" % (count + 1, mixed, python,
                                                 1000 * mixed / (count + 1)))
        finally:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    main()
