#!/usr/bin/env python3
"""`record` on a process that is still making code: a CPython 3.12+ with
`-X perf` gives each new function a trampoline (its arena grows, its perf
map gets a line) and, where this machine has one, a 3.14 JIT build compiles
new executors. Functions made after `record` started must be named and
unwound like the others: the ranges are read again as their sources change.
Frames "?? (anonymous)" and errors are at most one sample per function made
(the first sample in new code may find it unknown), and `--stats` says the
ranges were read again.

Usage: test_cli_warming.py BUILD_DIR
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
from demo_stack import end_target, fail, part_missing  # noqa: E402

SKIP = 77
PERF = [os.path.expanduser("~/.pyenv/versions/3.12.1/bin/python3.12"),
        "/work/cpython-builds/p312/bin/python3.12"]
JIT = ["/work/cpython-builds/p314jit/bin/python3.14"]

# New functions, each an outer one calling an inner one, called for 0.15 s,
# from the moment the go file appears (after record has read the ranges).
TARGET = r'''
import os, sys, time
ready, go = sys.argv[1], sys.argv[2]
def warm(k):
    return k if k < 2 else warm(k - 1) + 1
for _ in range(3000):
    warm(20)
open(ready, "w").close()
while not os.path.exists(go):
    time.sleep(0.01)
i = 0
while True:
    ns = {"time": time}
    exec("def inner_%d(n):\n"
         "    for _ in range(20000):\n"
         "        n += 1\n"
         "    return n\n"
         "def outer_%d():\n"
         "    s = 0\n"
         "    for _ in range(200):\n"
         "        s += 1\n"
         "    return inner_%d(s)\n" % (i, i, i), ns)
    t = time.time() + 0.15
    while time.time() < t:
        ns["outer_%d" % i]()
    i += 1
'''


def check(j, python, env_extra, args, work, what):
    script = os.path.join(work, "target.py")
    with open(script, "w") as f:
        f.write(TARGET)
    ready, go = script + ".ready", script + ".go"
    for path in (ready, go):
        if os.path.exists(path):
            os.unlink(path)
    env = dict(os.environ, **env_extra)
    proc = subprocess.Popen([python] + args + [script, ready, go], env=env)
    try:
        deadline = time.time() + 60
        while not os.path.exists(ready):
            if proc.poll() is not None or time.time() > deadline:
                fail("%s: the target did not start" % what)
            time.sleep(0.02)
        out = os.path.join(work, "profile.txt")
        rec = subprocess.Popen([j, "record", str(proc.pid), "-d", "3", "-F", "100", "--stats",
                                "-o", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
        time.sleep(0.5)  # record has read the ranges: now new code is made
        open(go, "w").close()
        _, err = rec.communicate(timeout=60)
        if rec.returncode != 0:
            fail("%s: record: exit %d: %s" % (what, rec.returncode, err))
    finally:
        end_target(proc)
    stats = dict(re.findall(r"^([a-z ]+): (\d+)$", err, re.M))
    with open(out) as f:
        text = f.read()
    stacks = int(stats.get("stacks", "0"))
    errors = int(stats.get("errors", "0"))
    anonymous = sum(int(l.rpartition(" ")[2]) for l in text.splitlines() if "(anonymous)" in l)
    new = sum(int(l.rpartition(" ")[2]) for l in text.splitlines()
              if re.search(r"inner_\d+ \(", l))
    print("%s: %d stacks, %d errors, %d with ?? (anonymous), %d in new functions, ranges read "
          "again %s times" % (what, stacks, errors, anonymous, new,
                              stats.get("ranges read again")))
    if not new:
        fail("%s: no sample in the functions made while recording:\n%s\n%s" % (what, err, text))
    # The first sample in a new function may find its code unknown (the ranges are
    # read again for the next one): at most one such sample per function made.
    made = len(set(re.findall(r"inner_\d+ \(", text)))
    if anonymous > made + 2 or errors > made + 2 or \
            int(stats.get("ranges read again", "0")) < 1:
        fail("%s: the new code is not named or not unwound:\n%s\n%s" % (
            what, err, "\n".join(l[-300:] for l in text.splitlines() if "anonymous" in l)[:6000]))


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    j = os.path.join(sys.argv[1], "tools", "jitunwind", "jitunwind")
    if not os.access(j, os.X_OK):
        fail("%s was not built" % j)
    perf = next((p for p in PERF if os.access(p, os.X_OK)), None)
    jit = next((p for p in JIT if os.access(p, os.X_OK)), None)
    if perf is None and jit is None:
        print("skip: no CPython 3.12 (-X perf) or 3.14 JIT build here")
        return SKIP
    work = tempfile.mkdtemp(prefix="ju-warming-")
    try:
        if perf:
            check(j, perf, {}, ["-X", "perf"], work, "3.12 -X perf")
        else:
            part_missing("no CPython 3.12 here: -X perf not checked")
        if jit:
            check(j, jit, {"PYTHON_JIT": "1"}, [], work, "3.14 JIT")
        else:
            part_missing("no CPython 3.14 JIT build here: executors not checked")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
