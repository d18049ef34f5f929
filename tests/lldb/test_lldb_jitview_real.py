#!/usr/bin/env python3
"""The JIT developer commands in LLDB on the real 3.14 JIT builds listed in
$JITUNWIND_EXTRA_PYTHONS (exit 77 when none is JIT-enabled): `info
jit-executors` names each of 8 hot loops, `jit-disas` headers follow `info
jit-executor`'s uops, and `jit-pc` on the JIT frame of a call from JIT code
names a call uop at the call's line.

Usage: test_lldb_jitview_real.py BUILD_DIR REPO_DIR
"""

import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "gdb"))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from demo_stack import WARM_IGNORE, WARM_JIT_SCRIPT, fail, markers  # noqa: E402
from test_gdb_jitview_real import EIGHT_SCRIPT, LOOPS  # noqa: E402
from extra_pythons import JIT_ON, WHY_NO_JIT, jit_pythons  # noqa: E402
from lldb_under_test import LLDB, MISSING  # noqa: E402
from test_lldb_demo import lldb_cmd, run, section  # noqa: E402

SKIP = 77


def check(repo, env, python, work):
    eight = os.path.join(work, "eight.py")
    with open(eight, "w") as f:
        f.write(EIGHT_SCRIPT)
    out = run(lldb_cmd(repo, True, ["breakpoint set -n getppid", "run", "info jit-executors",
                                    "info jit-executor 0", "jit-disas 0", "kill"],
                       ["--", python, eight]), env)
    listing = section(out, "info jit-executors")
    missing = [n for n in LOOPS
               if not re.search(r"\b%s \(%s:\d+\)" % (n, re.escape(eight)), listing)]
    if missing:
        fail("%s: info jit-executors misses %s:\n%s" % (python, missing, listing))
    trace = re.findall(r"^  (\d+) +(_\w+) ", section(out, "info jit-executor 0"), re.M)
    heads = re.findall(r"^-- uop (\d+)/\d+ (_\w+) ", section(out, "jit-disas 0"), re.M)
    if not trace or trace != heads:
        fail("%s: jit-disas headers %r do not match info jit-executor's uops %r"
             % (python, heads[:8], trace[:8]))
    script = os.path.join(work, "jit_target.py")
    with open(script, "w") as f:
        f.write(WARM_JIT_SCRIPT)
    at = markers(script)
    out = run(lldb_cmd(repo, True, ["breakpoint set -n getppid", "run",
                                    "breakpoint modify -i %d 1" % WARM_IGNORE, "continue", "mixed-bt",
                                    "kill"], ["--", python, script]), env)
    m = re.search(r"#(\d+) +(0x[0-9a-f]+) in py::jit:hot \[uop", section(out, "mixed-bt"))
    if not m:
        fail("%s: no JIT frame in mixed-bt:\n%s" % (python, section(out, "mixed-bt")))
    pc = int(m.group(2), 16) - 1
    out = run(lldb_cmd(repo, True, ["breakpoint set -n getppid", "run",
                                    "breakpoint modify -i %d 1" % WARM_IGNORE, "continue",
                                    "jit-pc %#x" % pc, "kill"], ["--", python, script]), env)
    where = section(out, "jit-pc %#x" % pc)
    if not re.search(r"uop \d+/\d+ _\w*CALL\w* .*-> line %d" % at["hot"], where):
        fail("%s: jit-pc %#x does not name a call uop at line %d:\n%s"
             % (python, pc, at["hot"], where))
    print("ok: lldb %s: 8 loops listed, jit-disas headers match %d uops, jit-pc names the call "
          "uop at line %d" % (python, len(trace), at["hot"]))


def main():
    build, repo = sys.argv[1:3]
    if not LLDB:
        print("SKIP: " + MISSING)
        return SKIP
    pythons = jit_pythons()
    if not pythons:
        print("SKIP: " + WHY_NO_JIT)
        return SKIP
    env = dict(os.environ, JITUNWIND_LIBRARY=os.path.join(build, "libjitunwind",
                                                          "libjitunwind.so"), **JIT_ON)
    with tempfile.TemporaryDirectory(prefix="ju-lldb-jitview-", dir=build) as work:
        for python in pythons:
            check(repo, env, python, work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
