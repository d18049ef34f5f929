#!/usr/bin/env python3
"""LLDB on Debian's stripped python3.15, and on a stripped copy of its
python3.15d (tests/support/stripped_pydebug.py), each with its debug file
only under a root named in target.debug-file-search-paths: the plugin
hands that setting to the library, so with the JIT on `mixed-bt` names the
JIT frame by function and uop (the JIT view's tables are local symbols of
the debug file) and puts the Python frames under the eval loop, attached
and on a core of the JIT process (gdb's gcore); a root holding another
build's file instead gets it refused, named in `jit-ranges`' notes,
attached, on the core and with the JIT off (the library reads a stripped
interpreter's symbols from its debug file whether or not JIT code runs).

Usage: test_lldb_debug_files.py BUILD_DIR REPO_DIR
Exit 77 when there is no LLDB, or $JITUNWIND_EXTRA_PYTHONS names no
python3.15 with PREFIX/lib/debug or no python3.15d.
"""

import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from cores import core_until, of_pid  # noqa: E402
from debug_roots import (NO_PYDEBUG, REFUSED, bogus_root, under_eval_loop,  # noqa: E402
                         uop_pattern)
from demo_stack import fail  # noqa: E402
from extra_pythons import named, NO_PYTHON315_DEBUG, python315_with_debug  # noqa: E402
from lldb_under_test import LLDB, MISSING, work_dir  # noqa: E402
from stripped_pydebug import stripped_copy  # noqa: E402
from test_lldb_demo import lldb_cmd, run, section  # noqa: E402

SKIP = 77
SPIN = "def spin():\n    a = 0\n    while True:\n        a = (a * 3 + 1) % 999983\n\n\nspin()\n"


def attached(repo, env, pid, root, commands):
    """LLDB's output of `commands` run attached to `pid`, with `root` as its
    debug-file search path."""
    return run(lldb_cmd(repo, True, ["settings set target.debug-file-search-paths %s" % root,
                                     "process attach -p %d" % pid] + commands
                        + ["process detach"], []), env)


def on_core(repo, env, python, core, root):
    """(mixed-bt, jit-ranges) of LLDB on `core` with `root` as its
    debug-file search path."""
    out = run(lldb_cmd(repo, True, ["settings set target.debug-file-search-paths %s" % root,
                                    "target create %s --core %s" % (python, core),
                                    "mixed-bt", "jit-ranges"], []), env)
    return section(out, "mixed-bt"), section(out, "jit-ranges")


def check_attached(repo, env, label, pid, script, root, bogus):
    """The JIT process `pid`, attached: with `root` the JIT frame is named
    by function and uop and spin is under the eval loop; with `bogus` the
    file is refused, said in jit-ranges, and no uop is named."""
    for attempt in range(10):
        mixed = section(attached(repo, env, pid, root, ["mixed-bt"]), "mixed-bt")
        if re.search(uop_pattern(script), mixed):
            break
    else:
        fail("%s: no attach of 10 showed a JIT frame named by function and uop:\n%s"
             % (label, mixed))
    if not under_eval_loop(mixed):
        fail("%s: the Python frames are not under the eval loop:\n%s" % (label, mixed))
    print("ok: %s: target.debug-file-search-paths: the JIT frame named by function and uop, "
          "spin under the eval loop (attach %d)" % (label, attempt + 1))
    out = attached(repo, env, pid, bogus, ["mixed-bt", "jit-ranges"])
    if REFUSED not in section(out, "jit-ranges") or re.search(r"py::jit:spin \[uop",
                                                              section(out, "mixed-bt")):
        fail("%s, another build's debug file: no note in jit-ranges, or a uop named:\n%s"
             % (label, out[-3000:]))
    print("ok: %s: another build's debug file refused, said in jit-ranges" % label)


