#!/usr/bin/env python3
"""The shared debugger layer (jitunwind.ui) without a debugger: the one
argument parser, the streaming interleaving against the library's
jitunwind_mix, and the truncated-core check behind the perf-map note.

Usage: test_ui.py REPO_DIR BUILD_DIR      Exit 0 on success, 1 on failure."""

import os
import struct
import sys
import tempfile


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check_parser(ui_spec, commands):
    parse, UsageError = ui_spec.parse, ui_spec.UsageError
    mixed, pybt = commands.MIXED_BT, commands.PY_BT
    a = parse(mixed, " -a  12 ")
    if (a.every, a.count) != (True, 12):
        fail("mixed-bt -a 12 parsed as %r" % vars(a))
    a = parse(pybt, "--limit=6000")
    if (a.every, a.limit) != (False, 6000):
        fail("py-bt --limit=6000 parsed as %r" % vars(a))
    for spec, text in ((mixed, "abc"), (mixed, "0x10"), (mixed, "1e3"), (mixed, "-5"),
                       (mixed, "0"), (mixed, "5 extra"), (mixed, "--bogus"), (pybt, "garbage"),
                       (pybt, "-n"), (pybt, "-n 0"), (pybt, '"open'), (commands.JIT_RANGES, "-z")):
        try:
            parse(spec, text)
        except UsageError as exc:
            lines = str(exc).splitlines()
            if len(lines) != 2 or lines[1] != "usage: " + spec.usage():
                fail("%s %s: %r" % (spec.name, text, str(exc)))
            continue
        fail("%s %r was accepted" % (spec.name, text))
    print("ok: the parser accepts flags and counts, refuses 12 bad inputs with the usage line")


def check_word_argument(ui_spec, jit_specs):
    """The JIT commands take one word (an address, an expression, a listing
    number) and refuse options, a second word and unbalanced quotes."""
    parse, UsageError = ui_spec.parse, ui_spec.UsageError
    for text, want in (("", None), ("0x7f00", "0x7f00"), ("$pc", "$pc"), ("3", "3"),
                       ("'$pc + 8'", "$pc + 8")):
        got = parse(jit_specs.JIT_PC, text).address
        if got != want:
            fail("jit-pc %r parsed as %r, want %r" % (text, got, want))
    for spec, text in ((jit_specs.JIT_PC, "-5"), (jit_specs.JIT_PC, "a b"),
                       (jit_specs.JIT_DISAS, "--bogus"), (jit_specs.JIT_EXECUTOR, "'open"),
                       (jit_specs.JIT_EXECUTORS, "zzz")):
        try:
            parse(spec, text)
        except UsageError as exc:
            if str(exc).splitlines()[-1] != "usage: " + spec.usage():
                fail("%s %s: %r" % (spec.name, text, str(exc)))
            continue
        fail("%s %r was accepted" % (spec.name, text))
    print("ok: the JIT commands take one word and refuse 5 bad inputs with the usage line")


def check_range_listing(commands):
    """info jit-ranges ADDR|NAME and -n N: the rows chosen, and a line saying
    what was left out."""
    import collections
    Range = collections.namedtuple("Range", "start end kind rule origin name frame_size")
    ranges = [Range(0x1000 + i * 0x100, 0x1010 + i * 0x100, 2, 3, 2, "py::f%d:app.py" % i, 16)
              for i in range(5)]

    class State:
        notes = []

    State.ranges = ranges

    class Session:
        debugger = "gdb"

        def __init__(self):
            self.lines = []

        def state(self):
            return State

        def write(self, line):
            self.lines.append(line)

    for text, names, tail in (
            ("", ["f0", "f1", "f2", "f3", "f4"], None),
            ("-n 2", ["f0", "f1"], "(2 of 5 ranges shown: raise -n for more)"),
            ("0x1205", ["f2"], "(1 of 5 ranges match '0x1205')"),
            ("0x1210", [], "No range matches '0x1210' (of 5 registered)."),
            ("f3", ["f3"], "(1 of 5 ranges match 'f3')"),
            ("-n 1 py::", ["f0"], "(1 of the 5 ranges matching 'py::' shown, of 5 in all: "
                                  "raise -n for more)")):
        session = Session()
        commands.invoke(commands.JIT_RANGES, commands.run_jit_ranges, session, text)
        got = [l.split("py::")[1].split(":")[0] for l in session.lines if l.startswith("0x")]
        if got != names or (tail and session.lines[-1] != tail):
            fail("jit-ranges %r: %r" % (text, session.lines))
    print("ok: jit-ranges ADDR|NAME and -n N choose their rows and say what they left out")


