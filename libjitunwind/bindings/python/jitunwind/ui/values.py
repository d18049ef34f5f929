"""Python values and frame navigation, written once for GDB and LLDB:
py-locals, py-print NAME, py-up, py-down, py-list [START], and the
arguments py-bt-full shows. The values are rendered by the library
(jitunwind.values); this module only picks the frame and prints.

The selected Python frame follows the debugger's selected native frame:
py-up/py-down move one Python frame and select the eval-loop frame that
runs it (so `bt` and `frame` agree); selecting a native frame by hand makes
the innermost Python frame it runs (or runs above it) the selected one.
The plugins give `Session` two more methods for this (ValuesSession)."""

from .. import values
from . import labels, source_files
from .session import NoTarget, Session
from .session import invoke as shared_invoke
from .spec import Positional, Spec, UsageError, parse
from .stack import mixed_stack


class ValuesSession(Session):
    def selected_native(self, thread, natives):
        """The index in `natives` (NativeViews from native_frames(), innermost
        first) of the debugger's selected frame of `thread`, or 0."""
        raise NotImplementedError

    def select_native(self, thread, natives, index):
        """Select the debugger's frame for natives[index]; False when the
        debugger has no such frame (its own unwinding stopped earlier)."""
        raise NotImplementedError

    def selected_python(self, thread):
        """Where the debugger lists Python frames as frames of their own
        (LLDB 22+'s frame provider): k when its selected frame is the k-th
        of them, innermost first; else None."""
        return None

    def select_python(self, thread, index):
        """Select the debugger's frame for the index-th Python frame; False
        where it lists none."""
        return False


PY_LOCALS = Spec(
    "py-locals", "Print the local variables of the selected Python frame.",
    "Arguments first, then locals, cells and free variables (read through their cell), each "
    "as repr() would show it, rendered from the target's memory by libjitunwind (cores, JIT "
    "and trampoline frames too). Containers are shown 2 levels deep, 10 items each, strings "
    "to 200 characters, then '...'. Values of a frame running JIT code may be stale.",
    category="data")
class _WordSpec(Spec):
    """A spec whose one positional is a required word (py-print NAME)."""

    def usage(self, debugger_name=None):
        return "%s %s" % (debugger_name or self.name, self.positional.metavar)


PY_PRINT = _WordSpec(
    "py-print", "Print a Python variable of the selected Python frame: local, global or "
    "builtin.",
    "Looks NAME up as Python would from the selected frame: its locals, then its module's "
    "globals, then the builtins, and prints it as repr() would (bounded like py-locals).",
    positional=Positional("name", "NAME", "the variable's name"), category="data")
PY_UP = Spec(
    "py-up", "Select and print the Python frame that called this one.",
    "Moves COUNT (default 1) Python frames outwards and selects the native eval-loop frame "
    "that runs it, so `bt` and `frame` agree.",
    positional=Positional("count", "COUNT", "how many Python frames to move"))
PY_DOWN = Spec(
    "py-down", "Select and print the Python frame called by this one.",
    "Moves COUNT (default 1) Python frames inwards and selects the native eval-loop frame "
    "that runs it.",
    positional=Positional("count", "COUNT", "how many Python frames to move"))
PY_LIST = Spec(
    "py-list", "List the Python source around the selected Python frame's line.",
    "Shows 11 lines around the current line (marked '>'), or 10 lines from START, read from "
    "the frame's file when it is a regular file readable on this machine (its first 4 MiB).",
    positional=Positional("start", "START", "first line to list"))

CONTEXT = 5

# tid -> (stack fingerprint, Python frame index, selected native index then)
_selection = {}


