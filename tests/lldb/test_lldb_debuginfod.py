#!/usr/bin/env python3
"""LLDB on Debian's stripped python3.15, and on a stripped copy of its
python3.15d (tests/support/stripped_pydebug.py), nothing under the debug
roots (target.debug-file-search-paths an empty folder), a real debuginfod
on 127.0.0.1 serving the build's debug file: with DEBUGINFOD_URLS in
LLDB's environment the plugin's library fetches it, so with the JIT on
`mixed-bt` names the JIT frame by function and uop (the JIT view's tables
are local symbols of the debug file) and puts the Python frames under the
eval loop, attached and on a core of the process, and with the JIT off
py-locals reads values (their layouts are in the debug file's DWARF);
without the variable no uop is named, the Python frames are still under
the eval loop (python3.15's `.cold` part found from the code), and
py-locals says it found no DWARF.

Usage: test_lldb_debuginfod.py BUILD_DIR REPO_DIR
Exit 77 when there is no LLDB, $JITUNWIND_EXTRA_PYTHONS names no python3.15
with PREFIX/lib/debug or no python3.15d, or debuginfod is not installed.
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
import debuginfod_server  # noqa: E402
from debug_roots import NO_PYDEBUG  # noqa: E402
from demo_stack import fail  # noqa: E402
from extra_pythons import named, NO_PYTHON315_DEBUG, python315_with_debug  # noqa: E402
from lldb_under_test import LLDB, MISSING, work_dir  # noqa: E402
from stripped_pydebug import stripped_copy  # noqa: E402
from test_lldb_debug_files import SPIN, attached  # noqa: E402
from test_lldb_demo import lldb_cmd, run, section  # noqa: E402

SKIP = 77
UOP = r"py::jit:spin \[uop \d+/\d+ \w+\] \(%s:\d+\)"


def check_core(repo, env, label, python, pid, script, empty, work):
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
    mixed, attempt = core_until(of_pid(pid), core, lambda c: section(run(lldb_cmd(repo, True, [
        "settings set target.debug-file-search-paths %s" % empty,
        "target create %s --core %s" % (link, c), "mixed-bt"], []), env), "mixed-bt"),
        lambda mixed: "py::jit:" in mixed, label, "was taken in JIT code")
    os.unlink(core)
    if not re.search(UOP % re.escape(script), mixed) or "no native frame" in mixed or \
            not re.search(r"\n\s+\[py\] spin at ", mixed):
        fail("%s, a core with DEBUGINFOD_URLS: the JIT frame not named by uop, or spin not "
             "under the eval loop:\n%s" % (label, mixed))
    print("ok: %s, a core with DEBUGINFOD_URLS: the debug file fetched again, the JIT frame "
          "named by function and uop, spin under the eval loop (core %d)" % (label, attempt))


def check_jit(repo, env, label, python, script, url, hexid, empty, work):
    """The JIT process of `python`, with `env`'s DEBUGINFOD_CACHE_PATH
    emptied: attached and on a core with DEBUGINFOD_URLS, the JIT frame
    named by uop and spin under the eval loop; attached without it, no uop
    and spin still under the eval loop."""
    cache = env["DEBUGINFOD_CACHE_PATH"]
    target = subprocess.Popen([python, script], env=dict(env, PYTHON_JIT="1"))
    try:
        time.sleep(1)  # the loop is hot: its executor is made
        for attempt in range(10):
            mixed = section(attached(repo, dict(env, DEBUGINFOD_URLS=url), target.pid,
                                     empty, ["mixed-bt"]), "mixed-bt")
            if re.search(UOP % re.escape(script), mixed):
                break
        else:
            fail("%s: no attach of 10 showed a JIT frame named by function and uop:\n%s"
                 % (label, mixed))
        if "no native frame" in mixed or not re.search(r"\n\s+\[py\] spin at ", mixed):
            fail("%s: the Python frames are not under the eval loop:\n%s" % (label, mixed))
        if not os.path.isfile(os.path.join(cache, hexid, "debuginfo")):
            fail("%s: the debug file is not in the client's cache %s" % (label, cache))
        print("ok: %s: DEBUGINFOD_URLS=%s: the debug file fetched; the JIT frame named by "
              "function and uop, spin under the eval loop (attach %d)"
              % (label, url, attempt + 1))
        shutil.rmtree(cache)
        check_core(repo, dict(env, DEBUGINFOD_URLS=url), label, python, target.pid, script,
                   empty, work)
        if not os.path.isfile(os.path.join(cache, hexid, "debuginfo")):
            fail("%s, for the core: the debug file is not in the client's cache %s"
                 % (label, cache))
        shutil.rmtree(cache)
        in_jit = 0
        for attempt in range(3):
            mixed = section(attached(repo, env, target.pid, empty, ["mixed-bt"]), "mixed-bt")
            if re.search(UOP % re.escape(script), mixed):
                fail("%s: without DEBUGINFOD_URLS a uop was named (a debug file was found):\n%s"
                     % (label, mixed))
            # No debug file at all: the eval loop (python3.15's .cold part,
            # which no symbol names, included) is still found from the code.
            if "py::jit:executor" in mixed:
                in_jit += 1
                if "no native frame" in mixed or not re.search(r"\n\s+\[py\] spin ", mixed):
                    fail("%s: without a debug file the Python frames are not under the eval "
                         "loop:\n%s" % (label, mixed))
        if not in_jit:
            fail("%s: without DEBUGINFOD_URLS no attach of 3 stopped in JIT code:\n%s"
                 % (label, mixed))
        print("ok: %s: without DEBUGINFOD_URLS no uop is named; the Python frames are under "
              "the eval loop" % label)
    finally:
        target.kill()
        target.wait()


def check_jit_off(repo, env, label, python, script, url, hexid, empty):
    """The process of `python` with its JIT off, attached with
    DEBUGINFOD_URLS and an empty client cache: the library fetches the
    debug file and py-locals reads spin's values (their layouts are in the
    debug file's DWARF); without the variable nothing is fetched and
    py-locals says why it cannot read them."""
    cache = env["DEBUGINFOD_CACHE_PATH"]
    values = r"Locals for spin\na = \d+\n"
    target = subprocess.Popen([python, script], env=env)
    try:
        time.sleep(1)
        shutil.rmtree(cache, ignore_errors=True)
        found = section(attached(repo, dict(env, DEBUGINFOD_URLS=url), target.pid, empty,
                                 ["py-locals"]), "py-locals")
        if not re.search(values, found) or not os.path.isfile(os.path.join(cache, hexid,
                                                                            "debuginfo")):
            fail("%s JIT off, DEBUGINFOD_URLS: the debug file not fetched, or spin's values "
                 "not read:\n%s" % (label, found))
        shutil.rmtree(cache, ignore_errors=True)
        found = section(attached(repo, env, target.pid, empty, ["py-locals"]), "py-locals")
        if re.search(values, found) or "none was found" not in found:
            fail("%s JIT off, no DEBUGINFOD_URLS: spin's values read, or no reason said:\n%s"
                 % (label, found))
        print("ok: %s JIT off: with DEBUGINFOD_URLS the debug file fetched, py-locals reads "
              "spin's values; without, py-locals says no DWARF was found" % label)
    finally:
        target.kill()
        target.wait()


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    build, repo = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    (python, root), pydebug = python315_with_debug(), named("python3.15d")
    if not LLDB or not root or not pydebug or not debuginfod_server.available():
        print("SKIP: " + (MISSING if not LLDB else
                          NO_PYTHON315_DEBUG if not root else
                          NO_PYDEBUG if not pydebug else debuginfod_server.WHY_NONE))
        return SKIP
    work = os.path.join(work_dir(build), "debuginfod")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    empty = os.path.join(work, "no-debug-files")
    os.makedirs(empty)
    env = dict(os.environ, DEBUGINFOD_CACHE_PATH=os.path.join(work, "client-cache"),
               JITUNWIND_LIBRARY=os.path.join(build, "libjitunwind", "libjitunwind.so"))
    env.pop("JITUNWIND_DEBUG_FILE_DIRECTORY", None)
    env.pop("PYTHON_JIT", None)
    script = os.path.join(work, "spin.py")
    with open(script, "w") as f:
        f.write(SPIN)
    try:
        copy, copy_root = stripped_copy(pydebug, os.path.join(work, "pydebug"))
        for label, target, target_root in (("python3.15", python, root),
                                           ("python3.15d (stripped copy)", copy, copy_root)):
            served = os.path.join(work, "served-" + label[:11])
            os.makedirs(served)
            with debuginfod_server.serving(target_root, served) as (url, hexid):
                check_jit(repo, env, label, target, script, url, hexid, empty, served)
                check_jit_off(repo, env, label, target, script, url, hexid, empty)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
