#!/usr/bin/env python3
"""gdb on Debian's stripped python3.15, and on a stripped copy of its
python3.15d (tests/support/stripped_pydebug.py), with nothing under the
debug roots (gdb's debug-file-directory an empty folder, gdb's own
debuginfod client off), a real debuginfod on 127.0.0.1 serving the build's
debug file: with DEBUGINFOD_URLS the plugin's library fetches it, so with
the JIT on JIT frames are named by function and uop (the JIT view's tables
are local symbols of the debug file) and the Python frames are under the
eval loop, live and on a core of the running process, and with the JIT off
py-locals reads values (their layouts are in the debug file's DWARF);
without the variable no uop is named, the Python frames are still under the
eval loop (python3.15's `.cold` part found from the code), and py-locals
says it found no DWARF.

Usage: test_gdb_debuginfod.py BUILD_DIR REPO_DIR
Exit 77 when $JITUNWIND_EXTRA_PYTHONS names no python3.15 with
PREFIX/lib/debug or no python3.15d, or debuginfod is not installed.
"""

import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import debuginfod_server  # noqa: E402
from cores import core_until, of_fresh_run  # noqa: E402
from debug_roots import NO_PYDEBUG  # noqa: E402
from demo_stack import fail  # noqa: E402
from extra_pythons import named, NO_PYTHON315_DEBUG, python315_with_debug  # noqa: E402
from stripped_pydebug import stripped_copy  # noqa: E402
from test_gdb_debug_files import STOPS, stops  # noqa: E402
from test_gdb_jitview_real import TIMER_SCRIPT  # noqa: E402
from test_gdb_real import run_gdb, section, sections  # noqa: E402

SKIP = 77
UOP = r"py::jit:spin \[uop \d+/\d+ \w+\] \(%s:\d+\)"


def check_core(repo, env, label, python, script, empty, work):
    """gdb on a core of the JIT process, taken while it runs its loop, with
    `env`'s DEBUGINFOD_URLS and an empty client cache: the plugin's library
    fetches the debug file again, so `bt` names the JIT frame by function
    and uop and `mixed-bt` puts the Python frame under the eval loop."""
    core = os.path.join(work, "spin.core")
    out, _ = core_until(
        of_fresh_run([python, script], env), core,
        lambda c: run_gdb(repo, env, sections([("bt", "bt"), ("mixed", "mixed-bt")]),
                          ["-iex", "set debug-file-directory %s" % empty, python, c]),
        lambda out: "py::jit:" in section(out, "bt"), label, "was taken in JIT code")
    os.unlink(core)
    bt, mixed = section(out, "bt"), section(out, "mixed")
    if not re.search(UOP % re.escape(script), bt) or "no native frame" in mixed or \
            not re.search(r"\n\s+\[py\] spin at ", mixed):
        fail("%s, a core with DEBUGINFOD_URLS: the JIT frame not named by uop, or the Python "
             "frames not under the eval loop:\n%s\n%s" % (label, bt[-3000:], mixed[-3000:]))
    print("ok: %s, a core with DEBUGINFOD_URLS: the debug file fetched again, the JIT frame "
          "named `py::jit:spin [uop ...]`, the Python frame under the eval loop" % label)


def check_jit_off(repo, env, label, python, script, empty, cache, hexid):
    """The JIT off, `env` with DEBUGINFOD_URLS: the library fetches the
    debug file into the empty client cache, and py-locals reads spin's
    values (their layouts are in the debug file's DWARF); without the
    variable nothing is fetched and py-locals says why it cannot read them."""
    cmds = ["handle SIGVTALRM stop print pass", "run"] + sections([("locals", "py-locals")])
    args = ["-iex", "set debug-file-directory %s" % empty, "--args", python, script]
    values = r"Locals for spin\na = \d+\nb = \d+\n"
    shutil.rmtree(cache, ignore_errors=True)
    found = section(run_gdb(repo, env, cmds + ["kill"], args), "locals")
    if not re.search(values, found) or not os.path.isfile(os.path.join(cache, hexid,
                                                                        "debuginfo")):
        fail("%s JIT off, DEBUGINFOD_URLS: the debug file not fetched, or spin's values not "
             "read:\n%s" % (label, found))
    shutil.rmtree(cache, ignore_errors=True)
    without = dict(env)
    del without["DEBUGINFOD_URLS"]
    found = section(run_gdb(repo, without, cmds + ["kill"], args), "locals")
    if re.search(values, found) or "none was found" not in found:
        fail("%s JIT off, no DEBUGINFOD_URLS: spin's values read, or no reason said:\n%s"
             % (label, found))
    print("ok: %s JIT off: with DEBUGINFOD_URLS the debug file fetched, py-locals reads spin's "
          "values; without, py-locals says no DWARF was found" % label)


