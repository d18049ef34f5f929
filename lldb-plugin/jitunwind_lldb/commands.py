"""The shared commands (jitunwind.ui.commands) as LLDB commands: one class
per Spec (LLDB resolves `command script add -c` classes by name), running
against `LldbSession`; `help <command>` shows the spec's help."""

from jitunwind.ui import commands as shared
from jitunwind.ui.session import NoTarget, Session, invoke as shared_invoke

from . import target as tgt
from .walk import match_frame, native_frames, own_frame_variable


class _Thread:
    def __init__(self, thread):
        self.thread = thread
        self.number = thread.GetIndexID()
        self.tid = thread.GetThreadID()
        self.name = thread.GetName()


def _gone(process):
    """Why `process` has no memory to read (it exited, or was detached), or
    None. LLDB keeps an exited process valid, and reading its memory then
    gives the executable file's bytes: a breakpoint that was never hit would
    otherwise read as a Python that is not initialised."""
    import lldb
    state = process.GetState()
    if state == lldb.eStateExited:
        return "no process (it exited with status %d)" % process.GetExitStatus()
    if state in (lldb.eStateDetached, lldb.eStateUnloaded, lldb.eStateInvalid):
        return "no process"
    return None


class LldbSession(Session):
    debugger = "lldb"

    def __init__(self, exe_ctx, result):
        self._exe_ctx = exe_ctx
        self._process = exe_ctx.GetProcess()
        self._result = result
        self._state = None

    def state(self):
        if self._state is None:
            if not self._process or not self._process.IsValid():
                raise NoTarget("no process")
            gone = _gone(self._process)
            if gone:
                raise NoTarget(gone)
            self._state = tgt.state_for(self._process, fresh=True)
        return self._state

    def threads(self, every):
        if every:
            return [_Thread(t) for t in self._process]
        return [_Thread(self._process.GetSelectedThread())]

    def native_frames(self, thread, limit):
        return native_frames(self.state(), thread.thread, limit)

    def native_pointer_argument(self, thread, natives, index, name):
        """The pointer argument `name` of native frame natives[index], read
        through the library's own unwinding, else from LLDB's matching
        frame; None when neither reads it. LLDB's own may be missing (its
        unwinding through a function split into hot and cold parts loses
        frames), wrong (a callee-saved register restored by that unwinding)
        or have no variables (a frame provider's scripted frame)."""
        own = own_frame_variable(self.state(), thread.thread, natives, index, name)
        if own is not None:
            return own
        found = match_frame(thread.thread, natives, index)
        if found is None:
            return None
        value = thread.thread.GetFrameAtIndex(found).FindVariable(name)
        if not value or not value.IsValid() or not value.GetError().Success():
            return None
        return value.GetValueAsUnsigned() or None

    def frame_number(self, thread, natives, index):
        """LLDB's number of native frame natives[index], or None."""
        return match_frame(thread.thread, natives, index)

    def python_frame_numbers(self, thread):
        """LLDB's numbers of the Python frames its frame provider (22+)
        lists, innermost first; [] without it."""
        from .provider import python_frame_ids  # it imports lldb's provider classes
        return python_frame_ids(thread.thread)

    def function_at(self, address):
        """The name of the function whose code starts at `address`, or None:
        named as the native frames are (walk.code_levels: the debug
        information's name, else the symbol's)."""
        import lldb
        target = self._process.GetTarget()
        ctx = target.ResolveSymbolContextForAddress(target.ResolveLoadAddress(address),
                                                    lldb.eSymbolContextEverything)
        symbol = ctx.GetSymbol()
        if not symbol or not symbol.IsValid() or \
                symbol.GetStartAddress().GetLoadAddress(target) != address:
            return None
        function = ctx.GetFunction()
        return function.GetName() if function and function.IsValid() else symbol.GetName()

    def write(self, line):
        self._result.AppendMessage(line)

    def address(self, text):
        frame = self._exe_ctx.GetFrame()
        value = frame.EvaluateExpression(text) if frame and frame.IsValid() else None
        if value is not None and value.IsValid() and value.GetError().Success():
            return value.GetValueAsUnsigned()
        try:
            return int(text, 0)
        except ValueError:
            raise ValueError("not an address or an expression LLDB can evaluate: %r"
                             % text) from None

    def selected_pc(self):
        frame = self._exe_ctx.GetFrame()
        if not frame or not frame.IsValid():
            raise NoTarget("no frame selected")
        return frame.GetPC(), frame.GetFrameID() == 0, self.state().arch

    def disassemble(self, start, end):
        import lldb
        target = self._exe_ctx.GetTarget()
        error = lldb.SBError()
        code = self._process.ReadMemory(start, end - start, error)
        if not error.Success():
            raise RuntimeError("cannot read the code at %#x: %s" % (start, error.GetCString()))
        out = []
        for insn in target.GetInstructions(lldb.SBAddress(start, target), code):
            address = insn.GetAddress().GetLoadAddress(target)
            if address == lldb.LLDB_INVALID_ADDRESS:
                address = start + insn.GetAddress().GetOffset()
            out.append((address, "%s %s" % (insn.GetMnemonic(target), insn.GetOperands(target))))
        return out


def command_class(spec, run, session_class=LldbSession, invoke=shared_invoke):
    """A command class for `spec`, running `run` through `invoke` against a
    `session_class` (jitunwind_lldb.values passes its own)."""
    name = spec.lldb_name

    def __init__(self, debugger, internal_dict):
        pass

    def __call__(self, debugger, command, exe_ctx, result):
        invoke(spec, run, session_class(exe_ctx, result), command)

    return type("Command_" + spec.name.replace("-", "_"), (), {
        "NAME": name, "__init__": __init__, "__call__": __call__,
        "get_short_help": lambda self: spec.summary,
        "get_long_help": lambda self: spec.help(name)})


CLASSES = [command_class(spec, run) for spec, run in shared.COMMANDS]
globals().update((cls.__name__, cls) for cls in CLASSES)

RECOGNIZER = "recognizer.EvalFrameRecognizer"


def register(debugger, package):
    for cls in CLASSES:
        debugger.HandleCommand("command script add -o -c %s.commands.%s %s"
                               % (package, cls.__name__, cls.NAME))
    # Importing the plugin twice must not add the recognizer twice.
    listing = run_command(debugger, "frame recognizer list")
    if "%s.%s" % (package, RECOGNIZER) in listing:
        return
    # -x: the function and module names are regular expressions (any CPython
    # executable or libpython). The eval loop's parts a compiler split off
    # (`.cold`, `.part.N`) match too; the recognizer's frames are those the
    # library placed Python frames under, so a lookalike name shows none.
    debugger.HandleCommand(
        "frame recognizer add -x -f false -l %s.%s "
        "-n '^_PyEval_EvalFrameDefault(\\..+)?$' -s '^(lib)?python3'" % (package, RECOGNIZER))


def run_command(debugger, command):
    """What LLDB printed for `command` (its output, then its errors)."""
    import lldb
    result = lldb.SBCommandReturnObject()
    debugger.GetCommandInterpreter().HandleCommand(command, result)
    return (result.GetOutput() or "") + (result.GetError() or "")
