#!/usr/bin/env python3
"""With CPython's libpython.py auto-loaded (Debian's python3.11-dbg), our
value commands take over the names we provide, with a one-time note, and
libpython's others keep working (its PyObject* pretty printer) -- whether
the plugin is loaded after the target (batch, -ex) or before it (an
interactive session: taken back before the first prompt).

Usage: test_gdb_values_libpython.py BUILD_DIR REPO_DIR   (77: no python3.11-dbg)"""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from values_target import Target  # noqa: E402

PYTHON = "/usr/bin/python3.11"
LIBPYTHON = "/usr/share/gdb/auto-load/usr/bin/python3.11-gdb.py"
NOTE = "now use libjitunwind (libpython's versions are replaced"


def gdb(build, repo, pid, early, commands):
    env = dict(os.environ, JITUNWIND_LIBRARY=os.path.join(build, "libjitunwind",
                                                          "libjitunwind.so"))
    source = "source %s/gdb-plugin/jitunwind-gdb.py" % repo
    cmd = ["gdb", "-nx", "-q", "-iex", "set debuginfod enabled off", "-iex", "set confirm off",
           "-iex", "set auto-load safe-path /"]
    if early:  # interactive: commands on stdin, plugin before the target
        cmd += ["-iex", source, "-p", str(pid)]
        stdin = "\n".join(commands + ["quit"]) + "\n"
    else:
        cmd = [c for c in cmd] + ["-batch", "-ex", source]
        for c in commands:
            cmd += ["-ex", c]
        cmd += ["-p", str(pid)]
        stdin = ""
    return subprocess.run(cmd, input=stdin, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=300).stdout


def main():
    build, repo = sys.argv[1], sys.argv[2]
    if not os.path.exists(PYTHON) or not os.path.exists(LIBPYTHON):
        print("SKIP: %s or its libpython.py (python3.11-dbg) is missing" % PYTHON)
        return 77
    target = Target(PYTHON)
    failures = []
    try:
        ascii_id = target.data["ids"]["ascii"]
        commands = ["py-up", "py-print closure", "print (PyObject *) %d" % ascii_id]
        for early in (False, True):
            out = gdb(build, repo, target.pid, early, commands)
            mode = "plugin first (interactive)" if early else "plugin after the target (batch)"
            if out.count(NOTE) != 1:
                failures.append("%s: the one-time note appears %d times:\n%s"
                                % (mode, out.count(NOTE), out[-2000:]))
            # libpython would say "<function at remote 0x...>"
            if "local 'closure' = <function inner.<locals>.closure at 0x" not in out:
                failures.append("%s: py-print is not ours:\n%s" % (mode, out[-2000:]))
            if "= 'hello'" not in out:
                failures.append("%s: libpython's pretty printer is gone:\n%s"
                                % (mode, out[-2000:]))
            print("checked: %s" % mode)
    finally:
        target.close()
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
