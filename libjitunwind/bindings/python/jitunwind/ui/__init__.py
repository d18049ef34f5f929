"""What the GDB and LLDB plugins share: everything a debugger shows that is
not the debugger's own API.

    spec.py      one description per command (name, usage, flags, help) and
                 the one argument parser both debuggers use
    session.py   the small `Session` interface each plugin adapts and the
                 one `invoke()` that runs a command without ever raising
    commands.py  one implementation per command, written against `Session`
                 (docs/architecture.md, "Adding a debugger command")
    target.py    per-stop state of a target: ranges, notes, the Python reader,
                 the thread -> thread state map, read once per stop
    stack.py     the library's mixer fed as a debugger walks, frames labelled
    labels.py    how frames, ranges and notes are printed
    memory.py    target memory read through a debugger, for the library

The plugins (gdb-plugin/jitunwind_gdb, lldb-plugin/jitunwind_lldb) only adapt
their debugger to these: registers, symbols, frames and output.
"""
