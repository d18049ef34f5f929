"""The JIT developer commands (jitunwind.ui.jit_specs: info jit-executors,
info jit-executor, jit-disas, jit-pc) as gdb commands, run against
GdbSession like every shared command."""

from jitunwind.ui import jit_specs

from .commands import command_class


def register(plugin):
    for spec, run in jit_specs.COMMANDS:
        command_class(spec, run)(plugin)
