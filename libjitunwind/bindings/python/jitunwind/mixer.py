"""The library's incremental mixer (mixed.h, jitunwind_mixer_*): the roles
of native frames, the Python frames each eval loop runs, the flags and the
exact line of a frame run by JIT code, the interpreter frames to hide. The
policy is the library's; this module only carries frames across."""

import ctypes

from . import _ffi
from . import JitunwindError, MIXED_LINE_MAY_LAG, MIXED_NATIVE, MIXED_PYTHON, library

INLINED = _ffi.MIXER_INLINED
ROLE_GIVEN = _ffi.MIXER_ROLE_GIVEN


def _lib():
    lib = library()
    _ffi.declare_mixer(lib)
    return lib


class Mixer:
    """One stack of one thread, fed innermost first, in batches.

    `arch`, `registry` (a Registry) and `reader` (a PyReader) may be None:
    without a registry no frame is JIT or trampoline code, without a reader
    the eval loop is known by name only and no line is made exact.
    `not_innermost`: the first frame fed is a caller (a stack continued)."""

    __slots__ = ("_lib", "_handle", "_keep", "_array", "_fed", "pyframes", "not_innermost")

    def __init__(self, arch=None, registry=None, reader=None, not_innermost=False):
        self._lib = _lib()
        self._handle = None
        self._keep = (registry, reader)  # the C mixer borrows their handles
        self._array = None               # the Python frames as the C mixer updates them
        self._fed = 0                    # native frames taken so far
        self.pyframes = None             # the same as PyFrame tuples, updated from _array
        self.not_innermost = not_innermost
        options = _ffi.MixerOptions(arch or 0, 0,
                                    registry._handle if registry is not None else None,
                                    reader._handle if reader is not None else None)
        handle = ctypes.c_void_p()
        rc = self._lib.jitunwind_mixer_new(ctypes.byref(options), ctypes.byref(handle))
        if rc < 0:
            raise JitunwindError(rc, "a mixer")
        self._handle = handle

    def __del__(self):
        if self._handle:
            self._lib.jitunwind_mixer_free(self._handle)
            self._handle = None

    def give_python(self, pyframes):
        """The thread's Python frames (PyFrame tuples, innermost first):
        once, before the first eval-loop frame is fed."""
        self.pyframes = list(pyframes)
        n = len(self.pyframes)
        array = (_ffi.PyFrame * max(n, 1))()
        for c, f in zip(array, self.pyframes):
            c.address, c.code, c.line, c.flags = f.address, f.code, f.line, f.flags
        self._array = array
        rc = self._lib.jitunwind_mixer_python(self._handle, array, n)
        if rc < 0:
            raise JitunwindError(rc, "giving %d Python frames to a mixer" % n)

    @property
    def next_python(self):
        """The first Python frame no native frame fed so far runs."""
        return self._lib.jitunwind_mixer_next_python(self._handle)

    def feed(self, natives, load_python):
        """Feed native frames, each (pc, symbol or None, flags, role):
        flags INLINED for a call inlined into the next frame, ROLE_GIVEN to
        take `role` as it is. `load_python()` is called once, at the first
        eval-loop frame (none for a stack without one), and returns the
        Python frames. Returns (roles, addresses, placed): the role and the
        lookup address of each native frame, and [(index in `natives`,
        Python frame index)] of the Python frames placed, each after its
        eval-loop frame. The frames a JIT-run eval loop runs are updated in
        `pyframes` (JIT flags, exact line)."""
        n = len(natives)
        array = (_ffi.MixerNative * max(n, 1))()
        for c, (pc, symbol, flags, role) in zip(array, natives):
            c.pc, c.flags, c.role = pc, flags, role
            if symbol:
                c.symbol = symbol.encode("utf-8", "surrogateescape")
        if self.not_innermost and n:
            array[0].flags |= _ffi.MIXER_NOT_INNERMOST
            self.not_innermost = False
        placed, start, base = [], 0, self._fed
        fed, count = ctypes.c_size_t(), ctypes.c_size_t()
        size, native_p = ctypes.sizeof(_ffi.MixerNative), ctypes.POINTER(_ffi.MixerNative)
        while True:
            left = n - start
            cap = left + (len(self.pyframes) if self.pyframes is not None else 0)
            out = (_ffi.MixedItem * max(cap, 1))()
            rest = ctypes.cast(ctypes.addressof(array) + start * size, native_p)
            rc = self._lib.jitunwind_mixer_feed(self._handle, rest, left, ctypes.byref(fed),
                                                out, cap, ctypes.byref(count))
            for item in out[:count.value]:
                if item.kind != MIXED_PYTHON:
                    continue
                if item.flags & MIXED_LINE_MAY_LAG:
                    c = self._array[item.index]
                    self.pyframes[item.index] = self.pyframes[item.index]._replace(
                        line=c.line, flags=c.flags)
                placed.append((item.anchor - base, item.index))
            start += fed.value
            self._fed += fed.value
            if rc == _ffi.MIXER_WANTS_PYTHON:
                frames = load_python()  # may have given them itself
                if self.pyframes is None:
                    self.give_python(frames)
                continue
            if rc < 0:
                raise JitunwindError(rc, "mixing %d native frames" % n)
            break
        return ([c.role for c in array[:n]], [c.address for c in array[:n]], placed)


def mix(roles, pyframes):
    """Interleave a whole stack whose roles are known: returns
    [(MIXED_NATIVE, native_index, None) or (MIXED_PYTHON, python_index,
    anchor_native_index_or_None)]. `pyframes` (a list) is updated in place
    as the mixer leaves the frames (JIT flags)."""
    mixer = Mixer()
    mixer.give_python(pyframes)
    _roles, _addresses, placed = mixer.feed([(0, None, ROLE_GIVEN, r) for r in roles], list)
    pyframes[:] = mixer.pyframes
    groups = {}
    for anchor, index in placed:
        groups.setdefault(anchor, []).append(index)
    result = []
    for i in range(len(roles)):
        result.append((MIXED_NATIVE, i, None))
        result.extend((MIXED_PYTHON, index, i) for index in groups.get(i, ()))
    result.extend((MIXED_PYTHON, index, None) for index in range(mixer.next_python, len(pyframes)))
    return result
