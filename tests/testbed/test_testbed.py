"""In-process checks of the test bed: the JIT executors and trampolines are
real machine code with the properties the unwind rules rely on.

Usage: python3.11 test_testbed.py TESTBED_DIR  (with TESTBED_DIR on sys.path)
"""
import ctypes
import gc
import os
import re
import sys
import unittest

sys.path.insert(0, sys.argv.pop(1) if len(sys.argv) > 1 else ".")
import _jitbed  # noqa: E402

SUB8 = bytes.fromhex("4883ec08ffd14883c408c3")
FRAMED = bytes.fromhex("554889e5ffd15dc3")


def mappings():
    out = []
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split()
            start, end = (int(x, 16) for x in parts[0].split("-"))
            out.append((start, end, parts[1], parts[5] if len(parts) > 5 else ""))
    return out


def mapping_of(addr):
    for m in mappings():
        if m[0] <= addr < m[1]:
            return m
    return None


def jitunwind_lib():
    for m in mappings():
        if "libjitunwind.so" in m[3]:
            return ctypes.CDLL(m[3])
    raise AssertionError("libjitunwind is not loaded by _jitbed")


class Descriptor(ctypes.Structure):
    _fields_ = [("magic", ctypes.c_char * 8), ("version", ctypes.c_uint32),
                ("entry_size", ctypes.c_uint32), ("seq", ctypes.c_uint64),
                ("entries", ctypes.c_uint64), ("capacity", ctypes.c_uint64),
                ("count", ctypes.c_uint64), ("generation", ctypes.c_uint64)]


def descriptor():
    return Descriptor.in_dll(jitunwind_lib(), "jitunwind_jit_descriptor")


class Executors(unittest.TestCase):
    def test_result_and_exceptions_propagate(self):
        ex = _jitbed.compile(lambda: 41 + 1)
        self.assertEqual(ex(), 42)

        def boom():
            raise KeyError("x")
        with self.assertRaises(KeyError):
            _jitbed.compile(boom)()
        with self.assertRaises(TypeError):
            _jitbed.compile(42)
        with self.assertRaises(TypeError):
            ex(1)

    def test_nesting_three_levels(self):
        seen = []

        def level3():
            seen.append(3)
            return "deep"
        e3 = _jitbed.compile(level3)
        e2 = _jitbed.compile(lambda: (seen.append(2), e3())[1])
        e1 = _jitbed.compile(lambda: (seen.append(1), e2())[1])
        self.assertEqual(e1(), "deep")
        self.assertEqual(seen, [1, 2, 3])

    def test_regions_are_registered_executable_anonymous_code(self):
        def target():
            return 1
        ex = _jitbed.compile(target)
        regions = [r for r in _jitbed.regions() if r[2] == "py::jit:" + target.__qualname__]
        self.assertEqual(len(regions), 1)
        start, size, _ = regions[0]
        m = mapping_of(start)
        self.assertIsNotNone(m)
        self.assertEqual(m[2], "r-xp")
        self.assertEqual(m[3], "")  # anonymous, like CPython's executors
        code = ctypes.string_at(start, size)
        # The first stencil starts with a movabs of the patched operand (8).
        self.assertEqual(code[:2], b"\x48\xb8")
        self.assertEqual(int.from_bytes(code[2:10], "little"), 8)
        # No stencil instruction touches %rbp (push %rbp is 0x55 at an
        # instruction start; the build already checks the disassembly).
        self.assertNotIn(b"\x48\x89\xe5", code)
        del ex

    def test_descriptor_follows_compile_and_free(self):
        d = descriptor()
        self.assertEqual(d.magic, b"JITUNWD")
        count, gen = d.count, d.generation
        ex = _jitbed.compile(len)
        self.assertEqual(d.count, count + 1)
        self.assertGreater(d.generation, gen)
        self.assertEqual(d.seq % 2, 0)
        gen = d.generation
        del ex
        gc.collect()
        self.assertEqual(d.count, count)
        self.assertGreater(d.generation, gen)


class Trampolines(unittest.TestCase):
    def test_perf_map_and_both_layouts(self):
        def via_framed():
            return 1

        def via_sub8():
            return 2
        _jitbed.enable_trampolines("framed")
        try:
            via_framed()
            _jitbed.set_trampoline_layout("sub8")
            via_sub8()
        finally:
            _jitbed.disable_trampolines()
        path = _jitbed.perf_map_path()
        self.assertEqual(path, "/tmp/perf-%d.map" % os.getpid())
        entries = {}
        with open(path) as f:
            for line in f:
                m = re.match(r"^([0-9a-f]+) ([0-9a-f]+) (py::(\S+):(.*))$", line)
                self.assertIsNotNone(m, line)
                entries[m.group(4)] = (int(m.group(1), 16), int(m.group(2), 16))
        for name, want in (("Trampolines.test_perf_map_and_both_layouts.<locals>.via_framed", FRAMED),
                           ("Trampolines.test_perf_map_and_both_layouts.<locals>.via_sub8", SUB8)):
            self.assertIn(name, entries)
            addr, size = entries[name]
            self.assertEqual(size, len(want))
            self.assertEqual(ctypes.string_at(addr, size), want)
            m = mapping_of(addr)
            # 64 KiB arenas (the kernel merges adjacent ones into one mapping).
            self.assertEqual((m[1] - m[0]) % (64 * 1024), 0)
            self.assertEqual(m[2], "r-xp")
        os.unlink(path)

    def test_bad_layout(self):
        with self.assertRaises(ValueError):
            _jitbed.enable_trampolines("sideways")


if __name__ == "__main__":
    unittest.main(verbosity=2)
