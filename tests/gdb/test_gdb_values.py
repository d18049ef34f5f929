#!/usr/bin/env python3
"""gdb: py-locals, py-print, py-up/py-down, py-list and py-bt-full's
arguments on a real interpreter stopped in tests/values/corpus_target.py,
live and on a core (gcore), compared with the reprs the target printed.

Usage: test_gdb_values.py BUILD_DIR REPO_DIR PYTHON[,ARG...]
  PYTHON "extra": each interpreter of $JITUNWIND_EXTRA_PYTHONS. Exit 77 when
  none exists."""

import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from extra_pythons import gdb_args  # noqa: E402
from values_target import (BUILTIN_CALL, BUILTIN_SLEEP, GC_STOP, Checker,  # noqa: E402
                           Target, gcore, label_of, run_all)

failures = []


def gdb(repo, env, commands, target_args, python):
    """gdb on `target_args`, told where the interpreter `python`'s layout
    keeps its debug files (extra_pythons.gdb_args)."""
    cmd = ["gdb", "-nx", "-batch", "-q", "-iex", "set debuginfod enabled off",
           "-iex", "set auto-load python-scripts off"] + gdb_args([python]) + [
           "-ex", "source %s/gdb-plugin/jitunwind-gdb.py" % repo]
    for name, command in commands:
        cmd += ["-ex", "echo <<%s>>\\n" % name, "-ex", command, "-ex", "echo <<end>>\\n"]
    out = subprocess.run(cmd + target_args, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=300).stdout
    sections = {}
    for m in re.finditer(r"<<([^>]+)>>\n(.*?)<<end>>\n", out, re.S):
        sections[m.group(1)] = m.group(2).splitlines()
    return sections, out


def check(label, sections, target, raw, perf):
    ck = Checker(label, sections, raw, failures)
    ck.common(target)
    need, fail = ck.need, ck.fail
    if not any(l.startswith("values = {'none': None, ") for l in need("py-locals report")):
        fail("py-locals in report: %s" % sections.get("py-locals report"))
    up = need("py-up")
    frame = " ".join(need("frame"))
    inner_addr = re.search(r"#\d+ Frame (0x[0-9a-f]+)", up[0]).group(1) if up else None
    # With -X perf each Python call has its own eval loop, whose `frame`
    # argument is that Python frame; without, report and inner share one.
    if "_PyEval_EvalFrameDefault" not in frame or \
            (perf and inner_addr and "frame=0x" in frame and "frame=%s" % inner_addr not in frame):
        fail("py-up did not select inner's eval loop (%s): %s" % (inner_addr, frame))
    if not need("py-print json")[:1] or \
            not need("py-print json")[0].startswith("global 'json' = <module 'json' from '"):
        fail("py-print json: %s" % sections.get("py-print json"))
    if need("py-down 5") != ["Unable to find a newer python frame"]:
        fail("py-down 5: %s" % sections.get("py-down 5"))
    if need("py-print")[:2] != ["py-print: needs one NAME", "usage: py-print NAME"]:
        fail("py-print without NAME: %s" % sections.get("py-print"))
    header = need("py-bt -a")[:1]
    if not header or not re.match(r'^Thread 1 \(tid %d(, "[^"]+")?\):$' % target.pid, header[0]):
        fail("py-bt -a header: %s" % header)
    if "local variables of the selected Python frame" not in " ".join(need("help py-locals")):
        fail("help py-locals: %s" % sections.get("help py-locals"))


COMMANDS = [("py-bt-full", "py-bt-full"), ("py-locals report", "py-locals"),
            ("py-up", "py-up"), ("frame", "frame"), ("py-locals inner", "py-locals"),
            ("py-print captured", "py-print captured"), ("py-print json", "py-print json"),
            ("py-print len", "py-print len"), ("py-print nope", "py-print nope"),
            ("py-list", "py-list"), ("py-up outer", "py-up"), ("py-locals outer", "py-locals"),
            ("py-up 99", "py-up 99"), ("py-down", "py-down"), ("py-down 5", "py-down 5"),
            ("py-print", "py-print"), ("help py-locals", "help py-locals"),
            ("py-bt -a", "py-bt -a")]


def run(build, repo, spec):
    env = dict(os.environ, JITUNWIND_LIBRARY=os.path.join(build, "libjitunwind",
                                                          "libjitunwind.so"))
    target = Target(spec)
    python = spec.split(",")[0]
    label = label_of(spec)
    try:
        sections, raw = gdb(repo, env, COMMANDS, ["-p", str(target.pid)], python)
        check(label + " live", sections, target, raw, "perf" in spec)
        with tempfile.TemporaryDirectory() as tmp:
            core = os.path.join(tmp, "core")
            if not gcore(target.pid, core):
                failures.append("%s: gcore wrote no core in 180 s" % label)
                return
            sections, raw = gdb(repo, env, COMMANDS, [os.path.realpath(python), core], python)
            check(label + " core", sections, target, raw, "perf" in spec)
    finally:
        target.close()
    check_gc_header(repo, env, spec, label)
    print("checked: %s live and on a core" % label)


def check_gc_header(repo, env, spec, label):
    """py-bt -a says "GC running" for a thread stopped inside a collection;
    py-bt-full names the builtin a frame is calling."""
    for script, command, want in ((GC_STOP, "py-bt -a", "GC running"),
                                  (BUILTIN_CALL, "py-bt-full", BUILTIN_SLEEP)):
        target = Target(spec, script)
        try:
            sections, raw = gdb(repo, env, [(command, command)], ["-p", str(target.pid)],
                                spec.split(",")[0])
            lines = sections.get(command, [])
            if want == "GC running" and not (lines and want in lines[0]):
                failures.append("%s: py-bt -a inside a collection: %s" % (label, lines[:1]))
            if want != "GC running" and (not re.match(want, (lines[:1] or [""])[0]) or
                                         " in waiter (seconds=600)" not in
                                         (lines[1:2] or [""])[0]):
                failures.append("%s: py-bt-full in time.sleep: %s" % (label, lines[:3]))
        finally:
            target.close()


def main():
    build, repo, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
    return run_all(specs, lambda spec: run(build, repo, spec), failures, jit_too=True)


if __name__ == "__main__":
    sys.exit(main())
