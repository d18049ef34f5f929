"""JIT developer commands for LLDB: `info jit-executors`, `info
jit-executor`, `jit-disas` and `jit-pc` (LLDB command names cannot hold a
space: `info` is a command that takes the subcommand). They print what the
shared binding (jitunwind.jitview) formats; one clear line instead of
raising."""

import shlex

import lldb

from jitunwind import jitview
from jitunwind.ui.stack import lookup_pc

from . import target as tgt


def _value(exe_ctx, text):
    """An address from an expression (`$pc`, `0x7f...`, a symbol)."""
    frame = exe_ctx.GetFrame()
    value = frame.EvaluateExpression(text) if frame and frame.IsValid() else None
    if value is not None and value.IsValid() and value.GetError().Success():
        return value.GetValueAsUnsigned()
    return int(text, 0)


class _JitCommand:
    NAME = ""
    HELP = ""

    def __init__(self, debugger, internal_dict):
        pass

    def get_short_help(self):
        return self.HELP.splitlines()[0]

    def get_long_help(self):
        return self.HELP

    def __call__(self, debugger, command, exe_ctx, result):
        try:
            process = exe_ctx.GetProcess()
            if not process or not process.IsValid():
                result.AppendMessage("jitunwind: %s: no process" % self.NAME)
                return
            state = tgt.state_for(process)
            for line in self.run(state, exe_ctx, shlex.split(command)):
                result.AppendMessage(line)
        except Exception as exc:  # never raise into lldb
            result.AppendMessage("jitunwind: %s: %s" % (self.NAME, exc))


def _executor_arg(state, exe_ctx, args):
    if not args:
        frame = exe_ctx.GetFrame()
        return str(frame.GetPC())
    return args[0] if args[0].isdigit() else str(_value(exe_ctx, args[0]))


class Info(_JitCommand):
    NAME = "info"
    HELP = """CPython JIT executors: `info jit-executors`, `info jit-executor ADDR|N`.

info jit-executors: one line per executor: number, address, uops, bytes of
  code and their range, valid / invalidated / cold exit, the ENTER_EXECUTOR
  index, exits linked/total, the code object (side exits: their parent's).
info jit-executor ADDR|N: vm_data, then a line per uop (index, name, oparg,
  bytecode target -> line, stencil offset and size), then each exit and the
  executor it links to. N is a number from `info jit-executors`."""

    def run(self, state, exe_ctx, args):
        if args[:1] == ["jit-executors"]:
            rows, notes = jitview.listing(state.pyreader())
            lines = jitview.format_listing(rows) if rows else ["No JIT executors."]
            return lines + ["note: %s" % n for n in notes]
        if args[:1] == ["jit-executor"]:
            reader = state.pyreader()
            arg = _executor_arg(state, exe_ctx, args[1:2]) if len(args) > 1 else ""
            return jitview.format_executor(reader, jitview.resolve_executor(reader, arg))
        return ["usage: info jit-executors | info jit-executor ADDR|N"]


class JitDisas(_JitCommand):
    NAME = "jit-disas"
    HELP = """Disassemble a CPython JIT executor with a header at each uop.

Usage: jit-disas [ADDR|N]. Without an argument: the executor holding the
selected frame's PC. Uses LLDB's disassembler; headers precede the shim,
each uop's first instruction and _FATAL_ERROR."""

    def run(self, state, exe_ctx, args):
        reader = state.pyreader()
        d, heads = jitview.disas_headers(
            reader, jitview.resolve_executor(reader, _executor_arg(state, exe_ctx, args)))
        if not d.jit_code:
            return ["Executor %#x has no machine code." % d.address]
        target = exe_ctx.GetTarget()
        end = d.jit_code + (d.fatal_offset + d.fatal_size if d.fatal_offset >= 0 else d.jit_size)
        error = lldb.SBError()
        code = exe_ctx.GetProcess().ReadMemory(d.jit_code, end - d.jit_code, error)
        if not error.Success():
            return ["cannot read the executor's code: %s" % error.GetCString()]
        out = ["Executor %#x: %s" % (d.address, d.qualname or "<no code object>")]
        if d.missing:
            out.append("missing: %s" % d.missing)
        for insn in target.GetInstructions(lldb.SBAddress(d.jit_code, target), code):
            addr = insn.GetAddress().GetLoadAddress(target)
            if addr == lldb.LLDB_INVALID_ADDRESS:
                addr = d.jit_code + insn.GetAddress().GetOffset()
            for head in heads.get(addr, ()):
                out.append("-- %s" % head)
            out.append("   %#x <+%d>:\t%s %s" % (addr, addr - d.jit_code, insn.GetMnemonic(target),
                                                  insn.GetOperands(target)))
        return out


class JitPc(_JitCommand):
    NAME = "jit-pc"
    HELP = """Which CPython JIT executor, uop, bytecode instruction and line hold an address.

Usage: jit-pc [ADDR]. Without an argument: the selected frame's PC (a
caller frame's PC is a return address: it is looked up inside its call)."""

    def run(self, state, exe_ctx, args):
        if args:
            pc = _value(exe_ctx, args[0])
        else:
            frame = exe_ctx.GetFrame()
            pc = lookup_pc(frame.GetPC(), frame.GetFrameID() == 0, state.arch)
        return jitview.format_jit_pc(jitview.jit_pc(state.pyreader(), pc))


def register(debugger, package):
    for cls in (Info, JitDisas, JitPc):
        debugger.HandleCommand("command script add -o -c %s.jitview_commands.%s %s"
                               % (package, cls.__name__, cls.NAME))
