"""LLDB command `break-entry [-i COUNT] NAME`, for the lldb tests: a
breakpoint where calls of the C function NAME enter it, ignored COUNT times
and named NAME.

GCC splits a function into a hot part (ELF symbol NAME, or NAME.lto_priv.N
after LTO) and a cold part (NAME....cold, in .text.unlikely), and its debug
information gives the function both ranges. LLDB 19 takes the lowest
address of those ranges as the function's entry, so `breakpoint set -n NAME`
lands in the cold part, which a call never runs (Debian's python3.11
builtin_id, Debian's 3.15.2 gc_collect_main and wrapper_call); LLDB 22+
uses the entry. Its "prologue" skip from that wrong start is no better:
it may land past the cold part, in another function (Debian 3.15.2's
wrapper_call, at optimize_load_fast.isra.0), or in the middle of one of
the hot part's instructions (Debian 3.11's _testcapi meth_fastcall_keywords
at +1 of a 2-byte push), which crashes the target once hit and stepped
over; and LLDB adds locations inside the function (inlined blocks of its
own), so one call stops twice. So the breakpoint is placed at the start of
the hot part's ELF symbol, the entry itself, where a call stops once. A
function of a module not loaded yet gets LLDB's pending by-name breakpoint:
set it once the module is loaded."""


COLD = ".cold"


def _entries(target, name):
    """The start of the ELF symbol of each loaded function `name`'s hot
    part (its entry): the symbol holding LLDB's start of the function, or
    for a `.cold` one the symbol it was split from."""
    entries, seen = [], set()
    for ctx in target.FindFunctions(name):
        function = ctx.GetFunction()
        symbol = function.GetStartAddress().GetSymbol() if function.IsValid() else None
        if not symbol or not symbol.IsValid():
            continue
        if symbol.GetName().endswith(COLD):
            hot = [c.GetSymbol() for c in target.FindSymbols(symbol.GetName()[:-len(COLD)])]
            symbol = next((h for h in hot if h.IsValid()), None)
        if symbol is not None:
            address = symbol.GetStartAddress()
            key = (address.GetModule().GetFileSpec().fullpath, address.GetFileAddress())
            if key not in seen:
                seen.add(key)
                entries.append(address)
    return entries


def place(target, name):
    """The breakpoints for `name` (see the module's comment) and how they were placed."""
    entries = _entries(target, name)
    if not entries:
        return [target.BreakpointCreateByName(name)], "by name"
    return ([target.BreakpointCreateBySBAddress(a) for a in entries],
            "at the entry of its symbol")


def break_entry(debugger, command, exe_ctx, result, internal_dict):
    words = command.split()
    ignore = 0
    if len(words) == 3 and words[0] == "-i":
        ignore, words = int(words[1]), words[2:]
    if len(words) != 1:
        result.AppendMessage("usage: break-entry [-i COUNT] NAME")
        return
    breakpoints, how = place(debugger.GetSelectedTarget(), words[0])
    for breakpoint in breakpoints:
        breakpoint.SetIgnoreCount(ignore)
        breakpoint.AddName(words[0])  # `breakpoint delete NAME` deletes them
    result.AppendMessage("Breakpoint %s: %s, %s" % (
        ", ".join(str(b.GetID()) for b in breakpoints), words[0], how))


def __lldb_init_module(debugger, internal_dict):
    debugger.HandleCommand("command script add -o -f %s.break_entry break-entry" % __name__)
