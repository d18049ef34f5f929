"""The levels py-bt, py-bt-full, py-up and py-down walk, as CPython's
libpython.py walks them: every Python frame, and every C function a Python
frame is calling (a builtin, a method-wrapper) as a level of its own just
inside that Python frame.

A call is recognised on the native frames the interleaving already holds:
between the eval loop that runs a Python frame and the next inner one, the
first native frame of a known C-call function (by its symbol) whose
callable argument the debugger can read and renders as a builtin. Without
native arguments (no DWARF for them) there are no call levels, only
Python frames."""

from .. import ROLE_JIT, ROLE_TRAMPOLINE, values
from . import labels
from .stack import mixed_stack

# Native functions and the arguments holding the callable a Python frame is
# calling, tried in turn: the builtin itself in cfunction_*, the wrapper in
# wrapper_call (its `self` cast to `wp` in the body: at the entry an
# optimized build has only `self`), any callable in the generic vectorcall
# (where a release build inlined the cfunction_ call into it).
CALLABLE_ARGUMENTS = (("cfunction_vectorcall_", ("func",)), ("cfunction_call", ("func",)),
                      ("wrapper_call", ("wp", "self")), ("PyObject_Vectorcall", ("callable",)),
                      ("_PyObject_VectorcallTstate", ("callable",)))
# What a call level may render as: libpython shows only these as levels.
CALL_FORMS = ("<built-in ", "<method-wrapper ")
# Native functions that put a thread in a state libpython's py-bt names,
# by symbol (gdb and LLDB list inlined functions as frames too): waiting in
# take_gil for the GIL; inside a collection (collect in 3.11,
# gc_collect_main in 3.12 and 3.13, the three entries of 3.14's
# incremental collector).
STATES = (("Waiting for the GIL", ("take_gil",)),
          ("Garbage-collecting", ("collect", "gc_collect_main", "gc_collect_full",
                                  "gc_collect_young", "gc_collect_increment")))


class Level:
    """One level: a Python frame (`frame`, `python` its index among the
    Python frames) or a C call (`call`, its text; `python` the index of the
    Python frame calling it). `native` is the index of the native frame
    that runs it, or None; `number` the debugger's number for that frame
    (numbered())."""
    __slots__ = ("frame", "call", "python", "native", "number")

    def __init__(self, python, native, frame=None, call=None):
        self.python, self.native, self.frame, self.call = python, native, frame, call
        self.number = native


def numbered(session, thread, natives, levels):
    """`levels` with each `number` the debugger's own frame number where it
    numbers frames otherwise: a Python frame's own where the debugger lists
    Python frames (LLDB 22+'s frame provider:
    Session.python_frame_numbers), a native frame's where it lists inlined
    calls apart (LLDB: Session.frame_number); else the native frame's
    index."""
    listed = getattr(session, "python_frame_numbers", lambda _thread: [])(thread)
    number_of = getattr(session, "frame_number", None)
    found = {}
    for level in levels:
        if level.frame is not None and level.python < len(listed):
            level.number = listed[level.python]
        elif level.native is not None and number_of is not None:
            if level.native not in found:
                found[level.native] = number_of(thread, natives, level.native)
            if found[level.native] is not None:
                level.number = found[level.native]
    return levels


def _callable_arguments(symbol):
    for prefix, names in CALLABLE_ARGUMENTS:
        if symbol.startswith(prefix):
            return names
    return ()


def call_text(session, thread, reader, natives, index):
    """The libpython text of the C call natives[index] makes, or None when
    it is not a known C-call frame or its callable cannot be read."""
    read_arg = getattr(session, "native_pointer_argument", None)
    names = _callable_arguments(natives[index].symbol or "")
    if read_arg is None or not names:
        return None
    try:
        address = next(filter(None, (read_arg(thread, natives, index, n) for n in names)), None)
        if not address:
            return None
        text = values.repr_object(reader, address, style=values.STYLE_LIBPYTHON)[0]
    except Exception:  # an unreadable callable is no level: the frames still print
        return None
    return labels.escaped(text) if text.startswith(CALL_FORMS) else None


def plain(frames):
    """Levels of Python frames alone, numbered by their index."""
    return [Level(i, None, frame=f) for i, f in enumerate(frames)]


def state_text(symbol):
    """"Waiting for the GIL", "Garbage-collecting" or None for a native
    frame's function."""
    for text, names in STATES:
        if symbol in names:
            return text
    return None


