"""The CPython JIT developer commands, written once for gdb and lldb: one
Spec each (help text, usage line, argument checking) and its run function,
registered in `COMMANDS` and run through commands.invoke like the others.
What they print is jitunwind.jitview's; the plugins only supply, through
their Session, the debugger's expression evaluator (`address`), the
selected frame (`selected_pc`) and disassembler (`disassemble`)."""

from .. import jitview
from .spec import Positional, Spec
from .stack import lookup_pc

_TARGET = ("ADDR|N", "an executor's address (or any address in its code; one word: quote "
           "an expression with spaces), or its number in `info jit-executors`")

JIT_EXECUTORS = Spec(
    "info jit-executors",
    "List the CPython JIT's executors (3.13, 3.14; 3.15 with its DWARF).",
    "One line each: number, executor address, uops in its trace, bytes of\n"
    "machine code and their range, state (valid / invalidated / cold exit), the\n"
    "ENTER_EXECUTOR instruction's index, exits linked/total, and the code object\n"
    "(qualname file:line; side-exit traces are named after their parent).",
    category="status")

JIT_EXECUTOR = Spec(
    "info jit-executor",
    "Show one CPython JIT executor: its trace and exits.",
    "Prints vm_data, then a line per uop: index, name, oparg, bytecode target\n"
    "-> line, its stencil's offset and size; then each exit's target and the\n"
    "executor it is linked to. Without an argument: the executor holding the\n"
    "selected frame's PC.",
    positional=Positional("target", *_TARGET, word=True), category="status")

JIT_DISAS = Spec(
    "jit-disas",
    "Disassemble a CPython JIT executor with a header at each uop.",
    "Without an argument: the executor holding the selected frame's PC. Uses\n"
    "the debugger's disassembler; a header line precedes the shim, each uop's\n"
    "first instruction and _FATAL_ERROR.",
    positional=Positional("target", *_TARGET, word=True), category="data")

JIT_PC = Spec(
    "jit-pc",
    "Which CPython JIT executor, uop, bytecode instruction and line hold an address.",
    "Without an argument: the selected frame's PC (a caller frame's PC is a\n"
    "return address: it is looked up inside its call instruction).",
    positional=Positional("address", "ADDR", "an address or an expression without spaces",
                          word=True),
    category="data")

JIT_SPECS = [JIT_EXECUTORS, JIT_EXECUTOR, JIT_DISAS, JIT_PC]


def _executor(session, reader, word):
    """The executor a command names: a listing number, an address or
    expression, or the selected frame's PC."""
    if word is None:
        word = str(session.selected_pc()[0])
    elif not word.isdigit():
        word = str(session.address(word))
    return jitview.resolve_executor(reader, word)


def run_jit_executors(session, args):
    rows, notes = jitview.listing(session.state().pyreader())
    for line in jitview.format_listing(rows) if rows else ["No JIT executors."]:
        session.write(line)
    for note in notes:
        session.write("note: %s" % note)


def run_jit_executor(session, args):
    reader = session.state().pyreader()
    for line in jitview.format_executor(reader, _executor(session, reader, args.target)):
        session.write(line)


def run_jit_disas(session, args):
    reader = session.state().pyreader()
    d, heads = jitview.disas_headers(reader, _executor(session, reader, args.target))
    if not d.jit_code:
        session.write("Executor %#x has no machine code." % d.address)
        return
    session.write("Executor %#x: %s" % (d.address, d.qualname or "<no code object>"))
    if d.missing:
        session.write("missing: %s" % d.missing)
    end = d.jit_code + (d.fatal_offset + d.fatal_size if d.fatal_offset >= 0 else d.jit_size)
    for address, text in session.disassemble(d.jit_code, end):
        for head in heads.get(address, ()):
            session.write("-- %s" % head)
        session.write("   %#x <+%d>:\t%s" % (address, address - d.jit_code, text))


def run_jit_pc(session, args):
    if args.address is not None:
        pc = session.address(args.address)
    else:
        pc, innermost, arch = session.selected_pc()
        pc = lookup_pc(pc, innermost, arch)
    for line in jitview.format_jit_pc(jitview.jit_pc(session.state().pyreader(), pc)):
        session.write(line)


COMMANDS = [(JIT_EXECUTORS, run_jit_executors), (JIT_EXECUTOR, run_jit_executor),
            (JIT_DISAS, run_jit_disas), (JIT_PC, run_jit_pc)]
