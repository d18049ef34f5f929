#!/usr/bin/env python3
"""Reading a thread's Python frames while it runs (`record --nonblocking`,
`stack --python`): a target recursing up and down all the time, through a
different function per depth (level_0 calls level_1 ... at random depths),
so that every possible stack is <module>, run, then level_0..level_k in
order (or run's calls into random). A chain that changed under the reader
must be read again or said to be torn, never emitted mixed: no recorded or
shown stack is impossible, and `record --stats` counts the torn chains
(also as errors).

Usage: test_cli_torn.py BUILD_DIR
Exit 0 on success, 1 on failure, 77 to skip.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from demo_stack import end_target, fail  # noqa: E402

SKIP = 77
PYTHON = "/usr/bin/python3.11"
TARGET = r"""
import random
DEPTH = 40
for d in range(DEPTH):
    call = "level_%d(n - 1)" % (d + 1) if d + 1 < DEPTH else "0"
    exec("def level_%d(n):\n    if n <= 0:\n        return 0\n    return %s + 1\n" % (d, call))
def run():
    r = random.Random(1)
    while True:
        level_0(r.randint(1, DEPTH))
run()
"""


def possible(names):
    """Is `names` (outermost first) a stack the target can have?"""
    if names[:2] != ["<module>", "run"]:
        return False
    rest = names[2:]
    return rest == ["level_%d" % i for i in range(len(rest))] or \
        all(n.startswith("Random.") for n in rest)


def check_record(j, pid, work):
    torn = 0
    out = os.path.join(work, "profile.txt")
    # With the block cache: --no-cache reads each field on its own as the
    # walk goes, and still lets an impossible stack through about once in a
    # few thousand samples of this target (docs/cli.md).
    for attempt, extra in enumerate([[]] * 3):
        p = subprocess.run([j, "record", str(pid), "--nonblocking", "-d", "1.5", "-F", "500",
                            "--stats", "-o", out] + extra, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=60)
        if p.returncode != 0:
            fail("record %s: exit %d: %s" % (extra, p.returncode, p.stderr))
        with open(out) as f:
            for line in f:
                stack, _, count = line.rstrip("\n").rpartition(" ")
                names = [re.sub(r" \(.*", "", frame) for frame in stack.split(";")]
                if not possible(names):
                    fail("record %s emitted an impossible stack (%s samples): %s" % (
                        extra, count, stack[:600]))
        stats = dict(re.findall(r"^([a-z ]+): (\d+)$", p.stderr, re.M))
        if "torn chains" not in stats:
            fail("record --stats does not count torn chains: %s" % p.stderr)
        if int(stats["errors"]) < int(stats["torn chains"]):
            fail("torn chains are not counted as errors: %s" % p.stderr)
        torn += int(stats["torn chains"])
        print("ok: record --nonblocking %s: %s samples, %s errors, %s torn chains, every stack "
              "possible" % (" ".join(extra), stats["samples"], stats["errors"],
                            stats["torn chains"]))
        if torn and attempt >= 1:
            break
    if not torn:
        fail("no torn chain was counted in any run (the target changes its chain all the time)")


def check_stack(j, pid):
    said = 0
    for _ in range(100):
        p = subprocess.run([j, "stack", "--python", "--json", str(pid)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=60)
        if p.returncode not in (0, 6):  # 6: a torn chain makes the result partial
            fail("stack --python: exit %d: %s" % (p.returncode, p.stderr))
        for thread in json.loads(p.stdout)["threads"]:
            if thread.get("python_error") and "changed while it was read" in \
                    thread["python_error"]:
                said += 1
                continue
            names = [f["function"] for f in thread["frames"] if f.get("kind") == "python"]
            if names and not possible(names[::-1]):
                fail("stack --python showed an impossible stack: %s" % names)
    print("ok: stack --python x 100: every stack possible, %d said to be torn" % said)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    j = os.path.join(sys.argv[1], "tools", "jitunwind", "jitunwind")
    if not os.access(j, os.X_OK):
        fail("%s was not built" % j)
    if not os.access(PYTHON, os.X_OK):
        print("SKIP: no %s" % PYTHON)
        return SKIP
    work = tempfile.mkdtemp(prefix="ju-torn-")
    try:
        script = os.path.join(work, "target.py")
        with open(script, "w") as f:
            f.write(TARGET)
        proc = subprocess.Popen([PYTHON, script])
        try:
            time.sleep(1)
            check_record(j, proc.pid, work)
            check_stack(j, proc.pid)
        finally:
            end_target(proc)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
