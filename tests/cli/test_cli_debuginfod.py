#!/usr/bin/env python3
"""jitunwind and a real debuginfod (Debian's package) on 127.0.0.1, with
nothing under the debug roots: on Debian's stripped python3.15 and on a
stripped copy of its python3.15d (tests/support/stripped_pydebug.py), each
build's debug file served. With DEBUGINFOD_URLS the CLI gets the file
through libdebuginfod (into DEBUGINFOD_CACHE_PATH): with the JIT on every
Python frame is run by an eval-loop frame and the JIT frames name their
uops, live and on a core of the process; with the JIT off `--locals` reads
the values (their layouts are in the debug file's DWARF). Without the
variable no uop is named and no value is read.

Usage: test_cli_debuginfod.py BUILD_DIR REPO_DIR
Exit 77 when $JITUNWIND_EXTRA_PYTHONS names no python3.15 with
PREFIX/lib/debug or no python3.15d, or debuginfod is not installed.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import debuginfod_server  # noqa: E402
from debug_roots import NO_PYDEBUG  # noqa: E402
from cores import core_until, of_pid  # noqa: E402
from demo_stack import fail  # noqa: E402
from extra_pythons import NO_PYTHON315_DEBUG, named, python315_with_debug  # noqa: E402
from stripped_pydebug import stripped_copy  # noqa: E402
from test_cli import (HOT_SCRIPT, eval_anchored, has_jit_frame, stack_until,  # noqa: E402
                      start_script, tool, uop_labels)

SKIP = 77


def fetched(cache, hexid):
    return os.path.isfile(os.path.join(cache, hexid, "debuginfo"))


def check_core(j, work, label, pid, empty, env, hexid, want):
    """A core of the JIT process `pid` taken in JIT code, read with `env`'s
    DEBUGINFOD_URLS and an empty client cache: the debug file fetched again,
    uops named, every Python frame run by an eval-loop frame, `want` among
    those frames' symbols."""
    core = os.path.join(work, "debuginfod.core")
    cache = os.path.join(work, "core-client-cache")
    env = dict(env, DEBUGINFOD_CACHE_PATH=cache)
    p, _ = core_until(of_pid(pid), core, lambda c: subprocess.run(
        [j, "stack", "--core", c, "--json", "--debug-file-directory", empty],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120, env=env),
        lambda p: p.stdout and has_jit_frame(json.loads(p.stdout)), label,
        "was taken in JIT code")
    os.unlink(core)
    doc = json.loads(p.stdout)
    symbols = eval_anchored(label + " core", doc)
    if p.returncode != 0 or want not in symbols or not uop_labels(doc) or \
            not fetched(cache, hexid):
        fail("%s core: exit %d, eval symbols %r, uops %r, %s" % (
            label, p.returncode, sorted(symbols), uop_labels(doc),
            "fetched" if fetched(cache, hexid) else "not fetched into %s" % cache))
    print("ok: %s, a core: the debug file fetched; Python frames run by %s; JIT frame at %s"
          % (label, ", ".join(sorted(symbols)), uop_labels(doc)[0]))


def fetching(work, url):
    """An empty debug root, an emptied client cache, and an environment
    that fetches debug files from the debuginfod server at `url` into that
    cache, with no debug root of its own: (root, cache, environment)."""
    empty = os.path.join(work, "no-debug-files")
    os.makedirs(empty, exist_ok=True)
    cache = os.path.join(work, "client-cache")
    shutil.rmtree(cache, ignore_errors=True)
    env = dict(os.environ, DEBUGINFOD_URLS=url, DEBUGINFOD_CACHE_PATH=cache)
    env.pop("JITUNWIND_DEBUG_FILE_DIRECTORY", None)
    return empty, cache, env


