#!/usr/bin/env python3
"""gdb on Debian's stripped python3.15, and on a stripped copy of its
python3.15d (tests/support/stripped_pydebug.py), each with its debug file
only under a debug root gdb is told about (`set debug-file-directory`):
the plugin hands that root to the library, so with the JIT on the JIT
frames are named by function and uop (the JIT view's tables are local
symbols of the debug file) and every Python frame is under the eval loop
(python3.15's `.cold` part included), live and on a core of the JIT
process (gdb's gcore); a root holding another build's file instead gets
that file refused, named in `info jit-ranges`'s notes, live, on the core
and with the JIT off (the library reads a stripped interpreter's symbols
from its debug file whether or not JIT code runs).

Usage: test_gdb_debug_files.py BUILD_DIR REPO_DIR
Exit 77 when $JITUNWIND_EXTRA_PYTHONS names no python3.15 with PREFIX/lib/debug
or no python3.15d.
"""

import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from cores import core_until, of_fresh_run  # noqa: E402
from debug_roots import (NO_PYDEBUG, REFUSED, bogus_root, under_eval_loop,  # noqa: E402
                         uop_pattern)
from demo_stack import fail  # noqa: E402
from extra_pythons import named, NO_PYTHON315_DEBUG, python315_with_debug  # noqa: E402
from stripped_pydebug import stripped_copy  # noqa: E402
from test_gdb_jitview_real import TIMER_SCRIPT  # noqa: E402
from test_gdb_real import run_gdb, section, sections  # noqa: E402

SKIP = 77

STOPS = 12


def stops(repo, env, python, script, root, count=STOPS):
    """gdb's bt and mixed-bt at `count` timer stops, and info jit-ranges."""
    cmds = ["handle SIGVTALRM stop print pass", "run"]
    for i in range(count):
        cmds += sections([("bt%d" % i, "bt"), ("mixed%d" % i, "mixed-bt")]) + ["continue"]
    cmds += sections([("ranges", "info jit-ranges")])
    out = run_gdb(repo, env, cmds + ["kill"],
                  ["-iex", "set debug-file-directory %s" % root, "--args", python, script])
    return out, [(section(out, "bt%d" % i), section(out, "mixed%d" % i)) for i in range(count)]


def on_core(repo, env, python, core, root):
    """gdb's bt, mixed-bt and info jit-ranges on `core` with `root` as its
    debug-file-directory."""
    out = run_gdb(repo, env, sections([("bt", "bt"), ("mixed", "mixed-bt"),
                                       ("ranges", "info jit-ranges")]),
                  ["-iex", "set debug-file-directory %s" % root, python, core])
    return section(out, "bt"), section(out, "mixed"), section(out, "ranges")


def check_live(repo, env, label, python, script, root, bogus):
    """The JIT on, live: with `root` (after a root that does not exist) the
    JIT frames are named by uop and spin is under the eval loop; with
    `bogus` the file is refused, said in info jit-ranges, and no uop is
    named."""
    out, seen = stops(repo, env, python, script, "/nonexistent:" + root)
    in_jit = 0
    for i, (bt, mixed) in enumerate(seen):
        if not re.search(uop_pattern(script), bt):
            continue  # stopped outside JIT code
        in_jit += 1
        if not under_eval_loop(mixed):
            fail("%s stop %d: the Python frames are not under the eval loop:\n%s"
                 % (label, i, mixed))
    if not in_jit:
        fail("%s: no stop of %d showed a JIT frame named by function and uop:\n%s"
             % (label, STOPS, out[-4000:]))
    print("ok: %s: %d of %d stops in JIT code, each frame named `py::jit:spin [uop ...]`, "
          "Python frames under the eval loop" % (label, in_jit, STOPS))
    out, seen = stops(repo, env, python, script, bogus, 4)
    ranges = section(out, "ranges")
    if REFUSED not in ranges:
        fail("%s, another build's debug file: no note in info jit-ranges:\n%s" % (label, ranges))
    if any(re.search(r"py::jit:spin \[uop", bt) for bt, _ in seen):
        fail("%s: another build's debug file was read (uops named)" % label)
    print("ok: %s: another build's debug file refused, said in info jit-ranges" % label)


