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
    if parse(mixed, "3").count != 3:  # a frame count, as gdb's `bt 3`
        fail("mixed-bt 3 parsed as %r" % vars(parse(mixed, "3")))
    a = parse(pybt, "--limit=6000")
    if (a.every, a.limit) != (False, 6000):
        fail("py-bt --limit=6000 parsed as %r" % vars(a))
    for spec, text in ((mixed, "abc"), (mixed, "0x10"), (mixed, "1e3"), (mixed, "-5"),
                       (mixed, "0"), (mixed, "5 extra"), (mixed, "--bogus"), (mixed, "-x"), (pybt, "garbage"),
                       (pybt, "foo"),
                       (pybt, "-n"), (pybt, "-n 0"), (pybt, '"open'), (commands.JIT_RANGES, "-z")):
        try:
            parse(spec, text)
        except UsageError as exc:
            lines = str(exc).splitlines()
            if len(lines) != 2 or lines[1] != "usage: " + spec.usage():
                fail("%s %s: %r" % (spec.name, text, str(exc)))
            continue
        fail("%s %r was accepted" % (spec.name, text))
    print("ok: the parser accepts flags and counts, refuses 14 bad inputs with the usage line")


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
    from jitunwind.ui import commands, spec, stack, target
    check_parser(spec, commands)
    check_interleaver(jitunwind, stack)
    check_core_truncation(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
