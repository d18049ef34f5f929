"""The debugger commands, written once for GDB and LLDB.

Each command is a `Spec` (spec.py) and a function `run_<name>(session, args)`
registered in `COMMANDS`; a plugin adapts its debugger to `Session`
(session.py) and calls `session.invoke()`, which parses, runs and turns
every failure into one line (a usage error also prints the usage line).
See docs/architecture.md, "Adding a debugger command"."""

from . import labels
from .session import VERBOSE
from .spec import Flag, Positional, Spec
from .stack import jit_view_note, mixed_stack


ALL = Flag("-a", "--all", "every", "every thread, each under a header line")
LIMIT = Flag("-n", "--limit", "limit", "read at most N Python frames a thread (default 4096)",
             number="N")

PY_BT = Spec(
    "py-bt", "Print the Python frames of the selected thread, innermost first.",
    "Like CPython's libpython.py: each Python frame with its file, line and source line, read "
    "from the target's memory by libjitunwind (works on cores and through JIT code). A "
    "deeper recursion than 4096 frames needs --limit to reach its outermost frames.",
    flags=[ALL, LIMIT])
PY_BT_FULL = Spec(
    "py-bt-full", "Print the Python frames with their arguments, addresses and flags.",
    "As libpython.py: `#N Frame 0x..., for file F, line L, in NAME (args)` and the source "
    "line, N the debugger's number of the native frame running it, and each builtin a frame "
    "calls as `#N <built-in ...>` before it. --verbose adds the code object's address and "
    "flags: entry (the outermost frame of an eval-loop activation), generator, JIT code "
    "(running JIT code: its values may be stale), line may lag (its line too).",
    flags=[ALL, LIMIT, VERBOSE])
MIXED_BT = Spec(
    "mixed-bt", "Print native and Python frames interleaved, one line each.",
    "Native frames, JIT and trampoline frames named by their range, and under each "
    "_PyEval_EvalFrameDefault the Python frames it runs. Does not depend on frame filters.",
    flags=[ALL], positional=Positional("count", "COUNT", "show at most COUNT native frames"))
JIT_RANGES = Spec(
    "jit-ranges", "List the JIT and trampoline ranges libjitunwind knows (Python JIT executors, "
    "perf trampolines).",
    "Start, end, kind, unwind rule, origin (descriptor, perf-map, interpreter, guess) and name "
    "of every registered range, then notes about what could not be read. With ADDR (a number) "
    "only the range holding it; with NAME only ranges whose name contains it. A `-X perf` "
    "process has about a thousand rows: -n shows the first N and says how many are left.",
    flags=[Flag("-n", "--count", "count", "show at most N ranges", number="N")],
    positional=Positional("filter", "ADDR|NAME", "an address inside a range, or part of a name",
                          word=True),
    gdb_name="info jit-ranges", category="status")


def _thread_name(state, thread):
    """How the -a headers name a thread: its Python name where threading
    gives one, else the debugger's name for it (None when neither)."""
    try:
        name = state.python_thread_name(thread.tid)
    except Exception:  # no Python in this target
        name = None
    return name or getattr(thread, "name", None)


def _python_header(session, state, thread, every):
    """py-bt -a: `Thread N (tid T, "name", GIL holder, GC running):` as
    pystack heads each thread (the name: _thread_name)."""
    if not every:
        return
    parts = ["tid %d" % thread.tid]
    name = _thread_name(state, thread)
    from .. import values
    try:
        reader = state.pyreader()
        mine = state.python_thread_states(thread.tid)
        gc = [values.gc_collecting(reader, t.interp) for t in mine]
    except Exception:  # no Python in this target: the header without it
        mine, gc = [], []
    if name:
        parts.append('"%s"' % labels.escaped(name))
    if any(t.holds_gil == 1 for t in mine):
        parts.append("GIL holder")
    if True in gc:
        parts.append("GC running")
    session.write("Thread %d (%s):" % (thread.number, ", ".join(parts)))


def _python_frames(session, args, format_lines):
    """Each thread's Python frames as `format_lines(frames, err, state,
    thread)` lays them out."""
    state = session.state()
    for thread in session.threads(args.every):
        _python_header(session, state, thread, args.every)
        frames, err = state.python_frames(thread.tid, args.limit)
        if not frames and err is None:
            session.write("No Python frames in this thread.")
            continue
        for line in format_lines(frames, err, state, thread):
            session.write(line)
    warning = state.python_warning()
    if warning:
        session.write("note: %s" % warning)


def run_py_bt(session, args):
    from .levels import for_frames  # the builtins each frame calls, as libpython lists them

    def lines(frames, err, state, thread):
        found = for_frames(session, state, thread, state.pyreader(), frames)
        frames = [lv.frame for lv in found if lv.frame is not None]
        calls = {}
        for lv in found:
            if lv.frame is None:
                calls.setdefault(lv.python, []).append(lv.call)
        return labels.py_bt_lines(frames, err, calls)
    _python_frames(session, args, lines)


def run_py_bt_full(session, args):
    from .levels import for_frames
    from .values import bt_full_lines  # as libpython shows them

    def lines(frames, err, state, thread):
        reader = state.pyreader()
        return bt_full_lines(reader, for_frames(session, state, thread, reader, frames), err,
                             args.verbose)
    _python_frames(session, args, lines)


DEFAULT_NATIVE_LIMIT = 4096


def run_mixed_bt(session, args):
    state = session.state()
    limit = args.count or DEFAULT_NATIVE_LIMIT
    for thread in session.threads(args.every):
        name = _thread_name(state, thread) if args.every else None
        session.write("thread #%d, tid %d" % (thread.number, thread.tid)
                      + (', "%s"' % labels.escaped(name) if name else ""))
        natives, notes = session.native_frames(thread, limit + 1)
        cut = len(natives) > limit
        natives = natives[:limit]
        entries, mixer = mixed_stack(state, natives, lambda: state.python_frames(thread.tid))
        for entry in entries:
            if entry.pyframe is None:
                f = entry.native
                session.write(labels.native_line(entry.index, f.pc, entry.label, f.where, f.source))
                note = jit_view_note(entry, mixer)
                if note:
                    session.write("      (%s)" % note)
            else:
                session.write(labels.python_line(entry.pyframe))
        rest = mixer.unread() if cut else mixer.leftovers()
        if cut and mixer.failed:
            mixer.error = None  # frames past the limit were never going to be shown
        if rest and cut:
            session.write("      (%d more Python frames, run by native frames past the first %d)"
                          % (len(rest), limit))
        else:
            for p in rest:
                session.write(labels.python_line(p, "no matching native frame"))
        if mixer.error is not None:
            session.write("(Python frames: %s)" % mixer.error)
        for note in notes:
            session.write("(%s)" % note)
    warning = state.python_warning()
    if warning:
        session.write("note: %s" % warning)


def _range_filter(word):
    """A predicate on ranges for the ADDR|NAME argument: a number is an
    address the range must hold, anything else part of its name."""
    if word is None:
        return lambda r: True
    try:
        address = int(word, 0)
    except ValueError:
        return lambda r: word in (r.name or "")
    return lambda r: r.start <= address < r.end


def run_jit_ranges(session, args):
    state = session.state()
    chosen = [r for r in state.ranges if _range_filter(args.filter)(r)]
    for line in labels.ranges_table(chosen, state.notes, args.count, len(state.ranges),
                                    args.filter):
        session.write(line)


COMMANDS = [(PY_BT, run_py_bt), (PY_BT_FULL, run_py_bt_full), (MIXED_BT, run_mixed_bt),
            (JIT_RANGES, run_jit_ranges)]
