#!/usr/bin/env python3
"""gdb on Debian's python3.15 run with -X perf_jit (CPython writes a
jitdump file, no perf map) and PYTHON_JIT=1 (which -X perf_jit turns off):
at timer stops in a loop of Python calls, mixed-bt names the perf
trampolines by their Python functions, read from the jitdump file, and
reaches _start.

Usage: test_gdb_perf_jit.py BUILD_DIR REPO_DIR
Exit 77 when $JITUNWIND_EXTRA_PYTHONS names no python3.15 with
PREFIX/lib/debug.
"""

import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import perf_jit_target  # noqa: E402
from demo_stack import fail  # noqa: E402
from extra_pythons import NO_PYTHON315_DEBUG, python315_with_debug  # noqa: E402
from test_gdb_real import run_gdb, section, sections  # noqa: E402

SKIP = 77
STOPS = 8

# A CPU-time timer stops the loop at arbitrary places.
SCRIPT = perf_jit_target.script("signal.signal(signal.SIGVTALRM, lambda *args: None)\n"
                                "signal.setitimer(signal.ITIMER_VIRTUAL, 0.05, 0.05)\n")


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    build, repo = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    python, root = python315_with_debug()
    if not root:
        print("SKIP: " + NO_PYTHON315_DEBUG)
        return SKIP
    env = dict(os.environ, PYTHON_JIT="1",
               JITUNWIND_LIBRARY=os.path.join(build, "libjitunwind", "libjitunwind.so"))
    work = tempfile.mkdtemp(prefix="ju-gdb-perf-jit-", dir=build)
    try:
        script = os.path.join(work, "perf_jit.py")
        with open(script, "w") as f:
            f.write(SCRIPT)
        cmds = ["handle SIGVTALRM stop print pass", "run"]
        for i in range(STOPS):
            cmds += sections([("mixed%d" % i, "mixed-bt")]) + ["continue"]
        out = run_gdb(repo, env, cmds + ["kill"],
                      ["-iex", "set debug-file-directory %s" % root,
                       "--args", python, "-X", "perf_jit", script])
        want = perf_jit_target.trampolines(script)
        good = 0
        for i in range(STOPS):
            mixed = section(out, "mixed%d" % i)
            natives = re.findall(r"^#\d+\s+(?:0x[0-9a-f]+ in )?(\S+)", mixed, re.M)
            trampolines = [n for n in natives if n.startswith("py::")]
            if trampolines != want:
                continue  # stopped outside hot, or a trampoline not written out yet
            if natives[-1] != "_start":
                fail("stop %d: mixed-bt does not reach _start:\n%s" % (i, mixed))
            if re.search(r"^#\d+\s+0x7f[0-9a-f]+ in \?\? \(\)", mixed, re.M):
                fail("stop %d: a frame in anonymous code without a name:\n%s" % (i, mixed))
            good += 1
        if not good:
            fail("no stop of %d named the trampolines of hot and caller:\n%s"
                 % (STOPS, out[-4000:]))
        print("ok: -X perf_jit: %d of %d stops name the trampolines py::hot, py::caller and "
              "py::<module> from the jitdump file, and reach _start" % (good, STOPS))
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
