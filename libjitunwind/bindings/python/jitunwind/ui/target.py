"""Per-stop state of a target, the same for every debugger.

A plugin gives a `TargetAdapter`: how its debugger finds symbols, which
file holds an address, whether the target is live or a core, and a memory
reader. `TargetState` then knows the registered ranges (re-read at most once
per stop), the Python reader and the thread -> thread-state map (built once
per stop, so `thread apply all py-bt` reads the thread list once)."""

import os

from .descriptor_cache import DescriptorCache
from .elf_ids import core_mismatch
from .read_ahead import read_ahead
from .. import (ARCH_X86_64, ENOTFOUND, EUNSUPPORTED, GDB_JIT_DESCRIPTOR_SYMBOL,
                JitunwindError, PyReader, Registry, debug_file_find, locate_live,
                set_debug_file_directories, values)

DESCRIPTOR_SYMBOL = "jitunwind_jit_descriptor"


def load_target_ranges(registry, memory, arch, descriptor_addr=None, pid=None, pyreader=None,
                       gdb_jit_addr=None, live=False, eval_range=None, core_path=None,
                       modules=None, descriptors=None):
    """Fill `registry` with every range a debugger can find in a target, in
    order of trust: the jitunwind descriptor, the GDB JIT interface (CPython
    3.15 executors), the perf map of `pid`, then the interpreter's own
    trampoline arenas (`pyreader`, a callable returning a PyReader or
    raising). If none of those gives a range and the process is `live`, the
    anonymous executable mappings (or, for a core, `core_path`'s executable
    segments that no file backs) are classified as a last resort: those
    ranges have origin "guess" and names starting with "guess:"; guessed JIT
    code is unwound by frame pointer or, failing that, by scanning for a
    return address into the eval loop (`eval_range`, its function's start
    and end; by default the reader's). With `modules` (the target's mapped files), a
    range that overlaps one is dropped as corrupt: JIT code and trampolines
    live in anonymous memory. With `descriptors` (a DescriptorCache), an
    unchanged descriptor's ranges are copied from the last read. Returns a
    list of one-line notes; never raises for a missing source."""
    notes = []
    if descriptor_addr:
        try:
            if descriptors is not None:
                info = descriptors.load(registry, memory, descriptor_addr)
            else:  # the target is stopped: its slots are read in blocks (read_ahead.py)
                info = registry.load_descriptor(read_ahead(memory), descriptor_addr)
            if info.torn:
                notes.append("descriptor was mid-update when the process stopped")
            if info.skipped:
                notes.append("%d invalid descriptor slots skipped" % info.skipped)
            if info.left_out:
                notes.append("%d descriptor ranges left out (past the memory cap, "
                             "JITUNWIND_JIT_MAX_BYTES)" % info.left_out)
        except JitunwindError as exc:
            notes.append("descriptor at %#x: %s" % (descriptor_addr, exc))
    if gdb_jit_addr and arch:
        try:
            _, skipped = registry.load_gdb_jit(memory, gdb_jit_addr, arch)
            if skipped:
                notes.append("GDB JIT interface: %d objects skipped" % skipped)
        except JitunwindError as exc:
            notes.append("GDB JIT interface at %#x: %s" % (gdb_jit_addr, exc))
    # CPython's -X perf writes a perf map, -X perf_jit a jitdump file.
    for name, load, unit in (("/tmp/perf-%d.map", registry.load_perf_map, "lines"),
                             ("/tmp/jit-%d.dump", registry.load_jitdump, "records")):
        path = name % pid if pid else None
        if not (path and arch and os.path.exists(path)):
            continue
        try:
            _, skipped = load(path, arch, memory)
            if skipped:
                missing = core_missing_bytes(core_path) if core_path else 0
                notes.append("%s: %d %s skipped%s" % (
                    path, skipped, unit, ": the core is truncated (%d bytes of memory missing), "
                    "so their code bytes are not in it" % missing if missing else ""))
        except JitunwindError as exc:
            notes.append("%s: %s" % (path, exc))
    if pyreader is not None and arch:
        try:
            pyreader().executor_ranges(registry, arch, eval_range)
            if pyreader().executor_ranges_note():
                notes.append("JIT executors: %s" % pyreader().executor_ranges_note())
        except JitunwindError as exc:
            if exc.code != EUNSUPPORTED:
                notes.append("JIT executors: %s" % exc)
        except RuntimeError:
            pass  # not a Python process
        try:
            pyreader().trampoline_ranges(registry, arch)
        except JitunwindError as exc:
            if exc.code not in (ENOTFOUND, EUNSUPPORTED):
                notes.append("trampoline arenas: %s" % exc)
        except RuntimeError:
            pass  # not a Python process
    if arch and len(registry) == 0 and ((live and pid) or core_path):
        try:
            guessed = registry.add_guesses(memory, arch, pid if live else None,
                                           None if live else core_path)
            if guessed:
                notes.append("no JIT metadata found: %d ranges GUESSED from anonymous "
                             "executable mappings" % guessed)
                eval_range = eval_range or _eval_function(pyreader)
                if eval_range and arch == ARCH_X86_64:
                    registry.scan_guesses(*eval_range)
        except JitunwindError as exc:
            notes.append("anonymous mappings: %s" % exc)
    if modules is not None and len(registry):
        dropped = registry.drop_over_modules(modules)
        if dropped:
            notes.append("%d ranges dropped: they overlap mapped files, so their metadata "
                         "is corrupt" % dropped)
    return notes