def check_core(repo, env, label, python, pid, script, root, bogus, work):
    """A core of the JIT process `pid`, taken while it runs its loop: with
    `root` the JIT frame is named by function and uop and spin is under the
    eval loop; with `bogus` the file is refused, said in jit-ranges, and no
    uop is named."""
    core = os.path.join(work, "spin.core")
    (mixed, _), attempt = core_until(of_pid(pid), core,
                                     lambda c: on_core(repo, env, python, c, root),
                                     lambda r: "py::jit:" in r[0], label, "was taken in JIT code")
    try:
        if not re.search(uop_pattern(script), mixed) or not under_eval_loop(mixed):
            fail("%s core, the debug root given to LLDB: the JIT frame not named by uop, or "
                 "spin not under the eval loop:\n%s" % (label, mixed))
        print("ok: %s core (%d): the JIT frame named by function and uop, spin under the eval "
              "loop" % (label, attempt))
        mixed, ranges = on_core(repo, env, python, core, bogus)
        if REFUSED not in ranges or re.search(r"py::jit:spin \[uop", mixed):
            fail("%s core, another build's debug file: no note in jit-ranges, or a uop "
                 "named:\n%s\n%s" % (label, ranges, mixed))
        print("ok: %s core: another build's debug file refused, said in jit-ranges" % label)
    finally:
        os.unlink(core)


def check_jit_off(repo, env, label, pid, root, bogus):
    """The process `pid` with its JIT off: with `root` spin is under the
    eval loop and nothing is refused; with `bogus` the file is refused,
    said in jit-ranges, and spin is still under a native frame."""
    out = attached(repo, env, pid, root, ["mixed-bt", "jit-ranges"])
    if REFUSED in section(out, "jit-ranges") or not under_eval_loop(section(out, "mixed-bt")):
        fail("%s JIT off, the debug root given to LLDB: spin not under the eval loop, or a file "
             "refused:\n%s" % (label, out[-3000:]))
    out = attached(repo, env, pid, bogus, ["mixed-bt", "jit-ranges"])
    mixed = section(out, "mixed-bt")
    if REFUSED not in section(out, "jit-ranges"):
        fail("%s JIT off, another build's debug file: no note in jit-ranges:\n%s"
             % (label, section(out, "jit-ranges")))
    if "no native frame" in mixed or not re.search(r"\n\s+\[py\] spin at ", mixed):
        fail("%s JIT off, another build's debug file: spin not under a native frame:\n%s"
             % (label, mixed))
    print("ok: %s JIT off: spin under the eval loop with the debug root; another build's "
          "debug file refused, said in jit-ranges" % label)


def check_build(repo, env, label, python, script, root, bogus, work):
    """Every check of one build: its JIT on, then off."""
    for jit in (True, False):
        target = subprocess.Popen([python, script],
                                  env=dict(env, PYTHON_JIT="1") if jit else env)
        try:
            time.sleep(1)  # the loop is hot: its executor is made
            if jit:
                check_attached(repo, env, label, target.pid, script, root, bogus)
                check_core(repo, env, label, python, target.pid, script, root, bogus, work)
            else:
                check_jit_off(repo, env, label, target.pid, root, bogus)
        finally:
            target.kill()
            target.wait()


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    build, repo = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    (python, root), pydebug = python315_with_debug(), named("python3.15d")
    if not LLDB or not root or not pydebug:
        print("SKIP: " + (MISSING if not LLDB else
                          NO_PYTHON315_DEBUG if not root else NO_PYDEBUG))
        return SKIP
    env = dict(os.environ, JITUNWIND_LIBRARY=os.path.join(build, "libjitunwind",
                                                          "libjitunwind.so"))
    env.pop("PYTHON_JIT", None)
    work = os.path.join(work_dir(build), "debug-files")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    try:
        script = os.path.join(work, "debug_files_spin.py")
        with open(script, "w") as f:
            f.write(SPIN)
        copy, copy_root = stripped_copy(pydebug, os.path.join(work, "pydebug"))
        # Each build, and another build's debug file where its own should be.
        for label, target, target_root, other in (
                ("python3.15", python, root, pydebug),
                ("python3.15d (stripped copy)", copy, copy_root, python)):
            bogus = bogus_root(target_root, other, os.path.join(work, "bogus-" + label[:11]))
            check_build(repo, env, label, target, script, target_root, bogus, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
