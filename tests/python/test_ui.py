#!/usr/bin/env python3
"""The shared debugger layer (jitunwind.ui) without a debugger: the one
argument parser, the streaming interleaving against the library's
jitunwind_mix, the truncated-core check behind the perf-map note, and the
reading of source files the target names (a FIFO must not hang py-bt).

Usage: test_ui.py REPO_DIR BUILD_DIR      Exit 0 on success, 1 on failure."""

import collections
import json
import os
import resource
import struct
import subprocess
import sys
import tempfile
import time


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


def check_range_listing(commands, session_module):
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
        session_module.invoke(commands.JIT_RANGES, commands.run_jit_ranges, session, text)
        got = [l.split("py::")[1].split(":")[0] for l in session.lines if l.startswith("0x")]
        if got != names or (tail and session.lines[-1] != tail):
            fail("jit-ranges %r: %r" % (text, session.lines))
    print("ok: jit-ranges ADDR|NAME and -n N choose their rows and say what they left out")


def check_hostile_names(ju, labels):
    """Names the target controls print escaped everywhere the debuggers show
    them (py-bt, mixed-bt, frame labels, jit-ranges, thread headers): no
    control byte, no forged line; a perf-map name with bytes that are not
    UTF-8 too."""
    title, clear = "\x1b]0;title\x07", "\x1b[2J"
    forge = '\nThread 1 "fake":\n#0  0x0 in fake ()'
    frame = ju.PyFrame(0x1000, 0x2000, 3, 1, 0, 0, 0, "evil" + title + clear + "\x9b" + forge,
                       "/tmp/" + title + "\x7f.py")
    Range = collections.namedtuple("Range", "start end kind rule origin name frame_size")
    rng = Range(0x1000, 0x1010, 2, 3, 2, "py::evil" + title + clear + forge, 16)
    lines = (labels.py_bt_lines([frame], None) + [labels.python_line(frame)]
             + [labels.native_line(0, 0x1000, "sym" + clear, " at /x" + title + ".c:1")]
             + labels.ranges_table([rng], []))
    for line in lines:
        if "\n" in line or any(ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f for c in line):
            fail("a name reaches the terminal raw: %r" % line)
    text = "\n".join(lines)
    for shown in ('evil\\x1b]0;title\\x07\\x1b[2J\\x9b\\nThread 1 "fake"',
                  "/tmp/\\x1b]0;title\\x07\\x7f.py", "sym\\x1b[2J", "py::evil\\x1b]0;title\\x07"):
        if shown not in text:
            fail("%r is not shown escaped: %r" % (shown, lines))
    if labels.escaped(b"a\xff\xc3(b".decode("utf-8", "surrogateescape")) != "a\\xff\\xc3(b":
        fail("bytes that are not UTF-8: %r" % labels.escaped(b"a\xff\xc3(b".decode(
            "utf-8", "surrogateescape")))
    if labels.escaped("caf\u00e9 \\ ok") != "caf\u00e9 \\ ok":
        fail("printable text is changed: %r" % labels.escaped("caf\u00e9 \\ ok"))
    print("ok: target names print escaped in py-bt, mixed-bt, frame labels and jit-ranges")


def check_interleaver(ju, stack, mixer):
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
    for kind, index, anchor in mixer.mix(roles, whole):
        if kind == R.MIXED_PYTHON:
            want[index] = (anchor, whole[index].flags)
    for size in range(1, len(roles) + 1):
        mixer = stack.Interleaver(lambda: (list(frames), None))
        got = {}
        for start in range(0, len(roles), size):
            for offset, group in enumerate(mixer.feed(roles[start:start + size])):
                for f in group:
                    plain = f.flags & ~(R.PYFRAME_LINE_MAY_LAG | R.PYFRAME_IN_JIT)
                    got[frames.index(f._replace(flags=plain))] = (
                        start + offset, f.flags)
        for f in mixer.leftovers():
            got[frames.index(f)] = (None, f.flags)
        if got != want:
            fail("batches of %d: %r, jitunwind_mix: %r" % (size, got, want))
    print("ok: the streaming interleaving matches jitunwind_mix for every batch size")


def check_jit_frame_flags(ju, mixer, labels):
    """The frame an eval loop runs straight into JIT code: the mixer flags
    it as running JIT code with a line that may lag; when the JIT view finds
    its exact line (the library's mixer, in check_py_jit_view), only the lag
    goes -- its values may still be stale (the library marks them from
    PYFRAME_IN_JIT), and that is how it is shown."""
    R = ju
    frame = R.PyFrame(0x1000, 0x2000, 7, 1, 0, 0, R.PYFRAME_ENTRY, "spin", "x.py")
    pyframes = [frame]
    mixer.mix([R.ROLE_JIT, R.ROLE_EVAL], pyframes)
    if pyframes[0].flags & (R.PYFRAME_IN_JIT | R.PYFRAME_LINE_MAY_LAG) != \
            R.PYFRAME_IN_JIT | R.PYFRAME_LINE_MAY_LAG:
        fail("a frame run by JIT code has flags %#x" % pyframes[0].flags)
    exact = pyframes[0]._replace(line=12, flags=pyframes[0].flags & ~R.PYFRAME_LINE_MAY_LAG)
    text = labels.python_flags_text(exact)
    if text != "entry, JIT code" or "[in JIT code" in labels.python_name(exact):
        fail("flags %r, name %r" % (text, labels.python_name(exact)))
    print("ok: a frame running JIT code keeps its JIT flag (values may be stale) when its exact "
          "line is found")


