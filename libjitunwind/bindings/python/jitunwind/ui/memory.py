"""Target memory read through a debugger, for the library."""

from .. import Memory


class DebuggerMemory(Memory):
    """Reads with `read(addr, size)` (bytes, or None / any exception when
    unreadable); when that fails, with each of `fallbacks` in turn (LLDB on a
    core: file-backed data the core does not hold is read from the object
    files). A short read counts as a failure."""

    def __init__(self, read, *fallbacks):
        self._readers = (read,) + fallbacks
        super().__init__(self.read)

    def read(self, addr, size):
        for reader in self._readers:
            try:
                data = reader(addr, size)
            except Exception:  # the debugger's own error for unreadable memory
                data = None
            if data is not None and len(data) == size:
                return bytes(data)
        return None
