"""A thread's native stack, walked by the library from LLDB's registers
(range rules, CFI, frame pointers; each frame says which found it), then
interleaved with Python frames by the shared code (jitunwind.ui.stack)."""

import lldb

import jitunwind as ju
from jitunwind.native_variables import dwarf_register_names, frame_variable
from jitunwind.ui.session import NativeView
from jitunwind.ui.labels import NO_NAME
from jitunwind.ui.stack import lookup_pc, mixed_stack

DEFAULT_LIMIT = 1024
MAX_INLINE_DEPTH = 64  # inlined scopes listed at one pc (DWARF from the target's files)


def registers(arch, frame):
    """(pc, sp, fp, lr or None) of an LLDB frame."""
    pc, sp, fp = frame.GetPC(), frame.GetSP(), frame.GetFP()
    lr = None
    if arch == ju.ARCH_AARCH64:
        reg = frame.FindRegister("lr") or frame.FindRegister("x30")
        if reg and reg.IsValid():
            lr = reg.GetValueAsUnsigned()
    return pc, sp, fp, lr


class Level:
    """One function running at a pc: `name` (None: unknown), its source
    `file` (an SBFileSpec, or None) and `line`, its inlined SBBlock (None for
    the concrete function), `library` (the shared object, when no line is
    known) and the address's SBSymbolContext `context`."""
    __slots__ = ("name", "file", "line", "block", "library", "context")

    def __init__(self, name, file, line, block, library, context):
        self.name, self.file, self.line, self.block = name, file, line, block
        self.library, self.context = library, context

    @property
    def where(self):
        """" at file:line", " from library" or ""."""
        if self.file is not None and self.file.IsValid() and self.line > 0:
            return " at %s:%d" % (self.file.fullpath, self.line)
        return " from %s" % self.library if self.library else ""


def code_levels(state, pc, innermost):
    """What runs at `pc`, innermost first, as gdb lists it: each function
    inlined there at its own line, then the concrete function at the call
    site of the outermost inlined one."""
    target = state.target
    addr = target.ResolveLoadAddress(lookup_pc(pc, innermost, state.arch))
    ctx = target.ResolveSymbolContextForAddress(addr, lldb.eSymbolContextEverything)
    # The function's name in the debug information, as LLDB's own frames
    # and gdb show it (cfunction_vectorcall_NOARGS, not its symbol
    # cfunction_vectorcall_NOARGS.lto_priv.0); else the symbol's.
    function, sym = ctx.GetFunction(), ctx.GetSymbol()
    name = function.GetName() if function and function.IsValid() else \
        sym.GetName() if sym and sym.IsValid() else None
    entry = ctx.GetLineEntry()
    file, line = (entry.GetFileSpec(), entry.GetLine()) if entry.IsValid() else (None, 0)
    levels = []
    block = ctx.GetBlock().GetContainingInlinedBlock() if ctx.GetBlock().IsValid() else None
    while block is not None and block.IsValid() and len(levels) < MAX_INLINE_DEPTH:
        levels.append(Level(block.GetInlinedName() or NO_NAME, file, line, block, None, ctx))
        file, line = block.GetInlinedCallSiteFile(), block.GetInlinedCallSiteLine()
        parent = block.GetParent()
        block = parent.GetContainingInlinedBlock() if parent.IsValid() else None
    library = None
    module = addr.GetModule()
    if not levels and module and module.IsValid() and module != target.GetModuleAtIndex(0):
        library = module.GetFileSpec().fullpath
    levels.append(Level(name, file, line, None, library, ctx))
    return levels


def innermost_registers(arch, frame):
    """(pc, sp, fp, lr) of an innermost SBFrame, or None (no frame, or an
    architecture the library does not walk)."""
    if not frame or not frame.IsValid() or arch is None:
        return None
    return registers(arch, frame)


