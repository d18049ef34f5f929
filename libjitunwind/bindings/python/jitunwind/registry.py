"""The range registry (jitunwind_registry_*): ranges with their rules, the
GDB JIT interface, and one frame's step through a range."""

import collections
import ctypes

from . import _ffi
from ._ffi import text as _text
from .base import (JitunwindError, ORIGIN_USER, Owned, REG_FP, REG_LR, REG_PC, REG_SP, library,
                   stop_reason_string)


RangeInfo = collections.namedtuple(
    "RangeInfo", "start end kind rule stride origin cookie name scan_start scan_end frame_size",
    defaults=(0, 0, 0))


def range_info(r):
    return RangeInfo(r.start, r.end, r.kind, r.rule, r.stride, r.origin, r.cookie,
                     _text(r.name), r.scan_start, r.scan_end, r.frame_size)


def _range_struct(info):
    return _ffi.Range(info.start, info.end, info.kind, info.rule, info.stride,
                      info.origin, info.cookie,
                      info.name.encode() if info.name else None,
                      info.scan_start, info.scan_end, info.frame_size)


def c_range_label(rng):
    """How a JIT or trampoline frame is named (jitunwind_range_label, which
    also names the symbols of ELF images): its name, kind and rule, e.g.
    `py::f4:app.py [trampoline sub8]`. ui.labels.range_label is this."""
    buf = ctypes.create_string_buffer(1024)
    library().jitunwind_range_label(ctypes.byref(_range_struct(rng)), buf, len(buf))
    return _text(buf.value)


def _image_info(info):
    return {name: getattr(info, name) for name, _ in info._fields_}


GDB_JIT_OFF, GDB_JIT_EACH, GDB_JIT_BATCHED, GDB_JIT_SHARE_FOREIGN = 0, 1, 2, 0x100


def set_gdb_jit(mode):
    """Publish this process's jitunwind_jit_register ranges through the GDB
    JIT interface (image.h): a GDB_JIT_* mode (True: EACH), or stop (False,
    GDB_JIT_OFF)."""
    rc = library().jitunwind_jit_set_gdb_jit(int(mode))
    if rc < 0:
        raise JitunwindError(rc, "GDB JIT interface")


def gdb_jit_status():
    st = _ffi.GdbJitStatus()
    library().jitunwind_jit_gdb_jit_status(ctypes.byref(st))
    return {name: getattr(st, name) for name, _ in st._fields_}