def check_interleaver(ju, stack):
    """Fed in batches of every size, the stream anchors each Python frame
    where one jitunwind_mix over the whole stack does."""
    R = ju
    roles = [R.ROLE_OTHER, R.ROLE_JIT, R.ROLE_EVAL, R.ROLE_OTHER, R.ROLE_TRAMPOLINE, R.ROLE_EVAL,
             R.ROLE_JIT, R.ROLE_EVAL, R.ROLE_OTHER, R.ROLE_EVAL, R.ROLE_OTHER]
    flags = [0, R.PYFRAME_ENTRY, R.PYFRAME_ENTRY, 0, 0, R.PYFRAME_ENTRY, 0, 0]
    frames = [R.PyFrame(0x1000 + i, 0x2000, i + 1, 1, 0, 0, f, "f%d" % i, "x.py")
              for i, f in enumerate(flags)]
    whole = list(frames)
    want = {}
    for kind, index, anchor in R.mix(roles, whole):
        if kind == R.MIXED_PYTHON:
            want[index] = (anchor, whole[index].flags)
    for size in range(1, len(roles) + 1):
        mixer = stack.Interleaver(lambda: (list(frames), None))
        got = {}
        for start in range(0, len(roles), size):
            for offset, group in enumerate(mixer.feed(roles[start:start + size])):
                for f in group:
                    got[frames.index(f._replace(flags=f.flags & ~R.PYFRAME_LINE_MAY_LAG))] = (
                        start + offset, f.flags)
        for f in mixer.leftovers():
            got[frames.index(f)] = (None, f.flags)
        if got != want:
            fail("batches of %d: %r, jitunwind_mix: %r" % (size, got, want))
    print("ok: the streaming interleaving matches jitunwind_mix for every batch size")


def write_core(path, segments, cut):
    """A 64-bit little-endian ELF core with PT_LOAD segments of the given
    sizes, the file cut to `cut` bytes."""
    phoff, phnum = 64, len(segments)
    header = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    header += struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, phoff, 0, 0, 64, 56, phnum, 0, 0, 0)
    offset = phoff + 56 * phnum
    table = b""
    for size in segments:
        table += struct.pack("<IIQQQQQQ", 1, 5, offset, 0x400000 + offset, 0, size, size, 4096)
        offset += size
    data = (header + table).ljust(offset, b"\0")
    with open(path, "wb") as f:
        f.write(data[:cut])
    return offset


def check_core_truncation(target):
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "core")
        full = write_core(path, [4096, 8192, 4096], 1 << 30)
        if target.core_missing_bytes(path) != 0:
            fail("a whole core counted as truncated")
        write_core(path, [4096, 8192, 4096], full - 6000)
        if target.core_missing_bytes(path) != 6000:
            fail("a core cut 6000 bytes short: %d" % target.core_missing_bytes(path))
        with open(path, "wb") as f:
            f.write(b"not an ELF file")
        if target.core_missing_bytes(path) != 0 or \
                target.core_missing_bytes(os.path.join(work, "absent")) != 0:
            fail("not a core, or no file: must count as nothing missing")
    print("ok: a core cut short is measured (perf-map lines skipped then say so)")


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    repo, build = sys.argv[1:]
    sys.path.insert(0, os.path.join(repo, "libjitunwind", "bindings", "python"))
    os.environ["JITUNWIND_LIBRARY"] = os.path.join(build, "libjitunwind", "libjitunwind.so")
    import jitunwind
    from jitunwind.ui import commands, jit_specs, spec, stack, target
    check_parser(spec, commands)
    check_word_argument(spec, jit_specs)
    check_range_listing(commands)
    check_interleaver(jitunwind, stack)
    check_core_truncation(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