def native_frames(state, thread, limit=DEFAULT_LIMIT, registers=None):
    """(NativeViews, notes) of `thread`, innermost first: each frame of the
    library's walk, preceded by the functions inlined at its pc. The walk
    starts from `registers` ((pc, sp, fp, lr) of the innermost frame) when
    given, else from the thread's frame 0."""
    if registers is None:
        registers = innermost_registers(state.arch, thread.GetFrameAtIndex(0))
    if registers is None:
        return [], ["no registers for thread %d" % thread.GetThreadID()]
    pc, sp, fp, lr = registers
    native, stop = ju.unwind(state.arch, state.registry, state.modules, state.memory,
                             pc, sp, fp, lr, limit)
    views = []
    for i, f in enumerate(native):
        if f.range is not None:  # JIT code: named by its range (jitunwind.ui.stack)
            views.append(NativeView(f.pc, f.sp, None, "", f.source))
            continue
        for level in code_levels(state, f.pc, i == 0):
            inlined = level.block is not None
            views.append(NativeView(f.pc, f.sp, level.name, level.where,
                                    None if inlined else f.source, inlined=inlined))
    return views[:limit], ["native walk: %d frames, stopped: %s" % (len(native), stop)]


def own_frame_variable(state, thread, natives, index, name):
    """The pointer-sized variable `name` of natives[index] read through the
    library's unwinding from the thread's innermost registers
    (jitunwind.native_variables), or None."""
    concrete = [n for n in natives if not n.inlined]
    # an inlined function's view shares the pc and sp of the concrete frame after it
    target = next((k for k, n in enumerate(natives[index:]) if not n.inlined), None)
    frame = thread.GetFrameAtIndex(0)
    if target is None or state.arch is None or not frame or not frame.IsValid() or \
            not concrete or concrete[0].pc != frame.GetPC():  # a walk from other registers
        return None
    target = concrete.index(natives[index + target])
    values = {}
    for number, register in enumerate(dwarf_register_names(state.arch)):
        reg = frame.FindRegister(register)
        if reg and reg.IsValid() and reg.GetError().Success():
            values[number] = reg.GetValueAsUnsigned()
    try:
        return frame_variable(state.arch, state.modules, state.memory, frame.GetPC(), values,
                              [(n.pc, n.sp) for n in concrete], target, name) or None
    except Exception:  # an unreadable variable is no level: the frames still print
        return None


def walk_thread(state, thread, limit=DEFAULT_LIMIT):
    """(entries, mixer): the mixed stack of `thread` (jitunwind.ui.stack)."""
    views, _ = native_frames(state, thread, limit)
    return mixed_stack(state, views, lambda: state.python_frames(thread.GetThreadID()))


def match_frame(thread, natives, index):
    """LLDB's frame index for natives[index], or None. LLDB lists inlined
    calls as frames of their own (so indexes differ, and the concrete
    frame of a call made from inlined code has another pc): match the pc
    and stack pointer, else the stack pointer and function name, else the
    pc and function by their order."""
    want = natives[index]
    frames = [thread.GetFrameAtIndex(i) for i in range(thread.GetNumFrames())]
    for f in frames:
        if f.GetPC() == want.pc and (want.sp is None or f.GetSP() == want.sp):
            return f.GetFrameID()
    for f in frames:
        if want.sp is not None and f.GetSP() == want.sp and want.symbol and \
                f.GetFunctionName() == want.symbol and not f.IsInlined():
            return f.GetFrameID()
    # Else by the pc (and function) alone, the k-th native frame having it
    # being LLDB's k-th: a recursion (a C call calling back into Python)
    # runs the same pc twice, and frames of LLDB's frame provider have no
    # stack pointer.
    def same(pc, name, other):
        return pc == want.pc and (not name or not other or name == other)
    k = sum(1 for n in natives[:index] if same(n.pc, n.symbol, want.symbol))
    found = [f for f in frames if same(f.GetPC(), f.GetFunctionName(), want.symbol)]
    return found[k].GetFrameID() if k < len(found) else None
