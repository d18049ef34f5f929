#!/usr/bin/env python3
"""LLDB attached to Debian's python3.15 and python3.15d run with
-X perf_jit (CPython writes a jitdump file, no perf map) and PYTHON_JIT=1
(which -X perf_jit turns off), and on a core of each (gdb's gcore):
`mixed-bt` names the perf trampolines of the running calls by their Python
functions, read from the jitdump file, and reaches _start; on the core
with the jitdump file hidden none is named by its function.

Usage: test_lldb_perf_jit.py BUILD_DIR REPO_DIR
Exit 77 when there is no LLDB, or $JITUNWIND_EXTRA_PYTHONS names no
python3.15 with PREFIX/lib/debug or no python3.15d.
"""

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import perf_jit_target  # noqa: E402
from debug_roots import NO_PYDEBUG  # noqa: E402
from demo_stack import fail  # noqa: E402
from extra_pythons import NO_PYTHON315_DEBUG, named, python315_with_debug  # noqa: E402
from lldb_under_test import LLDB, MISSING, work_dir  # noqa: E402
from test_lldb_debug_files import attached  # noqa: E402
from test_lldb_demo import lldb_cmd, run, section  # noqa: E402

SKIP = 77
ATTACHES = 10


def check_attached(repo, env, label, pid, root, want):
    """Attached to `pid` until a stop in hot: the trampolines named from the
    jitdump file, down to _start."""
    for attempt in range(ATTACHES):
        mixed = section(attached(repo, env, pid, root, ["mixed-bt"]), "mixed-bt")
        natives, trampolines = perf_jit_target.native_names(mixed)
        if trampolines == want:
            break
    else:
        fail("%s: no attach of %d named the trampolines %r:\n%s" % (label, ATTACHES, want, mixed))
    if natives[-1] != "_start":
        fail("%s: mixed-bt does not reach _start:\n%s" % (label, mixed))
    print("ok: %s -X perf_jit: the trampolines py::hot, py::caller and py::<module> named from "
          "the jitdump file, down to _start (attach %d)" % (label, attempt + 1))


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    build, repo = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    (python, root), pydebug = python315_with_debug(), named("python3.15d")
    if not LLDB or not root or not pydebug:
        print("SKIP: " + (MISSING if not LLDB else NO_PYTHON315_DEBUG if not root else
                          NO_PYDEBUG))
        return SKIP
    env = dict(os.environ, JITUNWIND_LIBRARY=os.path.join(build, "libjitunwind",
                                                          "libjitunwind.so"))
    work = work_dir(build)
    script = os.path.join(work, "perf_jit.py")
    with open(script, "w") as f:
        f.write(perf_jit_target.script())
    want = perf_jit_target.trampolines(script)
    for label, interpreter in (("python3.15", python), ("python3.15d", pydebug)):
        target = subprocess.Popen([interpreter, "-X", "perf_jit", script],
                                  env=dict(env, PYTHON_JIT="1"))
        try:
            time.sleep(1)  # the 200 functions are made: the jitdump file has hot's record
            check_attached(repo, env, label, target.pid, root, want)
            perf_jit_target.check_core(
                label, target, os.path.join(work, "perf_jit.core"), want,
                lambda core: section(run(lldb_cmd(repo, True, [
                    "target create %s --core %s" % (interpreter, core), "mixed-bt"], []), env),
                    "mixed-bt"))
        finally:
            target.kill()
            target.wait()
            dump = "/tmp/jit-%d.dump" % target.pid
            if os.path.exists(dump):
                os.unlink(dump)
    return 0


if __name__ == "__main__":
    sys.exit(main())