def check_eval_loop_by_name(ju, stack):
    """A native frame named as a part of the eval loop is an eval frame
    (`.cold`, `.part.N`), one named otherwise is not, whatever the state
    (by address, through the reader's parts: check_mixed)."""
    class State:
        arch = ju.ARCH_X86_64

        def lookup(self, pc):
            return None

        def pyreader(self):
            raise RuntimeError("no Python in this target")

    class Native:
        def __init__(self, pc, symbol):
            self.pc, self.symbol = pc, symbol

    cases = [(State(), 0x7010, "??", ju.ROLE_OTHER),
             (State(), 0x7010, "_PyEval_EvalFrameDefault.cold", ju.ROLE_EVAL),
             (None, 0x7010, "_PyEval_EvalFrameDefault.part.0", ju.ROLE_EVAL),
             (None, 0x7010, "_PyEval_EvalFrame.constprop.0", ju.ROLE_OTHER)]
    for state, pc, symbol, want in cases:
        entries, _ = stack.mixed_stack(state, [Native(pc, symbol)], lambda: ([], None))
        if entries[0].role != want:
            fail("pc %#x, symbol %r: role %d, want %d" % (pc, symbol, entries[0].role, want))
    print("ok: the eval loop by suffixed name")


def check_debug_roots_from_the_debugger(ju, target):
    """resolve() hands the library the debugger's debug-file directories;
    a list the library refuses leaves the default."""
    class Adapter(target.TargetAdapter):
        def __init__(self, dirs):
            self.dirs = dirs

        def debug_file_directories(self):
            return self.dirs

        def is_live(self):
            return False

        def arch(self):
            return None

        def pid(self):
            return 0

        def symbol_address(self, name):
            return None

        def core_path(self):
            return None

        def executable(self):
            return None

    for dirs, want in (("/a/debug:/b", "/a/debug:/b"), ("/d" * 4096, ju.DEBUG_ROOT_DEFAULT),
                       (None, ju.DEBUG_ROOT_DEFAULT)):
        target.TargetState(Adapter(dirs)).resolve()
        if ju.debug_file_directories() != want:
            fail("debugger's %r: the library's %r" % ((dirs or "")[:20],
                                                     ju.debug_file_directories()))
    print("ok: the debugger's debug-file directories reach the library")


def check_thread_list_error(target):
    """A thread-list error (the list cut short) is said for a thread the
    list did not find, never for one whose chain was read whole."""
    class State:
        def __init__(self, tid):
            self.native_thread_id, self.current_frame, self.tstate = tid, 0x1000 + tid, tid

    class Reader:
        def next_stop(self):
            pass

        def threads(self):
            return [State(1), State(2)], "the thread list is cut short: a cycle"

        def frames(self, frame, limit, thread_key=None):
            return (["frame of %d" % thread_key], None) if thread_key == 1 else \
                (["frame of 2"], "chain of 2: unreadable")

    class Adapter:
        memory = None

    state = target.TargetState(Adapter())
    state.pyreader = Reader
    got = {tid: state.python_frames(tid) for tid in (1, 2, 3)}
    want = {1: (["frame of 1"], None), 2: (["frame of 2"], "chain of 2: unreadable"),
            3: ([], "the thread list is cut short: a cycle")}
    if got != want:
        fail("python_frames with a thread-list error: %r, want %r" % (got, want))
    print("ok: a thread-list error is said for a thread not listed, not for a whole chain")


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


# Run in a child (a FIFO or /dev/zero read the old way never returns, or
# takes all memory): the source lines py-bt shows (labels.source_line),
# py-list's output, and source_files.source_file's verdict, for each
# (path, line) in argv.
SOURCE_PROBE = """
import json, sys
sys.path.insert(0, sys.argv[1])
import jitunwind
from jitunwind.ui import labels, values
out = {"lines": [labels.source_line(p, n) for p, n in json.loads(sys.argv[2])]}


class Session:  # py-list's selected frame is `frame`; it prints to `written`
    def __init__(self, frame):
        self.frame, self.written = frame, []

    def write(self, line):
        self.written.append(line)


class Stack:
    def __init__(self, session):
        self.frames = [session.frame]

    def python_frame(self):
        return self.frames[0]


class Args:
    start = None


values._Stack = Stack
out["py-list"] = []
for p, n in json.loads(sys.argv[2]):
    session = Session(jitunwind.PyFrame(0x1000, 0x2000, n, 1, 0, 0, 0, "f", p))
    values.run_py_list(session, Args())
    out["py-list"].append(session.written)
Args.start = "100000"  # past the end of the second case's file (START as typed)
session = Session(jitunwind.PyFrame(0x1000, 0x2000, 1, 1, 0, 0, 0, "f",
                                    json.loads(sys.argv[2])[1][0]))
values.run_py_list(session, Args())
out["py-list past the end"] = session.written
try:
    from jitunwind.ui import source_files
except ImportError:
    source_files = None
if source_files is not None:
    out["refused"] = [source_files.source_file(p).refused for p, _ in json.loads(sys.argv[2])]
print(json.dumps(out))
"""


