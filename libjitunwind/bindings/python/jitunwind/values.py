"""Python values and frame variables of a target, rendered by the library
(jitunwind_pyreader_repr and friends): what py-locals, py-print and
py-bt-full print. Every function takes a jitunwind.PyReader and a frame
from PyReader.frames(); none raises for bad target memory (the text says
<unreadable 0x...> instead)."""

import collections
import ctypes

from . import _ffi, library, text_escape, JitunwindError

REPR_TRUNCATED = 1 << 0
REPR_UNREADABLE = 1 << 1
STYLE_LIBPYTHON = 1 << 0  # builtins as libpython.py shows them (JITUNWIND_PYREPR_STYLE_LIBPYTHON)

VAR_ARG = 1 << 0
VAR_LOCAL = 1 << 1
VAR_CELL = 1 << 2
VAR_FREE = 1 << 3
VAR_UNBOUND = 1 << 8
VAR_MAY_BE_STALE = 1 << 9

SCOPE_NAMES = {1: "local", 2: "global", 3: "builtin", 4: "unbound local"}

Variable = collections.namedtuple("Variable", "name value flags")

MAX_VARIABLES = 4096
ARGUMENTS_LIMIT = 64
BUFFER = 4096


def _lib():
    lib = library()
    _ffi.declare_values(lib)
    return lib


def _frame_struct(frame):
    f = _ffi.PyFrame()
    f.address, f.code, f.flags = frame.address, frame.code, frame.flags
    return f


_buffers = {}


def _buffer(kind, make):
    """A reusable ctypes buffer (the binding is used from one thread: the
    debugger's)."""
    buf = _buffers.get(kind)
    if buf is None:
        buf = _buffers[kind] = make()
    return buf


def repr_object(reader, address, max_depth=0, max_items=0, max_chars=0, size=BUFFER, style=0):
    """(text, flags) of the object at `address`; 0 limits take the defaults
    (depth 2, 10 items, 200 characters); `style`: STYLE_* bits."""
    buf = _buffer(("text", size), lambda: ctypes.create_string_buffer(size))
    flags = ctypes.c_uint32()
    opts = _ffi.PyReprOptions(max_depth, max_items, max_chars, style)
    rc = _lib().jitunwind_pyreader_repr(reader._handle, address, ctypes.byref(opts), buf, size,
                                        ctypes.byref(flags))
    if rc < 0:
        raise JitunwindError(rc, reader._detail())
    return buf.value.decode("utf-8", "replace"), flags.value


def frame_variables(reader, frame, limit=MAX_VARIABLES):
    """(variables, error): the frame's Variables, arguments first, at most
    `limit`; error is None or a JitunwindError for a truncated list."""
    limit = min(limit, MAX_VARIABLES)
    arr = _buffer(("variables", limit), lambda: (_ffi.PyVariable * limit)())
    n = ctypes.c_size_t()
    f = _frame_struct(frame)
    rc = _lib().jitunwind_pyreader_frame_variables(reader._handle, ctypes.byref(f), arr,
                                                   limit, ctypes.byref(n))
    out = [Variable(v.name.decode("utf-8", "replace"), v.value, v.flags) for v in arr[:n.value]]
    return out, (JitunwindError(rc, reader._detail()) if rc < 0 else None)


def lookup(reader, frame, name):
    """(address, scope name) of `name` seen from the frame (local, global,
    builtin), or None when it is not defined there."""
    value = ctypes.c_uint64()
    scope = ctypes.c_int()
    f = _frame_struct(frame)
    rc = _lib().jitunwind_pyreader_frame_lookup(reader._handle, ctypes.byref(f), name.encode(),
                                                ctypes.byref(value), ctypes.byref(scope))
    if rc < 0:
        return None
    return value.value, SCOPE_NAMES.get(scope.value, "?")


def attribute(reader, address, name):
    """The address of attribute `name` of the object at `address`
    (jitunwind_pyreader_attribute: an instance's own attributes, a module's
    globals, a class's own dict), or None when it has none of that name or
    it cannot be read."""
    value = ctypes.c_uint64()
    rc = _lib().jitunwind_pyreader_attribute(reader._handle, address, name.encode(),
                                             ctypes.byref(value))
    return None if rc < 0 else value.value


THREAD_NAME_MAX = 64  # JITUNWIND_PY_THREAD_NAME_MAX


