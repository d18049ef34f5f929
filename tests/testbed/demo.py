"""libjitunwind demo: a stack that goes through JIT code and perf trampolines.

Run with the _jitbed test-bed module on PYTHONPATH. At jitbed_checkpoint the
stack, innermost first, is: leaf (sub8 trampoline) <- JIT py::jit:leaf <-
inner (sub8) <- middle (framed trampoline) <- JIT py::jit:middle <- outer
(framed) <- main and <module> (one eval loop: they started before the eval
hook was installed). On AArch64 "sub8" is "pac" (_jitbed.TRAMPOLINE_LAYOUTS).
The `# @name` markers give tests the line numbers.
"""
import _jitbed


def leaf():
    _jitbed.checkpoint()  # @leaf


def inner():
    return jit_leaf()  # @inner


def middle():
    _jitbed.set_trampoline_layout(_jitbed.TRAMPOLINE_LAYOUTS[0])
    return inner()  # @middle


def outer():
    return jit_middle()  # @outer


jit_leaf = _jitbed.compile(leaf)
jit_middle = _jitbed.compile(middle)


def main():
    _jitbed.enable_trampolines("framed")
    outer()  # @main
    _jitbed.disable_trampolines()


main()  # @module
print("demo: done")
