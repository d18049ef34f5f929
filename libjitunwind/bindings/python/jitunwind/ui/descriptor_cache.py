"""The jitunwind descriptor's ranges kept from one stop to the next.

Near the caps a descriptor holds about 400,000 ranges, and reading every
slot through the debugger takes seconds at each stop. The writer bumps the
descriptor's generation on every mutation and keeps its sequence word odd
while it mutates, and the slots and names it points to stay as they are
until the next mutation; so when the header (address, slot array,
capacity, count, generation, an even sequence word) is byte for byte the
one of the last read, that read's ranges are copied again by the library
instead. A memory write that changes slots and leaves the header alone is
not seen until `forget` (a debugger command that re-reads does that); a
target that does so deceives only its own debugger's view of its own code."""

from .read_ahead import read_ahead
from .. import Registry
from .._ffi import JIT_DESCRIPTOR_SEQ as SEQ_OFFSET
from .._ffi import JIT_DESCRIPTOR_SIZE as HEADER_SIZE


def _stable_header(memory, address):
    header = memory.read(address, HEADER_SIZE)
    if not header or len(header) != HEADER_SIZE or header[SEQ_OFFSET] & 1:
        return None  # unreadable, or a writer stopped mid-update
    return bytes(header)


class DescriptorCache:
    def __init__(self):
        self.forget()

    def forget(self):
        self._key = None
        self._ranges = None
        self._info = None

    def load(self, registry, memory, address):
        """Add the descriptor's ranges at `address` to `registry`; returns
        the read's info (Registry.load_descriptor's), raises as it does."""
        key = (address, _stable_header(memory, address))
        if key[1] is not None and key == self._key:
            registry.add_all(self._ranges)
            return self._info
        self.forget()
        ranges = Registry()
        info = ranges.load_descriptor(read_ahead(memory), address)
        registry.add_all(ranges)
        if key[1] is not None and not info.torn and _stable_header(memory, address) == key[1]:
            self._key, self._ranges, self._info = key, ranges, info
        return info
