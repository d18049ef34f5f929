"""gdb's side of the shared target state (jitunwind.ui.target): symbols,
files and memory of an inferior. Symbol addresses are resolved only at safe
times (plugin load, new objfiles, commands) because expression evaluation
inside an unwinder sniffer may recurse into unwinding; refreshing the
registry reads memory only, so it is also allowed from the sniffer."""

import re

import gdb

import jitunwind as ju
from jitunwind.ui.memory import DebuggerMemory
from jitunwind.ui.target import TargetAdapter, TargetState


def _symbol_address(name):
    """Address of a (minimal) symbol, or None."""
    try:
        return int(gdb.parse_and_eval("(unsigned long)&%s" % name))
    except gdb.error:
        return None


def arch_of(frame_or_inferior):
    name = frame_or_inferior.architecture().name()
    if "aarch64" in name:
        return ju.ARCH_AARCH64
    if "x86-64" in name or "x86_64" in name:
        return ju.ARCH_X86_64
    return None


class GdbTarget(TargetAdapter):
    def __init__(self, inferior):
        self.inferior = inferior
        self.memory = DebuggerMemory(lambda addr, size: inferior.read_memory(addr, size).tobytes())

    def pid(self):
        """The target's OS process id (names /tmp/perf-PID.map). A remote stub
        may report a made-up pid (qemu-user says 1); on Linux the first
        thread's id is the process id, so that is used when they differ."""
        pid = self.inferior.pid
        try:
            if self.inferior.connection is None or self.inferior.connection.type == "native":
                return pid
            threads = sorted(self.inferior.threads(), key=lambda t: t.num)
        except (AttributeError, gdb.error):
            return pid
        return threads[0].ptid[1] if threads and threads[0].ptid[1] > 0 else pid

    def arch(self):
        try:
            return arch_of(self.inferior) or ju.ARCH_X86_64
        except (AttributeError, gdb.error):
            return ju.ARCH_X86_64  # no architecture yet

    def is_live(self):
        try:
            connection = self.inferior.connection
            return connection is not None and connection.type == "native"
        except (AttributeError, gdb.error):
            return False

    def core_path(self):
        """GDB 13 has no Python API for it: `info files` names it."""
        try:
            text = gdb.execute("info files", to_string=True)
        except gdb.error:
            return None
        m = re.search(r"Local core dump file:\s*\n\s*`(.+?)', file type", text)
        return m.group(1) if m else None

    def symbol_address(self, name):
        return _symbol_address(name)

    def debug_file_directories(self):
        try:
            return gdb.parameter("debug-file-directory")
        except (gdb.error, RuntimeError):
            return None

    def executable(self):
        try:
            return gdb.current_progspace().filename
        except (gdb.error, AttributeError):
            return None

    def file_of(self, addr):
        try:
            return gdb.solib_name(addr) or gdb.current_progspace().filename
        except (gdb.error, AttributeError):
            return None


def new_state(inferior):
    return TargetState(GdbTarget(inferior))
