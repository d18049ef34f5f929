"""LLDB's side of the shared target state (jitunwind.ui.target): symbols,
modules and memory of a process, and the native modules the library's
walk needs for CFI. One state per stop (keyed by the process's stop id);
commands re-read the ranges, so a memory write between two commands
(`expression`, `memory write`) is seen."""

import os
import re

import lldb

import jitunwind as ju
from jitunwind.ui.memory import DebuggerMemory
from jitunwind.ui.target import TargetAdapter, TargetState

_cache = {}


def arch_of(target):
    triple = target.GetTriple() or ""
    if triple.startswith("aarch64") or triple.startswith("arm64"):
        return ju.ARCH_AARCH64
    if triple.startswith("x86_64"):
        return ju.ARCH_X86_64
    return None


class LldbTarget(TargetAdapter):
    def __init__(self, process):
        self.process = process
        self.target = process.GetTarget()
        # For a core, read-only file-backed data (names, type objects) is not
        # in the core: fall back to the target's object files.
        self.memory = DebuggerMemory(self._read_process, self._read_files)

    def _read_process(self, addr, size):
        err = lldb.SBError()
        data = self.process.ReadMemory(addr, size, err)
        return data if err.Success() else None

    def _read_files(self, addr, size):
        address = self.target.ResolveLoadAddress(addr)
        if not address.GetModule().IsValid():
            return None
        err = lldb.SBError()
        data = self.target.ReadMemory(address, size, err)
        if err.Success():
            return data
        # LLDB 22+ reads a core's target memory from the core only: read the
        # bytes the section has in its file (never a .bss: no file bytes).
        section, offset = address.GetSection(), address.GetOffset()
        if not section.IsValid() or offset + size > section.GetFileByteSize():
            return None
        err = lldb.SBError()
        data = section.GetSectionData(offset, size).ReadRawData(err, 0, size)
        return data if err.Success() and data is not None and len(data) == size else None

    def pid(self):
        """The target's OS process id (names /tmp/perf-PID.map). A remote stub
        may report a made-up pid (qemu-user says 1); on Linux the first
        thread's id is the process id, so that is used for a gdb-remote process."""
        pid = self.process.GetProcessID()
        if self.process.GetPluginName() != "gdb-remote" or self.process.GetNumThreads() == 0:
            return pid
        return self.process.GetThreadAtIndex(0).GetThreadID() or pid

    def arch(self):
        return arch_of(self.target)

    def is_live(self):
        return self.process.GetPluginName() != "elf-core"

    def core_path(self):
        if self.process.GetPluginName() != "elf-core" or not hasattr(self.process, "GetCoreFile"):
            return None
        spec = self.process.GetCoreFile()
        return spec.fullpath if spec and spec.IsValid() and spec.fullpath else None

    def _symbols(self, name):
        for ctx in self.target.FindSymbols(name):
            sym = ctx.GetSymbol()
            if sym.IsValid():
                yield sym

    def symbol_address(self, name):
        for sym in self._symbols(name):
            addr = sym.GetStartAddress().GetLoadAddress(self.target)
            if addr != lldb.LLDB_INVALID_ADDRESS:
                return addr
        return None

    def debug_file_directories(self):
        """LLDB's target.debug-file-search-paths, then the default root."""
        return ":".join(search_paths(self.target.GetDebugger()) + [ju.DEBUG_ROOT_DEFAULT])

    def executable(self):
        spec = self.target.GetExecutable()
        return spec.fullpath if spec and spec.IsValid() and spec.fullpath else None

    def file_of(self, addr):
        module = lldb.SBAddress(addr, self.target).GetModule()
        if not module or not module.IsValid():
            return None
        spec = module.GetFileSpec()
        return spec.fullpath if spec and spec.fullpath else None


SETTING = "target.debug-file-search-paths"


def search_paths(debugger):
    """The entries of target.debug-file-search-paths. LLDB 22+ gives the
    list as structured data; LLDB 19 only as text, `  [0]: /a  [1]: /b`."""
    try:
        data = debugger.GetSetting(SETTING) if hasattr(debugger, "GetSetting") else None
        if data is not None and data.GetType() == lldb.eStructuredDataTypeArray:
            return [data.GetItemAtIndex(i).GetStringValue(4096) for i in range(data.GetSize())]
        text = debugger.GetInternalVariableValue(SETTING, debugger.GetInstanceName())
        joined = "".join(text.GetStringAtIndex(i) for i in range(text.GetSize()))
        return [p.strip() for p in re.split(r"\s*\[\d+\]: ", joined) if p.strip()]
    except Exception:  # an LLDB without either: the default root only
        return []


class LldbState(TargetState):
    """The shared state plus the native modules (for the library's CFI walk)."""

    def __init__(self, process):
        super().__init__(LldbTarget(process))
        self.target = process.GetTarget()
        self.modules = ju.Modules()
        self._load_modules()

    def _load_modules(self):
        """Mappings from LLDB's modules: each loaded segment with its file
        offset. The plugin's own ELF images of the JIT ranges (marked by a
        `.jitunwind` section) are not mapped files: they would claim the
        ranges they describe."""
        for module in self.target.module_iter():
            path = module.GetFileSpec().fullpath
            if not path or not os.path.exists(path) or module.FindSection(".jitunwind").IsValid():
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


def _modules_signature(target):
    """Which files are loaded where: a state is made again when it changes.
    The plugin's own images of the ranges (a `.jitunwind` section) do not
    count: they follow the ranges, and a new state would read every range
    again at the stop after each new image."""
    return tuple((m.GetFileSpec().fullpath, m.GetObjectFileHeaderAddress().GetLoadAddress(target))
                 for m in target.module_iter() if not m.FindSection(".jitunwind").IsValid())


def state_for(process, fresh=False):
    """The state of the current stop of `process`; `fresh`: re-read the
    ranges (a command: the user may have written memory since the stop).
    A state is kept from stop to stop while the same files are loaded at the
    same places (its symbols, modules and Python reader hold); its ranges and
    Python threads are read again at each stop."""
    key = (process.GetProcessID(), process.GetUniqueID())
    stop_id = process.GetStopID()
    # The files and the architecture are checked at every call: a stop hook
    # may run before LLDB has them all (an attach), and the same stop then
    # goes on with them.
    target = process.GetTarget()
    modules = (arch_of(target), _modules_signature(target))
    cached = _cache.get(key)
    if cached and cached[1] == modules and modules[0] is not None:
        state = cached[2]
        if fresh or cached[0] != stop_id:
            state.invalidate(reread=fresh)
    else:
        state = LldbState(process)
        state.resolve()
    _cache[key] = (stop_id, modules, state)
    state.refresh()
    return state
