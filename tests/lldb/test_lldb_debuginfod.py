#!/usr/bin/env python3
"""LLDB attached to Debian's stripped python3.15 running with its JIT on,
nothing under its debug roots (target.debug-file-search-paths an empty
folder), a real debuginfod on 127.0.0.1 serving the debug file: with
DEBUGINFOD_URLS in LLDB's environment the plugin's library fetches it, so
`mixed-bt` names the JIT frame by function and uop (the JIT view's tables
are local symbols of the debug file) and puts the Python frames under the
eval loop, attached and on a core of the process; without the variable no
uop is named, and the Python frames are still under the eval loop (its
`.cold` part found from the code).

Usage: test_lldb_debuginfod.py BUILD_DIR REPO_DIR
Exit 77 when there is no LLDB, $JITUNWIND_EXTRA_PYTHONS names no python3.15
with PREFIX/lib/debug, or debuginfod is not installed.
"""

import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import debuginfod_server  # noqa: E402
from demo_stack import fail  # noqa: E402
from extra_pythons import NO_PYTHON315_DEBUG, python315_with_debug  # noqa: E402
from lldb_under_test import LLDB, MISSING, work_dir  # noqa: E402
from test_lldb_debug_files import SPIN, attached  # noqa: E402
from test_lldb_demo import lldb_cmd, run, section  # noqa: E402
from values_target import gcore  # noqa: E402

SKIP = 77
UOP = r"py::jit:spin \[uop \d+/\d+ \w+\] \(%s:\d+\)"


def check_core(repo, env, python, pid, script, empty, work):
    """LLDB on a core of the JIT process, with `env`'s DEBUGINFOD_URLS and an
    empty client cache: the plugin's library fetches the debug file again,
    so `mixed-bt` names the JIT frame by function and uop and puts spin
    under the eval loop. The target is created through a link outside the
    interpreter's prefix, so that the tests' LLDB options add no debug root
    for it (extra_pythons.lldb_args)."""
    link = os.path.join(work, "bin", os.path.basename(python))
    os.makedirs(os.path.dirname(link), exist_ok=True)
    if not os.path.islink(link):
        os.symlink(python, link)
    core = os.path.join(work, "spin.core")
    for attempt in range(5):
        if not gcore(pid, core):
            fail("gcore of the JIT process failed")
        mixed = section(run(lldb_cmd(repo, True, [
            "settings set target.debug-file-search-paths %s" % empty,
            "target create %s --core %s" % (link, core), "mixed-bt"], []), env), "mixed-bt")
        os.unlink(core)
        if "py::jit:" in mixed:
            break
    else:
        fail("no core of 5 was taken in JIT code:\n%s" % mixed)
    if not re.search(UOP % re.escape(script), mixed) or "no native frame" in mixed or \
            not re.search(r"\n\s+\[py\] spin at ", mixed):
        fail("a core with DEBUGINFOD_URLS: the JIT frame not named by uop, or spin not under "
             "the eval loop:\n%s" % mixed)
    print("ok: a core with DEBUGINFOD_URLS: the debug file fetched again, the JIT frame named "
          "by function and uop, spin under the eval loop (core %d)" % (attempt + 1))


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    build, repo = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    python, root = python315_with_debug()
    if not LLDB or not root or not debuginfod_server.available():
        print("SKIP: " + (MISSING if not LLDB else
                          NO_PYTHON315_DEBUG
                          if not root else debuginfod_server.WHY_NONE))
        return SKIP
    work = os.path.join(work_dir(build), "debuginfod")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    empty = os.path.join(work, "no-debug-files")
    os.makedirs(empty)
    cache = os.path.join(work, "client-cache")
    env = dict(os.environ, DEBUGINFOD_CACHE_PATH=cache,
               JITUNWIND_LIBRARY=os.path.join(build, "libjitunwind", "libjitunwind.so"))
    env.pop("JITUNWIND_DEBUG_FILE_DIRECTORY", None)
    script = os.path.join(work, "spin.py")
    with open(script, "w") as f:
        f.write(SPIN)
    target = subprocess.Popen([python, script], env=dict(env, PYTHON_JIT="1"))
    try:
        with debuginfod_server.serving(root, work) as (url, hexid):
            time.sleep(1)  # the loop is hot: its executor is made
            for attempt in range(10):
                mixed = section(attached(repo, dict(env, DEBUGINFOD_URLS=url), target.pid,
                                         empty, ["mixed-bt"]), "mixed-bt")
                if re.search(UOP % re.escape(script), mixed):
                    break
            else:
                fail("no attach of 10 showed a JIT frame named by function and uop:\n%s"
                     % mixed)
            if "no native frame" in mixed or not re.search(r"\n\s+\[py\] spin at ", mixed):
                fail("the Python frames are not under the eval loop:\n%s" % mixed)
            if not os.path.isfile(os.path.join(cache, hexid, "debuginfo")):
                fail("the debug file is not in the client's cache %s" % cache)
            print("ok: DEBUGINFOD_URLS=%s: the debug file fetched; the JIT frame named by "
                  "function and uop, spin under the eval loop (attach %d)" % (url, attempt + 1))
            shutil.rmtree(cache)
            check_core(repo, dict(env, DEBUGINFOD_URLS=url), python, target.pid, script,
                       empty, work)
            if not os.path.isfile(os.path.join(cache, hexid, "debuginfo")):
                fail("for the core: the debug file is not in the client's cache %s" % cache)
            shutil.rmtree(cache)
            in_jit = 0
            for attempt in range(3):
                mixed = section(attached(repo, env, target.pid, empty, ["mixed-bt"]),
                                "mixed-bt")
                if re.search(UOP % re.escape(script), mixed):
                    fail("without DEBUGINFOD_URLS a uop was named (a debug file was found):\n%s"
                         % mixed)
                # No debug file at all: the eval loop's .cold part, which no
                # symbol names, is still found (from the code).
                if "py::jit:executor" in mixed:
                    in_jit += 1
                    if "no native frame" in mixed or not re.search(r"\n\s+\[py\] spin ", mixed):
                        fail("without a debug file the Python frames are not under the eval "
                             "loop:\n%s" % mixed)
            if not in_jit:
                fail("without DEBUGINFOD_URLS no attach of 3 stopped in JIT code:\n%s" % mixed)
            print("ok: without DEBUGINFOD_URLS no uop is named; the Python frames are under "
                  "the eval loop's unnamed .cold part")
    finally:
        target.kill()
        target.wait()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
