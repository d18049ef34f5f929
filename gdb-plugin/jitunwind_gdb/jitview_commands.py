"""JIT developer commands for GDB: info jit-executors, info jit-executor,
jit-disas and jit-pc (jitunwind.ui.jit_specs: help, usage, arguments).
They print what the shared binding (jitunwind.jitview) formats; each prints
one clear line instead of raising."""

import gdb

from jitunwind import jitview
from jitunwind.ui import jit_specs
from jitunwind.ui.spec import UsageError, parse
from jitunwind.ui.stack import lookup_pc

from .commands import CATEGORIES
from .state import arch_of


class _JitCommand(gdb.Command):
    SPEC = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.__doc__ = cls.SPEC.help(cls.SPEC.gdb_name)  # what `help` and `apropos` read

    def __init__(self, plugin):
        super().__init__(self.SPEC.gdb_name, CATEGORIES[self.SPEC.category])
        self._plugin = plugin

    def invoke(self, arg, from_tty):
        name = self.SPEC.gdb_name
        try:
            args = parse(self.SPEC, arg, name)
        except UsageError as exc:
            print(str(exc))
            return
        try:
            self.run(args)
        except Exception as exc:  # never raise into gdb
            text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            print("jitunwind: %s: %s" % (name, text))

    def reader(self):
        state = self._plugin.state_for_command()
        if state is None:
            raise RuntimeError("no process")
        return state.pyreader()


def _executor(reader, word):
    """The executor a command names: a listing number, an address or
    expression, or the selected frame's PC."""
    if word is None:
        word = str(gdb.selected_frame().pc())
    elif not word.isdigit():
        word = str(int(gdb.parse_and_eval(word)))
    return jitview.resolve_executor(reader, word)


class InfoJitExecutors(_JitCommand):
    SPEC = jit_specs.JIT_EXECUTORS

    def run(self, args):
        rows, notes = jitview.listing(self.reader())
        if not rows:
            print("No JIT executors.")
        else:
            for line in jitview.format_listing(rows):
                print(line)
        for note in notes:
            print("note: %s" % note)


class InfoJitExecutor(_JitCommand):
    SPEC = jit_specs.JIT_EXECUTOR

    def run(self, args):
        reader = self.reader()
        for line in jitview.format_executor(reader, _executor(reader, args.target)):
            print(line)


class JitDisas(_JitCommand):
    SPEC = jit_specs.JIT_DISAS

    def run(self, args):
        reader = self.reader()
        d, heads = jitview.disas_headers(reader, _executor(reader, args.target))
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
    SPEC = jit_specs.JIT_PC

    def run(self, args):
        if args.address is not None:
            pc = int(gdb.parse_and_eval(args.address))
        else:
            frame = gdb.selected_frame()
            pc = lookup_pc(frame.pc(), frame.level() == 0, arch_of(frame))
        for line in jitview.format_jit_pc(jitview.jit_pc(self.reader(), pc)):
            print(line)


def register(plugin):
    for command in (InfoJitExecutors, InfoJitExecutor, JitDisas, JitPc):
        command(plugin)
