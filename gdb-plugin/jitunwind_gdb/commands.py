"""The shared commands (jitunwind.ui.commands) as gdb commands: each Spec
becomes a gdb.Command whose docstring is the spec's help, so `help py-bt`
and `apropos python` find it; the commands run against `GdbSession`.
takeover.py registers them (with the value commands)."""

import gdb

from jitunwind.ui.session import NativeView, NoTarget, Session, invoke as shared_invoke

from .state import arch_of

CATEGORIES = {"stack": gdb.COMMAND_STACK, "status": gdb.COMMAND_STATUS, "data": gdb.COMMAND_DATA}


class _Thread:
    def __init__(self, thread):
        self.thread = thread
        self.number = thread.num
        self.tid = thread.ptid[1]
        self.name = thread.name


def _where(frame):
    """" at file:line" for frames with line information, " from library" for
    frames in a shared library without it (as stock gdb prints them)."""
    sal = frame.find_sal()
    if sal.symtab is not None:
        return " at %s:%d" % (sal.symtab.filename, sal.line)
    try:
        lib = gdb.solib_name(frame.pc())
    except gdb.error:
        lib = None
    return " from %s" % lib if lib else ""


def walk_frames(limit):
    """NativeViews of the selected thread, from gdb's own unwinding (which
    the plugin's unwinder takes through JIT and trampoline code)."""
    out = []
    frame = gdb.newest_frame()
    while frame is not None and len(out) < limit:
        out.append(NativeView(frame.pc(), None, frame.name(), _where(frame)))
        frame = frame.older()
    return out


class GdbSession(Session):
    debugger = "gdb"

    def __init__(self, plugin):
        self._plugin = plugin

    def state(self):
        state = self._plugin.state_for_command()
        if state is None:
            raise NoTarget("no process")
        return state

    def threads(self, every):
        if every:
            inferior = gdb.selected_inferior()
            return [_Thread(t) for t in sorted(inferior.threads(), key=lambda t: t.num)]
        thread = gdb.selected_thread()
        if thread is None:
            raise NoTarget("no thread selected")
        return [_Thread(thread)]

    def native_frames(self, thread, limit):
        selected = gdb.selected_thread()
        if selected is None or selected.ptid == thread.thread.ptid:
            return walk_frames(limit), []
        thread.thread.switch()
        try:
            return walk_frames(limit), []
        finally:
            selected.switch()

    def native_pointer_argument(self, thread, natives, index, name):
        """The pointer argument `name` of native frame natives[index] of
        `thread` (gdb's frame of that number, if its pc agrees), or None."""
        selected = gdb.selected_thread()
        switched = selected is not None and selected.ptid != thread.thread.ptid
        if switched:
            thread.thread.switch()
        try:
            frame = gdb.newest_frame()
            for _ in range(index):
                frame = frame.older() if frame is not None else None
            if frame is None or frame.pc() != natives[index].pc:
                return None
            return int(frame.read_var(name))
        except (gdb.error, ValueError, RuntimeError):
            return None
        finally:
            if switched:
                selected.switch()

    def function_at(self, address):
        """The name of the function whose code starts at `address` (its
        DWARF, else its ELF symbol), or None."""
        try:
            block, found = gdb.block_for_pc(address), None
            # the outermost function block: an inlined function may start there too
            while block is not None and not block.is_static and not block.is_global:
                if block.function is not None:
                    found = block
                block = block.superblock
            if found is not None:
                return found.function.name if found.start == address else None
            text = gdb.execute("info symbol %#x" % address, to_string=True)
        except (gdb.error, RuntimeError):
            return None
        words = text.split()  # "NAME in section S": "NAME + N in ..." is not its start
        return words[0] if len(words) > 2 and words[1] == "in" else None

    def write(self, line):
        print(line)

    def address(self, text):
        return int(gdb.parse_and_eval(text))

    def selected_pc(self):
        frame = gdb.selected_frame()
        return frame.pc(), frame.level() == 0, arch_of(frame)

    def disassemble(self, start, end):
        arch = gdb.selected_inferior().architecture()
        return [(insn["addr"], insn["asm"]) for insn in arch.disassemble(start, end - 1)]


def command_class(spec, run, session_class=GdbSession, invoke=shared_invoke):
    """A gdb.Command class for `spec`, running `run` through `invoke`
    against a `session_class` (jitunwind_gdb.values passes its own)."""
    name = spec.gdb_name
    run_invoke = invoke

    def __init__(self, plugin):
        gdb.Command.__init__(self, name, CATEGORIES.get(spec.category, gdb.COMMAND_STACK))
        self._plugin = plugin

    def invoke(self, arg, from_tty):
        run_invoke(spec, run, session_class(self._plugin), arg)

    return type("Command_" + spec.name.replace("-", "_"), (gdb.Command,),
                {"__doc__": spec.help(name), "__init__": __init__, "invoke": invoke})

