#!/usr/bin/env python3
"""Exactness of the value renderer on a real interpreter.

Runs corpus_target.py under each interpreter given (PATH[,PART...]: see
values_target.command; "extra" adds a PYTHON_JIT=1 run where only that turns
the JIT on, as on 3.15; missing ones are skipped), which prints repr() of a
corpus of values and of the locals of two frames, then waits on stdin.
Reads the live process through the binding, then a core of it written by
gdb's gcore (read with the library's core reader), and checks on each:
  - with default limits (depth 2, 10 items, 200 characters) every
    rendering matches Python's repr within the documented truncation: the
    text between our "..." marks appears in order, the first part as a
    prefix and the last as a suffix, and output with a cut says so
    (REPR_TRUNCATED);
  - with large limits every rendering equals repr() exactly;
  - each frame's bound variables are Python's f_locals, arguments first,
    with equal reprs; py-print's lookup finds a global and a builtin.
Exit 77 when no interpreter given exists."""

import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "libjitunwind", "bindings", "python"))

sys.path.insert(0, os.path.join(HERE, "..", "support"))

import jitunwind  # noqa: E402
from extra_pythons import debug_root  # noqa: E402
from values_target import command, gcore, glob_match, label_of, run_all  # noqa: E402
from jitunwind import values  # noqa: E402

BIG = dict(max_depth=16, max_items=1 << 20, max_chars=1 << 20, size=1 << 20)
failures = []


def check(what, ours, flags, theirs, exact):
    if exact:
        ok = ours == theirs
    else:
        ok = glob_match(ours, theirs) and (ours == theirs or "..." in theirs or
                                           flags & values.REPR_TRUNCATED)
    if not ok:
        failures.append("%s\n    ours:   %s\n    python: %s" % (what, ours[:400], theirs[:400]))


def check_reader(reader, version_hex, data, pid, tag):
    """Every comparison of the corpus and the frames, over one reader."""
    report, status = reader.values_report()
    if status:
        failures.append("%s: value layout refused (%d)" % (tag, status))
    # 3.15+ has no table of its own: it starts from the newest one, borrowed,
    # whose differences from the build's DWARF are DWARF's to correct.
    borrowed = version_hex >= 0x030f0000
    if report.source and (report.checked < 30 or (report.mismatches and not borrowed) or
                          report.adopted != report.mismatches):
        # the tables (and 3.13+ debug offsets) against the build's DWARF
        failures.append("%s: value layout vs DWARF of %s: %d checked, %d differ, first %s" % (
            tag, report.source, report.checked, report.mismatches, report.first_mismatch))
    for name, addr in data["ids"].items():
        expected = data["reprs"][name]
        text, flags = values.repr_object(reader, addr)
        check("%s: %s (defaults)" % (tag, name), text, flags, expected, False)
        text, flags = values.repr_object(reader, addr, **BIG)
        check("%s: %s (large limits)" % (tag, name), text, flags, expected, True)
    threads, _ = reader.threads()
    main = [t for t in threads if t.native_thread_id == pid][0]
    frames, err = reader.frames(main.current_frame)
    by_name = {f.qualname: f for f in frames}
    for want in data["frames"]:
        frame = by_name.get(want["qualname"])
        if frame is None:
            failures.append("%s: no frame %s" % (tag, want["qualname"]))
            continue
        variables, err = values.frame_variables(reader, frame)
        if err:
            failures.append("%s: %s variables: %s" % (tag, want["qualname"], err))
        bound = [v for v in variables if not v.flags & values.VAR_UNBOUND]
        if [v.name for v in bound] != [n for n, _ in want["locals"]]:
            failures.append("%s: %s names %s, python %s" % (
                tag, want["qualname"], [v.name for v in bound],
                [n for n, _ in want["locals"]]))
            continue
        for var, (name, expected) in zip(bound, want["locals"]):
            text, flags = values.repr_object(reader, var.value)
            check("%s: %s local %s" % (tag, want["qualname"], name), text, flags, expected,
                  False)
        args = [v.name for v in variables if v.flags & values.VAR_ARG]
        if want["qualname"] == "inner" and args != ["arg", "flag", "rest", "kw"]:
            failures.append("%s: inner arguments %s" % (tag, args))
        cells = [v.name for v in variables if v.flags & values.VAR_CELL]
        if want["qualname"] == "inner" and cells != ["captured"]:
            failures.append("%s: inner cells %s" % (tag, cells))
    inner = by_name.get("inner")
    if inner:
        found = values.lookup(reader, inner, "json")
        if not found or found[1] != "global" or \
                not values.repr_object(reader, found[0])[0].startswith("<module 'json'"):
            failures.append("%s: lookup json -> %s" % (tag, found))
        found = values.lookup(reader, inner, "len")
        if not found or found[1] != "builtin":
            failures.append("%s: lookup len -> %s" % (tag, found))
        if values.lookup(reader, inner, "no_such_name_anywhere") is not None:
            failures.append("%s: lookup of an undefined name found something" % tag)
        if values.arguments_text(reader, inner) != \
                "arg=7, flag=True, rest=(1, 2), kw={'extra': 'kw'}":
            failures.append("%s: arguments %r" % (tag, values.arguments_text(reader, inner)))
    print("%s: %d values, %d frames checked; value layout: %d fields checked against DWARF" % (
        tag, len(data["ids"]), len(data["frames"]), report.checked))


def run(spec):
    argv, env = command(spec)
    # A distribution layout's stripped interpreter: its DWARF (the value
    # layout where there is no value table) under PREFIX/lib/debug.
    jitunwind.set_debug_file_directories(debug_root(argv[0]))
    proc = subprocess.Popen(argv + [os.path.join(HERE, "corpus_target.py")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    try:
        data = json.loads(proc.stdout.readline())
        loc = jitunwind.locate_live(proc.pid)
        mem = jitunwind.ProcessMemory(proc.pid)
        reader = jitunwind.PyReader(mem, loc.runtime_addr, loc.version_hex, loc.module)
        tag = "%s %s" % (label_of(spec), reader.layout_name)
        check_reader(reader, loc.version_hex, data, proc.pid, tag + " live")
        with tempfile.TemporaryDirectory() as tmp:
            core = os.path.join(tmp, "core")
            if not gcore(proc.pid, core):
                failures.append("%s: gcore wrote no core" % tag)
                return
            loc = jitunwind.locate_core(core)
            mem = jitunwind.CoreMemory(core)
            reader = jitunwind.PyReader(mem, loc.runtime_addr, loc.version_hex, loc.module)
            check_reader(reader, loc.version_hex, data, proc.pid, tag + " core")
    finally:
        proc.kill()
        proc.wait()


def main():
    return run_all(sys.argv[1:], run, failures, jit_too=True)


if __name__ == "__main__":
    sys.exit(main())
