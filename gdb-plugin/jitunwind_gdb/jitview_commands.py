"""JIT developer commands for GDB: info jit-executors, info jit-executor,
jit-disas and jit-pc. They print what the shared binding (jitunwind.jitview)
formats; each prints one clear line instead of raising."""

import gdb

from jitunwind import jitview
from jitunwind.ui.stack import lookup_pc

from .state import arch_of


class _JitCommand(gdb.Command):
    def __init__(self, plugin, name, klass):
        super().__init__(name, klass)
        self._plugin = plugin

    def invoke(self, arg, from_tty):
        try:
            self.run(arg)
        except Exception as exc:  # never raise into gdb
            print("jitunwind: %s: %s" % (self.NAME, exc))

    def reader(self):
        state = self._plugin.state_for_command()
        if state is None:
            raise RuntimeError("no process")
        return state.pyreader()


def _address(arg):
    return int(gdb.parse_and_eval(arg)) if arg.strip() else None


class InfoJitExecutors(_JitCommand):
    """List the CPython JIT's executors (3.13, 3.14).

Usage: info jit-executors

One line each: number, executor address, uops in its trace, bytes of
machine code and their range, state (valid / invalidated / cold exit), the
ENTER_EXECUTOR instruction's index, exits linked/total, and the code object
(qualname file:line; side-exit traces are named after their parent)."""
    NAME = "info jit-executors"

    def __init__(self, plugin):
        super().__init__(plugin, self.NAME, gdb.COMMAND_STATUS)

    def run(self, arg):
        rows, notes = jitview.listing(self.reader())
        if not rows:
            print("No JIT executors.")
        else:
            for line in jitview.format_listing(rows):
                print(line)
        for note in notes:
            print("note: %s" % note)


class InfoJitExecutor(_JitCommand):
    """Show one CPython JIT executor: its trace and exits.

Usage: info jit-executor ADDR|N

ADDR is an executor's address (or any address in its code), N its number
in `info jit-executors`. Prints vm_data, then a line per uop: index, name,
oparg, bytecode target -> line, its stencil's offset and size; then each
exit's target and the executor it is linked to."""
    NAME = "info jit-executor"

    def __init__(self, plugin):
        super().__init__(plugin, self.NAME, gdb.COMMAND_STATUS)

    def run(self, arg):
        reader = self.reader()
        text = arg.strip()
        if text and not text.isdigit():
            text = str(_address(text))
        for line in jitview.format_executor(reader, jitview.resolve_executor(reader, text)):
            print(line)


class JitDisas(_JitCommand):
    """Disassemble a CPython JIT executor with a header at each uop.

Usage: jit-disas [ADDR|N]

Without an argument: the executor holding the selected frame's PC. Uses
gdb's disassembler; a header line precedes the shim, each uop's first
instruction and _FATAL_ERROR."""
    NAME = "jit-disas"

    def __init__(self, plugin):
        super().__init__(plugin, self.NAME, gdb.COMMAND_DATA)

    def run(self, arg):
        reader = self.reader()
        text = arg.strip()
        if not text:
            text = str(gdb.selected_frame().pc())
        elif not text.isdigit():
            text = str(_address(text))
        d, heads = jitview.disas_headers(reader, jitview.resolve_executor(reader, text))
        if not d.jit_code:
            print("Executor %#x has no machine code." % d.address)
            return
        print("Executor %#x: %s" % (d.address, d.qualname or "<no code object>"))
        if d.missing:
            print("missing: %s" % d.missing)
        arch = gdb.selected_inferior().architecture()
        end = d.jit_code + d.jit_size
        if d.fatal_offset >= 0:
            end = d.jit_code + d.fatal_offset + d.fatal_size
        for insn in arch.disassemble(d.jit_code, end - 1):
            for head in heads.get(insn["addr"], ()):
                print("-- %s" % head)
            print("   %#x <+%d>:\t%s" % (insn["addr"], insn["addr"] - d.jit_code, insn["asm"]))


class JitPc(_JitCommand):
    """Which CPython JIT executor, uop, bytecode instruction and line hold an address.

Usage: jit-pc [ADDR]

Without an argument: the selected frame's PC (a caller frame's PC is a
return address: it is looked up inside its call instruction)."""
    NAME = "jit-pc"

    def __init__(self, plugin):
        super().__init__(plugin, self.NAME, gdb.COMMAND_DATA)

    def run(self, arg):
        if arg.strip():
            pc = _address(arg)
        else:
            frame = gdb.selected_frame()
            pc = lookup_pc(frame.pc(), frame.level() == 0, arch_of(frame))
        for line in jitview.format_jit_pc(jitview.jit_pc(self.reader(), pc)):
            print(line)


def register(plugin):
    for command in (InfoJitExecutors, InfoJitExecutor, JitDisas, JitPc):
        command(plugin)
