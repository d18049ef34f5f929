"""What the library needs from an LLDB process: memory, the range registry,
the native modules (for CFI) and the Python runtime. Rebuilt once per stop
(keyed by the process's stop id)."""

import os

import lldb

import jitunwind as ju

DESCRIPTOR_SYMBOL = "jitunwind_jit_descriptor"
_cache = {}


def _symbol_load_address(target, name):
    for ctx in target.FindSymbols(name):
        sym = ctx.GetSymbol()
        if sym.IsValid():
            addr = sym.GetStartAddress().GetLoadAddress(target)
            if addr != lldb.LLDB_INVALID_ADDRESS:
                return addr
    return None


def _module_file_of(target, addr):
    """Path of the module holding load address `addr`, or None."""
    module = lldb.SBAddress(addr, target).GetModule()
    if not module or not module.IsValid():
        return None
    spec = module.GetFileSpec()
    return spec.fullpath if spec and spec.fullpath else None


def _core_file(process):
    """Path of the core file `process` was loaded from, or None."""
    if process.GetPluginName() != "elf-core" or not hasattr(process, "GetCoreFile"):
        return None
    spec = process.GetCoreFile()
    return spec.fullpath if spec and spec.IsValid() and spec.fullpath else None


def _function_range(target, name):
    for ctx in target.FindSymbols(name):
        sym = ctx.GetSymbol()
        if sym.IsValid():
            start = sym.GetStartAddress().GetLoadAddress(target)
            end = sym.GetEndAddress().GetLoadAddress(target)
            if lldb.LLDB_INVALID_ADDRESS not in (start, end) and end > start:
                return (start, end)
    return None


def arch_of(target):
    triple = target.GetTriple() or ""
    if triple.startswith("aarch64") or triple.startswith("arm64"):
        return ju.ARCH_AARCH64
    if triple.startswith("x86_64"):
        return ju.ARCH_X86_64
    return None


class LldbMemory(ju.Memory):
    """Process memory; for a core, read-only file-backed data (names, type
    objects) is not in the core, so fall back to the target's object files."""

    def __init__(self, process):
        self._process = process
        self._target = process.GetTarget()
        super().__init__(self.read)

    def read(self, addr, size):
        err = lldb.SBError()
        data = self._process.ReadMemory(addr, size, err)
        if err.Success() and data is not None and len(data) == size:
            return data
        address = self._target.ResolveLoadAddress(addr)
        if not address.GetModule().IsValid():
            return None
        err = lldb.SBError()
        data = self._target.ReadMemory(address, size, err)
        return data if err.Success() and data is not None and len(data) == size else None


class TargetState:
    def __init__(self, target, process):
        self.target = target
        self.process = process
        self.arch = arch_of(target)
        self.memory = LldbMemory(process)
        self._pyreader = None
        self._pyerror = None
        self.registry = ju.Registry()
        self.notes = ju.load_target_ranges(self.registry, self.memory, self.arch,
                                           _symbol_load_address(target, DESCRIPTOR_SYMBOL),
                                           process.GetProcessID(), self.pyreader,
                                           _symbol_load_address(target, ju.GDB_JIT_DESCRIPTOR_SYMBOL),
                                           process.GetPluginName() != "elf-core",
                                           _function_range(target, "_PyEval_EvalFrameDefault"),
                                           _core_file(process))
        self.modules = ju.Modules()
        self._load_modules()

    def _load_modules(self):
        """Mappings from LLDB's modules: each loaded segment with its file offset."""
        for module in self.target.module_iter():
            path = module.GetFileSpec().fullpath
            if not path or not os.path.exists(path):
                continue
            for section in module.section_iter():
                load = section.GetLoadAddress(self.target)
                size = section.GetByteSize()
                if load == lldb.LLDB_INVALID_ADDRESS or size == 0:
                    continue
                try:
                    self.modules.add_mapping(path, load, load + size, section.GetFileOffset())
                except ju.JitunwindError:
                    pass

    def pyreader(self):
        if self._pyreader is None and self._pyerror is None:
            runtime = _symbol_load_address(self.target, "_PyRuntime")
            version_addr = _symbol_load_address(self.target, "Py_Version")
            if not runtime:
                self._pyerror = "no CPython runtime (_PyRuntime) in this process"
            else:
                version = None
                if version_addr:
                    err = lldb.SBError()
                    data = self.target.ReadMemory(lldb.SBAddress(version_addr, self.target), 4, err)
                    if err.Success() and data:
                        version = int.from_bytes(data, "little")
                if not version:
                    self._pyerror = "CPython version unknown (no Py_Version symbol)"
                else:
                    try:
                        self._pyreader = ju.PyReader(self.memory, runtime, version,
                                                     _module_file_of(self.target, runtime))
                    except ju.JitunwindError as exc:
                        self._pyerror = str(exc)
        if self._pyreader is None:
            raise RuntimeError(self._pyerror)
        return self._pyreader

    def python_frames(self, tid):
        """(frames, error) of the thread whose OS id is `tid`."""
        return self.pyreader().thread_frames(tid)

    def python_warning(self):
        """A line to show with Python frames (an assumed layout), or None."""
        try:
            return self.pyreader().warning
        except (RuntimeError, ju.JitunwindError):
            return None


def state_for(process):
    """The TargetState of the current stop of `process` (cached per stop)."""
    key = (process.GetProcessID(), process.GetUniqueID())
    stop_id = process.GetStopID()
    cached = _cache.get(key)
    if cached and cached[0] == stop_id:
        return cached[1]
    state = TargetState(process.GetTarget(), process)
    _cache[key] = (stop_id, state)
    return state