def check_jit(j, work, label, python, url, hexid, want):
    """The JIT on: live with DEBUGINFOD_URLS, the file fetched, every Python
    frame run by an eval-loop frame (`want` among their symbols), uops
    named; the same on a core; without the variable no uop named."""
    proc, gate = start_script(python, [], HOT_SCRIPT, work, "hot.py",
                              env=dict(os.environ, PYTHON_JIT="1"))
    try:
        empty, cache, env = fetching(work, url)
        cmd = [j, "stack", str(proc.pid), "--json", "--no-cache", "--debug-file-directory",
               empty]
        rc, doc = stack_until(label, cmd, has_jit_frame, env=env)
        symbols = eval_anchored(label, doc)
        uops = uop_labels(doc)
        if rc != 0 or want not in symbols or not uops or not fetched(cache, hexid):
            fail("%s: exit %d, eval symbols %r, uops %r, %s" % (
                label, rc, sorted(symbols), uops,
                "fetched" if fetched(cache, hexid) else "not fetched into %s" % cache))
        print("ok: %s, debuginfod on %s: the debug file fetched into the client's cache; "
              "Python frames run by %s; JIT frame at %s"
              % (label, url, ", ".join(sorted(symbols)), uops[0]))
        check_core(j, work, label, proc.pid, empty, env, hexid, want)
        del env["DEBUGINFOD_URLS"]
        shutil.rmtree(cache, ignore_errors=True)
        rc, doc = stack_until(label + " without DEBUGINFOD_URLS", cmd, has_jit_frame, env=env)
        if uop_labels(doc) or fetched(cache, hexid):
            fail("%s without DEBUGINFOD_URLS: uops named %r (the debug file was found)"
                 % (label, uop_labels(doc)))
        print("ok: %s: without DEBUGINFOD_URLS the server is not asked (no uop named)" % label)
    finally:
        if os.path.exists(gate):
            os.unlink(gate)
        proc.wait(timeout=60)


def hot_locals(doc):
    """The names of the locals `stack --json --locals` read in hot's frame."""
    return [[v["name"] for v in f.get("locals") or []] for t in doc["threads"]
            for f in t["frames"] if f["kind"] == "python" and f["function"] == "hot"]


def check_jit_off(j, work, label, python, url, hexid):
    """The JIT off: with DEBUGINFOD_URLS the file fetched and `--locals`
    reads hot's locals (its argument n, and of total and i those bound);
    without the variable none is read."""
    proc, gate = start_script(python, [], HOT_SCRIPT, work, "hot.py")
    try:
        empty, cache, env = fetching(work, url)
        cmd = [j, "stack", str(proc.pid), "--json", "--no-cache", "--locals",
               "--debug-file-directory", empty]
        env.pop("PYTHON_JIT", None)
        rc, doc = stack_until(label + " JIT off", cmd,
                              lambda d: any("n" in names for names in hot_locals(d)), env=env)
        eval_anchored(label + " JIT off", doc)
        names = hot_locals(doc)
        if rc != 0 or len(names) != 1 or not set(names[0]) <= {"n", "total", "i"} or \
                not fetched(cache, hexid):
            fail("%s JIT off: exit %d, hot's locals %r, %s" % (
                label, rc, hot_locals(doc),
                "fetched" if fetched(cache, hexid) else "not fetched into %s" % cache))
        del env["DEBUGINFOD_URLS"]
        shutil.rmtree(cache, ignore_errors=True)
        rc, doc = stack_until(label + " JIT off, without DEBUGINFOD_URLS", cmd, hot_locals,
                              env=env)
        if hot_locals(doc) != [[]] or fetched(cache, hexid):
            fail("%s JIT off without DEBUGINFOD_URLS: hot's locals %r (a debug file was found)"
                 % (label, hot_locals(doc)))
        print("ok: %s JIT off: with DEBUGINFOD_URLS the debug file fetched and hot's locals "
              "%s read; without it none" % (label, ", ".join(names[0])))
    finally:
        if os.path.exists(gate):
            os.unlink(gate)
        proc.wait(timeout=60)


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    build = os.path.abspath(sys.argv[1])
    (python, root), pydebug = python315_with_debug(), named("python3.15d")
    if not root or not pydebug or not debuginfod_server.available():
        print("SKIP: " + (NO_PYTHON315_DEBUG if not root else
                          NO_PYDEBUG if not pydebug else
                          debuginfod_server.WHY_NONE))
        return SKIP
    j = tool(build)
    work = tempfile.mkdtemp(prefix="ju-cli-debuginfod-", dir=build)
    try:
        copy, copy_root = stripped_copy(pydebug, os.path.join(work, "pydebug"))
        # GCC split python3.15's eval loop: JIT code returns into its .cold
        # part. The pydebug build has no split.
        for label, target, target_root, want in (
                ("python3.15", python, root, "_PyEval_EvalFrameDefault.cold"),
                ("python3.15d (stripped copy)", copy, copy_root, "_PyEval_EvalFrameDefault")):
            served = os.path.join(work, "served-" + label[:11])
            os.makedirs(served)
            with debuginfod_server.serving(target_root, served) as (url, hexid):
                check_jit(j, served, label, target, url, hexid, want)
                check_jit_off(j, served, label, target, url, hexid)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
