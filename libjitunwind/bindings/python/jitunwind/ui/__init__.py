"""What the GDB and LLDB plugins share: everything a debugger shows that is
not the debugger's own API.

    spec.py      one description per command (name, usage, flags, help) and
                 the one argument parser both debuggers use
    commands.py  one implementation per command, written against the small
                 `Session` interface each plugin adapts (docs/architecture.md,
                 "Adding a debugger command")
    target.py    per-stop state of a target: ranges, notes, the Python reader,
                 the thread -> thread state map, read once per stop
    stack.py     frame roles and the streaming native/Python interleaving
    labels.py    how frames, ranges and notes are printed
    memory.py    target memory read through a debugger, for the library

The plugins (gdb-plugin/jitunwind_gdb, lldb-plugin/jitunwind_lldb) only adapt
their debugger to these: registers, symbols, frames and output.
"""
