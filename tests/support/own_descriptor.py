"""This process's own jitunwind descriptor, for tests of a debugger's read
of it without a debugger: the binding on the build's library, and ranges
registered at addresses never mapped here (they are only read, never run)."""

import ctypes
import os
import sys

BASE = 0x7e0000000000


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def from_argv(usage):
    """The descriptor of a test run as `test REPO_DIR BUILD_DIR`; the usage
    and exit 2 otherwise."""
    if len(sys.argv) != 3:
        print(usage)
        sys.exit(2)
    return OwnDescriptor(*sys.argv[1:])


class OwnDescriptor:
    def __init__(self, repo, build):
        sys.path.insert(0, os.path.join(repo, "libjitunwind", "bindings", "python"))
        os.environ["JITUNWIND_LIBRARY"] = os.path.join(build, "libjitunwind", "libjitunwind.so")
        import jitunwind
        self.ju = jitunwind
        self.lib = jitunwind.library()
        self.lib.jitunwind_jit_register.argtypes = [
            ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_char_p,
            ctypes.c_uint64, ctypes.c_void_p]
        self.lib.jitunwind_jit_unregister.argtypes = [ctypes.c_uint64]
        self.address = ctypes.addressof(ctypes.c_char.in_dll(self.lib, "jitunwind_jit_descriptor"))

    def register(self, i):
        """Range i, [BASE + 16 i, + 8), named jit:r<i>; returns its id or None."""
        ident = ctypes.c_uint64()
        if self.lib.jitunwind_jit_register(BASE + 16 * i, 8, self.ju.KIND_JIT,
                                           self.ju.RULE_FP_PRESERVING, b"jit:r%d" % i, 0,
                                           ctypes.byref(ident)) < 0:
            return None
        return ident.value

    def unregister(self, ident):
        return self.lib.jitunwind_jit_unregister(ident)
