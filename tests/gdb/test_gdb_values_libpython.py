#!/usr/bin/env python3
"""With CPython's libpython.py auto-loaded (Debian's python3.11-dbg), every
command of ours that libpython also defines (py-bt, py-bt-full and the
value commands) is ours, with a one-time note naming them, and libpython's
PyObject* pretty printer keeps working -- whether the plugin is loaded after
the target (batch, -ex) or before it (an interactive session: taken back
before the first prompt).

Usage: test_gdb_values_libpython.py BUILD_DIR REPO_DIR   (77: no python3.11-dbg)"""

import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from values_target import Target  # noqa: E402

PYTHON = "/usr/bin/python3.11"
LIBPYTHON = "/usr/share/gdb/auto-load/usr/bin/python3.11-gdb.py"
NOTE = "now use libjitunwind (libpython's versions are replaced"
# libpython's own names: each must be ours (its help starts with our summary)
LIBPYTHON_NAMES = ["py-bt", "py-bt-full", "py-locals", "py-print", "py-up", "py-down", "py-list"]


def sections(out):
    """{name: text} of the output between `echo ==name==` markers."""
    found, name = {}, None
    for line in out.splitlines():
        line = line.replace("(gdb) ", "")
        if line.startswith("==") and line.endswith("=="):
            name = line.strip("=")
            found[name] = []
        elif name is not None:
            found[name].append(line)
    return {k: "\n".join(v) for k, v in found.items()}


def marked(commands):
    out = []
    for c in commands:
        out += ["echo ==%s==\\n" % c, c]
    return out + ["echo ==end==\\n"]


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


def summary_of(repo, name):
    """The first line of our help for `name`, from the shared specs."""
    sys.path.insert(0, os.path.join(repo, "libjitunwind", "bindings", "python"))
    from jitunwind.ui import commands, values
    for spec, _run in commands.COMMANDS + values.COMMANDS:
        if spec.gdb_name == name:
            return spec.summary
    raise KeyError(name)


def main():
    build, repo = sys.argv[1], sys.argv[2]
    if not os.path.exists(PYTHON) or not os.path.exists(LIBPYTHON):
        print("SKIP: %s or its libpython.py (python3.11-dbg) is missing" % PYTHON)
        return 77
    target = Target(PYTHON)
    failures = []
    try:
        ascii_id = target.data["ids"]["ascii"]
        commands = marked(["py-up", "py-print closure", "print (PyObject *) %d" % ascii_id,
                           "py-bt -n 1", "py-bt-full -v"] +
                          ["help %s" % name for name in LIBPYTHON_NAMES])
        summaries = {name: summary_of(repo, name) for name in LIBPYTHON_NAMES}
        for early in (False, True):
            out = gdb(build, repo, target.pid, early, commands)
            got = sections(out)
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
            # ours stops at --limit and says so; libpython ignores it and prints all four
            bt = got.get("py-bt -n 1", "")
            if "in report" not in bt or "in outer" in bt or "cut short" not in bt:
                failures.append("%s: py-bt is not ours:\n%s" % (mode, bt[-2000:]))
            # ours shows the code object's address on request; libpython's line has none
            full = got.get("py-bt-full -v", "")
            if not re.search(r"#\d+ Frame 0x[0-9a-f]+, code 0x[0-9a-f]+, for file .*in report",
                             full):
                failures.append("%s: py-bt-full is not ours:\n%s" % (mode, full[-2000:]))
            for name in LIBPYTHON_NAMES:
                text = got.get("help %s" % name, "").strip()
                if not text.startswith(summaries[name]):
                    failures.append("%s: help %s is not ours: %s" % (mode, name, text[:200]))
            print("checked: %s" % mode)
    finally:
        target.close()
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
