"""One pass over a stopped target's memory, its small reads served from
64 KiB blocks each read once through the debugger: the library reads the
jitunwind descriptor a slot at a time, and one debugger call per slot made
that pass the bulk of a refresh (100,000 ranges: 100,000 calls, about 3 s
on LLDB). Only for one pass, the target stopped: it may change when it
runs again."""

from .. import Memory

BLOCK = 1 << 16
MAX_BLOCKS = 512  # 32 MiB held at most: then they are dropped and read again


class ReadAhead(Memory):
    """`memory` (anything with `read(addr, size)`), read in blocks. A read
    that crosses a block, or falls in a block that cannot be read whole
    (the end of a mapping), goes to `memory` as asked."""

    def __init__(self, memory):
        self._under = memory
        self._blocks = {}
        super().__init__(self.read)

    def read(self, addr, size):
        base = addr & ~(BLOCK - 1)
        if size > BLOCK or addr + size > base + BLOCK:
            return self._under.read(addr, size)
        if base not in self._blocks:
            if len(self._blocks) >= MAX_BLOCKS:
                self._blocks.clear()
            self._blocks[base] = self._under.read(base, BLOCK)
        block = self._blocks[base]
        if block is None:
            return self._under.read(addr, size)
        return block[addr - base:addr - base + size]


def read_ahead(memory):
    """`memory` read in blocks for one pass, or itself when it is one of the
    library's own readers (no Python read to batch)."""
    return ReadAhead(memory) if callable(getattr(memory, "read", None)) else memory