class _Stack:
    """The selected thread's Python frames and which native frame runs each."""

    def __init__(self, session):
        self.session = session
        self.state = session.state()
        threads = session.threads(False)
        if not threads:
            raise NoTarget("no thread selected")
        self.thread = threads[0]
        self.reader = self.state.pyreader()
        natives, _notes = session.native_frames(self.thread, 4096)
        self.natives = natives
        entries, mixer = mixed_stack(self.state, natives,
                                     lambda: self.state.python_frames(self.thread.tid))
        self.frames, self.anchors = [], []
        for e in entries:
            if e.pyframe is not None:
                self.frames.append(e.pyframe)
                self.anchors.append(e.anchor)
        for p in mixer.leftovers():  # no native frame found for them: still listed
            self.frames.append(p)
            self.anchors.append(None)
        if not self.frames:
            frames, _err = self.state.python_frames(self.thread.tid)
            self.frames, self.anchors = list(frames), [None] * len(frames)
        if not self.frames:
            raise NoTarget("no Python frames in this thread")
        # the same stop, as far as the selection cares (readers may be reopened per command)
        self.fingerprint = (len(self.frames),) + tuple(
            (f.address, f.code, f.lasti) for f in self.frames[:16])

    def current(self):
        """The index of the selected Python frame."""
        listed = self.session.selected_python(self.thread)
        if listed is not None and listed < len(self.frames):
            return listed
        saved = _selection.get(self.thread.tid)
        native = self.session.selected_native(self.thread, self.natives)
        # py-up/py-down's choice stands while the debugger's selection is
        # the one it left (the user did not pick another native frame)
        if saved and saved[0] == self.fingerprint and saved[1] < len(self.frames) and \
                saved[2] == native:
            return saved[1]
        for i, anchor in enumerate(self.anchors):
            if anchor is not None and anchor >= native:
                return i
        return 0

    def select(self, index):
        """Select Python frame `index` and its native frame: False when the
        debugger could not select that native frame."""
        done = self.anchors[index] is not None and (
            self.session.select_python(self.thread, index) or
            self.session.select_native(self.thread, self.natives, self.anchors[index]))
        _selection[self.thread.tid] = (self.fingerprint, index,
                                       self.session.selected_native(self.thread, self.natives))
        return done


def frame_line(reader, index, frame):
    """`#N Frame 0x..., code 0x..., for file F, line L, in NAME (args)`:
    libpython's py-bt-full line with the code object's address."""
    args = values.arguments_text(reader, frame)
    flags = labels.python_flags_text(frame)
    return "#%d Frame %#x, code %#x, for file %s, line %s, in %s (%s)%s" % (
        index, frame.address, frame.code, labels.escaped(frame.filename),
        labels.line_text(frame.line),
        labels.python_name(frame), args, " [%s]" % flags if flags else "")


# Native functions and the argument that holds the callable a Python frame
# is calling: the builtin itself in cfunction_*, any callable in the
# generic vectorcall (where a release build inlined the cfunction_ call).
CALLABLE_ARGUMENTS = (("cfunction_vectorcall_", "func"), ("cfunction_call", "func"),
                      ("PyObject_Vectorcall", "callable"),
                      ("_PyObject_VectorcallTstate", "callable"))


def _callable_argument(symbol):
    for prefix, name in CALLABLE_ARGUMENTS:
        if symbol.startswith(prefix):
            return name
    return None


def native_context(session, state, thread, reader):
    """(calls, mixed) for py-bt-full, from the thread's native frames:
    `calls` {Python frame address: "<built-in function sleep>"} is the
    builtin each Python frame is calling, where the native frames between
    its eval loop and the next inner one say so (as libpython's py-bt shows
    them; empty when the debugger cannot read native arguments); `mixed`
    {Python frame address: frame} holds the frames as the interleaving
    leaves them (the exact line of one running JIT code, its JIT flags)."""
    natives, _notes = session.native_frames(thread, 4096)
    entries, _mixer = mixed_stack(state, natives, lambda: state.python_frames(thread.tid))
    mixed = {e.pyframe.address: e.pyframe for e in entries if e.pyframe is not None}
    read_arg = getattr(session, "native_pointer_argument", None)
    if read_arg is None:
        return {}, mixed
    out, inner = {}, -1
    for e in entries:
        if e.pyframe is None or e.anchor is None or e.anchor == inner:
            continue
        for index in range(inner + 1, e.anchor):
            name = _callable_argument(natives[index].symbol or "")
            address = read_arg(thread, natives, index, name) if name else None
            text = values.repr_object(reader, address)[0] if address else ""
            if text.startswith("<built-in "):
                out[e.pyframe.address] = text
                break
        inner = e.anchor
    return out, mixed


def bt_full_lines(reader, frames, err, calls=None, mixed=None):
    """py-bt-full: each frame with its arguments and source line, after the
    builtin it is calling when known; `calls` and `mixed` are
    native_context's (a frame in `mixed` replaces the one read). The target
    is stopped: its memory is read once for all frames."""
    out = []
    calls, mixed = calls or {}, mixed or {}
    with values.held_reads(reader):
        for i, f in enumerate(frames):
            f = mixed.get(f.address, f)
            if f.address in calls:
                out.append("   " + calls[f.address])
            out.append(frame_line(reader, i, f))
            source = labels.source_line(f.filename, f.line)
            if source:
                out.append("    " + source)
    if err is not None:
        out.append("(Python frame chain cut short: %s)" % err)
    return out


