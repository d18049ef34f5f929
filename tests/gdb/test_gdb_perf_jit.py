#!/usr/bin/env python3
"""gdb on Debian's python3.15 and python3.15d run with -X perf_jit
(CPython writes a jitdump file, no perf map) and PYTHON_JIT=1 (which
-X perf_jit turns off): at timer stops in a loop of Python calls, and on a
core of the process (gdb's gcore), mixed-bt names the perf trampolines by
their Python functions, read from the jitdump file, and reaches _start; on
the core with the jitdump file hidden none is named by its function.

Usage: test_gdb_perf_jit.py BUILD_DIR REPO_DIR
Exit 77 when $JITUNWIND_EXTRA_PYTHONS names no python3.15 with
PREFIX/lib/debug or no python3.15d.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import perf_jit_target  # noqa: E402
from debug_roots import NO_PYDEBUG  # noqa: E402
from demo_stack import fail  # noqa: E402
from extra_pythons import NO_PYTHON315_DEBUG, named, python315_with_debug  # noqa: E402
from test_gdb_real import run_gdb, section, sections  # noqa: E402

SKIP = 77
STOPS = 8

# A CPU-time timer stops the loop at arbitrary places.
SCRIPT = perf_jit_target.script("signal.signal(signal.SIGVTALRM, lambda *args: None)\n"
                                "signal.setitimer(signal.ITIMER_VIRTUAL, 0.05, 0.05)\n")


def check_live(repo, env, label, python, script):
    """Timer stops under gdb: some stop in hot names the trampolines of hot,
    caller and <module> from the jitdump file, and reaches _start."""
    cmds = ["handle SIGVTALRM stop print pass", "run"]
    for i in range(STOPS):
        cmds += sections([("mixed%d" % i, "mixed-bt")]) + ["continue"]
    out = run_gdb(repo, env, cmds + ["kill"], ["--args", python, "-X", "perf_jit", script])
    want = perf_jit_target.trampolines(script)
    good = 0
    for i in range(STOPS):
        mixed = section(out, "mixed%d" % i)
        natives, trampolines = perf_jit_target.native_names(mixed)
        if trampolines != want:
            continue  # stopped outside hot, or a trampoline not written out yet
        if natives[-1] != "_start":
            fail("%s stop %d: mixed-bt does not reach _start:\n%s" % (label, i, mixed))
        if re.search(r"^#\d+\s+0x7f[0-9a-f]+ in \?\? \(\)", mixed, re.M):
            fail("%s stop %d: a frame in anonymous code without a name:\n%s" % (label, i, mixed))
        good += 1
    if not good:
        fail("%s: no stop of %d named the trampolines of hot and caller:\n%s"
             % (label, STOPS, out[-4000:]))
    print("ok: %s -X perf_jit: %d of %d stops name the trampolines py::hot, py::caller and "
          "py::<module> from the jitdump file, and reach _start" % (label, good, STOPS))


def check_core(repo, env, label, python, script, work):
    """A core of the process (perf_jit_target.check_core)."""
    proc = subprocess.Popen([python, "-X", "perf_jit", script], env=env)
    time.sleep(1)  # the 200 functions are made: the jitdump file has hot's record
    perf_jit_target.check_core(
        label, proc, os.path.join(work, "perf_jit.core"), perf_jit_target.trampolines(script),
        lambda core: section(run_gdb(repo, env, sections([("mixed", "mixed-bt")]),
                                     [python, core]), "mixed"))
def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    build, repo = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    (python, root), pydebug = python315_with_debug(), named("python3.15d")
    if not root or not pydebug:
        print("SKIP: " + (NO_PYTHON315_DEBUG if not root else
                          NO_PYDEBUG))
        return SKIP
    env = dict(os.environ, PYTHON_JIT="1",
               JITUNWIND_LIBRARY=os.path.join(build, "libjitunwind", "libjitunwind.so"))
    work = tempfile.mkdtemp(prefix="ju-gdb-perf-jit-", dir=build)
    try:
        script = os.path.join(work, "perf_jit.py")
        with open(script, "w") as f:
            f.write(SCRIPT)
        for label, target in (("python3.15", python), ("python3.15d", pydebug)):
            check_live(repo, env, label, target, script)
            check_core(repo, env, label, target, script, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        for leftover in os.listdir("/tmp"):
            if leftover.startswith("jit-") and leftover.endswith(".dump") and \
                    not os.path.exists("/proc/%s" % leftover[4:-5]):
                try:
                    os.unlink(os.path.join("/tmp", leftover))
                except OSError:
                    pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