def direct_call(session, reader, natives, start, end, frame, jit):
    """(index, text) of the builtin `frame` is calling, found by its C
    function: the outermost native frame of natives[start:end] (not JIT
    code) that runs the C function of a builtin on the frame's value stack.
    So a specialized CALL (3.14+'s eval loop, JIT code), which calls it with
    no cfunction_* frame between, and a generic call whose callable argument
    the debugger cannot read are named too. None when no frame does."""
    function_at = getattr(session, "function_at", None)
    if function_at is None:
        return None
    try:
        names = {}
        for obj, function in values.frame_cfunctions(reader, frame):
            names.setdefault(function_at(function), obj)
        names.pop(None, None)
        for k in range(end - 1, start - 1, -1):
            if k not in jit and natives[k].symbol in names:
                text = values.repr_object(reader, names[natives[k].symbol],
                                          style=values.STYLE_LIBPYTHON)[0]
                return (k, labels.escaped(text)) if text.startswith(CALL_FORMS) else None
    except Exception:  # an unreadable stack is no level: the frames still print
        pass
    return None


def _listed(session, thread, natives, index):
    """Whether the debugger lists natives[index] as a frame of its own (one
    it can select); True where it numbers frames by the walk's index."""
    number_of = getattr(session, "frame_number", None)
    return number_of is None or number_of(thread, natives, index) is not None


def _between(session, thread, reader, natives, start, end, frame, python, jit):
    """The levels natives[start:end] (innermost first) add inside Python
    frame `python`: each state (one of each), then at most one C call (the
    innermost frame naming it; the generic vectorcall frames outside it
    name the same call again), else the builtin it calls directly. The
    direct call's frame also stands for the same call found in a frame the
    debugger does not list (LLDB 19's unwinding loses frames), so that the
    level can be selected."""
    out, said = [], set()
    call = None
    for index in range(start, end):
        state = state_text(natives[index].symbol or "")
        if state is not None and state not in said:
            said.add(state)
            out.append(Level(python, index, call=state))
        elif state is None and call is None:
            text = call_text(session, thread, reader, natives, index)
            if text is not None:
                call = (index, text)
    if call is None or not _listed(session, thread, natives, call[0]):
        direct = direct_call(session, reader, natives, start, end, frame, jit)
        if direct is not None and (call is None or direct[1] == call[1]):
            call = direct
    if call is not None:
        out.append(Level(python, call[0], call=call[1]))
    return sorted(out, key=lambda level: level.native)


def jit_frames(entries):
    """The indexes of the JIT and trampoline frames among mixed_stack's
    entries (a builtin called from JIT code is called from them)."""
    return {e.index for e in entries
            if e.pyframe is None and e.role in (ROLE_JIT, ROLE_TRAMPOLINE)}


def build(session, thread, reader, natives, frames, anchors, jit=frozenset()):
    """The levels, innermost first, of Python `frames` run by the native
    frames `anchors` (None: not placed) of `natives`; `jit`: jit_frames()."""
    out, inner = [], -1
    for i, (frame, anchor) in enumerate(zip(frames, anchors)):
        if anchor is not None and anchor != inner:
            out.extend(_between(session, thread, reader, natives, inner + 1, anchor, frame, i,
                                jit))
            inner = anchor
        out.append(Level(i, anchor, frame=frame))
    return numbered(session, thread, natives, out)


NATIVE_LIMIT = 4096


def anchored(session, state, thread):
    """(natives, placed, jit): the thread's native frames; for each Python
    frame the interleaving placed, {frame address: (frame as the
    interleaving leaves it, index of the native frame running it)} (the
    interleaved frame carries the exact line of one running JIT code); and
    jit_frames()."""
    natives, _notes = session.native_frames(thread, NATIVE_LIMIT)
    entries, _mixer = mixed_stack(state, natives, lambda: state.python_frames(thread.tid))
    return natives, {e.pyframe.address: (e.pyframe, e.anchor) for e in entries
                     if e.pyframe is not None}, jit_frames(entries)


def for_frames(session, state, thread, reader, frames):
    """The levels of `frames` (Python frames as read, innermost first): each
    frame as the interleaving leaves it, with the C calls found above it.
    When the native side cannot be read, the frames alone."""
    try:
        natives, placed, jit = anchored(session, state, thread)
    except Exception:  # the C-call levels and native numbers are extra: the frames still print
        return plain(frames)
    mixed = [placed.get(f.address, (f, None)) for f in frames]
    return build(session, thread, reader, natives, [m[0] for m in mixed],
                 [m[1] for m in mixed], jit)
