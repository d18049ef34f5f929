"""The CPython decoder (jitunwind_pyreader_*): locating the runtime, the
version, DWARF types, and a reader's threads, frames and executors."""

import collections
import ctypes

from . import _ffi
from ._ffi import text as _text
from .base import (JitunwindError, Owned, PYREADER_ASSUME_LAYOUT, PY_MAX_FRAMES, error_detail,
                   library)
from .modules import debug_file_directories


PyLocation = collections.namedtuple("PyLocation", "runtime_addr version_hex module")


def _location(loc):
    return PyLocation(loc.runtime_addr, loc.version_hex, _text(loc.module))


def locate_live(pid):
    loc = _ffi.PyLocation()
    rc = library().jitunwind_py_locate_live(pid, ctypes.byref(loc))
    if rc < 0:
        raise JitunwindError(rc, "no CPython runtime found in process %d" % pid)
    return _location(loc)


def locate_core(path):
    loc = _ffi.PyLocation()
    rc = library().jitunwind_py_locate_core(path.encode(), ctypes.byref(loc))
    if rc < 0:
        raise JitunwindError(rc, "no CPython runtime found in core %s" % path)
    return _location(loc)


def version_supported(version_hex):
    return bool(library().jitunwind_py_version_supported(version_hex))


def version_text(version_hex):
    """"3.15.0rc1", "3.14.7" for a PY_VERSION_HEX."""
    level = {0xA: "a", 0xB: "b", 0xC: "rc"}.get((version_hex >> 4) & 0xF)
    text = "%d.%d.%d" % (version_hex >> 24, (version_hex >> 16) & 0xFF, (version_hex >> 8) & 0xFF)
    return text + ("%s%d" % (level, version_hex & 0xF) if level else "")


PyThread = collections.namedtuple(
    "PyThread", "tstate interp interp_id thread_id native_thread_id current_frame holds_gil")
PyFrame = collections.namedtuple(
    "PyFrame", "address code line first_line lasti owner flags qualname filename")


class DwarfTypes(Owned):
    """Struct layouts from the DWARF of an ELF file (its own, or a separate
    debug file). Raises JitunwindError (ENOTFOUND: no DWARF)."""
    _FREE = "jitunwind_dwarf_types_free"

    def __init__(self, path):
        self._create("jitunwind_dwarf_types_open", path.encode(), detail="DWARF of %s" % path)

    @property
    def source(self):
        return _text(self._lib.jitunwind_dwarf_types_source(self._handle))

    def member_offset(self, type_name, member_path):
        off = ctypes.c_uint64()
        rc = self._lib.jitunwind_dwarf_member_offset(self._handle, type_name.encode(),
                                                     member_path.encode(), ctypes.byref(off))
        if rc < 0:
            raise JitunwindError(rc, "%s.%s" % (type_name, member_path))
        return off.value


_dwarf_cache = {}


def dwarf_types_for(path):
    """The DwarfTypes of `path`, opened once per version of the file (a
    debugger opens a PyReader at every stop); None when it has no DWARF."""
    import os
    try:
        st = os.stat(path)
    except OSError:
        return None
    key = (path, st.st_mtime_ns, st.st_size, debug_file_directories())
    if key not in _dwarf_cache:
        if len(_dwarf_cache) >= 8:
            _dwarf_cache.clear()
        try:
            _dwarf_cache[key] = DwarfTypes(path)
        except JitunwindError:
            _dwarf_cache[key] = None
    return _dwarf_cache[key]


PyDwarfReport = collections.namedtuple(
    "PyDwarfReport", "source checked mismatches adopted derived first_mismatch")
PyExecutor = collections.namedtuple(
    "PyExecutor", "address interp jit_code jit_size code flags first_line qualname filename")


def _dwarf_report(r):
    return PyDwarfReport(_text(r.source), r.checked, r.mismatches, r.adopted, r.derived,
                         _text(r.first_mismatch))


class _ChainCache:
    """A jitunwind_py_chains handle, freed when the object goes."""

    def __init__(self, lib, handle):
        self._lib, self.handle = lib, handle

    def __del__(self):
        try:
            self._lib.jitunwind_py_chains_free(self.handle)
        except Exception:
            pass


