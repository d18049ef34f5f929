#!/usr/bin/env python3
"""LLDB attached to Debian's python3.15 run with -X perf_jit (CPython writes
a jitdump file, no perf map) and PYTHON_JIT=1 (which -X perf_jit turns
off): `mixed-bt` names the perf trampolines of the running calls by their
Python functions, read from the jitdump file, and reaches _start.

Usage: test_lldb_perf_jit.py BUILD_DIR REPO_DIR
Exit 77 when there is no LLDB, or $JITUNWIND_EXTRA_PYTHONS names no
python3.15 with PREFIX/lib/debug.
"""

import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import perf_jit_target  # noqa: E402
from demo_stack import fail  # noqa: E402
from extra_pythons import NO_PYTHON315_DEBUG, python315_with_debug  # noqa: E402
from lldb_under_test import LLDB, MISSING, work_dir  # noqa: E402
from test_lldb_debug_files import attached  # noqa: E402
from test_lldb_demo import section  # noqa: E402

SKIP = 77
ATTACHES = 10


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    build, repo = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    python, root = python315_with_debug()
    if not LLDB or not root:
        print("SKIP: " + (MISSING if not LLDB else
                          NO_PYTHON315_DEBUG))
        return SKIP
    env = dict(os.environ, JITUNWIND_LIBRARY=os.path.join(build, "libjitunwind",
                                                          "libjitunwind.so"))
    work = work_dir(build)
    script = os.path.join(work, "perf_jit.py")
    with open(script, "w") as f:
        f.write(perf_jit_target.script())
    target = subprocess.Popen([python, "-X", "perf_jit", script], env=dict(env, PYTHON_JIT="1"))
    want = perf_jit_target.trampolines(script)
    try:
        time.sleep(1)  # the 200 functions are made: the jitdump file has hot's record
        for attempt in range(ATTACHES):
            mixed = section(attached(repo, env, target.pid, root, ["mixed-bt"]), "mixed-bt")
            natives = re.findall(r"^#\d+\s+(?:0x[0-9a-f]+ in )?(\S+)", mixed, re.M)
            if [n for n in natives if n.startswith("py::")] == want:
                break
        else:
            fail("no attach of %d named the trampolines %r:\n%s" % (ATTACHES, want, mixed))
        if natives[-1] != "_start":
            fail("mixed-bt does not reach _start:\n%s" % mixed)
        print("ok: -X perf_jit: the trampolines py::hot, py::caller and py::<module> named from "
              "the jitdump file, down to _start (attach %d)" % (attempt + 1))
    finally:
        target.kill()
        target.wait()
        dump = "/tmp/jit-%d.dump" % target.pid
        if os.path.exists(dump):
            os.unlink(dump)
    return 0


if __name__ == "__main__":
    sys.exit(main())
