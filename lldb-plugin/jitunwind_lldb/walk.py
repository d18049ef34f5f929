"""A thread's native stack, walked by the library from LLDB's registers
(range rules, CFI, frame pointers; each frame says which found it), then
interleaved with Python frames by the shared code (jitunwind.ui.stack)."""

import jitunwind as ju
from jitunwind.ui.commands import NativeView
from jitunwind.ui.stack import lookup_pc, mixed_stack

DEFAULT_LIMIT = 1024


def _registers(state, frame):
    pc, sp, fp = frame.GetPC(), frame.GetSP(), frame.GetFP()
    lr = None
    if state.arch == ju.ARCH_AARCH64:
        reg = frame.FindRegister("lr") or frame.FindRegister("x30")
        if reg and reg.IsValid():
            lr = reg.GetValueAsUnsigned()
    return pc, sp, fp, lr


def _describe(state, pc, innermost):
    """(symbol or None, " at file:line" / " from library" / "")."""
    addr = state.target.ResolveLoadAddress(lookup_pc(pc, innermost, state.arch))
    sym = addr.GetSymbol()
    name = sym.GetName() if sym and sym.IsValid() else None
    entry = addr.GetLineEntry()
    if entry and entry.IsValid() and entry.GetFileSpec().IsValid():
        return name, " at %s:%d" % (entry.GetFileSpec().fullpath, entry.GetLine())
    module = addr.GetModule()
    if module and module.IsValid() and module != state.target.GetModuleAtIndex(0):
        return name, " from %s" % module.GetFileSpec().fullpath
    return name, ""


def native_frames(state, thread, limit=DEFAULT_LIMIT):
    """(NativeViews, notes) of `thread`, innermost first."""
    frame0 = thread.GetFrameAtIndex(0)
    if not frame0.IsValid() or state.arch is None:
        return [], ["no registers for thread %d" % thread.GetThreadID()]
    pc, sp, fp, lr = _registers(state, frame0)
    native, stop = ju.unwind(state.arch, state.registry, state.modules, state.memory,
                             pc, sp, fp, lr, limit)
    views = []
    for i, f in enumerate(native):
        symbol, where = _describe(state, f.pc, i == 0)
        views.append(NativeView(f.pc, f.sp, symbol, where if f.range is None else "", f.source))
    return views, ["native walk: %d frames, stopped: %s" % (len(native), stop)]


def walk_thread(state, thread, limit=DEFAULT_LIMIT):
    """(entries, mixer): the mixed stack of `thread` (jitunwind.ui.stack)."""
    views, _ = native_frames(state, thread, limit)
    return mixed_stack(state, views, lambda: state.python_frames(thread.GetThreadID()))
