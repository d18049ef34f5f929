#!/usr/bin/env python3
"""LLDB attached to Debian's stripped python3.15 running with its JIT on,
its debug file only under a root named in target.debug-file-search-paths:
the plugin hands that setting to the library, so `mixed-bt` names the JIT
frame by function and uop (the JIT view's tables are local symbols of the
debug file) and puts the Python frames under the eval loop; a root holding
another build's file instead gets it refused, named in `jit-ranges`' notes.

Usage: test_lldb_debug_files.py BUILD_DIR REPO_DIR
Exit 77 when there is no LLDB, or $JITUNWIND_EXTRA_PYTHONS names no
python3.15 with PREFIX/lib/debug.
"""

import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from demo_stack import fail  # noqa: E402
from extra_pythons import named, NO_PYTHON315_DEBUG, python315_with_debug  # noqa: E402
from lldb_under_test import LLDB, MISSING, work_dir  # noqa: E402
from test_lldb_demo import lldb_cmd, run, section  # noqa: E402

SKIP = 77
SPIN = "def spin():\n    a = 0\n    while True:\n        a = (a * 3 + 1) % 999983\n\n\nspin()\n"


def attached(repo, env, pid, root, commands):
    """LLDB's output of `commands` run attached to `pid`, with `root` as its
    debug-file search path."""
    return run(lldb_cmd(repo, True, ["settings set target.debug-file-search-paths %s" % root,
                                     "process attach -p %d" % pid] + commands
                        + ["process detach"], []), env)


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    build, repo = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    (python, root), other = python315_with_debug(), named("python3.15d")
    if not LLDB or not root:
        print("SKIP: " + (MISSING if not LLDB else
                          NO_PYTHON315_DEBUG))
        return SKIP
    env = dict(os.environ, JITUNWIND_LIBRARY=os.path.join(build, "libjitunwind",
                                                          "libjitunwind.so"))
    work = work_dir(build)
    script = os.path.join(work, "debug_files_spin.py")
    with open(script, "w") as f:
        f.write(SPIN)
    target = subprocess.Popen([python, script], env=dict(env, PYTHON_JIT="1"))
    try:
        time.sleep(1)  # the loop is hot: its executor is made
        for attempt in range(10):
            mixed = section(attached(repo, env, target.pid, root, ["mixed-bt"]), "mixed-bt")
            if re.search(r"py::jit:spin \[uop \d+/\d+ \w+\] \(%s:\d+\)" % re.escape(script),
                         mixed):
                break
        else:
            fail("no attach of 10 showed a JIT frame named by function and uop:\n%s" % mixed)
        if "no native frame" in mixed or not re.search(
                r"in _PyEval_EvalFrameDefault\b.*\n\s+\[py\] spin at ", mixed):
            fail("the Python frames are not under the eval loop:\n%s" % mixed)
        print("ok: target.debug-file-search-paths: the JIT frame named by function and uop, "
              "spin under the eval loop (attach %d)" % (attempt + 1))
        if other:
            bogus = os.path.join(work, "debug-files-bogus")
            shutil.rmtree(bogus, ignore_errors=True)
            shutil.copytree(os.path.join(root, ".build-id"), os.path.join(bogus, ".build-id"),
                            copy_function=lambda src, dst: shutil.copy(other, dst))
            ranges = section(attached(repo, env, target.pid, bogus, ["jit-ranges"]),
                             "jit-ranges")
            shutil.rmtree(bogus, ignore_errors=True)
            if "refused: its build id is" not in ranges:
                fail("another build's debug file: no note in jit-ranges:\n%s" % ranges)
            print("ok: another build's debug file refused, said in jit-ranges")
    finally:
        target.kill()
        target.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