class Registry(Owned):
    _FREE = "jitunwind_registry_free"
    _LAST_ERROR = "jitunwind_registry_last_error"

    def __init__(self):
        self._create("jitunwind_registry_new")

    def add(self, start, end, kind, rule, name=None, stride=0, origin=ORIGIN_USER, cookie=0):
        info = RangeInfo(start, end, kind, rule, stride, origin, cookie, name)
        rc = self._lib.jitunwind_registry_add(self._handle, ctypes.byref(_range_struct(info)))
        if rc < 0:
            self._check(rc)

    def clear(self):
        self._lib.jitunwind_registry_clear(self._handle)

    @property
    def generation(self):
        return self._lib.jitunwind_registry_generation(self._handle)

    def digest(self):
        """A number that is the same for registries with the same ranges
        (computed by the library: no range is copied out)."""
        return self._lib.jitunwind_registry_digest(self._handle)

    def count_rule(self, rule):
        return self._lib.jitunwind_registry_count_rule(self._handle, rule)

    def add_all(self, other):
        """Add a copy of every range of `other` (a Registry); returns how
        many were left out because they overlap this registry's."""
        skipped = ctypes.c_size_t()
        rc = self._lib.jitunwind_registry_add_all(self._handle, other._handle,
                                                  ctypes.byref(skipped))
        if rc < 0:
            self._check(rc)
        return skipped.value

    def __len__(self):
        return self._lib.jitunwind_registry_count(self._handle)

    def lookup(self, pc):
        p = self._lib.jitunwind_registry_lookup(self._handle, pc)
        return range_info(p.contents) if p else None

    def ranges(self):
        out = []
        for i in range(len(self)):
            p = self._lib.jitunwind_registry_at(self._handle, i)
            if p:
                out.append(range_info(p.contents))
        return out

    def load_descriptor(self, memory, address):
        info = _ffi.JitReadInfo()
        rc = self._lib.jitunwind_jit_read_descriptor(self._handle, memory.ref(), address,
                                                      ctypes.byref(info))
        if rc < 0:
            self._check(rc)
        return info

    def load_gdb_jit(self, memory, address, arch):
        """Ranges of the GDB JIT interface at `address` (CPython 3.15+)."""
        added, skipped = ctypes.c_size_t(), ctypes.c_size_t()
        rc = self._lib.jitunwind_registry_load_gdb_jit(self._handle, memory.ref(), address, arch,
                                                      ctypes.byref(added), ctypes.byref(skipped))
        if rc < 0:
            self._check(rc)
        return added.value, skipped.value

    def elf_image(self, arch, memory=None):
        """The ELF image of these ranges for stock debuggers (image.h):
        (bytes, info dict)."""
        data, size, info = ctypes.c_void_p(), ctypes.c_size_t(), _ffi.ElfImageInfo()
        rc = self._lib.jitunwind_elf_image_write_registry(
            arch, self._handle, memory.ref() if memory else None, ctypes.byref(data),
            ctypes.byref(size), ctypes.byref(info))
        if rc < 0:
            raise JitunwindError(rc, "elf image")
        try:
            return ctypes.string_at(data.value, size.value), _image_info(info)
        finally:
            self._lib.jitunwind_elf_image_free(data)

    def write_elf_image(self, path, arch, memory=None):
        """Write that image to `path` (replaced atomically); returns its info dict."""
        info = _ffi.ElfImageInfo()
        rc = self._lib.jitunwind_elf_image_write_file(
            arch, self._handle, memory.ref() if memory else None, path.encode(),
            ctypes.byref(info))
        if rc < 0:
            raise JitunwindError(rc, "elf image %s" % path)
        return _image_info(info)

    def write_elf_image_at_stop(self, path, arch, memory, modules, threads):
        """The same, plus this stop's rows for ranges without static CFI
        (SCAN): `threads` is a list of (pc, sp, fp, lr or None), each
        thread's innermost registers; `modules` a Modules or None."""
        regs = (_ffi.Regs * max(1, len(threads)))()
        for i, (pc, sp, fp, lr) in enumerate(threads):
            regs[i].pc, regs[i].sp, regs[i].fp = pc, sp, fp
            regs[i].valid = REG_PC | REG_SP | REG_FP
            if lr is not None:
                regs[i].lr = lr
                regs[i].valid |= REG_LR
        info = _ffi.ElfImageInfo()
        rc = self._lib.jitunwind_elf_image_write_file_at_stop(
            arch, self._handle, modules._handle if modules else None, memory.ref(), regs,
            len(threads), path.encode(), ctypes.byref(info))
        if rc < 0:
            raise JitunwindError(rc, "elf image %s" % path)
        return _image_info(info)

    def add_guesses(self, memory, arch, live_pid=None, core_path=None):
        """Last resort: GUESS ranges for the anonymous executable mappings of
        the live process `live_pid`, or of the core file `core_path`.
        Returns how many were added."""
        cap = 4096
        maps = (_ffi.Mapping * cap)()
        n, added = ctypes.c_size_t(), ctypes.c_size_t()
        if core_path:
            rc = self._lib.jitunwind_core_anonymous_exec_mappings(core_path.encode(), maps, cap,
                                                                  ctypes.byref(n))
            where = "core %s" % core_path
        else:
            rc = self._lib.jitunwind_anonymous_exec_mappings(live_pid, maps, cap, ctypes.byref(n))
            where = "process %d" % live_pid
        if rc < 0 and n.value == 0:
            raise JitunwindError(rc, "mappings of %s" % where)
        rc = self._lib.jitunwind_registry_add_guesses(self._handle, memory.ref(), arch, maps, n.value,
                                                      ctypes.byref(added))
        if rc < 0:
            self._check(rc)
        return added.value

    def scan_guesses(self, start, end):
        """Guessed JIT ranges: frame-pointer rule, else scan towards [start, end)."""
        return self._lib.jitunwind_registry_scan_guesses(self._handle, start, end)

    def drop_over_modules(self, modules):
        """Remove ranges read from the target that overlap a mapped file
        (corrupt metadata claiming native code); returns how many."""
        return self._lib.jitunwind_registry_drop_over_modules(self._handle, modules._handle)

    def load_perf_map(self, path, arch, memory):
        return self._load_file(self._lib.jitunwind_registry_load_perf_map, path, arch, memory)

    def load_jitdump(self, path, arch, memory):
        """The same from a jitdump file (CPython's -X perf_jit)."""
        return self._load_file(self._lib.jitunwind_registry_load_jitdump, path, arch, memory)

    def _load_file(self, fn, path, arch, memory):
        added, skipped = ctypes.c_size_t(), ctypes.c_size_t()
        rc = fn(self._handle, path.encode(), arch, memory.ref(), ctypes.byref(added),
                ctypes.byref(skipped))
        if rc < 0:
            self._check(rc)
        return added.value, skipped.value


GDB_JIT_DESCRIPTOR_SYMBOL = "__jit_debug_descriptor"


class StepError(Exception):
    """A rule could not produce the caller: `reason` is a stop reason."""

    def __init__(self, code, reason):
        self.code = code
        self.reason = reason
        super().__init__(stop_reason_string(reason))


def step_range(arch, rng, memory, pc, sp, fp, lr=None, innermost=False, registry=None):
    """The caller's (pc, sp, fp) of a frame inside `rng` (a RangeInfo).
    With `registry`, a CPython executor's shim is its own frame
    (jitunwind_step_range_in)."""
    valid = REG_PC | REG_SP | REG_FP | (REG_LR if lr is not None else 0)
    regs_in = _ffi.Regs(pc, sp, fp, lr or 0, valid, 0)
    regs_out = _ffi.Regs()
    reason = ctypes.c_int()
    if registry is not None:
        _ffi.declare_jitview(library())
        rc = library().jitunwind_step_range_in(arch, registry._handle,
                                               ctypes.byref(_range_struct(rng)), memory.ref(),
                                               ctypes.byref(regs_in), 1 if innermost else 0,
                                               ctypes.byref(regs_out), ctypes.byref(reason))
    else:
        rc = library().jitunwind_step_range(arch, ctypes.byref(_range_struct(rng)), memory.ref(),
                                            ctypes.byref(regs_in), 1 if innermost else 0,
                                            ctypes.byref(regs_out), ctypes.byref(reason))
    if rc < 0:
        raise StepError(rc, reason.value)
    return regs_out.pc, regs_out.sp, regs_out.fp


def classify_trampoline(arch, code):
    rc = library().jitunwind_classify_trampoline(arch, bytes(code), len(code))
    return rc if rc > 0 else None
