#!/usr/bin/env python3
"""Reading a thread's Python frames while it runs (`record --nonblocking`,
`stack --python`): a target recursing up and down all the time, through a
different function per depth (level_0 calls level_1 ... at random depths),
so that every possible stack is <module>, run, then level_0..level_k in
order (or run's calls into random). A chain that changed under the reader
must be read again or said to be torn, not emitted mixed: of the stacks
recorded and shown in each mode, no more are impossible than the rate
docs/cli.md states for a thread that is never stopped (torn_limit.py), and
`record --stats` counts the torn chains (also as errors).

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
from torn_limit import allowed  # noqa: E402

SKIP = 77
PYTHON = "/usr/bin/python3.11"
MOST_RUNS = 12  # runs of record at most, while none has counted a torn chain
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


def on_cpu(which):
    """A preexec_fn that keeps the process on the which-th CPU it may use
    (None with one CPU): a reader kept on one CPU leaves the target mostly
    running on the other while its chain is read."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return None
    return lambda: os.sched_setaffinity(0, {cpus[which]})


def possible(names):
    """Is `names` (outermost first) a stack the target can have?"""
    if names[:2] != ["<module>", "run"]:
        return False
    rest = names[2:]
    return rest == ["level_%d" % i for i in range(len(rest))] or \
        all(n.startswith("Random.") for n in rest)


class Impossible:
    """The stacks judged in one mode, and the impossible ones among them."""

    def __init__(self):
        self.stacks = self.bad = 0
        self.examples = []

    def judge(self, names, count, what):
        self.stacks += count
        if not possible(names):
            self.bad += count
            self.examples.append("%s: %s" % (what, ";".join(names)[:300]))

    def verdict(self, extra):
        if self.bad > allowed(self.stacks):
            fail("%s: %d of %d stacks impossible (at most %d allowed), e.g. %s" % (
                " ".join(extra) or "block cache", self.bad, self.stacks,
                allowed(self.stacks), self.examples[:3]))
        print("ok: %s: %d of %d stacks impossible (at most %d allowed)" % (
            " ".join(extra) or "block cache", self.bad, self.stacks, allowed(self.stacks)))


def check_record(j, pid, work, extra, seconds, hz, runs, pin, seen, need_torn=True):
    """`runs` runs of `record --nonblocking` + extra, more (up to
    MOST_RUNS) until one counted a torn chain (a run on a busy machine, the
    target given little of a CPU, may see none; with
    need_torn False the caller asks for torn chains over several calls
    instead): every recorded stack judged into `seen`. With `pin`
    the reader is kept on one CPU in every other run (from the first), the
    target left free: the two then mostly run side by side, and the chain
    changes all the time under the reader; in the other runs they share a
    CPU more often, and the target is stopped in the middle of a walk.
    Returns the --stats counts summed over the runs."""
    torn = 0
    totals = {}
    out = os.path.join(work, "profile.txt")
    for attempt in range(max(runs, MOST_RUNS)):
        p = subprocess.run([j, "record", str(pid), "--nonblocking", "-d", str(seconds), "-F",
                            str(hz), "--stats", "-o", out] + extra, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=120,
                           preexec_fn=on_cpu(1) if pin and attempt % 2 == 0 else None)
        if p.returncode != 0:
            fail("record %s: exit %d: %s" % (extra, p.returncode, p.stderr))
        with open(out) as f:
            for line in f:
                stack, _, count = line.rstrip("\n").rpartition(" ")
                names = [re.sub(r" \(.*", "", frame) for frame in stack.split(";")]
                seen.judge(names, int(count), "record")
        stats = dict(re.findall(r"^([a-z ]+): (\d+)$", p.stderr, re.M))
        if "torn chains" not in stats:
            fail("record --stats does not count torn chains: %s" % p.stderr)
        if int(stats["errors"]) < int(stats["torn chains"]):
            fail("torn chains are not counted as errors: %s" % p.stderr)
        torn += int(stats["torn chains"])
        for key, value in stats.items():
            totals[key] = totals.get(key, 0) + int(value)
        print("ok: record --nonblocking %s: %s samples, %s errors, %s torn chains" % (
            " ".join(extra), stats["samples"], stats["errors"], stats["torn chains"]))
        if torn and attempt + 1 >= runs:
            break
    if not torn and need_torn:
        fail("record %s: no torn chain was counted in any run (the target changes its chain "
             "all the time)" % extra)
    return totals


def check_stack(j, pid, extra, pin, seen):
    said = 0
    for _ in range(100):
        p = subprocess.run([j, "stack", "--python", "--json", str(pid)] + extra,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60,
                           preexec_fn=on_cpu(1) if pin else None)
        if p.returncode not in (0, 6):  # 6: a torn chain makes the result partial
            fail("stack --python: exit %d: %s" % (p.returncode, p.stderr))
        for thread in json.loads(p.stdout)["threads"]:
            if thread.get("python_error") and "changed while it was read" in \
                    thread["python_error"]:
                said += 1
                continue
            names = [f["function"] for f in thread["frames"] if f.get("kind") == "python"]
            if names:
                seen.judge(names[::-1], 1, "stack --python")
    print("ok: stack --python %s x 100: %d said to be torn" % (" ".join(extra), said))


def each_mode(doc, target, modes, check, python=PYTHON, env=None):
    """A test's main() on a target running `target` under `python` (with
    `env`): usage, the built tool, the interpreter (a skip without it),
    then for each of `modes` a fresh target and check(j, pid, work, mode).
    The exit code."""
    if len(sys.argv) != 2:
        print(doc)
        return 2
    j = os.path.join(sys.argv[1], "tools", "jitunwind", "jitunwind")
    if not os.access(j, os.X_OK):
        fail("%s was not built" % j)
    if not python or not os.access(python, os.X_OK):
        print("SKIP: no %s" % (python or "such interpreter"))
        return SKIP
    work = tempfile.mkdtemp(prefix="ju-torn-")
    try:
        script = os.path.join(work, "target.py")
        with open(script, "w") as f:
            f.write(target)
        for mode in modes:
            proc = subprocess.Popen([python, script], env=env)
            try:
                time.sleep(1)
                check(j, proc.pid, work, mode)
            finally:
                end_target(proc)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("ok")
    return 0


def check_mode(j, pid, work, mode):
    extra, seconds, hz, runs, pin = mode
    seen = Impossible()
    check_record(j, pid, work, extra, seconds, hz, runs, pin, seen)
    check_stack(j, pid, extra, pin, seen)
    seen.verdict(extra)


def main():
    # In every other run the reader is kept on one CPU, the target left
    # running on the other. --no-cache reads each field on its own as the
    # walk goes: its walks are torn most often.
    return each_mode(__doc__, TARGET, (([], 3, 1000, 3, True), (["--no-cache"], 4, 2000, 4, True)),
                     check_mode)


if __name__ == "__main__":
    sys.exit(main())