def check_build(repo, env, label, python, root, script, empty, work):
    """Every check of one build, its debug file served from `root`."""
    cache = env["DEBUGINFOD_CACHE_PATH"]
    with debuginfod_server.serving(root, work) as (url, hexid):
        out, seen = stops(repo, dict(env, DEBUGINFOD_URLS=url), python, script, empty)
        in_jit = 0
        for i, (bt, mixed) in enumerate(seen):
            if not re.search(UOP % re.escape(script), bt):
                continue  # stopped outside JIT code
            in_jit += 1
            if "no native frame" in mixed or not re.search(r"\n\s+\[py\] spin at ", mixed):
                fail("%s stop %d: the Python frames are not under the eval loop:\n%s"
                     % (label, i, mixed))
        if not in_jit:
            fail("%s: no stop of %d showed a JIT frame named by function and uop:\n%s"
                 % (label, STOPS, out[-4000:]))
        if not os.path.isfile(os.path.join(cache, hexid, "debuginfo")):
            fail("%s: the debug file is not in the client's cache %s" % (label, cache))
        print("ok: %s: DEBUGINFOD_URLS=%s: the debug file fetched; %d of %d stops in JIT code, "
              "each frame named `py::jit:spin [uop ...]`, Python frames under the eval loop"
              % (label, url, in_jit, STOPS))
        shutil.rmtree(cache)
        check_core(repo, dict(env, DEBUGINFOD_URLS=url), label, python, script, empty, work)
        if not os.path.isfile(os.path.join(cache, hexid, "debuginfo")):
            fail("%s, for the core: the debug file is not in the client's cache %s"
                 % (label, cache))
        shutil.rmtree(cache)
        out, seen = stops(repo, env, python, script, empty)
        if any(re.search(UOP % re.escape(script), bt) for bt, _ in seen):
            fail("%s: without DEBUGINFOD_URLS a uop was named (a debug file was found)" % label)
        # No debug file at all: the eval loop (python3.15's unnamed .cold
        # part included) is still found from the code, so the Python frames
        # of a stop in JIT code are under it.
        in_jit = [mixed for bt, mixed in seen if "py::jit:executor" in bt]
        if not in_jit or any("no native frame" in m or not re.search(r"\n\s+\[py\] spin ", m)
                             for m in in_jit):
            fail("%s without a debug file: stops in JIT code %d, Python frames not under the "
                 "eval loop:\n%s" % (label, len(in_jit), in_jit[0] if in_jit else out[-3000:]))
        print("ok: %s: without DEBUGINFOD_URLS no uop is named; in %d stops in JIT code the "
              "Python frames are under the eval loop" % (label, len(in_jit)))
        off = dict(env, DEBUGINFOD_URLS=url)
        del off["PYTHON_JIT"]
        check_jit_off(repo, off, label, python, script, empty, cache, hexid)


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    build, repo = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    (python, root), pydebug = python315_with_debug(), named("python3.15d")
    if not root or not pydebug or not debuginfod_server.available():
        print("SKIP: " + (NO_PYTHON315_DEBUG if not root else NO_PYDEBUG
                          if not pydebug else debuginfod_server.WHY_NONE))
        return SKIP
    work = tempfile.mkdtemp(prefix="ju-gdb-debuginfod-", dir=build)
    try:
        script = os.path.join(work, "spin.py")
        with open(script, "w") as f:
            f.write(TIMER_SCRIPT)
        empty = os.path.join(work, "no-debug-files")
        os.makedirs(empty)
        env = dict(os.environ, PYTHON_JIT="1",
                   DEBUGINFOD_CACHE_PATH=os.path.join(work, "client-cache"),
                   JITUNWIND_LIBRARY=os.path.join(build, "libjitunwind", "libjitunwind.so"))
        env.pop("JITUNWIND_DEBUG_FILE_DIRECTORY", None)
        copy, copy_root = stripped_copy(pydebug, os.path.join(work, "pydebug"))
        for label, target, target_root in (("python3.15", python, root),
                                           ("python3.15d (stripped copy)", copy, copy_root)):
            served = os.path.join(work, "served-" + label[:11])
            os.makedirs(served)
            check_build(repo, env, label, target, target_root, script, empty, served)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