class PyReader(Owned):
    _FREE = "jitunwind_pyreader_free"
    MAX_THREADS = 4096
    MAX_FRAMES = 4096
    MAX_EXECUTORS = 4096

    def __init__(self, memory, runtime_addr, version_hex, module=None, assume_layout=None):
        """`module`: the ELF file holding _PyRuntime (PyLocation.module); its
        DWARF, when found, checks the layout and gives build-specific offsets
        (executor lists). None: tables and debug offsets only.
        `assume_layout`: read a CPython newer than every table with offsets
        from DWARF (see JITUNWIND_PYREADER_ASSUME_LAYOUT); by default taken
        from the environment variable JITUNWIND_ASSUME_LAYOUT=1."""
        import os
        self._lib = library()
        self._memory = memory  # keep alive: the C side holds a copy of its struct
        self._handle = ctypes.c_void_p()
        if assume_layout is None:
            assume_layout = os.environ.get("JITUNWIND_ASSUME_LAYOUT") == "1"
        types = dwarf_types_for(module) if module else None
        opts = _ffi.PyReaderOpts(module.encode() if module else None,
                                 types._handle if types else None,
                                 PYREADER_ASSUME_LAYOUT if assume_layout else 0)
        rc = self._lib.jitunwind_pyreader_open(
            ctypes.byref(self._handle), memory.ref(), runtime_addr, version_hex,
            ctypes.byref(opts))
        if rc < 0:
            # A failed constructor leaves no handle; its detail is the thread's last error.
            detail = error_detail(self._lib.jitunwind_last_error())
            raise JitunwindError(rc, detail or "CPython %s" % version_text(version_hex))

    def _detail(self):
        return error_detail(self._lib.jitunwind_pyreader_last_error(self._handle))

    def threads(self):
        """(threads, error): error is None or a JitunwindError for a truncated list."""
        arr = (_ffi.PyThread * self.MAX_THREADS)()
        n = ctypes.c_size_t()
        rc = self._lib.jitunwind_pyreader_threads(self._handle, arr, self.MAX_THREADS,
                                                  ctypes.byref(n))
        out = [PyThread(t.tstate, t.interp, t.interp_id, t.thread_id, t.native_thread_id,
                        t.current_frame, t.holds_gil) for t in arr[:n.value]]
        return out, (JitunwindError(rc, self._detail()) if rc < 0 else None)

    def trampoline_ranges(self, registry, arch):
        """Add the runtime's perf-trampoline arenas to `registry`; returns how
        many, or raises JitunwindError (ENOTFOUND: never activated)."""
        added = ctypes.c_size_t()
        rc = self._lib.jitunwind_pyreader_trampoline_ranges(self._handle, registry._handle, arch,
                                                           ctypes.byref(added))
        if rc < 0:
            raise JitunwindError(rc, self._detail())
        return added.value

    def executor_ranges_note(self):
        """What the last executor_ranges saw of the interpreter's own GDB JIT
        names (a name not the version's; 3.16's provisional one), or ""."""
        try:
            return _text(self._lib.jitunwind_pyreader_executor_ranges_note(self._handle))
        except OSError:  # a library without it (_ffi: the function raises when called)
            return ""

    @property
    def layout_name(self):
        return _text(self._lib.jitunwind_pyreader_layout_name(self._handle))

    @property
    def warning(self):
        """A line to show with every Python backtrace, or None."""
        name = self.layout_name
        if "assumed" in name:
            return "Python frames read with an ASSUMED layout: %s" % name
        return None

    def dwarf_report(self):
        r = _ffi.PyDwarfReport()
        self._lib.jitunwind_pyreader_dwarf_report(self._handle, ctypes.byref(r))
        return _dwarf_report(r)

    def values_report(self):
        """(report, status): what DWARF said of the value layout, and 0 or
        the status the value functions return."""
        r = _ffi.PyDwarfReport()
        status = ctypes.c_int()
        self._lib.jitunwind_pyreader_values_report(self._handle, ctypes.byref(r),
                                                   ctypes.byref(status))
        return _dwarf_report(r), status.value

    def executors(self):
        """(executors, error): the JIT executors (3.13+; 3.15 needs DWARF); error is a
        JitunwindError when the list is unavailable or truncated."""
        arr = (_ffi.PyExecutor * self.MAX_EXECUTORS)()
        n = ctypes.c_size_t()
        rc = self._lib.jitunwind_pyreader_executors(self._handle, arr, self.MAX_EXECUTORS,
                                                    ctypes.byref(n))
        out = [PyExecutor(e.address, e.interp, e.jit_code, e.jit_size, e.code, e.flags,
                          e.first_line, _text(e.qualname), _text(e.filename))
               for e in arr[:n.value]]
        return out, (JitunwindError(rc, self._detail()) if rc < 0 else None)

    def eval_ranges(self):
        """[(start, end, main)] of the eval loop's code: _PyEval_EvalFrameDefault
        (main True) and the parts a compiler split off or cloned from it."""
        arr = (_ffi.PyCodeRange * _ffi.PY_MAX_EVAL_RANGES)()
        n = ctypes.c_size_t()
        if self._lib.jitunwind_pyreader_eval_ranges(self._handle, arr, len(arr),
                                                    ctypes.byref(n)) < 0:
            return []
        return [(r.start, r.end, bool(r.main)) for r in arr[:min(n.value, len(arr))]]

    def in_eval_loop(self, addr):
        """Whether the lookup address `addr` is in the eval loop's code."""
        return self._lib.jitunwind_pyreader_in_eval_loop(self._handle, addr) == 1

    def executor_ranges(self, registry, arch, eval_range=None):
        """Add a range per compiled executor to `registry`; returns how many,
        or raises JitunwindError (EUNSUPPORTED: no executors in this version,
        ENOTFOUND: list location unknown without DWARF). `eval_range`: where
        a SCAN rule looks for the return address; None: the reader's own."""
        added = ctypes.c_size_t()
        start, end = eval_range or (0, 0)
        rc = self._lib.jitunwind_pyreader_executor_ranges(self._handle, registry._handle, arch,
                                                         start, end, ctypes.byref(added))
        if rc < 0:
            raise JitunwindError(rc, self._detail())
        return added.value

    def keep_between_stops(self, code_entries=4096, threads=64, frames=4096):
        """Keep what one stop read for the next (a debugger's stops, a
        sampler's samples): code objects (each checked again at its first
        use in a stop) and each thread's last chain (its unchanged outer
        frames not decoded again). Call next_stop() at each stop. False
        when there was no memory for it (frames are then read whole)."""
        if self._lib.jitunwind_pyreader_cache_code(self._handle, code_entries) < 0:
            return False
        chains = ctypes.c_void_p()
        if self._lib.jitunwind_py_chains_new(threads, frames, ctypes.byref(chains)) < 0:
            return False
        self._chains = _ChainCache(self._lib, chains.value)
        return True

    def next_stop(self):
        """A new stop: code objects are checked again at their first use."""
        self._lib.jitunwind_pyreader_cache_next_sample(self._handle)

    def frames(self, frame_addr, limit=None, thread_key=None):
        """(frames, error) for the chain starting at `frame_addr`, innermost first;
        the frames are raw PyFrame tuples (with the C struct kept for mix()).
        `thread_key` (the thread state's address), with keep_between_stops():
        the thread's last chain is reused where it is unchanged."""
        limit = min(limit or self.MAX_FRAMES, PY_MAX_FRAMES)
        arr = (_ffi.PyFrame * limit)()
        n = ctypes.c_size_t()
        chains = getattr(self, "_chains", None)
        if chains is not None and thread_key is not None:
            rc = self._lib.jitunwind_pyreader_frames_reusing(
                self._handle, chains.handle, thread_key, frame_addr, arr, limit, ctypes.byref(n))
        else:
            rc = self._lib.jitunwind_pyreader_frames(self._handle, frame_addr, arr, limit,
                                                     ctypes.byref(n))
        frames = [PyFrame(f.address, f.code, f.line, f.first_line, f.lasti, f.owner, f.flags,
                          _text(f.qualname), _text(f.filename)) for f in arr[:n.value]]
        return frames, (JitunwindError(rc, self._detail()) if rc < 0 else None)
