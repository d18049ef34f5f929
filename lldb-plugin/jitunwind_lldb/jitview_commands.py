"""JIT developer commands for LLDB: `info jit-executors`, `info
jit-executor`, `jit-disas` and `jit-pc` (LLDB command names cannot hold a
space: `info` is a command that takes the subcommand). They print what the
shared binding (jitunwind.jitview) formats; one clear line instead of
raising."""

import lldb

from jitunwind import jitview
from jitunwind.ui import jit_specs
from jitunwind.ui.spec import UsageError, parse
from jitunwind.ui.stack import lookup_pc

from . import target as tgt


def _value(exe_ctx, text):
    """An address from an expression (`$pc`, `0x7f...`, a symbol)."""
    frame = exe_ctx.GetFrame()
    value = frame.EvaluateExpression(text) if frame and frame.IsValid() else None
    if value is not None and value.IsValid() and value.GetError().Success():
        return value.GetValueAsUnsigned()
    try:
        return int(text, 0)
    except ValueError:
        raise ValueError("not an address or an expression LLDB can evaluate: %r" % text) from None


class _JitCommand:
    SPEC = None

    def __init__(self, debugger, internal_dict):
        pass

    def get_short_help(self):
        return self.SPEC.summary

    def get_long_help(self):
        return self.SPEC.help(self.SPEC.lldb_name)

    def __call__(self, debugger, command, exe_ctx, result):
        name = self.SPEC.lldb_name
        try:
            spec, text = self.spec_for(command)
            name = spec.lldb_name
            args = parse(spec, text, name)
            process = exe_ctx.GetProcess()
            if not process or not process.IsValid():
                result.AppendMessage("jitunwind: %s: no process" % name)
                return
            state = tgt.state_for(process)
            for line in self.run(spec, state, exe_ctx, args):
                result.AppendMessage(line)
        except UsageError as exc:
            for line in str(exc).splitlines():
                result.AppendMessage(line)
        except Exception as exc:  # never raise into lldb
            text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            result.AppendMessage("jitunwind: %s: %s" % (name, text))

    def spec_for(self, command):
        """(the spec, the text of its arguments)."""
        return self.SPEC, command


def _executor(state, exe_ctx, word):
    """The executor a command names: a listing number, an address or
    expression, or the selected frame's PC."""
    reader = state.pyreader()
    if word is None:
        word = str(exe_ctx.GetFrame().GetPC())
    elif not word.isdigit():
        word = str(_value(exe_ctx, word))
    return reader, jitview.resolve_executor(reader, word)


class Info(_JitCommand):
    """`info jit-executors` and `info jit-executor` (one LLDB command)."""
    NAME = "info"
    SPEC = jit_specs.JIT_EXECUTORS
    SUBCOMMANDS = {"jit-executors": jit_specs.JIT_EXECUTORS,
                   "jit-executor": jit_specs.JIT_EXECUTOR}

    def get_short_help(self):
        return "CPython JIT executors: `info jit-executors`, `info jit-executor ADDR|N`."

    def get_long_help(self):
        return "\n\n".join(s.help(s.lldb_name) for s in self.SUBCOMMANDS.values())

    def spec_for(self, command):
        word, _, rest = (command or "").strip().partition(" ")
        spec = self.SUBCOMMANDS.get(word)
        if spec is None:
            raise UsageError("info: unknown subcommand %r\nusage: %s | %s" % (
                word, jit_specs.JIT_EXECUTORS.usage(), jit_specs.JIT_EXECUTOR.usage()))
        return spec, rest

    def run(self, spec, state, exe_ctx, args):
        if spec is jit_specs.JIT_EXECUTORS:
            rows, notes = jitview.listing(state.pyreader())
            lines = jitview.format_listing(rows) if rows else ["No JIT executors."]
            return lines + ["note: %s" % n for n in notes]
        reader, executor = _executor(state, exe_ctx, args.target)
        return jitview.format_executor(reader, executor)


class JitDisas(_JitCommand):
    NAME = "jit-disas"
    SPEC = jit_specs.JIT_DISAS

    def run(self, spec, state, exe_ctx, args):
        reader, executor = _executor(state, exe_ctx, args.target)
        d, heads = jitview.disas_headers(reader, executor)
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
    SPEC = jit_specs.JIT_PC

    def run(self, spec, state, exe_ctx, args):
        if args.address is not None:
            pc = _value(exe_ctx, args.address)
        else:
            frame = exe_ctx.GetFrame()
            pc = lookup_pc(frame.GetPC(), frame.GetFrameID() == 0, state.arch)
        return jitview.format_jit_pc(jitview.jit_pc(state.pyreader(), pc))


def register(debugger, package):
    for cls in (Info, JitDisas, JitPc):
        debugger.HandleCommand("command script add -o -c %s.jitview_commands.%s %s"
                               % (package, cls.__name__, cls.NAME))