def _eval_function(pyreader):
    """(start, end) of _PyEval_EvalFrameDefault itself as the reader found
    it, or None."""
    try:
        return next(((s, e) for s, e, main in pyreader().eval_ranges() if main), None)
    except (JitunwindError, RuntimeError, TypeError):
        return None


def core_missing_bytes(path):
    """How many bytes of the memory segments an ELF core's program headers
    promise lie past the end of the file (a truncated core); 0 when none,
    or when the file cannot be read as a 64-bit little-endian ELF core."""
    import struct
    try:
        with open(path, "rb") as f:
            header = f.read(64)
            if len(header) < 64 or header[:4] != b"\x7fELF" or header[4] != 2 or header[5] != 1:
                return 0
            phoff, = struct.unpack_from("<Q", header, 32)
            phentsize, phnum = struct.unpack_from("<HH", header, 54)
            if phentsize < 56 or phnum > 65535:
                return 0
            f.seek(phoff)
            table = f.read(phentsize * phnum)
            size = os.fstat(f.fileno()).st_size
    except OSError:
        return 0
    missing = 0
    for i in range(len(table) // phentsize):
        p_type, _, p_offset, _, _, p_filesz = struct.unpack_from("<IIQQQQ", table, i * phentsize)
        if p_type == 1 and p_filesz:  # PT_LOAD
            missing += max(0, p_offset + p_filesz - max(size, p_offset))
    return missing


class TargetAdapter:
    """What a debugger tells the shared state about its target. Every method
    may be called only where the debugger allows symbol lookups (gdb: not
    inside an unwinder's sniffer), except `memory`, `pid` and `arch`."""

    memory = None  # a jitunwind.Memory reading the target

    def pid(self):
        raise NotImplementedError

    def arch(self):
        """ARCH_X86_64, ARCH_AARCH64 or None (unknown)."""
        raise NotImplementedError

    def is_live(self):
        """A running process (not a core, whose pid may now be someone else's)."""
        raise NotImplementedError

    def core_path(self):
        raise NotImplementedError

    def symbol_address(self, name):
        raise NotImplementedError

    def debug_file_directories(self):
        """Where the debugger looks for separate debug files (':'-separated,
        as gdb's debug-file-directory), or None for the library's default."""
        return None

    def file_of(self, addr):
        """The file (shared library or main program) holding `addr`, or None."""
        raise NotImplementedError

    def executable(self):
        """The main program's file the debugger was given, or None."""
        raise NotImplementedError


class PythonUnavailable(RuntimeError):
    """Why a target has no Python frames to show: one clear line."""


class TargetState:
    def __init__(self, adapter):
        self.adapter = adapter
        self.memory = adapter.memory
        self.registry = Registry()
        self._ranges = []
        self._descriptors = DescriptorCache()
        self.notes = []            # one-line messages about the last refresh
        self.arch = None
        self.descriptor_addr = None
        self.gdb_jit_addr = None
        self.debug_note = None     # separate debug files refused for the interpreter
        self.runtime = None        # (runtime address, PY_VERSION_HEX or None)
        self.runtime_module = None
        self.core_path = None
        self.live = False
        self._fresh = False
        self._version_problem = None
        self.mismatch = None       # why the core is not the executable's, or None
        self._forget_python()

    def _forget_python(self):
        self._pyreader = None
        self._pyerror = None
        self._reader_key = None
        self._forget_stop()

    def _forget_stop(self):
        """What one stop read (threads, frames). The reader stays: it keeps
        no target data between calls, and making it (the layout, checked
        against DWARF) costs more than a whole stack; one that could not be
        made is tried again."""
        if self._pyreader is None:
            self._pyerror = None
        else:
            self._pyreader.next_stop()
        self._thread_map = None
        self._thread_names = None  # OS thread id -> Python name
        self._frames_read = {}  # (OS thread id, limit) -> python_frames' answer

    # --- symbols (safe contexts only) ---
    def resolve(self):
        a = self.adapter
        self.live = a.is_live()
        self.arch = a.arch() or self.arch
        self.descriptor_addr = a.symbol_address(DESCRIPTOR_SYMBOL)
        self.gdb_jit_addr = a.symbol_address(GDB_JIT_DESCRIPTOR_SYMBOL)
        try:
            set_debug_file_directories(a.debug_file_directories())
        except JitunwindError:
            set_debug_file_directories(None)
        runtime = a.symbol_address("_PyRuntime")
        self.runtime = (runtime, self._python_version(runtime)) if runtime else None
        self.runtime_module = a.file_of(runtime) if runtime else None
        self.debug_note = (debug_file_find(self.runtime_module)[1] or None
                           if self.runtime_module else None)
        self.core_path = None if self.live else a.core_path()
        self.mismatch = core_mismatch(self.core_path, a.executable()) if self.core_path else None
        if self._reader_key != (self.runtime, self.runtime_module, self.mismatch):
            self._forget_python()
            self._reader_key = (self.runtime, self.runtime_module, self.mismatch)
        self.invalidate()

    def _python_version(self, runtime):
        version = None
        self._version_problem = "no Py_Version symbol"
        where = self.adapter.symbol_address("Py_Version")
        if where:
            data = self.memory.read(where, 4)
            version = int.from_bytes(data, "little") if data else None
            if not data:
                self._version_problem = "Py_Version at %#x is unreadable%s" % (where, (
                    ": the core does not hold it, or does not match the executable"
                    if not self.live else ""))
        if runtime and not version and self.live:
            try:  # no Py_Version the debugger can see: ask the library (live only)
                loc = locate_live(self.adapter.pid())
                version = loc.version_hex if loc.runtime_addr == runtime else None
            except JitunwindError:
                version = None
        return version

    # --- ranges (memory reads only: allowed anywhere) ---
    def invalidate(self, reread=False):
        """The target may have changed (a resume); `reread`: its memory may
        have been written (a command), so the descriptor is read whole again."""
        self._fresh = False
        if reread:
            self._descriptors.forget()

    def refresh(self):
        if self._fresh:
            return
        self._fresh = True
        self.registry.clear()
        self._forget_stop()
        self.notes = load_target_ranges(self.registry, self.memory, self.arch,
                                        self.descriptor_addr, self.adapter.pid(),
                                        self.pyreader, self.gdb_jit_addr, self.live,
                                        None, self.core_path,
                                        getattr(self, "modules", None), self._descriptors)
        self._ranges = None
        if self.debug_note:
            self.notes.append(self.debug_note)
        if self.mismatch:
            self.notes.insert(0, self.mismatch)
        elif self.runtime and self._pyreader is None and self._pyerror:
            self.notes.append(self._pyerror)

    @property
    def ranges(self):
        """The ranges as Python objects, made on first use after a refresh:
        near the caps that takes seconds, which a stop that needs none of
        them does not pay."""
        if self._ranges is None:
            self._ranges = self.registry.ranges()
        return self._ranges

    def lookup(self, pc):
        return self.registry.lookup(pc)

    # --- Python ---
    def pyreader(self):
        """The PyReader of this stop, or raises PythonUnavailable (one line)."""
        if self._pyreader is None and self._pyerror is None:
            self._pyerror = self._open_pyreader()
        if self._pyreader is None:
            raise PythonUnavailable(self._pyerror)
        return self._pyreader

    def _open_pyreader(self):
        """Opens the reader; returns None, or why there is none."""
        if self.mismatch:
            return self.mismatch
        if not self.runtime:
            return "no CPython runtime (_PyRuntime) in this process"
        runtime, version = self.runtime
        if not version:
            return "CPython version unknown (%s)" % self._version_problem
        try:
            self._pyreader = PyReader(self.memory, runtime, version, self.runtime_module)
            self._pyreader.keep_between_stops()
        except JitunwindError as exc:
            return exc.detail if exc.code == ENOTFOUND and exc.detail else str(exc)
        return None

    def python_warning(self):
        """A line to show with Python frames (an assumed layout), or None."""
        try:
            return self.pyreader().warning
        except (PythonUnavailable, JitunwindError):
            return None

    def _threads_by_os_id(self):
        """({OS thread id: [thread states]}, error), read once per stop: every
        thread state, with Python frames or not."""
        if self._thread_map is None:
            threads, err = self.pyreader().threads()
            by_id = {}
            for t in threads:
                by_id.setdefault(t.native_thread_id, []).append(t)
            self._thread_map = (by_id, err)
        return self._thread_map

    def python_thread_name(self, os_thread_id):
        """The Python name of an OS thread (its first thread state with
        one), or None; every thread's is read in one pass, once per stop."""
        if self._thread_names is None:
            by_id = self._threads_by_os_id()[0]
            states = [t for tid in by_id for t in by_id[tid]]
            names = values.thread_names(self.pyreader(), states)
            self._thread_names = {}
            for t, name in zip(states, names):
                if name:
                    self._thread_names.setdefault(t.native_thread_id, name)
        return self._thread_names.get(os_thread_id)

    def python_thread_states(self, os_thread_id):
        """The thread states (jitunwind.PyThread) of one OS thread, one per
        interpreter it entered; [] when it has none."""
        return list(self._threads_by_os_id()[0].get(os_thread_id, ()))

    def python_frames(self, os_thread_id, limit=None):
        """(frames, error) of the thread whose OS id (LWP, tid) is given,
        innermost first; ([], None) when it runs no Python code. A thread
        that entered subinterpreters has a thread state in each; their chains
        are joined in interpreter-list order (newest first). Raises
        PythonUnavailable when the target has no readable Python."""
        key = (os_thread_id, limit)
        if key not in self._frames_read:
            self._frames_read[key] = self._read_python_frames(os_thread_id, limit)
        frames, err = self._frames_read[key]
        return list(frames), err

    def _read_python_frames(self, os_thread_id, limit):
        """A thread the listing found gets its chains' error only: the
        listing's error (a thread list cut short) is said for a thread it
        did not find, which may be one of those it missed."""
        by_id, list_err = self._threads_by_os_id()
        reader = self.pyreader()
        frames, err = [], None
        states = by_id.get(os_thread_id, ())
        for t in states:
            if not t.current_frame:
                continue
            chain, chain_err = reader.frames(t.current_frame, limit, thread_key=t.tstate)
            frames += chain
            err = err or chain_err
        return frames, (err if states else list_err)
