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

from .. import values
from .stack import mixed_stack

# Native functions and the argument holding the callable a Python frame is
# calling: the builtin itself in cfunction_*, the wrapper in wrapper_call,
# any callable in the generic vectorcall (where a release build inlined the
# cfunction_ call into it).
CALLABLE_ARGUMENTS = (("cfunction_vectorcall_", "func"), ("cfunction_call", "func"),
                      ("wrapper_call", "wp"), ("PyObject_Vectorcall", "callable"),
                      ("_PyObject_VectorcallTstate", "callable"))
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
    (the debugger's frame number) that runs it, or None."""
    __slots__ = ("frame", "call", "python", "native")

    def __init__(self, python, native, frame=None, call=None):
        self.python, self.native, self.frame, self.call = python, native, frame, call


def _callable_argument(symbol):
    for prefix, name in CALLABLE_ARGUMENTS:
        if symbol.startswith(prefix):
            return name
    return None


def call_text(session, thread, reader, natives, index):
    """The libpython text of the C call natives[index] makes, or None when
    it is not a known C-call frame or its callable cannot be read."""
    read_arg = getattr(session, "native_pointer_argument", None)
    name = _callable_argument(natives[index].symbol or "")
    if read_arg is None or name is None:
        return None
    try:
        address = read_arg(thread, natives, index, name)
        if not address:
            return None
        text = values.repr_object(reader, address, style=values.STYLE_LIBPYTHON)[0]
    except Exception:  # an unreadable callable is no level: the frames still print
        return None
    return text if text.startswith(CALL_FORMS) else None


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


def _between(session, thread, reader, natives, start, end, python):
    """The levels natives[start:end] (innermost first) add inside Python
    frame `python`: each state (one of each), then at most one C call (the
    innermost frame naming it; the generic vectorcall frames outside it
    name the same call again)."""
    out, said = [], set()
    called = False
    for index in range(start, end):
        state = state_text(natives[index].symbol or "")
        if state is not None and state not in said:
            said.add(state)
            out.append(Level(python, index, call=state))
        elif state is None and not called:
            text = call_text(session, thread, reader, natives, index)
            if text is not None:
                called = True
                out.append(Level(python, index, call=text))
    return out


def build(session, thread, reader, natives, frames, anchors):
    """The levels, innermost first, of Python `frames` run by the native
    frames `anchors` (None: not placed) of `natives`."""
    out, inner = [], -1
    for i, (frame, anchor) in enumerate(zip(frames, anchors)):
        if anchor is not None and anchor != inner:
            out.extend(_between(session, thread, reader, natives, inner + 1, anchor, i))
            inner = anchor
        out.append(Level(i, anchor, frame=frame))
    return out


NATIVE_LIMIT = 4096


def anchored(session, state, thread):
    """(natives, placed): the thread's native frames and, for each Python
    frame the interleaving placed, {frame address: (frame as the
    interleaving leaves it, index of the native frame running it)}. The
    interleaved frame carries the exact line of one running JIT code."""
    natives, _notes = session.native_frames(thread, NATIVE_LIMIT)
    entries, _mixer = mixed_stack(state, natives, lambda: state.python_frames(thread.tid))
    return natives, {e.pyframe.address: (e.pyframe, e.anchor) for e in entries
                     if e.pyframe is not None}


def for_frames(session, state, thread, reader, frames):
    """The levels of `frames` (Python frames as read, innermost first): each
    frame as the interleaving leaves it, with the C calls found above it.
    When the native side cannot be read, the frames alone."""
    try:
        natives, placed = anchored(session, state, thread)
    except Exception:  # the C-call levels and native numbers are extra: the frames still print
        return plain(frames)
    mixed = [placed.get(f.address, (f, None)) for f in frames]
    return build(session, thread, reader, natives, [m[0] for m in mixed],
                 [m[1] for m in mixed])
