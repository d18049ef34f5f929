#!/usr/bin/env python3
"""gdb: the promises CPython's Lib/test/test_gdb makes of libpython.py's
py-bt, py-bt-full, py-up, py-down, py-print, py-locals and py-list, kept by
ours, in its scenarios: a sample stopped in builtin_id called by baz
(tests/values/libpython_sample.py), a Python function called from C and
every PyCFunction calling convention of _testcapi
(tests/values/libpython_ccall.py). JIT-capable builds of the extended
matrix run the sample with their JIT on and warmed up, so that baz calls
the builtin from JIT code.

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
from libpython_scenarios import (ADDR, CCALL, CONVENTIONS, OWNERS, check_all,  # noqa: E402
                                 expect, label_of, line_of)

# gdb's words for what the scenarios do
DIALECT = {"frame": "frame", "frame_line": "#%s ", "break": "break %s",
           "all": "thread apply all %s"}

failures = []


def gdb(build, repo, python, script, breaks, commands, env=None):
    """{name: lines} of each named command, gdb running `script` under
    `python` to its first breakpoint in `breaks`."""
    cmd = ["gdb", "-nx", "-batch", "-q", "-iex", "set debuginfod enabled off",
           "-iex", "set auto-load python-scripts off"] + gdb_args([python]) + [
           "-ex", "source %s/gdb-plugin/jitunwind-gdb.py" % repo,
           "-ex", "set breakpoint pending on"]
    for b in breaks:
        cmd += ["-ex", "break %s" % b]
    if env and env.get("WARM"):
        cmd += ["-ex", "ignore 1 %s" % env["WARM"]]
    cmd += ["-ex", "run"]
    for name, command in commands:
        cmd += ["-ex", "echo <<%s>>\\n" % name, "-ex", command, "-ex", "echo <<end>>\\n"]
    env = dict(os.environ, JITUNWIND_LIBRARY=os.path.join(build, "libjitunwind",
                                                          "libjitunwind.so"), **(env or {}))
    out = subprocess.run(cmd + ["--args", python, script], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=300).stdout
    sections = {m.group(1): m.group(2).splitlines()
                for m in re.finditer(r"<<([^>]+)>>\n(.*?)<<end>>\n", out, re.S)}
    return sections, out


def check_ccall(build, repo, python, label):
    baz = line_of(CCALL, "id(42)")
    commands = [("up1", "py-up"), ("up2", "py-up"), ("print c", "py-print c"),
                ("print a", "py-print a"), ("down", "py-down"), ("delete", "delete 1")]
    for i in range(len(CONVENTIONS) * OWNERS):
        commands += [("continue %d" % i, "continue"), ("bt %d" % i, "py-bt"),
                     ("full %d" % i, "py-bt-full")]
    sections, raw = gdb(build, repo, python, CCALL, ["builtin_id"] + CONVENTIONS, commands)
    got = lambda name: sections.get(name, ["<missing>: " + raw[-1500:]])  # noqa: E731
    baz_line = r"#\d+ Frame %s, for file %s, line %d, in baz \(args=\(1, 2, 3\)\)" % (
        ADDR, re.escape(CCALL), baz)
    vectorcall = r"#\d+ <built-in method pyobject_vectorcall of module object at remote %s>" % ADDR
    expect(failures, label, "py-up", got("up1"), [baz_line, "    id\\(42\\)"])
    expect(failures, label, "py-up to the C function calling baz", got("up2"), [vectorcall])
    expect(failures, label, "py-print in bar's call", got("print c") + got("print a"),
           ["local 'c' = 3", "local 'a' = 1"])
    expect(failures, label, "py-down", got("down"), [baz_line, "    id\\(42\\)"])
    if "exited normally" in " ".join(got("continue 0")) and \
            not re.search(r"Breakpoint [\d.]+, meth_", raw):
        # gdb could not place them: _testcapi without symbols (a stripped build's)
        print("skip the calling conventions on %s: gdb found no meth_* function in _testcapi"
              % label)
        return
    seen = []
    for i in range(len(CONVENTIONS) * OWNERS):
        stop = " ".join(got("continue %d" % i))
        m = re.search(r"Breakpoint [\d.]+, (meth_\w+) ", stop)
        if not m:
            failures.append("%s: stop %d is not in a meth_* function: %s" % (label, i, stop[-300:]))
            break
        # a compiler may fold functions of one body into one (meth_o, meth_varargs):
        # the stop names the breakpoint, the level the builtin called
        call = r"<built-in (method (meth_\w+) of [\w.]+ object at remote %s|function (meth_\w+))>" \
            % ADDR
        bt, full = got("bt %d" % i), got("full %d" % i)
        called = re.match("  " + call + "$", bt[1]) if len(bt) > 1 else None
        if called:
            seen.append(called.group(2) or called.group(3))
        if len(bt) < 3 or not called or \
                not bt[2].startswith('  File "%s", line' % CCALL):
            failures.append("%s: py-bt in %s (stop %d):\n  %s" % (label, m.group(1), i,
                                                                 "\n  ".join(bt)))
        # CPython promises #1 or #2 (its cfunction_* frame); #0 is the C function itself,
        # called directly by a specialized CALL (3.14+ in the eval loop, JIT code)
        if not full or not re.match(r"#[012] " + call + "$", full[0]):
            failures.append("%s: py-bt-full in %s (stop %d):\n  %s"
                            % (label, m.group(1), i, "\n  ".join(full)))
    if sorted(set(seen)) != sorted(CONVENTIONS):
        failures.append("%s: py-bt showed calls of %s, not every convention"
                        % (label, sorted(set(seen))))


def run(build, repo, python):
    label = label_of(python)

    def debugger(python, script, breaks, commands, env):
        return gdb(build, repo, python, script, breaks, commands, env)
    check_all(debugger, DIALECT, python, label, failures)
    check_ccall(build, repo, python, label)
    print("checked: %s" % label)


def main():
    build, repo, spec = sys.argv[1], sys.argv[2], sys.argv[3]
    return run_all([spec], lambda p: run(build, repo, p), failures)


if __name__ == "__main__":
    sys.exit(main())
