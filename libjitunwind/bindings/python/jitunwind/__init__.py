"""The one Python binding of libjitunwind, shared by the GDB and LLDB plugins.

All unwinding and decoding logic lives in the C library; this module only
converts between Python values and the C structs. Failures raise
JitunwindError, which carries the library's status code and message.
"""

import ctypes
import collections

from . import _ffi
from ._ffi import text as _text

ARCH_X86_64 = 1
ARCH_AARCH64 = 2

KIND_JIT, KIND_TRAMPOLINE, KIND_OTHER = 1, 2, 3
RULE_FP_PRESERVING, RULE_TRAMPOLINE_FRAMED, RULE_TRAMPOLINE_SUB8, RULE_SCAN = 1, 2, 3, 4
ORIGIN_USER, ORIGIN_DESCRIPTOR, ORIGIN_PERF_MAP, ORIGIN_INTERPRETER, ORIGIN_GUESS = range(5)

KIND_NAMES = {KIND_JIT: "jit", KIND_TRAMPOLINE: "trampoline", KIND_OTHER: "other"}
RULE_NAMES = {RULE_FP_PRESERVING: "fp-preserving", RULE_TRAMPOLINE_FRAMED: "framed",
              RULE_TRAMPOLINE_SUB8: "sub8", RULE_SCAN: "fp-or-scan"}
ORIGIN_NAMES = {ORIGIN_USER: "user", ORIGIN_DESCRIPTOR: "descriptor",
                ORIGIN_PERF_MAP: "perf-map", ORIGIN_INTERPRETER: "interpreter",
                ORIGIN_GUESS: "guess"}

REG_PC, REG_SP, REG_FP, REG_LR = 1, 2, 4, 8

PYFRAME_ENTRY = 1 << 0
PYFRAME_GENERATOR = 1 << 1
PYFRAME_SHIM = 1 << 2
PYFRAME_NAME_TRUNCATED = 1 << 3
PYFRAME_NO_LINE = 1 << 4
PYFRAME_LINE_MAY_LAG = 1 << 5
PYFRAME_BAD_CODE = 1 << 6
PYFRAME_IN_JIT = 1 << 7
PYREADER_ASSUME_LAYOUT = 1 << 0
PYEXEC_DELETED = 1 << 0
PYEXEC_COLD_EXIT = 1 << 1
PYEXEC_NO_CODE = 1 << 2

ROLE_OTHER, ROLE_EVAL, ROLE_JIT, ROLE_TRAMPOLINE = 0, 1, 2, 3
MIXED_NATIVE, MIXED_PYTHON = 1, 2
NO_ANCHOR = 0xFFFFFFFF
MIXED_LINE_MAY_LAG = 1 << 0

PY_MAX_FRAMES = 65536  # JITUNWIND_PY_MAX_FRAMES: the longest chain the library walks

EREAD = -3
ENOTFOUND = -5
EUNSUPPORTED = -13

_lib = None


def library():
    """The loaded C library (loaded on first use)."""
    global _lib
    if _lib is None:
        _lib = _ffi.load_library()
    return _lib


def load_notes():
    """One-line notes about how the library was found (a JITUNWIND_LIBRARY
    passed over, functions an older library lacks), for a plugin to print
    once at load."""
    return list(getattr(library(), "jitunwind_load_notes", ()))


class JitunwindError(Exception):
    def __init__(self, code, detail=""):
        self.code = code
        text = library().jitunwind_strerror(code).decode()
        self.detail = detail
        super().__init__("%s: %s" % (text, detail) if detail else text)


def _error_detail(err_ptr):
    if not err_ptr:
        return ""
    return _text(err_ptr.contents.message)


def stop_reason_string(reason):
    return _text(library().jitunwind_stop_reason_string(reason))


def frame_source_string(source):
    return _text(library().jitunwind_frame_source_string(source))


def host_arch():
    return library().jitunwind_host_arch()


def lookup_address(arch, pc, innermost):
    """The address to look a frame's code up at (jitunwind_lookup_address):
    a caller's pc is a return address, moved back into its call."""
    return library().jitunwind_lookup_address(arch or 0, pc, 1 if innermost else 0)


def version():
    return _text(library().jitunwind_version_string())


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


class _Owned:
    """A library handle, made by `_create`, freed with the function named by
    _FREE when the object goes (never raising from a finaliser); `_check`
    raises with the detail of the function named by _LAST_ERROR."""
    _FREE = None
    _LAST_ERROR = None
    _handle = None

    def _create(self, new, *args, detail=""):
        self._lib = library()
        self._handle = ctypes.c_void_p()
        rc = getattr(self._lib, new)(ctypes.byref(self._handle), *args)
        if rc < 0:
            if self._handle:  # a library that hands back a handle on failure
                getattr(self._lib, self._FREE)(self._handle)
            self._handle = ctypes.c_void_p()
            raise JitunwindError(rc, detail)

    def _check(self, rc):
        if rc < 0:
            raise JitunwindError(rc, _error_detail(getattr(self._lib, self._LAST_ERROR)(self._handle)))
        return rc

    def __del__(self):
        try:
            if self._handle:
                getattr(self._lib, self._FREE)(self._handle)
        except Exception:
            pass


RangeInfo = collections.namedtuple(
    "RangeInfo", "start end kind rule stride origin cookie name scan_start scan_end frame_size",
    defaults=(0, 0, 0))


def _range_info(r):
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


def text_escape(text):
    """`text` (a str, or bytes) as jitunwind_text_escape shows it: controls,
    characters repr() would not print and bytes that are not UTF-8 escaped."""
    if isinstance(text, str):
        try:
            text = text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # other lone surrogates: not UTF-8, escaped as bytes
            text = text.encode("utf-8", "surrogatepass")
    text = text.replace(b"\0", b"\\x00")
    buf = ctypes.create_string_buffer(4 * len(text) + 1)
    try:
        library().jitunwind_text_escape(text, buf, len(buf))
    except OSError:  # a library without it: Python's own repr() escapes, never raw text
        return repr(text.decode("utf-8", "surrogateescape"))[1:-1]
    return buf.value.decode("utf-8", "replace")


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


class Registry(_Owned):
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

    def __len__(self):
        return self._lib.jitunwind_registry_count(self._handle)

    def lookup(self, pc):
        p = self._lib.jitunwind_registry_lookup(self._handle, pc)
        return _range_info(p.contents) if p else None

    def ranges(self):
        out = []
        for i in range(len(self)):
            p = self._lib.jitunwind_registry_at(self._handle, i)
            if p:
                out.append(_range_info(p.contents))
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


class Modules(_Owned):
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
        rng = _range_info(f.range.contents) if f.range else None
        out.append(NativeFrame(f.regs.pc, f.regs.sp, f.regs.fp, frame_source_string(f.source), rng))
    return out, stop_reason_string(stop.value)


def classify_trampoline(arch, code):
    rc = library().jitunwind_classify_trampoline(arch, bytes(code), len(code))
    return rc if rc > 0 else None


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


class DwarfTypes(_Owned):
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


class PyReader(_Owned):
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
            detail = _error_detail(self._lib.jitunwind_last_error())
            raise JitunwindError(rc, detail or "CPython %s" % version_text(version_hex))

    def _detail(self):
        return _error_detail(self._lib.jitunwind_pyreader_last_error(self._handle))

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
        chains = self._lib.jitunwind_py_chains_new(threads, frames)
        if chains:
            self._chains = _ChainCache(self._lib, chains)
        return bool(chains)

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