def thread_names(reader, threads):
    """The Python names (threading's) of thread states from
    PyReader.threads(), read in one pass: a list with None where a thread
    has none or it cannot be read."""
    threads = list(threads)
    if not threads:
        return []
    array = (_ffi.PyThread * len(threads))(*[
        _ffi.PyThread(t.tstate, t.interp, t.interp_id, t.thread_id, t.native_thread_id,
                      t.current_frame, t.holds_gil, 0) for t in threads])
    buf = ctypes.create_string_buffer(THREAD_NAME_MAX * len(threads))
    rc = _lib().jitunwind_pyreader_thread_names(reader._handle, array, len(threads), buf,
                                                THREAD_NAME_MAX, None)
    if rc < 0:
        return [None] * len(threads)
    names = [buf.raw[i * THREAD_NAME_MAX:(i + 1) * THREAD_NAME_MAX].split(b"\0", 1)[0]
             for i in range(len(threads))]
    return [n.decode("utf-8", "replace") if n else None for n in names]


def lookup_path(reader, frame, path):
    """(address, scope name) of a dotted path seen from the frame
    (`order.items`: the name as lookup() finds it, then each attribute), or
    (None, message) when some part is missing."""
    parts = path.split(".")
    found = lookup(reader, frame, parts[0])
    if found is None:
        return None, "%r not found" % parts[0]
    address, scope = found
    if scope == "unbound local":
        return None, "local %r is unbound (assigned later, or deleted)" % parts[0]
    for i, part in enumerate(parts[1:], 1):
        address = attribute(reader, address, part) if part else None
        if address is None:
            return None, "%r has no attribute %r" % (".".join(parts[:i]), part)
    return address, scope


STACK_SLOTS = 64  # JITUNWIND_PY_STACK_SLOTS


def frame_cfunctions(reader, frame):
    """[(object, C function address)] of the builtin function and method
    objects on the frame's value stack (jitunwind_pyreader_frame_cfunctions);
    [] when its code object cannot be read."""
    arr = _buffer("cfunctions", lambda: (_ffi.PyCFunction * STACK_SLOTS)())
    n = ctypes.c_size_t()
    f = _frame_struct(frame)
    rc = _lib().jitunwind_pyreader_frame_cfunctions(reader._handle, ctypes.byref(f), arr,
                                                    STACK_SLOTS, ctypes.byref(n))
    return [] if rc < 0 else [(c.object, c.function) for c in arr[:n.value]]


def gc_collecting(reader, interp):
    """True or False: the interpreter runs a garbage collection; None when
    not known for this build."""
    running = ctypes.c_int()
    rc = _lib().jitunwind_pyreader_gc_collecting(reader._handle, interp, ctypes.byref(running))
    return None if rc < 0 else bool(running.value)


class held_reads:
    """`with held_reads(reader):` renders many values of a stopped target
    reading each block of its memory once (jitunwind_pyreader_hold_reads)."""

    def __init__(self, reader):
        self.reader = reader

    def __enter__(self):
        _lib().jitunwind_pyreader_hold_reads(self.reader._handle, 1)
        return self

    def __exit__(self, *exc):
        _lib().jitunwind_pyreader_hold_reads(self.reader._handle, 0)
        return False


def variable_text(reader, var, **limits):
    """`name = repr` (or `name = <unbound>`), marked when it may be stale."""
    if var.flags & VAR_UNBOUND:
        text = "<unbound>"
    else:
        text = repr_object(reader, var.value, **limits)[0]
    stale = "  (may be stale: JIT code)" if var.flags & VAR_MAY_BE_STALE else ""
    return "%s = %s%s" % (text_escape(var.name), text, stale)


def arguments_text(reader, frame, max_chars=60, style=0):
    """`a=1, b='x'` as libpython's py-bt shows a frame's arguments; "" when
    the frame has none or they cannot be read. With `style`, each value is
    rendered in it with its default limits (STYLE_LIBPYTHON: instances with
    their attributes), else short."""
    try:  # arguments come first: a short list is enough
        variables, _err = frame_variables(reader, frame, ARGUMENTS_LIMIT)
    except OSError:
        return ""
    parts = []
    for var in variables:
        if not var.flags & VAR_ARG:
            break
        if var.flags & VAR_UNBOUND:
            parts.append("%s=<unbound>" % text_escape(var.name))
        else:
            text = repr_object(reader, var.value, style=style)[0] if style else \
                repr_object(reader, var.value, max_depth=1, max_items=4, max_chars=max_chars)[0]
            parts.append("%s=%s" % (text_escape(var.name), text))
    return ", ".join(parts)
