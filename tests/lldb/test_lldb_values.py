#!/usr/bin/env python3
"""LLDB: py-locals, py-print, py-up/py-down, py-list and py-bt-full's
arguments on a real interpreter stopped in tests/values/corpus_target.py,
live and on a core (written by gdb's gcore), compared with the reprs the
target printed.

Usage: test_lldb_values.py BUILD_DIR REPO_DIR PYTHON[,ARG...]
  PYTHON "extra": each interpreter of $JITUNWIND_EXTRA_PYTHONS. Exit 77 when
  LLDB or every interpreter is missing."""

import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
sys.path.insert(0, HERE)
from extra_pythons import lldb_args  # noqa: E402
from lldb_under_test import LLDB, MISSING, without_stop_reports  # noqa: E402
from values_target import (BUILTIN_CALL, BUILTIN_SLEEP, SKIP, Checker, Target, gcore,  # noqa: E402
                           label_of, run_all)

failures = []

COMMANDS = [("bt", "bt"), ("py-bt-full", "py-bt-full"), ("py-up", "py-up"), ("frame", "frame info"),
            ("py-locals inner", "py-locals"), ("py-print captured", "py-print captured"),
            ("py-print len", "py-print len"), ("py-print nope", "py-print nope"),
            ("py-list", "py-list"), ("py-up outer", "py-up"), ("py-locals outer", "py-locals"),
            ("py-up 99", "py-up 99"), ("py-down", "py-down"), ("help py-print", "help py-print")]


def lldb(repo, env, target_args, python, commands=COMMANDS):
    """LLDB on `target_args`, told where the interpreter `python`'s layout
    keeps its debug files (extra_pythons.lldb_args)."""
    cmd = [LLDB, "-b"] + lldb_args([python]) + [
        "-o", "command script import %s/lldb-plugin/jitunwind_lldb" % repo]
    for name, command in commands:
        cmd += ["-o", "script print('<<%s>>')" % name, "-o", command]
    out = subprocess.run(cmd + target_args, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=300).stdout
    out = without_stop_reports(out)
    sections = {}
    # LLDB 22+ may print its attach stop report late, between a marker and
    # the next command: skip such lines.
    for m in re.finditer(r"<<([^>]+)>>\n(?:(?!\(lldb\) )[^\n]*\n)*?\(lldb\) [^\n]*\n(.*?)"
                         r"(?=^\(lldb\) |\Z)", out, re.S | re.M):
        sections[m.group(1)] = m.group(2).rstrip("\n").splitlines()
    return sections, out


def check(label, sections, target, raw, perf):
    ck = Checker(label, sections, raw, failures)
    ck.common(target)
    up, frame = ck.need("py-up"), " ".join(ck.need("frame"))
    not_selected = any("could not be selected" in l for l in up)
    # LLDB 19 does not unwind through -X perf trampolines, nor through
    # Debian's LTO python3.11, itself: where its own `bt` has no eval loop,
    # py-up cannot select one and must say so; elsewhere it must select it.
    lldb_reaches_eval = any("_PyEval_EvalFrameDefault" in l for l in ck.need("bt"))
    # LLDB 22+ with the frame provider lists Python frames: py-up selects
    # the caller's own frame there.
    if any(" [Python] at " in l for l in ck.need("bt")):
        m = re.search(r", in (\S+) \(", " ".join(up))
        if not_selected or not m or "%s [Python] at " % m.group(1) not in frame:
            ck.fail("py-up did not select the caller's Python frame: %s / %s" % (up, frame))
    elif lldb_reaches_eval and (not_selected or "_PyEval_EvalFrameDefault" not in frame):
        ck.fail("py-up did not select the eval loop: %s / %s" % (up, frame))
    if not lldb_reaches_eval and not not_selected:
        ck.fail("py-up claims a selection LLDB cannot make: %s / %s" % (up, frame))
    if not perf and not lldb_reaches_eval and "python3.11" not in label:
        ck.fail("LLDB's own bt does not reach the eval loop: %s" % sections.get("bt"))
    if "Usage: py-print NAME" not in " ".join(ck.need("help py-print")):
        ck.fail("help py-print: %s" % sections.get("help py-print"))


def run(build, repo, spec):
    env = dict(os.environ, JITUNWIND_LIBRARY=os.path.join(build, "libjitunwind",
                                                          "libjitunwind.so"))
    target = Target(spec)
    perf = "perf" in spec
    python = os.path.realpath(spec.split(",")[0])
    label = "lldb " + label_of(spec)
    try:
        sections, raw = lldb(repo, env, ["-p", str(target.pid)], python)
        check(label + " live", sections, target, raw, perf)
        with tempfile.TemporaryDirectory() as tmp:
            core = os.path.join(tmp, "core")
            if not gcore(target.pid, core):
                failures.append("%s: gcore wrote no core in 180 s" % label)
                return
            sections, raw = lldb(repo, env, [python, "-c", core], python)
            check(label + " core", sections, target, raw, perf)
    finally:
        target.close()
    check_builtin_line(repo, env, spec, label)
    print("checked: %s live and on a core" % label)


def check_builtin_line(repo, env, spec, label):
    """py-bt-full names the builtin a frame is calling (it must, where
    LLDB's own frames reach the cfunction call that says so; never wrongly)."""
    target = Target(spec, BUILTIN_CALL)
    try:
        sections, raw = lldb(repo, env, ["-p", str(target.pid)], spec.split(",")[0],
                             [("bt", "bt"), ("py-bt-full", "py-bt-full")])
        reaches = any("cfunction_vectorcall" in l for l in sections.get("bt", []))
        lines = sections.get("py-bt-full", [])
        if reaches and not re.match(BUILTIN_SLEEP, (lines[:1] or [""])[0]):
            failures.append("%s: py-bt-full in time.sleep: %s" % (label, lines[:3]))
        if any("<built-in" in l and not re.match(BUILTIN_SLEEP, l) for l in lines):
            failures.append("%s: a wrong builtin line: %s" % (label, lines))
    finally:
        target.close()


def main():
    build, repo, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
    if LLDB is None:
        print("SKIP: " + MISSING)
        return SKIP
    return run_all(specs, lambda spec: run(build, repo, spec), failures, jit_too=True)


if __name__ == "__main__":
    sys.exit(main())
