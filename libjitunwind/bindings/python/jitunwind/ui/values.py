"""Python values and frame navigation, written once for GDB and LLDB:
py-locals, py-print NAME, py-up, py-down, py-list [START], and the
arguments py-bt-full shows. The values are rendered by the library
(jitunwind.values); this module only picks the frame and prints.

The selected Python frame follows the debugger's selected native frame:
py-up/py-down move one Python frame and select the eval-loop frame that
runs it (so `bt` and `frame` agree); selecting a native frame by hand makes
the innermost Python frame it runs (or runs above it) the selected one.
The plugins give `Session` two more methods for this (ValuesSession)."""

from .. import PYFRAME_BAD_CODE, PYFRAME_ENTRY, values
from . import labels, levels, source_files
from .session import VERBOSE, NoTarget, Session
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
    "py-locals", "Print the local variables of the selected Python frame and its callers.",
    "As libpython's py-locals: `Locals for NAME`, then the frame's arguments, locals, cells and "
    "free variables (read through their cell), for the selected frame and each frame that "
    "called it in the same run of the eval loop (up to its entry frame). Each is "
    "shown as libpython.py shows it (as py-print does: an instance with its attributes, "
    "the text cut at 1,024 characters), rendered from the target's memory by libjitunwind "
    "(cores, JIT and trampoline frames too). Values of a frame running JIT code may be stale.",
    category="data")
class _WordSpec(Spec):
    """A spec whose one positional is a required word (py-print NAME)."""

    def usage(self, debugger_name=None):
        return "%s %s" % (debugger_name or self.name, self.positional.metavar)


PY_PRINT = _WordSpec(
    "py-print", "Print a Python variable of the selected Python frame: local, global or "
    "builtin.",
    "Looks NAME up as Python would from the selected frame: its locals, then its module's "
    "globals, then the builtins, and prints it as libpython.py would (an instance with its "
    "attributes, cut at 1,024 characters). NAME.ATTR... follows attributes: an instance's "
    "own (its __dict__ or __slots__), a module's globals, a class's own dict.",
    positional=Positional("name", "NAME", "the variable's name, then .ATTR for each attribute"),
    category="data")
PY_UP = Spec(
    "py-up", "Select and print the Python frame that called this one.",
    "Moves COUNT (default 1) levels outwards, as libpython.py: a level is a Python frame or a "
    "builtin a Python frame is calling. Selects the native frame that runs it (the eval loop, "
    "or the builtin's call), so `bt` and `frame` agree, and prints it as py-bt-full does.",
    flags=[VERBOSE], positional=Positional("count", "COUNT", "how many levels to move"))
PY_DOWN = Spec(
    "py-down", "Select and print the Python frame called by this one.",
    "Moves COUNT (default 1) levels inwards (see py-up) and selects the native frame that "
    "runs it.",
    flags=[VERBOSE], positional=Positional("count", "COUNT", "how many levels to move"))
PY_LIST = Spec(
    "py-list", "List the Python source around the selected Python frame's line.",
    "As libpython.py: 11 lines around the current line (marked '>'), or the 11 lines from "
    "START, or lines START to END, read from the frame's file when it is a regular file "
    "readable on this machine (its first 4 MiB).",
    positional=Positional("start", "START[,END]", "the first line to list, and the last",
                          word=True))

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
        self.levels = levels.build(session, self.thread, self.reader, natives, self.frames,
                                   self.anchors, levels.jit_frames(entries))
        # the same stop, as far as the selection cares (readers may be reopened per command)
        self.fingerprint = (len(self.levels),) + tuple(
            (f.address, f.code, f.lasti) for f in self.frames[:16])

    def current(self):
        """The index in `levels` of the selected level."""
        listed = self.session.selected_python(self.thread)
        if listed is not None and listed < len(self.frames):
            return next(i for i, lv in enumerate(self.levels)
                        if lv.frame is not None and lv.python == listed)
        saved = _selection.get(self.thread.tid)
        native = self.session.selected_native(self.thread, self.natives)
        # py-up/py-down's choice stands while the debugger's selection is
        # the one it left (the user did not pick another native frame)
        if saved and saved[0] == self.fingerprint and saved[1] < len(self.levels) and \
                saved[2] == native:
            return saved[1]
        for i, level in enumerate(self.levels):
            if level.native is not None and level.native >= native:
                return i
        return 0

    def python_frame(self):
        """The selected Python frame: the selected level's, or for a C call
        the Python frame calling it (as libpython's py-print and py-locals
        read the caller's variables there)."""
        return self.frames[self.levels[self.current()].python]

    def select(self, index):
        """Select level `index` and its native frame: False when the
        debugger could not select that native frame."""
        level = self.levels[index]
        done = level.native is not None and (
            (level.frame is not None and self.session.select_python(self.thread, level.python))
            or self.session.select_native(self.thread, self.natives, level.native))
        _selection[self.thread.tid] = (self.fingerprint, index,
                                       self.session.selected_native(self.thread, self.natives))
        return done


