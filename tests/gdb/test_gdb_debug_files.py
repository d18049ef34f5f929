#!/usr/bin/env python3
"""gdb on Debian's stripped python3.15 with its JIT on, its debug file only
under a debug root gdb is told about (`set debug-file-directory`): the
plugin hands that root to the library, so the JIT frames are named by
function and uop (the JIT view's tables are local symbols of the debug
file) and every Python frame is under the eval loop (its `.cold` part
included); a root holding another build's file instead gets that file
refused, named in `info jit-ranges`'s notes. The same on a core of the
JIT process (gdb's gcore), and, with the JIT off, the refusal (the library
reads the stripped interpreter's symbols from its debug file whether or not
JIT code runs).

Usage: test_gdb_debug_files.py BUILD_DIR REPO_DIR
Exit 77 when $JITUNWIND_EXTRA_PYTHONS names no python3.15 with PREFIX/lib/debug.
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
from demo_stack import fail  # noqa: E402
from extra_pythons import named, NO_PYTHON315_DEBUG, python315_with_debug  # noqa: E402
from test_gdb_jitview_real import TIMER_SCRIPT  # noqa: E402
from test_gdb_real import run_gdb, section, sections  # noqa: E402
from values_target import gcore  # noqa: E402

SKIP = 77

STOPS = 12
REFUSED = "refused: its build id is"


def stops(repo, env, python, script, root, count=STOPS):
    """gdb's bt and mixed-bt at `count` timer stops, and info jit-ranges."""
    cmds = ["handle SIGVTALRM stop print pass", "run"]
    for i in range(count):
        cmds += sections([("bt%d" % i, "bt"), ("mixed%d" % i, "mixed-bt")]) + ["continue"]
    cmds += sections([("ranges", "info jit-ranges")])
    out = run_gdb(repo, env, cmds + ["kill"],
                  ["-iex", "set debug-file-directory %s" % root, "--args", python, script])
    return out, [(section(out, "bt%d" % i), section(out, "mixed%d" % i)) for i in range(count)]


def bogus_root(root, other, work):
    """A debug root holding the file `other` (another build) at every path
    `root` has under .build-id."""
    bogus = os.path.join(work, "bogus")
    if not os.path.isdir(bogus):
        shutil.copytree(os.path.join(root, ".build-id"), os.path.join(bogus, ".build-id"),
                        copy_function=lambda src, dst: shutil.copy(other, dst))
    return bogus


def on_core(repo, env, python, core, root):
    """gdb's bt, mixed-bt and info jit-ranges on `core` with `root` as its
    debug-file-directory."""
    out = run_gdb(repo, env, sections([("bt", "bt"), ("mixed", "mixed-bt"),
                                       ("ranges", "info jit-ranges")]),
                  ["-iex", "set debug-file-directory %s" % root, python, core])
    return section(out, "bt"), section(out, "mixed"), section(out, "ranges")


def under_eval_loop(mixed):
    """Whether mixed-bt's Python frames are each under a native frame, and
    spin's frame is the eval loop gdb names from the debug file, or a
    function inlined into it (gdb shows those as frames at the same pc)."""
    m = re.search(r"^#\d+\s+(0x[0-9a-f]+) in .*\n(?:\s+\[py\] .*\n)*\s+\[py\] spin at ",
                  mixed, re.M)
    return "no native frame" not in mixed and m and re.search(
        r"^#\d+\s+%s in _PyEval_EvalFrameDefault\b" % m.group(1), mixed, re.M)


def check_core(repo, env, python, script, root, bogus, work):
    """A core of the JIT process, taken while it runs its loop: with `root`
    the JIT frame is named by function and uop and spin is under the eval
    loop; with `bogus` (None: not checked) the file is refused, said in info
    jit-ranges, and no uop is named."""
    core = os.path.join(work, "spin.core")
    uop = r"py::jit:spin \[uop \d+/\d+ \w+\] \(%s:\d+\)" % re.escape(script)
    try:
        for attempt in range(5):
            proc = subprocess.Popen([python, script], env=env)
            try:
                time.sleep(1)  # past the warm-up: the loop runs as JIT code
                if not gcore(proc.pid, core):
                    fail("gcore of the JIT process failed")
            finally:
                proc.kill()
                proc.wait()
            bt, mixed, _ = on_core(repo, env, python, core, root)
            if "py::jit:" in bt:
                break
        else:
            fail("no core of 5 was taken in JIT code:\n%s" % bt)
        if not re.search(uop, bt) or not under_eval_loop(mixed):
            fail("core, the debug root given to gdb: the JIT frame not named by uop, or spin "
                 "not under the eval loop:\n%s\n%s" % (bt, mixed))
        print("ok: core (%d): the JIT frame named `py::jit:spin [uop ...]`, spin under the "
              "eval loop" % (attempt + 1))
        if bogus:
            bt, mixed, ranges = on_core(repo, env, python, core, bogus)
            if REFUSED not in ranges or re.search(uop, bt):
                fail("core, another build's debug file: not refused in info jit-ranges, or a "
                     "uop named:\n%s\n%s" % (ranges, bt))
            print("ok: core: another build's debug file refused, said in info jit-ranges")
    finally:
        if os.path.exists(core):
            os.unlink(core)


def check_jit_off(repo, env, python, script, root, bogus):
    """python3.15 with its JIT off: with `root` spin is under the eval loop
    and nothing is refused; with `bogus` the file is refused, said in info
    jit-ranges, and spin is still under a native frame."""
    out, seen = stops(repo, env, python, script, root, 3)
    if REFUSED in section(out, "ranges") or not all(under_eval_loop(m) for _, m in seen):
        fail("JIT off, the debug root given to gdb: spin not under the eval loop, or a file "
             "refused:\n%s" % out[-4000:])
    out, seen = stops(repo, env, python, script, bogus, 3)
    if REFUSED not in section(out, "ranges"):
        fail("JIT off, another build's debug file: no note in info jit-ranges:\n%s"
             % section(out, "ranges"))
    if any("no native frame" in m or not re.search(r"\n\s+\[py\] spin at ", m)
           for _, m in seen):
        fail("JIT off, another build's debug file: spin not under a native frame:\n%s"
             % out[-4000:])
    print("ok: JIT off: spin under the eval loop with the debug root; another build's debug "
          "file refused, said in info jit-ranges")


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
            if not under_eval_loop(mixed):
                fail("stop %d: the Python frames are not under the eval loop:\n%s" % (i, mixed))
        if not in_jit:
            fail("no stop of %d showed a JIT frame named by function and uop:\n%s"
                 % (STOPS, out[-4000:]))
        print("ok: %d of %d stops in JIT code, each frame named `py::jit:spin [uop ...]`, "
              "Python frames under the eval loop" % (in_jit, STOPS))
        # Another build's debug file where this one's should be.
        other = named("python3.15d")
        bogus = other and bogus_root(root, other, work)
        if other:
            out, seen = stops(repo, env, python, script, bogus)
            ranges = section(out, "ranges")
            if REFUSED not in ranges:
                fail("another build's debug file: no note in info jit-ranges:\n%s" % ranges)
            if any(re.search(r"py::jit:spin \[uop", bt) for bt, _ in seen):
                fail("another build's debug file was read (uops named)")
            print("ok: another build's debug file refused, said in info jit-ranges")
        check_core(repo, env, python, script, root, bogus, work)
        if other:
            off = dict(env)
            del off["PYTHON_JIT"]
            check_jit_off(repo, off, python, script, root, bogus)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