def probe_sources(repo, cases):
    """(result, seconds) of SOURCE_PROBE over `cases` [(path, line)], in a
    child limited to 20 s and 1 GiB; fails when it does not finish."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    start = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, "-c", SOURCE_PROBE,
                               os.path.join(repo, "libjitunwind", "bindings", "python"),
                               json.dumps(cases)], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=20, preexec_fn=limit)
    except subprocess.TimeoutExpired:
        fail("reading source lines of %r did not finish in 20 s" % [p for p, _ in cases])
    if proc.returncode != 0:
        fail("reading source lines of %r failed:\n%s" % ([p for p, _ in cases], proc.stdout))
    return json.loads(proc.stdout.splitlines()[-1]), time.monotonic() - start


def check_source_files(repo):
    """A file the target names is read only when it is a regular file, at
    most the size cap, and re-read when it changes (docs/usage.md, "Files
    the library opens")."""
    with tempfile.TemporaryDirectory() as work:
        fifo, regular, big = (os.path.join(work, n) for n in ("planted.py", "x.py", "big.py"))
        os.mkfifo(fifo)
        with open(regular, "w") as f:
            f.write("first = 1\r\n  second = 2\nthird = 3")
        with open(big, "wb") as f:
            f.write(b"head = 1\n")
            f.truncate(64 << 20)  # a sparse 64 MiB: one line of NULs past the cap
        cases = [(fifo, 1), (regular, 2), (regular, 3), (work, 1), ("/dev/zero", 1),
                 (big, 1), (big, 2), (os.path.join(work, "absent.py"), 1),
                 ("<frozen importlib._bootstrap>", 1)]
        got, seconds = probe_sources(repo, cases)
        want = [None, "second = 2", "third = 3", None, None, "head = 1", None, None, None]
        if got["lines"] != want:
            fail("source lines %r, want %r" % (got["lines"], want))
        listed = got["py-list"]  # in the order of `cases`
        for i, lines in ((0, ["Unable to read %s: a FIFO" % fifo]),
                         (1, ["   1    first = 1", "  >2      second = 2", "   3    third = 3"]),
                         (3, ["Unable to read %s: a directory" % work]),
                         (5, ["  >1    head = 1", "(only the first 4 MiB of %s are read)" % big])):
            if listed[i] != lines:
                fail("py-list of %s: %r, want %r" % (cases[i][0], listed[i], lines))
        past = ["Line number 100000 out of range; %s has 3 lines." % regular]
        if got["py-list past the end"] != past:
            fail("py-list 100000: %r, want %r" % (got["py-list past the end"], past))
        refused = got.get("refused")
        if refused is None:
            fail("jitunwind.ui.source_files is missing")
        for (path, _), why, expected in zip(cases, refused, [
                "a FIFO", None, None, "a directory", "a device", None, None,
                "No such file or directory", "not a file name"]):
            if why != expected:
                fail("%s: refused %r, want %r" % (path, why, expected))
        print("ok: source lines and py-list: a FIFO, a directory and /dev/zero are refused "
              "(%.1f s in all), a regular file read (CRLF too), a 64 MiB file read to its "
              "first 4 MiB"
              % seconds)

    from jitunwind.ui import source_files
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "changes.py")
        with open(path, "w") as f:
            f.write("old = 1\n")
        if source_files.source_line(path, 1) != "old = 1":
            fail("a regular file's line was not read")
        with open(path, "w") as f:
            f.write("new = 22\n")
        os.utime(path, ns=(time.time_ns() + 10**9,) * 2)
        if source_files.source_line(path, 1) != "new = 22":
            fail("a changed file's line is the cached old one")
        if source_files.source_file(path) is not source_files.source_file(path):
            fail("an unchanged file is read again (not cached)")
    print("ok: source lines are cached per file and re-read when it changes")


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    repo, build = sys.argv[1:]
    sys.path.insert(0, os.path.join(repo, "libjitunwind", "bindings", "python"))
    os.environ["JITUNWIND_LIBRARY"] = os.path.join(build, "libjitunwind", "libjitunwind.so")
    import jitunwind
    from jitunwind import mixer
    from jitunwind.ui import commands, jit_specs, labels, session, spec, stack, target
    check_parser(spec, commands)
    check_word_argument(spec, jit_specs)
    check_range_listing(commands, session)
    check_hostile_names(jitunwind, labels)
    check_interleaver(jitunwind, stack, mixer)
    check_jit_frame_flags(jitunwind, mixer, labels)
    check_eval_loop_by_name(jitunwind, stack)
    check_debug_roots_from_the_debugger(jitunwind, target)
    check_thread_list_error(target)
    check_core_truncation(target)
    check_source_files(repo)
    return 0


if __name__ == "__main__":
    sys.exit(main())
