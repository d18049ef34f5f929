"""A thread's mixed stack, walked by the library from LLDB's registers:
native frames (range rules, CFI, frame pointers; each says which found it)
interleaved with the Python frames each eval loop runs."""

import collections


import jitunwind as ju

Line = collections.namedtuple("Line", "kind index pc sp text where source anchor")


def _registers(state, frame):
    pc, sp, fp = frame.GetPC(), frame.GetSP(), frame.GetFP()
    lr = None
    if state.arch == ju.ARCH_AARCH64:
        reg = frame.FindRegister("lr") or frame.FindRegister("x30")
        if reg and reg.IsValid():
            lr = reg.GetValueAsUnsigned()
    return pc, sp, fp, lr


def _native_name(state, pc, innermost):
    addr = state.target.ResolveLoadAddress(pc if innermost else pc - 1)
    sym = addr.GetSymbol()
    name = sym.GetName() if sym and sym.IsValid() else None
    where = ""
    entry = addr.GetLineEntry()
    if entry and entry.IsValid() and entry.GetFileSpec().IsValid():
        where = "%s:%d" % (entry.GetFileSpec().fullpath, entry.GetLine())
    return name, where


def walk_thread(state, thread, limit=1024):
    """(lines, notes): the mixed stack of `thread`, innermost first."""
    notes = []
    frame0 = thread.GetFrameAtIndex(0)
    if not frame0.IsValid() or state.arch is None:
        return [], ["no registers for thread %d" % thread.GetThreadID()]
    pc, sp, fp, lr = _registers(state, frame0)
    native, stop = ju.unwind(state.arch, state.registry, state.modules, state.memory,
                             pc, sp, fp, lr, limit)
    roles, labels = [], []
    for i, f in enumerate(native):
        if f.range is not None:
            roles.append(ju.ROLE_JIT if f.range.kind == ju.KIND_JIT else ju.ROLE_TRAMPOLINE)
            labels.append((ju.range_label(f.range), ""))
        else:
            name, where = _native_name(state, f.pc, i == 0)
            role = ju.native_role(name)
            roles.append(role if role == ju.ROLE_EVAL else ju.ROLE_OTHER)
            labels.append((name or "??", where))
    notes.append("native walk: %d frames, stopped: %s" % (len(native), stop))
    try:
        pyframes, err = state.python_frames(thread.GetThreadID())
        if err is not None:
            notes.append("Python frames cut short: %s" % err)
    except Exception as exc:
        pyframes = []
        notes.append("Python frames unavailable: %s" % exc)
    lines = []
    for kind, index, anchor in ju.mix(roles, pyframes):
        if kind == ju.MIXED_NATIVE:
            f = native[index]
            text, where = labels[index]
            lines.append(Line(kind, index, f.pc, f.sp, text, where, f.source, None))
        else:
            p = pyframes[index]
            where = "%s:%s" % (p.filename, p.line if p.line > 0 else "?")
            lines.append(Line(kind, index, None, None, ju.python_label(p), where, "python", anchor))
    return lines, notes


def format_lines(lines):
    out = []
    for line in lines:
        if line.kind == ju.MIXED_NATIVE:
            at = " at %s" % line.where if line.where else ""
            out.append("#%-3d %#018x in %s%s (%s)" % (line.index, line.pc, line.text, at, line.source))
        else:
            suffix = "" if line.anchor is not None else " (no matching native frame)"
            out.append("      %s at %s%s" % (line.text, line.where, suffix))
    return out
