#!/usr/bin/env python3
"""A running thread's innermost line under --nonblocking: the target calls
one chain of frames from two lines of run, one after the other, and the
chain's leaf spins on lines of its own for each (the flag handed down
picks them). Under either line of run the leaf, the frames between and
their addresses are the same, so a stack whose leaf line belongs to the
other line of run mixes two moments: the walk read the leaf before the
thread went back to run and called down again. The running-chain check
compares each caller's instruction and takes the leaf's line from its own
reading, so such stacks stay within the stated limit (torn_limit.py), with
the block cache and with --no-cache.

Usage: test_cli_torn_lines.py BUILD_DIR
Exit 0 on success, 1 on failure, 77 to skip.
"""

import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
sys.path.insert(0, HERE)
from demo_stack import fail  # noqa: E402
from test_cli_torn import each_mode  # noqa: E402
from torn_limit import allowed  # noqa: E402

ENOUGH_STACKS = 3000  # stacks of the leaf wanted: runs go on until there are
FEWEST_STACKS = 1000  # or BUDGET seconds passed (a busy machine); fewer: no verdict
BUDGET = 100
# The leaf spins 1000 rounds on each path: long enough that a reader with a
# CPU of its own catches the chain unchanged now and then (with a few dozen
# rounds almost every reading on an idle machine was torn, and the runs
# ended with too few stacks for a verdict).
TARGET = """\
def leaf(x):
    if x:
        for _ in range(1000):
            pass  # spin a
        return 1
    for _ in range(1000):
        pass  # spin b
    return 0


def down(n, x):
    if n:
        return down(n - 1, x)
    return leaf(x)


def run():
    while True:
        down(20, 1)  # path a
        down(20, 0)  # path b


run()
"""


def line_of(comment):
    return next(i + 1 for i, text in enumerate(TARGET.splitlines()) if "# " + comment in text)


# The leaf's lines under each line of run (its first line before it starts,
# the test, its own loop and return): any other pairing is a stack the
# target never has.
LEAF_LINES = {line_of("path a"): {1, 2, 3, 4, 5}, line_of("path b"): {1, 2, 6, 7, 8}}
FRAME = re.compile(r"^(.*) \([^()]*:(\d+)\)$")


def judge(path):
    """(stacks ending in leaf, of those the impossible ones, examples)."""
    leafs = bad = 0
    examples = []
    with open(path) as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            frames = [FRAME.match(s) for s in stack.split(";")]
            if not frames or not all(frames) or frames[-1].group(1) != "leaf":
                continue
            leafs += int(count)
            run_line = next((int(m.group(2)) for m in frames if m.group(1) == "run"), None)
            if int(frames[-1].group(2)) not in LEAF_LINES.get(run_line, ()):
                bad += int(count)
                examples.append("run line %s ... leaf line %s" % (run_line, frames[-1].group(2)))
    return leafs, bad, examples


def check(j, pid, work, extra, limit=allowed):
    out = os.path.join(work, "profile.txt")
    leafs = bad = 0
    examples = []
    start = time.monotonic()
    while leafs < ENOUGH_STACKS and time.monotonic() - start < BUDGET:
        p = subprocess.run([j, "record", str(pid), "--nonblocking", "-d", "3", "-F", "2000",
                            "-o", out] + extra, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=120)
        if p.returncode != 0:
            fail("record %s: exit %d: %s" % (extra, p.returncode, p.stderr))
        got = judge(out)
        leafs, bad = leafs + got[0], bad + got[1]
        examples += got[2]
    if leafs < FEWEST_STACKS:
        fail("record %s: only %d stacks in the leaf in %d s (at least %d wanted)" % (
            extra, leafs, BUDGET, FEWEST_STACKS))
    if bad > limit(leafs):
        fail("record %s: %d of %d stacks have the leaf on a line of the other path "
             "(at most %d allowed), e.g. %s" % (extra, bad, leafs, limit(leafs), examples[:3]))
    print("ok: record --nonblocking %s: %d of %d stacks in the leaf with a line of the other "
          "path (at most %d allowed)" % (" ".join(extra), bad, leafs, limit(leafs)))


def main():
    return each_mode(__doc__, TARGET, ([], ["--no-cache"]), check)


if __name__ == "__main__":
    sys.exit(main())
