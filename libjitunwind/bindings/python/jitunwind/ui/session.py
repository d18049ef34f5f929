"""What every debugger command is written against: the `Session` a plugin
adapts its debugger to, the native frame it hands over, and `invoke()`,
which parses a command line, runs it and turns every failure into one line.
Below commands.py, values.py and jit_specs.py, which all use it."""

from .spec import Flag, UsageError, parse
from .target import PythonUnavailable


# The flag of the commands that print Python frames (commands.py, values.py).
VERBOSE = Flag("-v", "--verbose", "verbose",
               "also each frame's code object address and its flags (entry, generator, JIT code)")


class NoTarget(RuntimeError):
    """Nothing to inspect (no process, no core, no thread)."""


class NativeView:
    """One native frame as a debugger sees it: `symbol` names its function
    (None when unknown), `where` is " at file:line", " from library" or "",
    `source` says how the frame was found (LLDB's library walk) or is None.
    `inlined`: a function inlined into the next (outer) frame, which has the
    same pc and sp, as gdb lists one."""
    __slots__ = ("pc", "sp", "symbol", "where", "source", "inlined")

    def __init__(self, pc, sp=None, symbol=None, where="", source=None, inlined=False):
        self.pc, self.sp, self.symbol, self.where, self.source = pc, sp, symbol, where, source
        self.inlined = inlined


class Session:
    """What a command needs from a debugger, for one invocation."""

    debugger = ""  # "gdb" or "lldb": which name of a Spec the user typed

    def state(self):
        """The target's TargetState, refreshed for this stop; raises NoTarget."""
        raise NotImplementedError

    def threads(self, every):
        """The selected thread, or every thread: objects with `number` (the
        debugger's thread number) and `tid` (the OS thread id)."""
        raise NotImplementedError

    def native_frames(self, thread, limit):
        """(frames, notes): up to `limit` NativeViews of `thread`, innermost
        first, and one-line notes about the walk."""
        raise NotImplementedError

    def write(self, line):
        raise NotImplementedError

    # Optional, for the levels of ui/levels.py:
    # native_pointer_argument(thread, natives, index, name): a native
    # frame's pointer argument; function_at(address): the name of the
    # function starting there; frame_number(thread, natives, index): the
    # debugger's number for a native frame, where it is not the index;
    # python_frame_numbers(thread): its numbers of the Python frames it lists.

    # The JIT commands (jit_specs.py) also need:
    def address(self, text):
        """The address an expression (`$pc`, `0x7f...`, a symbol) evaluates to."""
        raise NotImplementedError

    def selected_pc(self):
        """(pc, innermost, arch) of the selected frame: `innermost` when it is
        frame 0 (a caller's pc is a return address)."""
        raise NotImplementedError

    def disassemble(self, start, end):
        """[(address, instruction text)] of the code in [start, end)."""
        raise NotImplementedError


def invoke(spec, run, session, text):
    """Parse `text` and run; never raises: every failure is one line (a
    usage error, its usage line too)."""
    name = spec.lldb_name if session.debugger == "lldb" else spec.gdb_name
    try:
        args = parse(spec, text, name)
    except UsageError as exc:
        for line in str(exc).splitlines():
            session.write(line)
        return False
    try:
        run(session, args)
        return True
    except (NoTarget, PythonUnavailable) as exc:
        session.write("jitunwind: %s: %s" % (name, exc))
    except Exception as exc:  # never raise into the debugger
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        session.write("jitunwind: %s: %s" % (name, text))
    return False
