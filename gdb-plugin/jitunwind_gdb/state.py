"""Per-inferior state: where the target's tables are, and the registry read
from them. Symbol addresses are resolved only at safe times (plugin load,
new objfiles, commands) because expression evaluation inside an unwinder
sniffer may recurse into unwinding. Refreshing the registry reads memory
only, so it is also allowed from the sniffer."""

import bisect
import re

import gdb

import jitunwind as ju

from .memory import GdbMemory

DESCRIPTOR_SYMBOL = "jitunwind_jit_descriptor"


def _symbol_address(name):
    """Address of a (minimal) symbol, or None."""
    try:
        return int(gdb.parse_and_eval("(unsigned long)&%s" % name))
    except gdb.error:
        return None


def _function_range(name):
    """(start, end) of a function's code, from gdb's debug info, or None."""
    addr = _symbol_address(name)
    if not addr:
        return None
    try:
        block = gdb.block_for_pc(addr)
        while block is not None and block.function is None:
            block = block.superblock
        return (block.start, block.end) if block is not None else None
    except RuntimeError:
        return None


def _core_file():
    """The core file gdb is reading, or None (a live process or nothing).
    GDB 13 has no Python API for it: `info files` names it."""
    try:
        text = gdb.execute("info files", to_string=True)
    except gdb.error:
        return None
    m = re.search(r"Local core dump file:\s*\n\s*`(.+?)', file type", text)
    return m.group(1) if m else None


def _file_of(addr):
    """The file (shared library or main program) that holds `addr`, or None."""
    try:
        return gdb.solib_name(addr) or gdb.current_progspace().filename
    except (gdb.error, AttributeError):
        return None


def arch_of(frame_or_pending):
    name = frame_or_pending.architecture().name()
    if "aarch64" in name:
        return ju.ARCH_AARCH64
    if "x86-64" in name or "x86_64" in name:
        return ju.ARCH_X86_64
    return None


class TargetState:
    def __init__(self, inferior):
        self.inferior = inferior
        self.memory = GdbMemory(inferior)
        self.registry = ju.Registry()
        self.starts = []
        self.ranges = []
        self.stamp = None          # stop counter the registry was read at
        self.descriptor_addr = None
        self.gdb_jit_addr = None
        self.eval_range = None
        self.runtime = None        # (runtime_addr, version_hex) or None
        self.runtime_module = None # the ELF file holding _PyRuntime (for its DWARF)
        self.core_path = None      # the core file being read, if any
        self.notes = []            # one-line messages about the last refresh
        self.arch = ju.ARCH_X86_64
        self._pyreader = None

    # --- symbol resolution (safe contexts only) ---
    def resolve_symbols(self):
        self.descriptor_addr = _symbol_address(DESCRIPTOR_SYMBOL)
        self.gdb_jit_addr = _symbol_address(ju.GDB_JIT_DESCRIPTOR_SYMBOL)
        self.eval_range = _function_range("_PyEval_EvalFrameDefault")
        runtime = _symbol_address("_PyRuntime")
        version_addr = _symbol_address("Py_Version")
        version = None
        if version_addr:
            try:
                version = int.from_bytes(self.memory.read(version_addr, 4), "little")
            except Exception:
                version = None
        if runtime and not version and self._is_live():
            try:  # no Py_Version symbol visible to gdb: ask the library (live only)
                loc = ju.locate_live(self.inferior.pid)
                version = loc.version_hex if loc.runtime_addr == runtime else None
            except ju.JitunwindError:
                version = None
        self.runtime = (runtime, version) if runtime else None
        self.runtime_module = _file_of(runtime) if runtime else None
        self.core_path = None if self._is_live() else _core_file()
        try:
            self.arch = arch_of(self.inferior) or ju.ARCH_X86_64
        except (AttributeError, gdb.error):
            pass  # no architecture yet: keep the default
        self._pyreader = None
        self.stamp = None

    # --- registry ---
    def refresh(self, stamp):
        if self.stamp == stamp:
            return
        self.stamp = stamp
        self.registry.clear()
        self._pyreader = None
        self.notes = ju.load_target_ranges(self.registry, self.memory, self.arch,
                                           self.descriptor_addr, self.inferior.pid,
                                           self.pyreader, self.gdb_jit_addr, self._is_live(),
                                           self.eval_range, self.core_path)
        self.ranges = self.registry.ranges()
        self.starts = [r.start for r in self.ranges]

    def _is_live(self):
        """A running process (not a core, whose pid may now be someone else's)."""
        try:
            connection = self.inferior.connection
            return connection is not None and connection.type == "native"
        except (AttributeError, gdb.error):
            return False

    def lookup(self, pc):
        i = bisect.bisect_right(self.starts, pc) - 1
        if i >= 0 and pc < self.ranges[i].end:
            return self.ranges[i]
        return None

    # --- Python ---
    def pyreader(self):
        """A PyReader, or raises JitunwindError/RuntimeError with one clear line."""
        if self._pyreader is not None:
            return self._pyreader
        if not self.runtime:
            raise RuntimeError("no CPython runtime (_PyRuntime) in this process")
        runtime, version = self.runtime
        if not version:
            raise RuntimeError("CPython version unknown (no Py_Version symbol)")
        self._pyreader = ju.PyReader(self.memory, runtime, version, self.runtime_module)
        return self._pyreader

    def python_frames(self, lwp):
        """(frames, error) of the thread whose OS id is `lwp`."""
        return self.pyreader().thread_frames(lwp)
