"""Target memory for the library, read through gdb (works for live
processes and core files alike, and sees through gdb's breakpoints)."""

import gdb

import jitunwind as ju


class GdbMemory(ju.Memory):
    def __init__(self, inferior):
        self._inferior = inferior
        super().__init__(self.read)

    def read(self, addr, size):
        try:
            return self._inferior.read_memory(addr, size).tobytes()
        except (gdb.MemoryError, gdb.error, OverflowError, ValueError):
            return None
