#!/usr/bin/env python3
"""`record --nonblocking` reads the pages its last sample read in one
system call at the start of the next sample (process_vm_readv with one
iovec a page), so a sample of an unchanged stack makes few reads of the
target: on a thread 100 Python frames deep, at most MAX_READS read calls
(--stats) a sample, and the stacks are the same. A sample reads, each in
one call: the pages of the walk (the thread list, the code objects, the
chain cache's frames), and for the check that the running chain did not
change under it (running_chain.c) the pages of its frames and of the
reads it made besides at the last sample (the thread state's current
frame, the entry frames): 2 calls, and one more now and then (a retry, a
page first met); one page at a time, the walk alone made about 11.
The walk's pages are read again only as far as the last sample used
them, so a sample copies at most MAX_BYTES (--stats' read bytes: about
34 KiB, and about 20 KiB more for the check's second copy of its pages,
made in the same call); read whole, the walk's pages, about 18 of them,
were some 74 KiB with one copy for the check.

When the next sample follows at once (a rate the machine cannot keep),
the last check's call also reads the parts of the pages the sample read,
which are then the next sample's, read already, and the check's second
copy of its pages is the next sample's copy of them: at most
MAX_READS_BEHIND calls and MAX_BYTES_BEHIND bytes a sample (one call and
about 43 KiB; two calls and 54 KiB when each sample read its own).

Usage: test_cli_read_batch.py BUILD_DIR
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
from ready_target import built_tool, start_ready  # noqa: E402

SKIP = 77
PYTHON = "/usr/bin/python3.11"
DEPTH = 100
MAX_READS = 3
MAX_BYTES = 64 * 1024
MAX_READS_BEHIND = 1.3
MAX_BYTES_BEHIND = 48 * 1024

TARGET = r'''
import sys
def spin():
    x = 0
    while True:
        x = (x + 1) & 0xffff
def recurse(n):
    if n == 0:
        return spin()
    return recurse(n - 1)
open(sys.argv[1], "w").close()
recurse(%d)
''' % (DEPTH - 1)


def whole_recursion(collapsed, what):
    """Every stack of TARGET's in `collapsed` (record's default output) is
    DEPTH `recurse` frames under `spin`."""
    for line in collapsed.splitlines():
        frames = line.rpartition(" ")[0].split(";")
        if sum(f.startswith("recurse (") for f in frames) != DEPTH or \
                not frames[-1].startswith("spin ("):
            fail("%s: a stack off the recursion: %s" % (what, line[-300:]))


def check_rate(j, pid, rate, max_reads, max_bytes):
    r = subprocess.run([j, "record", str(pid), "--nonblocking", "-F", rate, "-d", "1.5",
                        "--stats"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=120)
    if r.returncode != 0:
        fail("record -F %s exited %d: %s" % (rate, r.returncode, r.stderr))
    samples = int(re.search(r"^samples: (\d+)$", r.stderr, re.M).group(1))
    m = re.search(r"^read calls: (\d+)$", r.stderr, re.M)
    if not m:
        fail("no count of read calls in --stats: %s" % r.stderr)
    reads = int(m.group(1))
    m = re.search(r"^read bytes: (\d+)$", r.stderr, re.M)
    if not m:
        fail("no count of bytes read in --stats: %s" % r.stderr)
    copied = int(m.group(1))
    whole_recursion(r.stdout, "-F %s" % rate)
    if not samples or reads / samples > max_reads:
        fail("-F %s: %d read calls in %d samples: more than %s a sample" % (
            rate, reads, samples, max_reads))
    if copied / samples > max_bytes:
        fail("-F %s: %d bytes read in %d samples: more than %d a sample" % (
            rate, copied, samples, max_bytes))
    print("ok: -F %s: %.2f read calls and %d bytes a sample (%d samples)" %
          (rate, reads / samples, copied // samples, samples))


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    j = built_tool(sys.argv[1])
    if not os.access(PYTHON, os.X_OK):
        print("skip: %s is not installed" % PYTHON)
        return SKIP
    work = tempfile.mkdtemp(prefix="ju-batch-")
    target = start_ready([PYTHON], TARGET, work)
    try:
        for rate, max_reads, max_bytes in (("200", MAX_READS, MAX_BYTES),
                                           ("1000000", MAX_READS_BEHIND, MAX_BYTES_BEHIND)):
            check_rate(j, target.pid, rate, max_reads, max_bytes)
    finally:
        end_target(target)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
