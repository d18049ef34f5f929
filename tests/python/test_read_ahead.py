#!/usr/bin/env python3
"""A debugger's pass over the jitunwind descriptor (jitunwind.ui's
load_target_ranges) reads the target in blocks, not a debugger call per
slot: on this process's own descriptor of RANGES registered ranges, the
same ranges are found with far fewer reads of the memory, and a small read
in a block that cannot be read whole (the end of a mapping) still succeeds.

Usage: test_read_ahead.py REPO_DIR BUILD_DIR      Exit 0 on success, 1 on failure."""

import ctypes
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from own_descriptor import fail, from_argv  # noqa: E402

RANGES = 5000


def main():
    own = from_argv(__doc__)
    jitunwind = own.ju
    from jitunwind.ui.memory import DebuggerMemory
    from jitunwind.ui.read_ahead import BLOCK, ReadAhead
    from jitunwind.ui.target import load_target_ranges
    for i in range(RANGES):
        if own.register(i) is None:
            fail("jitunwind_jit_register failed at range %d" % i)
    descriptor = own.address
    calls = [0]

    def read(addr, size):
        calls[0] += 1
        return ctypes.string_at(addr, size)

    registry = jitunwind.Registry()
    load_target_ranges(registry, DebuggerMemory(read), jitunwind.ARCH_X86_64, descriptor)
    ranges = registry.ranges()
    names = {r.name for r in ranges}
    if len(ranges) != RANGES or "jit:r0" not in names or "jit:r%d" % (RANGES - 1) not in names:
        fail("%d ranges read back of %d" % (len(ranges), RANGES))
    if calls[0] > RANGES // 10:
        fail("%d reads of the target for %d ranges: not read in blocks" % (calls[0], RANGES))
    print("ok: %d ranges read back in %d reads of the target" % (RANGES, calls[0]))

    # A block that cannot be read whole: its small reads go to the memory as asked.
    data = bytes(range(256)) * 16
    start = 5 * BLOCK + BLOCK - len(data)

    def partial(addr, size):
        return data[addr - start:addr - start + size] if start <= addr and \
            addr + size <= start + len(data) else None

    ahead = ReadAhead(DebuggerMemory(partial))
    if ahead.read(start + 100, 8) != data[100:108] or ahead.read(start - 8, 8) is not None:
        fail("a block that cannot be read whole: %r" % ahead.read(start + 100, 8))
    print("ok: reads within a block cut short by unreadable memory are read as asked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
