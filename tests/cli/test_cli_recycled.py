#!/usr/bin/env python3
"""Recycled code objects: a target makes functions with exec one after
another, each running 0.1 s and then freed, so that each new code object
(and its name) takes the freed one's memory. `record`, with its code-object
and frame-chain caches, must give the samples to the function that ran, not
to the first one cached at that address: many functions are seen, none
with more samples than it can have had.

Usage: test_cli_recycled.py BUILD_DIR
Exit 0 on success, 1 on failure, 77 to skip.
"""

import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from demo_stack import fail  # noqa: E402

SKIP = 77
PYTHON = "/usr/bin/python3.11"  # Debian's: its allocator reuses a freed code object's place
SECONDS, HZ, RUN = 3, 100, 0.1

TARGET = r'''
import gc, sys, time
ready = sys.argv[1]
open(ready, "w").close()
i = 0
while True:
    name = "f_%%04d" %% (i %% 10000)
    ns = {"time": time}
    exec("def %%s():\n    t = time.time() + %r\n    while time.time() < t:\n        pass\n"
         %% name, ns)
    ns[name]()
    del ns
    gc.collect()
    i += 1
''' % RUN


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    j = os.path.join(sys.argv[1], "tools", "jitunwind", "jitunwind")
    if not os.access(j, os.X_OK):
        fail("%s was not built" % j)
    if not os.access(PYTHON, os.X_OK):
        print("skip: %s is not installed" % PYTHON)
        return SKIP
    work = tempfile.mkdtemp(prefix="ju-recycled-")
    try:
        script = os.path.join(work, "target.py")
        with open(script, "w") as f:
            f.write(TARGET)
        ready = script + ".ready"
        proc = subprocess.Popen([PYTHON, script, ready])
        try:
            deadline = time.time() + 30
            while not os.path.exists(ready):
                if proc.poll() is not None or time.time() > deadline:
                    fail("the target did not start")
                time.sleep(0.02)
            for extra in ([], ["--nonblocking"]):
                out = os.path.join(work, "profile.txt")
                p = subprocess.run([j, "record", str(proc.pid), "-d", str(SECONDS), "-F", str(HZ),
                                    "-o", out] + extra, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, timeout=60)
                if p.returncode != 0:
                    fail("record %s: exit %d: %s" % (extra, p.returncode, p.stderr))
                counts = collections.Counter()
                with open(out) as f:
                    for line in f:
                        stack, _, n = line.rstrip("\n").rpartition(" ")
                        names = set(re.findall(r"\bf_\d{4}\b", stack))
                        for name in names:
                            counts[name] += int(n)
                ran = SECONDS / RUN
                # each ran 0.1 s: about 10 samples; a stale cache gives one function them all
                if len(counts) < ran / 3 or max(counts.values()) > 4 * RUN * HZ:
                    fail("record %s: %d functions seen of about %d run, the most sampled with "
                         "%d samples (at most about %d possible): %s" % (
                             extra, len(counts), ran, max(counts.values() or [0]),
                             RUN * HZ, counts.most_common(5)))
                print("ok: record %s: %d functions seen, at most %d samples each" % (
                    " ".join(extra), len(counts), max(counts.values())))
        finally:
            proc.kill()
            proc.wait()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
