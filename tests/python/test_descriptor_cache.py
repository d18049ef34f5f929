#!/usr/bin/env python3
"""A debugger's state reads the jitunwind descriptor whole only when it
changed (jitunwind.ui's DescriptorCache, used by TargetState): on this
process's own descriptor of RANGES ranges, a second refresh with nothing
changed reads only the header and has the same ranges; a range registered
or unregistered between two refreshes is seen; a refresh that may follow a
memory write (`invalidate(reread=True)`) reads it whole; a descriptor whose
writer is mid-update (odd sequence word) is never taken from the last read.

Usage: test_descriptor_cache.py REPO_DIR BUILD_DIR   Exit 0 on success, 1 on failure."""

import ctypes
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from own_descriptor import BASE, fail, from_argv  # noqa: E402

RANGES = 5000


def main():
    own = from_argv(__doc__)
    jitunwind = own.ju
    from jitunwind.ui.memory import DebuggerMemory
    from jitunwind.ui.target import TargetAdapter, TargetState

    def register(i):
        ident = own.register(i)
        if ident is None:
            fail("jitunwind_jit_register failed at range %d" % i)
        return ident

    for i in range(RANGES):
        register(i)
    descriptor = own.address
    bytes_read = [0]
    odd_seq = [False]

    def read(addr, size):
        bytes_read[0] += size
        data = bytearray(ctypes.string_at(addr, size))
        if odd_seq[0] and addr <= descriptor + 16 < addr + size:
            data[descriptor + 16 - addr] |= 1
        return bytes(data)

    class Adapter(TargetAdapter):
        memory = DebuggerMemory(read)

        def pid(self):
            return None

        def arch(self):
            return jitunwind.ARCH_X86_64

        def is_live(self):
            return True

        def core_path(self):
            return None

        def symbol_address(self, name):
            return descriptor if name == "jitunwind_jit_descriptor" else None

        def debug_file_directories(self):
            return ""

        def executable(self):
            return None

        def file_of(self, addr):
            return None

    state = TargetState(Adapter())
    state.resolve()

    def refresh(reread=False):
        if reread:
            state.invalidate(reread=True)
        else:
            state.invalidate()
        bytes_read[0] = 0
        state.refresh()
        return len(state.registry), tuple(state.registry.ranges()), bytes_read[0]

    count, ranges, whole = refresh()
    if count != RANGES or whole < RANGES * 16:
        fail("the first refresh has %d ranges after reading %d bytes" % (count, whole))
    again = refresh()
    if again[:2] != (count, ranges) or again[2] > 64:
        fail("a refresh with nothing changed has %d ranges (%s) after reading %d bytes"
             % (again[0], "the same" if again[1] == ranges else "others", again[2]))
    if state.lookup(BASE + 16 * 7).name != "jit:r7" or len(state.ranges) != RANGES:
        fail("the ranges taken from the last read are not the descriptor's")
    print("ok: a refresh with nothing changed reads %d bytes (%d the first time) and has the "
          "same %d ranges" % (again[2], whole, count))
    added = register(RANGES)
    grown = refresh()
    if grown[0] != RANGES + 1 or state.lookup(BASE + 16 * RANGES).name != "jit:r%d" % RANGES:
        fail("a range registered between two refreshes is not seen (%d ranges)" % grown[0])
    own.unregister(added)
    shrunk = refresh()
    if shrunk[:2] != (count, ranges) or state.lookup(BASE + 16 * RANGES) is not None:
        fail("a range unregistered between two refreshes is still there (%d)" % shrunk[0])
    print("ok: a range registered, then unregistered, between two refreshes is seen")
    if refresh(reread=True)[2] < RANGES * 16:
        fail("a refresh after a possible memory write did not read the descriptor whole")
    print("ok: a refresh after a possible memory write reads the descriptor whole")
    odd_seq[0] = True
    for attempt in range(2):
        torn = refresh()
        if torn[2] < RANGES * 16:
            fail("a descriptor mid-update was taken from the last read (%d bytes read)" % torn[2])
    print("ok: a descriptor mid-update is read whole at every refresh")
    return 0


if __name__ == "__main__":
    sys.exit(main())
