#!/usr/bin/env python3
"""What a `record --nonblocking --mark-frames` pass reads of a CPython 3.15
target (JIT on) with THREADS threads, each spinning DEPTH Python frames
deep, at a rate no run keeps. Every thread is walked before any is
checked, and all their checks are read in one call (which also reads the
next pass's parts): at most MAX_CALLS read calls a pass, and at most
MAX_PIECES pieces (--stats' reads) a thread a pass, since the threads'
pieces that share a page are read as one. When each thread's check made
its own call, a pass made one call a thread (8 here) and read about 5.6
pieces a thread. Every thread is sampled, and every stack is the whole
recursion.

Usage: test_cli_read_threads.py BUILD_DIR
Exit 0 on success, 1 on failure, 77 to skip.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from demo_stack import end_target, fail  # noqa: E402
from extra_pythons import JIT_ON, named  # noqa: E402
from ready_target import built_tool, start_ready  # noqa: E402
from test_cli_read_marked import stat  # noqa: E402

SKIP = 77
DEPTH = 100
THREADS = 8
MAX_CALLS = 2.0
MAX_PIECES = 4.5

# The main thread says it is ready from its spin, once every other thread
# spins: from then on every thread's stack is the whole recursion.
TARGET = r'''
import sys, threading, time
THREADS, DEPTH = %d, %d
spinning = []
def spin(ready):
    if ready:
        while len(spinning) < THREADS - 1:
            time.sleep(0.01)
        open(ready, "w").close()
    else:
        spinning.append(1)
    x = 0
    while True:
        x = (x + 1) & 0xffff
def recurse(n, ready):
    if n == 0:
        return spin(ready)
    return recurse(n - 1, ready)
for _ in range(THREADS - 1):
    threading.Thread(target=recurse, args=(DEPTH - 1, None), daemon=True).start()
recurse(DEPTH - 1, sys.argv[1])
''' % (THREADS, DEPTH)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    j = built_tool(sys.argv[1])
    python = named("python3.15")
    if not python:
        print("SKIP: no python3.15 on JITUNWIND_EXTRA_PYTHONS")
        return SKIP
    work = tempfile.mkdtemp(prefix="ju-read-threads-")
    target = start_ready([python], TARGET, work, env=dict(os.environ, **JIT_ON))
    try:
        r = subprocess.run([j, "record", str(target.pid), "--nonblocking", "--mark-frames",
                            "--idle", "--threads", "-F", "1000000", "-d", "1.5", "--stats"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=120)
        if r.returncode != 0:
            fail("record exited %d: %s" % (r.returncode, r.stderr))
        threads = set()
        for line in r.stdout.splitlines():
            frames = line.rpartition(" ")[0].split(";")
            threads.add(frames[0])
            if sum(f.startswith("recurse (") for f in frames) != DEPTH or \
                    not frames[-1].startswith("spin ("):
                fail("a stack off the recursion: %s" % line[-300:])
        if len(threads) != THREADS:
            fail("%d threads sampled, not %d: %s" % (len(threads), THREADS, sorted(threads)))
        passes = stat(r.stderr, "samples")
        calls, pieces = stat(r.stderr, "read calls"), stat(r.stderr, "reads")
        if passes < 50:
            fail("%d passes in 1.5 s" % passes)
        print("%d passes of %d threads: %.2f read calls, %.2f pieces a thread a pass"
              % (passes, THREADS, calls / passes, pieces / passes / THREADS))
        if calls / passes > MAX_CALLS or pieces / passes / THREADS > MAX_PIECES:
            fail("more than %s calls a pass or %s pieces a thread a pass"
                 % (MAX_CALLS, MAX_PIECES))
    finally:
        end_target(target)
        shutil.rmtree(work, ignore_errors=True)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