def check_core(repo, env, label, python, script, root, bogus, work):
    """A core of the JIT process, taken while it runs its loop: with `root`
    the JIT frame is named by function and uop and spin is under the eval
    loop; with `bogus` the file is refused, said in info jit-ranges, and no
    uop is named."""
    core = os.path.join(work, "spin.core")
    try:
        (bt, mixed, _), attempt = core_until(
            of_fresh_run([python, script], env), core,
            lambda c: on_core(repo, env, python, c, root), lambda r: "py::jit:" in r[0],
            label, "was taken in JIT code")
        if not re.search(uop_pattern(script), bt) or not under_eval_loop(mixed):
            fail("%s core, the debug root given to gdb: the JIT frame not named by uop, or "
                 "spin not under the eval loop:\n%s\n%s" % (label, bt, mixed))
        print("ok: %s core (%d): the JIT frame named `py::jit:spin [uop ...]`, spin under the "
              "eval loop" % (label, attempt))
        bt, mixed, ranges = on_core(repo, env, python, core, bogus)
        if REFUSED not in ranges or re.search(uop_pattern(script), bt):
            fail("%s core, another build's debug file: not refused in info jit-ranges, or a "
                 "uop named:\n%s\n%s" % (label, ranges, bt))
        print("ok: %s core: another build's debug file refused, said in info jit-ranges" % label)
    finally:
        if os.path.exists(core):
            os.unlink(core)


def check_jit_off(repo, env, label, python, script, root, bogus):
    """The JIT off: with `root` spin is under the eval loop and nothing is
    refused; with `bogus` the file is refused, said in info jit-ranges, and
    spin is still under a native frame."""
    out, seen = stops(repo, env, python, script, root, 3)
    if REFUSED in section(out, "ranges") or not all(under_eval_loop(m) for _, m in seen):
        fail("%s JIT off, the debug root given to gdb: spin not under the eval loop, or a "
             "file refused:\n%s" % (label, out[-4000:]))
    out, seen = stops(repo, env, python, script, bogus, 3)
    if REFUSED not in section(out, "ranges"):
        fail("%s JIT off, another build's debug file: no note in info jit-ranges:\n%s"
             % (label, section(out, "ranges")))
    if any("no native frame" in m or not re.search(r"\n\s+\[py\] spin at ", m)
           for _, m in seen):
        fail("%s JIT off, another build's debug file: spin not under a native frame:\n%s"
             % (label, out[-4000:]))
    print("ok: %s JIT off: spin under the eval loop with the debug root; another build's "
          "debug file refused, said in info jit-ranges" % label)


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    build, repo = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    (python, root), pydebug = python315_with_debug(), named("python3.15d")
    if not root or not pydebug:
        print("SKIP: " + (NO_PYTHON315_DEBUG if not root else NO_PYDEBUG))
        return SKIP
    off = dict(os.environ, JITUNWIND_LIBRARY=os.path.join(build, "libjitunwind",
                                                          "libjitunwind.so"))
    off.pop("PYTHON_JIT", None)
    on = dict(off, PYTHON_JIT="1")
    work = tempfile.mkdtemp(prefix="ju-gdb-debug-files-", dir=build)
    try:
        script = os.path.join(work, "spin.py")
        with open(script, "w") as f:
            f.write(TIMER_SCRIPT)
        copy, copy_root = stripped_copy(pydebug, os.path.join(work, "pydebug"))
        # Each build, and another build's debug file where its own should be.
        for label, target, target_root, other in (
                ("python3.15", python, root, pydebug),
                ("python3.15d (stripped copy)", copy, copy_root, python)):
            bogus = bogus_root(target_root, other, os.path.join(work, "bogus-" + label[:11]))
            check_live(repo, on, label, target, script, target_root, bogus)
            check_core(repo, on, label, target, script, target_root, bogus, work)
            check_jit_off(repo, off, label, target, script, target_root, bogus)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
