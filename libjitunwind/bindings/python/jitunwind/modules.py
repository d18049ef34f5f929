"""Modules and their CFI (jitunwind_modules_*), a whole unwind, ELF symbols
and the separate debug files the library finds."""

import collections
import ctypes

from . import _ffi
from ._ffi import text as _text
from .base import (JitunwindError, Owned, REG_FP, REG_LR, REG_PC, REG_SP, frame_source_string,
                   library, stop_reason_string)
from .registry import range_info


class Modules(Owned):
    """The ELF files mapped into a target, for CFI unwinding of native frames."""
    _FREE = "jitunwind_modules_free"
    _LAST_ERROR = "jitunwind_modules_last_error"

    def __init__(self):
        self._create("jitunwind_modules_new")

    def add_mapping(self, path, start, end, offset):
        self._check(self._lib.jitunwind_modules_add_mapping(self._handle, path.encode(), start, end,
                                                            offset))

    def load_proc(self, pid):
        self._check(self._lib.jitunwind_modules_load_proc(self._handle, pid))

    def load_core(self, path):
        self._check(self._lib.jitunwind_modules_load_core(self._handle, path.encode()))

    def __len__(self):
        return self._lib.jitunwind_modules_count(self._handle)

    def symbolize(self, addr):
        buf = ctypes.create_string_buffer(256)
        off = ctypes.c_uint64()
        rc = self._lib.jitunwind_modules_symbolize(self._handle, addr, buf, len(buf), ctypes.byref(off))
        return (_text(buf.value), off.value) if rc == 0 else (None, 0)


NativeFrame = collections.namedtuple("NativeFrame", "pc sp fp source range")


def unwind(arch, registry, modules, memory, pc, sp, fp, lr=None, limit=1024):
    """Walk a native stack with the library: range rules, then CFI (if
    `modules`), then the guarded frame-pointer step. Returns (frames, stop
    reason text); each frame has pc, sp, fp, source (text) and range."""
    valid = REG_PC | REG_SP | REG_FP | (REG_LR if lr is not None else 0)
    regs = _ffi.Regs(pc, sp, fp, lr or 0, valid, 0)
    frames = (_ffi.Frame * limit)()
    stop = ctypes.c_int()
    n = library().jitunwind_unwind(arch, registry._handle if registry else None,
                                   modules._handle if modules else None, memory.ref(),
                                   ctypes.byref(regs), frames, limit, 0, ctypes.byref(stop))
    if n < 0:
        raise JitunwindError(n, "unwinding from pc %#x" % pc)
    out = []
    for f in frames[:n]:
        rng = range_info(f.range.contents) if f.range else None
        out.append(NativeFrame(f.regs.pc, f.regs.sp, f.regs.fp, frame_source_string(f.source), rng))
    return out, stop_reason_string(stop.value)


def elf_symbol(path, name):
    value, size = ctypes.c_uint64(), ctypes.c_uint64()
    rc = library().jitunwind_elf_symbol(path.encode(), name.encode(), ctypes.byref(value),
                                        ctypes.byref(size))
    if rc < 0:
        raise JitunwindError(rc, "%s in %s" % (name, path))
    return value.value, size.value


DEBUG_DIRS_MAX = 4096  # debug_files.h: JITUNWIND_DEBUG_DIRS_MAX
DEBUG_ROOT_DEFAULT = "/usr/lib/debug"  # JITUNWIND_DEBUG_ROOT_DEFAULT


def set_debug_file_directories(dirs):
    """Where separate debug files are, for the whole process (debug_files.h):
    ':'-separated directories as gdb's debug-file-directory; None restores
    the default (/usr/lib/debug). Raises JitunwindError when too long."""
    rc = library().jitunwind_set_debug_file_directories(
        dirs.encode(errors="surrogateescape") if dirs is not None else None)
    if rc < 0:
        raise JitunwindError(rc, "debug file directories: %d bytes" % len(dirs))


def debug_file_directories():
    buf = ctypes.create_string_buffer(DEBUG_DIRS_MAX)
    library().jitunwind_debug_file_directories(buf, DEBUG_DIRS_MAX)
    return buf.value.decode(errors="surrogateescape")


def debug_file_find(path):
    """(the separate debug file of the ELF file at `path` or None, the note
    naming the candidates refused or "")."""
    found, note = ctypes.create_string_buffer(4096), ctypes.create_string_buffer(512)
    rc = library().jitunwind_debug_file_find(path.encode(errors="surrogateescape"), found,
                                             len(found), note, len(note))
    return (found.value.decode(errors="replace") if rc == 0 else None,
            note.value.decode(errors="replace"))
