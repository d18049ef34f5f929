#!/usr/bin/env python3
"""LLDB: the promises CPython's Lib/test/test_gdb makes of libpython.py's
commands, kept by ours in LLDB (tests/support/libpython_scenarios.py), with
every breakpoint where calls enter the function (tests/lldb/lldb_entry_break.py).

Usage: test_lldb_libpython_suite.py BUILD_DIR REPO_DIR PYTHON
  PYTHON "extra": each interpreter of $JITUNWIND_EXTRA_PYTHONS. Exit 77 when
  none exists or there is no LLDB."""

import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from extra_pythons import lldb_args  # noqa: E402
from lldb_under_test import LLDB, MISSING, without_stop_reports  # noqa: E402
from libpython_scenarios import SAMPLE, check_all, label_of  # noqa: E402
from values_target import SKIP, run_all  # noqa: E402

# LLDB's words for what the scenarios do
DIALECT = {"frame": "frame info", "frame_line": "frame #%s:",
           "break": "break-entry %s", "all": "%s -a", "delete": "breakpoint delete %s",
           "may_not_select": True}

failures = []


def lldb(build, repo, python, script, breaks, commands, env=None, core=None):
    """{name: lines} of each named command, LLDB launching `script` under
    `python` to its first breakpoint in `breaks`, or reading `core`."""
    cmd = [LLDB, "-b"] + lldb_args([python]) + [
        "-o", "command script import %s/lldb-plugin/jitunwind_lldb" % repo,
        "-o", "command script import %s" % os.path.join(HERE, "lldb_entry_break.py")]
    if core is None:
        for i, b in enumerate(breaks):
            ignore = env.get("WARM") if env and i == 0 else None
            cmd += ["-o", "break-entry %s%s" % ("-i %s " % ignore if ignore else "", b)]
        cmd += ["-o", "process launch"]
    for name, command in commands:
        cmd += ["-o", "script print('<<%s>>')" % name, "-o", command]
    cmd += ["-o", "script print('<<end>>')"] + ([] if core else ["-o", "process kill"])
    env = dict(os.environ, JITUNWIND_LIBRARY=os.path.join(build, "libjitunwind",
                                                          "libjitunwind.so"), **(env or {}))
    target = ["-c", core, python] if core else ["--", python, script]
    out = subprocess.run(cmd + target, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=600).stdout
    out = without_stop_reports(out)
    sections = {}
    for m in re.finditer(r"<<([^>]+)>>\n\(lldb\) [^\n]*\n(.*?)(?=^\(lldb\) |\Z)", out,
                         re.S | re.M):
        sections[m.group(1)] = m.group(2).rstrip("\n").splitlines()
    return sections, out


def check_exited(build, repo, python, label):
    """After the program ran to its end (no breakpoint), the commands say
    there is no process (LLDB keeps the exited process, whose memory reads
    give the executable file's bytes: no Python runtime to find there)."""
    sections, raw = lldb(build, repo, python, SAMPLE, [], [("bt", "py-bt")])
    want = "jitunwind: py-bt: no process (it exited with status 0)"
    if sections.get("bt") != [want]:
        failures.append("%s: py-bt after the program exited: %s, want %r"
                        % (label, sections.get("bt", [raw[-1500:]]), want))


def run(build, repo, python):
    label = "lldb " + label_of(python)
    check_exited(build, repo, python, label)

    def debugger(python, script, breaks, commands, env, core):
        return lldb(build, repo, python, script, breaks, commands, env, core)
    check_all(debugger, DIALECT, python, label, failures)
    print("checked: %s" % label)


def main():
    if LLDB is None:
        print("SKIP: %s" % MISSING)
        return SKIP
    build, repo, spec = sys.argv[1], sys.argv[2], sys.argv[3]
    return run_all([spec], lambda p: run(build, repo, p), failures)


if __name__ == "__main__":
    sys.exit(main())
