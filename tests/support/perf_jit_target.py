"""The target of the debugger tests of -X perf_jit (tests/gdb, tests/lldb),
and the reading of their mixed-bt output. In the target hot and caller
get their perf trampolines, then 200 more functions do, so that CPython,
which buffers its jitdump file, writes the first ones out; then caller
loops for ever through hot, which calls os.getppid."""

import re

WARM_UP = """\
import os, signal


def hot(n):
    total = 0
    for i in range(n):
        total += i
        os.getppid()
    return total


def caller(loop):
    while loop:
        hot(1000)


hot(1)
caller(False)
for k in range(200):
    exec("def f%d():\\n    return %d\\nf%d()" % (k, k, k))
"""

LOOP = "caller(True)\n"


def script(before_loop=""):
    """The target's source, with `before_loop` (lines) run just before the
    endless loop."""
    return WARM_UP + before_loop + LOOP


def trampolines(script_path):
    """The trampoline names a stack in hot shows, innermost first."""
    return ["py::%s:%s" % (name, script_path) for name in ("hot", "caller", "<module>")]


def native_names(mixed):
    """(the native frames' names of a mixed-bt, innermost first; the
    trampolines among them)."""
    natives = re.findall(r"^#\d+\s+(?:0x[0-9a-f]+ in )?(\S+)", mixed, re.M)
    return natives, [n for n in natives if n.startswith("py::")]
