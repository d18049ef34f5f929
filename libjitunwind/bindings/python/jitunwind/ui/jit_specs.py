"""The CPython JIT developer commands as the user sees them: one Spec each,
shared by gdb and lldb (help text, usage line, argument checking). What
they print is jitunwind.jitview's; the plugins only supply the debugger's
expression evaluator and disassembler."""

from .spec import Positional, Spec

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
