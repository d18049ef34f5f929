"""LLDB command `break-entry [-i COUNT] NAME`, for the lldb tests: a
breakpoint where calls of the C function NAME enter it, ignored COUNT times
and named NAME.

GCC splits a function into a hot part (ELF symbol NAME, or NAME.lto_priv.N
after LTO) and a cold part (NAME....cold, in .text.unlikely), and its debug
information gives the function both ranges. LLDB 19 takes the lowest
address of those ranges as the function's entry, so `breakpoint set -n NAME`
lands in the cold part, which a call never runs (Debian's python3.11
builtin_id, Debian's 3.15.2 gc_collect_main and wrapper_call); LLDB 22+
uses the entry. Its other locations are no better: LLDB 19 skips a
"prologue" measured from that wrong start, and may place a location in the
middle of one of the hot part's instructions (Debian 3.11's _testcapi
meth_fastcall_keywords at +1 of a 2-byte push), which crashes the target
once hit and stepped over; and LLDB adds locations inside the function
(inlined blocks of its own), so one call stops twice. So a by-name
breakpoint is replaced by one at the start of the hot part's symbol, the
entry itself, where a call stops once. A pending breakpoint (its module not
loaded yet) stays as LLDB places it: set it once the module is loaded."""

import lldb

COLD = ".cold"


def _hot_symbol(location):
    """The name of the ELF symbol of the hot part of the function holding
    `location`, or None."""
    symbol = location.GetAddress().GetSymbol()
    name = symbol.GetName() if symbol and symbol.IsValid() else None
    return name[:-len(COLD)] if name and name.endswith(COLD) else name


def place(target, name):
    """The breakpoint for `name` (see the module's comment) and how it was placed."""
    breakpoint = target.BreakpointCreateByName(name)
    hot = [_hot_symbol(breakpoint.GetLocationAtIndex(i))
           for i in range(breakpoint.GetNumLocations())]
    for ctx in target.FindSymbols(hot[0]) if hot and hot[0] else []:
        if ctx.GetSymbol().IsValid():
            target.BreakpointDelete(breakpoint.GetID())
            return (target.BreakpointCreateBySBAddress(ctx.GetSymbol().GetStartAddress()),
                    "at the entry of %s" % hot[0])
    return breakpoint, "by name"


def break_entry(debugger, command, exe_ctx, result, internal_dict):
    words = command.split()
    ignore = 0
    if len(words) == 3 and words[0] == "-i":
        ignore, words = int(words[1]), words[2:]
    if len(words) != 1:
        result.AppendMessage("usage: break-entry [-i COUNT] NAME")
        return
    breakpoint, how = place(debugger.GetSelectedTarget(), words[0])
    breakpoint.SetIgnoreCount(ignore)
    breakpoint.AddName(words[0])  # `breakpoint delete NAME` deletes it
    result.AppendMessage("Breakpoint %d: %s, %s" % (breakpoint.GetID(), words[0], how))


def __lldb_init_module(debugger, internal_dict):
    debugger.HandleCommand("command script add -o -f %s.break_entry break-entry" % __name__)
