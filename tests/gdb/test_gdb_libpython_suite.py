#!/usr/bin/env python3
"""gdb: the promises CPython's Lib/test/test_gdb makes of libpython.py's
py-bt, py-bt-full, py-up, py-down, py-print, py-locals and py-list, kept by
ours, in its scenarios (tests/support/libpython_scenarios.py): a sample
stopped in builtin_id called by baz (with the JIT on and warm on
JIT-capable builds), a Python function called from C, every PyCFunction
calling convention of _testcapi, a collection, threads waiting for the GIL
and a method-wrapper.

Usage: test_gdb_libpython_suite.py BUILD_DIR REPO_DIR PYTHON
  PYTHON "extra": each interpreter of $JITUNWIND_EXTRA_PYTHONS. Exit 77 when
  none exists."""

import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from extra_pythons import gdb_args  # noqa: E402
from values_target import run_all  # noqa: E402
from libpython_scenarios import check_all, label_of  # noqa: E402

# gdb's words for what the scenarios do
DIALECT = {"frame": "frame", "frame_line": "#%s ", "break": "break %s",
           "all": "thread apply all %s", "delete": "clear %s"}

failures = []


def gdb(build, repo, python, script, breaks, commands, env=None, core=None):
    """{name: lines} of each named command, gdb running `script` under
    `python` to its first breakpoint in `breaks`, or reading `core`."""
    cmd = ["gdb", "-nx", "-batch", "-q", "-iex", "set debuginfod enabled off",
           "-iex", "set auto-load python-scripts off"] + gdb_args([python]) + [
           "-ex", "source %s/gdb-plugin/jitunwind-gdb.py" % repo,
           "-ex", "set breakpoint pending on"]
    if core is None:
        for b in breaks:
            cmd += ["-ex", "break %s" % b]
        if env and env.get("WARM"):
            cmd += ["-ex", "ignore 1 %s" % env["WARM"]]
        cmd += ["-ex", "run"]
    for name, command in commands:
        cmd += ["-ex", "echo <<%s>>\\n" % name, "-ex", command, "-ex", "echo <<end>>\\n"]
    env = dict(os.environ, JITUNWIND_LIBRARY=os.path.join(build, "libjitunwind",
                                                          "libjitunwind.so"), **(env or {}))
    target = [python, core] if core else ["--args", python, script]
    out = subprocess.run(cmd + target, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=300).stdout
    sections = {m.group(1): m.group(2).splitlines()
                for m in re.finditer(r"<<([^>]+)>>\n(.*?)<<end>>\n", out, re.S)}
    return sections, out


def run(build, repo, python):
    label = label_of(python)

    def debugger(python, script, breaks, commands, env, core):
        return gdb(build, repo, python, script, breaks, commands, env, core)
    check_all(debugger, DIALECT, python, label, failures)
    print("checked: %s" % label)


def main():
    build, repo, spec = sys.argv[1], sys.argv[2], sys.argv[3]
    return run_all([spec], lambda p: run(build, repo, p), failures)


if __name__ == "__main__":
    sys.exit(main())
