#!/usr/bin/env python3
"""`record --nonblocking --mark-frames` lists a CPython 3.15 target's
thread states anew only every half second (or when they change), and in
between reads the last listing's thread states again, which notices a
thread state added or taken out by the list's links. Here a target (JIT
on) whose main thread spins DEPTH frames deep starts, once recording has
begun, LATE threads one after the other, each living about LIFE seconds
(less than half the relisting period) DEPTH frames deep: each is sampled,
each of its stacks is a part of its own recursion (all of it while it
spins; part while it goes down or comes back up), the main thread's is
always the whole recursion, and the thread states were listed at most
MAX_LISTINGS times (before, once a pass: thousands).

Usage: test_cli_threads_come_go.py BUILD_DIR
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
from extra_pythons import JIT_ON, named  # noqa: E402
from ready_target import built_tool, start_ready  # noqa: E402
from test_cli_read_marked import stat  # noqa: E402

SKIP = 77
DEPTH = 100
LATE = 4
LIFE = 0.2
SECONDS = 3.0
MAX_LISTINGS = 2 * SECONDS + 4 * LATE + 2

TARGET = r'''
import os, sys, threading, time
DEPTH, LATE, LIFE = %d, %d, %f
def spin():
    x = 0
    while True:
        x = (x + 1) & 0xffff
def recurse(n):
    if n == 0:
        return spin()
    return recurse(n - 1)
def late_spin(end):
    x = 0
    while time.monotonic() < end:
        x = (x + 1) & 0xffff
def late_recurse(n, end):
    if n == 0:
        return late_spin(end)
    return late_recurse(n - 1, end)
def control(go):
    while not os.path.exists(go):
        time.sleep(0.01)
    for i in range(LATE):
        t = threading.Thread(target=late_recurse, args=(DEPTH - 1, time.monotonic() + LIFE))
        t.start()
        t.join()
        time.sleep(LIFE)
threading.Thread(target=control, args=(sys.argv[2],), name="control", daemon=True).start()
open(sys.argv[1], "w").close()
recurse(DEPTH - 1)
''' % (DEPTH, LATE, LIFE)


def late_stack_right(frames):
    """A late thread's stack: its bootstrap, then late_recurse frames (at
    most DEPTH), and late_spin under exactly DEPTH of them."""
    rec = [i for i, f in enumerate(frames) if f.startswith("late_recurse (")]
    if not rec or rec != list(range(rec[0], rec[0] + len(rec))) or len(rec) > DEPTH:
        return False
    tail = frames[rec[-1] + 1:]
    if not tail:
        return True
    return len(rec) == DEPTH and len(tail) == 1 and tail[0].startswith("late_spin (")


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    j = built_tool(sys.argv[1])
    python = named("python3.15")
    if not python:
        print("SKIP: no python3.15 on JITUNWIND_EXTRA_PYTHONS")
        return SKIP
    work = tempfile.mkdtemp(prefix="ju-threads-come-go-")
    go = os.path.join(work, "go")
    target = start_ready([python], TARGET, work, args=[go], env=dict(os.environ, **JIT_ON))
    try:
        time.sleep(0.5)
        rec = subprocess.Popen([j, "record", str(target.pid), "--nonblocking", "--mark-frames",
                                "--idle", "--threads", "-F", "1000000", "-d", str(SECONDS),
                                "--stats"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
        time.sleep(0.5)
        open(go, "w").close()
        out, err = rec.communicate(timeout=120)
        if rec.returncode != 0:
            fail("record exited %d: %s" % (rec.returncode, err))
        late = {}
        main_stacks = 0
        for line in out.splitlines():
            frames = line.rpartition(" ")[0].split(";")
            # A late thread is named after the thread that started it
            # (its comm when first sampled): told by its frames.
            if any(f.startswith("late_recurse (") for f in frames):
                if not late_stack_right(frames[1:]):
                    fail("%s: a stack off its recursion: %s" % (frames[0], line[-300:]))
                late[frames[0]] = late.get(frames[0], 0) + int(line.rpartition(" ")[2])
            elif any(f.startswith("recurse (") for f in frames):
                if sum(f.startswith("recurse (") for f in frames) != DEPTH or \
                        not frames[-1].startswith("spin ("):
                    fail("main: a stack off the recursion: %s" % line[-300:])
                main_stacks += int(line.rpartition(" ")[2])
        passes = stat(err, "samples")
        print("%d passes, %d main thread stacks, late threads' stacks %s"
              % (passes, main_stacks, sorted(late.values())))
        listings = stat(err, "Python thread listings")
        print("%d listings" % listings)
        if main_stacks < 100:
            fail("the main thread was sampled %d times" % main_stacks)
        if len(late) != LATE:
            fail("%d of the %d late threads sampled" % (len(late), LATE))
        if listings > MAX_LISTINGS:
            fail("%d listings, more than %d" % (listings, MAX_LISTINGS))
    finally:
        end_target(target)
        shutil.rmtree(work, ignore_errors=True)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
