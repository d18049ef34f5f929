#!/usr/bin/env python3
"""`record --nonblocking --mark-frames` on a CPython 3.15 target (JIT on)
whose chain changes all the time, as cli.torn's: the running-chain check
stops at the marked frame once the marker vouches for the frames beyond
it (the marker and its sequence unchanged since a whole check), so only
the frames above it are read again. The target stays a while at the
bottom of some of its calls (the top frame then unchanged from one sample
to the next, the checks stopping at the marker) and returns and calls
down again at once in others (the marker moved, whole checks). Of the
stacks recorded, at a rate kept with sleeps and at one no run keeps, no
more may be impossible than cli.torn allows, torn chains are counted,
checks must have stopped at the marker, and the profile must have taken
the ids of the frames beyond the marked one from the thread's last stack
while the same proof vouched for them (--stats' "frame ids the marker
vouched for"): a stale id kept there would show as an impossible stack.
Then cli.torn_lines' target, whose
two paths share every frame address and code and differ only in the line
of their outermost caller: a check that trusted a marker whose frame was
popped pairs a cached outer line with the other path's leaf, which the
marker protocol lets through now and then (torn_limit.allowed_marked
states the rate measured); more than that fails.

Usage: test_cli_torn_markers.py BUILD_DIR
Exit 0 on success, 1 on failure, 77 to skip.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
sys.path.insert(0, HERE)
from demo_stack import fail  # noqa: E402
from extra_pythons import JIT_ON, named  # noqa: E402
from test_cli_torn import Impossible, check_record, each_mode  # noqa: E402
from torn_limit import allowed_marked  # noqa: E402
import test_cli_torn_lines  # noqa: E402

# As cli.torn's target (every possible stack is <module>, run, then
# level_0..level_k, or run's calls into random), each call spinning
# `spins` rounds at its bottom: none, a few, or long enough for several
# samples.
TARGET = r"""
import random
DEPTH = 40
for d in range(DEPTH):
    call = "level_%d(n - 1, spins)" % (d + 1) if d + 1 < DEPTH else "0"
    exec("def level_%d(n, spins):\n"
         "    if n <= 0:\n"
         "        s = 0\n"
         "        for i in range(spins):\n"
         "            s += i\n"
         "        return s & 1\n"
         "    return %s + 1\n" % (d, call))
def run():
    r = random.Random(1)
    while True:
        level_0(r.randint(1, DEPTH), r.choice((0, 0, 50, 20000)))
run()
"""


# Torn chains counted over both rates: at the kept rate a busy machine may
# let the target run between samples so long that no check meets one.
TORN = []


def check_marked(j, pid, work, mode):
    seconds, hz, runs, pin = mode
    seen = Impossible()
    extra = ["--mark-frames"]
    totals = check_record(j, pid, work, extra, seconds, hz, runs, pin, seen, need_torn=False)
    TORN.append(totals.get("torn chains", 0))
    seen.verdict(extra + ["-F", str(hz)])
    if not totals.get("marker checks"):
        fail("record --mark-frames -F %d: no check stopped at the marker: %s" % (hz, totals))
    if not totals.get("frame ids the marker vouched for"):
        fail("record --mark-frames -F %d: no frame id was taken from the last stack under the "
             "marker's proof: %s" % (hz, totals))
    print("ok: -F %d: %d checks stopped at the marker, %d frame ids taken under its proof, %d "
          "torn chains" % (hz, totals["marker checks"], totals["frame ids the marker vouched for"],
                           totals["torn chains"]))


def main():
    python = named("python3.15")
    if not python:
        print("SKIP: no python3.15 on JITUNWIND_EXTRA_PYTHONS")
        return 77
    env = dict(os.environ, **JIT_ON)
    # The reader kept on one CPU in every other run; a rate kept, then one
    # no run keeps (each sample's check reads the next one's pages).
    rc = each_mode(__doc__, TARGET, ((3, 1000, 3, True), (3, 1000000, 3, True)), check_marked,
                   python=python, env=env)
    if rc:
        return rc
    if not sum(TORN):
        fail("record --mark-frames: no torn chain was counted at either rate (the target "
             "changes its chain all the time): %s" % TORN)
    return each_mode(__doc__, test_cli_torn_lines.TARGET, (["--mark-frames"],),
                     lambda j, pid, work, mode: test_cli_torn_lines.check(
                         j, pid, work, mode, limit=allowed_marked),
                     python=python, env=env)


if __name__ == "__main__":
    sys.exit(main())
