"""Target memory for the library: a Python read function, a live process
or a core file, as a struct jitunwind_memory."""

import ctypes

from . import _ffi
from .base import EREAD, JitunwindError, library


class Memory:
    """Wraps a Python `read(addr, size) -> bytes` (None or an exception means
    unreadable) as a jitunwind_memory. Keep the object alive while the C side
    may call it."""

    def __init__(self, read):
        self._read = read
        self._cb = _ffi.READ_FN(self._trampoline)
        self.struct = _ffi.Memory(self._cb, None)

    def _trampoline(self, _arg, addr, dst, size):
        try:
            data = self._read(addr, size)
        except Exception:  # never let an exception cross into C
            return EREAD
        if data is None or len(data) != size:
            return EREAD
        ctypes.memmove(dst, bytes(data), size)
        return 0

    def ref(self):
        return ctypes.byref(self.struct)


class _ReaderMemory:
    """One of the library's ready-made readers: `kind` names its functions
    (jitunwind_<kind>_reader_new/_memory/_free), `source` what it opens."""

    _kind = None

    def __init__(self, source, what):
        lib = library()
        self._handle = ctypes.c_void_p()
        rc = getattr(lib, "jitunwind_%s_reader_new" % self._kind)(ctypes.byref(self._handle),
                                                                  source)
        if rc < 0:
            raise JitunwindError(rc, what)
        self.struct = getattr(lib, "jitunwind_%s_reader_memory" % self._kind)(self._handle)

    def ref(self):
        return ctypes.byref(self.struct)

    def close(self):
        if self._handle:
            getattr(library(), "jitunwind_%s_reader_free" % self._kind)(self._handle)
            self._handle = ctypes.c_void_p()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


class ProcessMemory(_ReaderMemory):
    """The library's own live-process reader (process_vm_readv)."""

    _kind = "process"

    def __init__(self, pid):
        super().__init__(pid, "process %d" % pid)


class CoreMemory(_ReaderMemory):
    """The library's core-file reader: the core's segments, and the mapped
    files of its NT_FILE note for what the core left out."""

    _kind = "core"

    def __init__(self, path):
        super().__init__(path.encode(), "core %s" % path)