def _show_frame(session, stack, index, selected):
    frame = stack.frames[index]
    session.write(frame_line(stack.reader, index, frame))
    source = labels.source_line(frame.filename, frame.line)
    if source:
        session.write("    " + source)
    if not selected:
        session.write("(the native frame running it could not be selected: the debugger's "
                      "frame selection is unchanged)")


def run_py_locals(session, args):
    stack = _Stack(session)
    frame = stack.frames[stack.current()]
    variables, err = values.frame_variables(stack.reader, frame)
    if not variables and err is None:
        session.write("(no local variables)")
    for var in variables:
        session.write(values.variable_text(stack.reader, var))
    if err is not None:
        session.write("(variables cut short: %s)" % err)


def run_py_print(session, args):
    stack = _Stack(session)
    frame = stack.frames[stack.current()]
    found = values.lookup(stack.reader, frame, args.name)
    if found is None:
        session.write("%r not found" % args.name)
        return
    address, scope = found
    if scope == "unbound local":
        session.write("local %r is unbound (assigned later, or deleted)" % args.name)
        return
    session.write("%s %r = %s" % (scope, args.name, values.repr_object(stack.reader, address)[0]))


def _move(session, args, step):
    stack = _Stack(session)
    index = stack.current() + step * (args.count or 1)
    if index >= len(stack.frames):
        session.write("Unable to find an older python frame")
        return
    if index < 0:
        session.write("Unable to find a newer python frame")
        return
    _show_frame(session, stack, index, stack.select(index))


def run_py_up(session, args):
    _move(session, args, 1)


def run_py_down(session, args):
    _move(session, args, -1)


def run_py_list(session, args):
    stack = _Stack(session)
    frame = stack.frames[stack.current()]
    if not frame.filename or frame.line <= 0:
        session.write("Unable to locate the source line of %s" % labels.python_name(frame))
        return
    source = source_files.source_file(frame.filename)
    if source.refused is not None or not source.lines:
        session.write("Unable to read %s: %s" % (labels.escaped(frame.filename),
                                                 source.refused or "no lines"))
        return
    lines = source.lines
    if args.start:
        start, end = args.start, args.start + 9
    else:
        start, end = max(frame.line - CONTEXT, 1), frame.line + CONTEXT
    for number in range(start, min(end, len(lines)) + 1):
        mark = ">" if number == frame.line else ""
        session.write("%4s    %s" % (mark + str(number), labels.escaped(lines[number - 1])))
    if source.truncated and end > len(lines):
        session.write("(only the first %d MiB of %s are read)"
                      % (source_files.MAX_BYTES >> 20, labels.escaped(frame.filename)))


def parse_word(spec, text, debugger_name=None):
    """py-print's arguments: one identifier-like word."""
    name = debugger_name or spec.name
    words = (text or "").split()
    if len(words) != 1:
        raise UsageError("%s: %s\nusage: %s" % (
            name, "needs one NAME" if not words else "takes one NAME, not %d words" % len(words),
            spec.usage(debugger_name)))

    class Args:
        pass
    args = Args()
    args.name = words[0]
    return args


PARSERS = {"py-print": parse_word}

COMMANDS = [(PY_LOCALS, run_py_locals), (PY_PRINT, run_py_print), (PY_UP, run_py_up),
            (PY_DOWN, run_py_down), (PY_LIST, run_py_list)]


def invoke(spec, run, session, text):
    """As session.invoke (never raises: one line per failure), with the
    word parser for py-print."""
    if spec.name not in PARSERS:
        return shared_invoke(spec, run, session, text)
    name = spec.lldb_name if session.debugger == "lldb" else spec.gdb_name
    try:
        args = PARSERS[spec.name](spec, text, name)
    except UsageError as exc:
        for line in str(exc).splitlines():
            session.write(line)
        return False
    return shared_invoke(spec, lambda s, _a: run(s, args), session, "")


__all__ = ["COMMANDS", "invoke", "bt_full_lines", "ValuesSession", "parse"]
