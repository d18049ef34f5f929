"""How frames, ranges and Python frames are printed, in every debugger."""

from .. import (KIND_NAMES, ORIGIN_NAMES, PYFRAME_BAD_CODE, PYFRAME_ENTRY, PYFRAME_GENERATOR,
                PYFRAME_IN_JIT, PYFRAME_LINE_MAY_LAG, RULE_FP_PRESERVING, RULE_NAMES,
                c_range_label, text_escape)
from . import source_files

PY_MARK = "[py]"
NO_NAME = "??"  # a native frame without a symbol, as stock gdb prints it


def escaped(text):
    """Text the target controls (a name, a path, a source line) as a terminal
    may see it: escaped by the library's rule (jitunwind_text_escape, the
    value renderer's). Every name these commands print goes through it."""
    return text_escape(text) if text else text


def rule_text(rng):
    """A range's rule, with the frame size of an FP-preserving range whose
    caller's sp is not fp + 16 (CPython 3.15's AArch64 executors: fp-preserving/96)."""
    text = RULE_NAMES.get(rng.rule, "?")
    if rng.rule == RULE_FP_PRESERVING and rng.frame_size not in (0, 16):
        text += "/%d" % rng.frame_size
    return text


def range_label(rng):
    """How a JIT or trampoline frame is shown: its name, kind and rule; the
    library's label, so that the symbols of its ELF images (stock `bt`) read
    the same."""
    return c_range_label(rng)


def python_name(frame):
    """A Python frame's function, with what is known to be wrong about it."""
    name = escaped(frame.qualname) or "<unknown code>"
    if frame.flags & PYFRAME_BAD_CODE:
        name = "<unreadable code object at %#x>" % frame.code
    if frame.flags & PYFRAME_LINE_MAY_LAG:
        name += " [in JIT code: line may lag]"
    return name


def python_label(frame):
    """How a Python frame is shown among native ones, before its file:line."""
    return "%s %s" % (PY_MARK, python_name(frame))


def python_flags_text(frame):
    """py-bt-full's flags. "JIT code": the frame runs JIT code, so its values
    may be stale even when its line is exact (PYFRAME_IN_JIT)."""
    flags = []
    if frame.flags & PYFRAME_ENTRY:
        flags.append("entry")
    if frame.flags & PYFRAME_GENERATOR:
        flags.append("generator")
    if frame.flags & (PYFRAME_IN_JIT | PYFRAME_LINE_MAY_LAG):
        flags.append("JIT code")
    if frame.flags & PYFRAME_LINE_MAY_LAG:
        flags.append("line may lag")
    return ", ".join(flags)


def line_text(line):
    return str(line) if line > 0 else "?"


def source_line(filename, line):
    """The stripped source line, or None (no file, no line, empty, or a path
    that is not a regular file: source_files)."""
    if not filename or line <= 0:
        return None
    return escaped((source_files.source_line(filename, line) or "").strip()) or None


def py_bt_lines(frames, err, calls=None):
    """CPython-style traceback, innermost first; `calls` {frame index:
    [text]} are the levels inside a frame (the builtin it calls, "Waiting for
    the GIL"), innermost first, each on a line of its own just before the
    frame, as libpython.py lists them."""
    out = ["Traceback (most recent call first):"]
    calls = calls or {}
    for i, f in enumerate(frames):
        out.extend("  " + text for text in calls.get(i, ()))
        out.append('  File "%s", line %s, in %s' % (escaped(f.filename), line_text(f.line),
                                                    python_name(f)))
        source = source_line(f.filename, f.line)
        if source:
            out.append("    " + source)
    if err is not None:
        out.append("  (Python frame chain cut short: %s)" % err)
    return out


def native_line(index, pc, name, where, source=None):
    """One native frame of mixed-bt: `where` is " at file:line", " from
    library" or ""; `source` says how the frame was found, when known."""
    return "#%-3d %#018x in %s%s%s" % (index, pc, escaped(name) or NO_NAME, escaped(where),
                                       " (%s)" % source if source else "")


def python_line(frame, note=None):
    """One Python frame of mixed-bt, under the native frame that runs it."""
    return "      %s at %s:%s%s" % (python_label(frame), escaped(frame.filename),
                                    line_text(frame.line),
                                    " (%s)" % note if note else "")


def ranges_table(ranges, notes, count=None, total=None, filter_text=None):
    """`info jit-ranges` / `jit-ranges`: `ranges` (those matching
    `filter_text`, of `total` registered), at most `count` rows, then a line
    saying how many were left out or filtered, then the notes."""
    out = []
    total = len(ranges) if total is None else total
    shown = ranges if count is None else ranges[:count]
    if not ranges:
        out.append("No JIT or trampoline ranges registered." if filter_text is None else
                   "No range matches %r (of %d registered)." % (filter_text, total))
    else:
        out.append("%-18s %-18s %-10s %-16s %-10s %s" % (
            "Start", "End", "Kind", "Rule", "Origin", "Name"))
        for r in shown:
            out.append("%#018x %#018x %-10s %-16s %-10s %s" % (
                r.start, r.end, KIND_NAMES.get(r.kind, "?"), rule_text(r),
                ORIGIN_NAMES.get(r.origin, "?"), escaped(r.name)))
        if len(shown) < len(ranges) and filter_text is not None:
            out.append("(%d of the %d ranges matching %r shown, of %d in all: raise -n for "
                       "more)" % (len(shown), len(ranges), filter_text, total))
        elif len(shown) < len(ranges):
            out.append("(%d of %d ranges shown: raise -n for more)" % (len(shown), total))
        elif len(shown) < total:
            out.append("(%d of %d ranges match %r)" % (len(shown), total, filter_text))
    out.extend("note: %s" % note for note in notes)
    return out