def frame_line(reader, number, frame, verbose=False):
    """libpython's line for a Python frame: `#N Frame 0x..., for file F,
    line L, in NAME (args)` (level_lines picks N). `verbose` adds
    the code object's address and the frame's flags."""
    args = values.arguments_text(reader, frame, style=values.STYLE_LIBPYTHON)
    flags = labels.python_flags_text(frame) if verbose else ""
    return "#%d Frame %#x, %sfor file %s, line %s, in %s (%s)%s" % (
        number, frame.address, "code %#x, " % frame.code if verbose else "",
        labels.escaped(frame.filename), labels.line_text(frame.line),
        labels.python_name(frame), args, " [%s]" % flags if flags else "")


def level_lines(reader, level, verbose=False):
    """The lines py-bt-full, py-up and py-down print for one level: a C call
    as `#N <built-in ...>`, a Python frame as frame_line() and its source
    line; N the debugger's number of the native frame running it (else the
    index among the Python frames)."""
    number = level.number if level.number is not None else level.python
    if level.frame is None:
        return ["#%d %s" % (number, level.call)]
    out = [frame_line(reader, number, level.frame, verbose)]
    source = labels.source_line(level.frame.filename, level.frame.line)
    if source:
        out.append("    " + source)
    return out


def bt_full_lines(reader, levels_, err, verbose=False):
    """py-bt-full: every level, innermost first (levels.for_frames). The
    target is stopped: its memory is read once for all frames."""
    out = []
    with values.held_reads(reader):
        for level in levels_:
            out.extend(level_lines(reader, level, verbose))
    if err is not None:
        out.append("(Python frame chain cut short: %s)" % err)
    return out


def _show_level(session, stack, index, selected, verbose):
    for line in level_lines(stack.reader, stack.levels[index], verbose):
        session.write(line)
    if not selected:
        session.write("(the native frame running it could not be selected: the debugger's "
                      "frame selection is unchanged)")


def _code_name(frame):
    """libpython's name in `Locals for NAME`: the code object's co_name (the
    last part of its qualified name)."""
    if frame.flags & PYFRAME_BAD_CODE or not frame.qualname:
        return labels.python_name(frame)
    return labels.escaped(frame.qualname.rsplit(".", 1)[-1])


def run_py_locals(session, args):
    """As libpython's: `Locals for NAME` and its variables, for the selected
    Python frame and each frame it was called from in the same run of the
    eval loop (up to its entry frame)."""
    stack = _Stack(session)
    index = stack.levels[stack.current()].python
    for frame in stack.frames[index:]:
        session.write("Locals for %s" % _code_name(frame))
        variables, err = values.frame_variables(stack.reader, frame)
        for var in variables:
            session.write(values.variable_text(stack.reader, var,
                                               style=values.STYLE_LIBPYTHON))
        if err is not None:
            session.write("(variables cut short: %s)" % err)
        if frame.flags & PYFRAME_ENTRY:
            break


def run_py_print(session, args):
    stack = _Stack(session)
    frame = stack.python_frame()
    address, scope = values.lookup_path(stack.reader, frame, args.name)
    if address is None:
        session.write(scope)
        return
    text = values.repr_object(stack.reader, address, style=values.STYLE_LIBPYTHON)[0]
    session.write("%s %r = %s" % (scope, args.name, text))


def _move(session, args, step):
    stack = _Stack(session)
    index = stack.current() + step * (args.count or 1)
    if index >= len(stack.levels):
        session.write("Unable to find an older python frame")
        return
    if index < 0:
        session.write("Unable to find a newer python frame")
        return
    _show_level(session, stack, index, stack.select(index), args.verbose)


def run_py_up(session, args):
    _move(session, args, 1)


def run_py_down(session, args):
    _move(session, args, -1)


def list_range(text):
    """(start, end) of py-list's `START` (11 lines) or `START,END` (both
    included), as libpython.py reads them; UsageError otherwise."""
    parts = text.split(",")
    try:
        numbers = [int(p) for p in parts]
    except ValueError:
        numbers = []
    if len(parts) > 2 or not numbers or min(numbers) < 1 or max(numbers) >= 10 ** 9:
        raise UsageError("START[,END] must be one or two positive whole numbers "
                         "separated by a comma, not %r" % text)
    return numbers[0], numbers[-1] if len(numbers) == 2 else numbers[0] + 2 * CONTEXT


def run_py_list(session, args):
    stack = _Stack(session)
    frame = stack.python_frame()
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
        start, end = list_range(args.start)
    else:
        start, end = frame.line - CONTEXT, frame.line + CONTEXT
    start = max(start, 1)
    if start > len(lines):
        session.write("Line number %d out of range; %s has %d lines%s."
                      % (start, labels.escaped(frame.filename), len(lines),
                         " read" if source.truncated else ""))
        return
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
