#!/usr/bin/env python3
"""What a `record --nonblocking --mark-frames` pass reads of a CPython 3.15
target (JIT on) whose one thread spins 100 Python frames deep, at a rate
no run keeps (each pass's check call also reads the next pass's parts):
every stack is the whole recursion, and a pass reads little. Once the
marker's proof holds, a pass reads the thread state again (not the
runtime's interpreter list nor the interpreter's thread list: the thread
states are listed anew only now and then, or when their links change),
the check's two readings of the thread state's fields and of the frames
above the marked one, and nothing else: no GIL (each 3.15 thread state says
whether it holds it), no code object (the proof vouches for the marked
frame's), only the part of each page the check reads (not whole pages),
and the frames beyond the marked one are left in the chain cache, their
ids taken from the thread's last stack. So at most MAX_CALLS read calls,
MAX_PIECES pieces (--stats' reads) and MAX_BYTES bytes a pass; before
these, a pass read 9 pieces and about 17 KiB (four whole pages), and 6
pieces while the thread list was read at every pass.

Usage: test_cli_read_marked.py BUILD_DIR
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
from test_cli_read_batch import DEPTH, TARGET  # noqa: E402  (one thread DEPTH deep, spinning)

SKIP = 77
MAX_CALLS = 1.2
MAX_PIECES = 4.5
MAX_BYTES = 4096


def stat(stderr, name):
    m = re.search(r"^%s: (\d+)$" % re.escape(name), stderr, re.M)
    if not m:
        fail("no %r in --stats: %s" % (name, stderr))
    return int(m.group(1))


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    j = built_tool(sys.argv[1])
    python = named("python3.15")
    if not python:
        print("SKIP: no python3.15 on JITUNWIND_EXTRA_PYTHONS")
        return SKIP
    work = tempfile.mkdtemp(prefix="ju-read-marked-")
    target = start_ready([python], TARGET, work, env=dict(os.environ, **JIT_ON))
    try:
        r = subprocess.run([j, "record", str(target.pid), "--nonblocking", "--mark-frames",
                            "-F", "1000000", "-d", "1.5", "--stats"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=120)
        if r.returncode != 0:
            fail("record exited %d: %s" % (r.returncode, r.stderr))
        for line in r.stdout.splitlines():
            frames = line.rpartition(" ")[0].split(";")
            if sum(f.startswith("recurse (") for f in frames) != DEPTH or \
                    not frames[-1].startswith("spin ("):
                fail("a stack off the recursion: %s" % line[-300:])
        passes = stat(r.stderr, "samples")
        calls, pieces = stat(r.stderr, "read calls"), stat(r.stderr, "reads")
        copied = stat(r.stderr, "read bytes")
        codes = stat(r.stderr, "code objects the marker vouched for")
        ids = stat(r.stderr, "frame ids the marker vouched for")
        if passes < 100:
            fail("%d passes in 1.5 s" % passes)
        print("%d passes: %.2f read calls, %.2f pieces, %d bytes a pass; code objects vouched "
              "for %d times, %d frame ids" % (passes, calls / passes, pieces / passes,
                                              copied // passes, codes, ids))
        if calls / passes > MAX_CALLS or pieces / passes > MAX_PIECES or \
                copied / passes > MAX_BYTES:
            fail("more than %s calls, %s pieces or %d bytes a pass" % (MAX_CALLS, MAX_PIECES,
                                                                      MAX_BYTES))
        if codes < passes // 2 or ids < (passes // 2) * (DEPTH - 1):
            fail("the marker vouched for too little: %d code objects, %d frame ids in %d "
                 "passes" % (codes, ids, passes))
    finally:
        end_target(target)
        shutil.rmtree(work, ignore_errors=True)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
