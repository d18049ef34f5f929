#!/usr/bin/env python3
"""gdb on Debian's stripped python3.15 with its JIT on, its debug file only
under a debug root gdb is told about (`set debug-file-directory`): the
plugin hands that root to the library, so the JIT frames are named by
function and uop (the JIT view's tables are local symbols of the debug
file) and every Python frame is under the eval loop (its `.cold` part
included); a root holding another build's file instead gets that file
refused, named in `info jit-ranges`'s notes.

Usage: test_gdb_debug_files.py BUILD_DIR REPO_DIR
Exit 77 when $JITUNWIND_EXTRA_PYTHONS names no python3.15 with PREFIX/lib/debug.
"""

import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from demo_stack import fail  # noqa: E402
from extra_pythons import named, NO_PYTHON315_DEBUG, python315_with_debug  # noqa: E402
from test_gdb_jitview_real import TIMER_SCRIPT  # noqa: E402
from test_gdb_real import run_gdb, section, sections  # noqa: E402

SKIP = 77

STOPS = 12


def stops(repo, env, python, script, root):
    """gdb's bt and mixed-bt at STOPS timer stops, and info jit-ranges."""
    cmds = ["handle SIGVTALRM stop print pass", "run"]
    for i in range(STOPS):
        cmds += sections([("bt%d" % i, "bt"), ("mixed%d" % i, "mixed-bt")]) + ["continue"]
    cmds += sections([("ranges", "info jit-ranges")])
    out = run_gdb(repo, env, cmds + ["kill"],
                  ["-iex", "set debug-file-directory %s" % root, "--args", python, script])
    return out, [(section(out, "bt%d" % i), section(out, "mixed%d" % i)) for i in range(STOPS)]


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
    work = tempfile.mkdtemp(prefix="ju-gdb-debug-files-", dir=build)
    try:
        script = os.path.join(work, "spin.py")
        with open(script, "w") as f:
            f.write(TIMER_SCRIPT)
        out, seen = stops(repo, env, python, script, "/nonexistent:" + root)
        in_jit = 0
        for i, (bt, mixed) in enumerate(seen):
            m = re.search(r"py::jit:spin \[uop \d+/\d+ \w+\] \(%s:\d+\)" % re.escape(script), bt)
            if not m:
                continue  # stopped outside JIT code
            in_jit += 1
            if "Python frames that no native frame" in mixed or not re.search(
                    r"in _PyEval_EvalFrameDefault\b.*\n\s+\[py\] spin at ", mixed):
                fail("stop %d: the Python frames are not under the eval loop:\n%s" % (i, mixed))
        if not in_jit:
            fail("no stop of %d showed a JIT frame named by function and uop:\n%s"
                 % (STOPS, out[-4000:]))
        print("ok: %d of %d stops in JIT code, each frame named `py::jit:spin [uop ...]`, "
              "Python frames under the eval loop" % (in_jit, STOPS))
        # Another build's debug file where this one's should be.
        bogus = os.path.join(work, "bogus")
        other = named("python3.15d")
        if other:
            shutil.copytree(os.path.join(root, ".build-id"), os.path.join(bogus, ".build-id"),
                            copy_function=lambda src, dst: shutil.copy(other, dst))
            out, seen = stops(repo, env, python, script, bogus)
            ranges = section(out, "ranges")
            if "refused: its build id is" not in ranges:
                fail("another build's debug file: no note in info jit-ranges:\n%s" % ranges)
            if any(re.search(r"py::jit:spin \[uop", bt) for bt, _ in seen):
                fail("another build's debug file was read (uops named)")
            print("ok: another build's debug file refused, said in info jit-ranges")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
