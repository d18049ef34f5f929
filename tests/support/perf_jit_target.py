"""The target of the debugger tests of -X perf_jit (tests/gdb, tests/lldb),
and the reading of their mixed-bt output. In the target hot and caller
get their perf trampolines, then 200 more functions do, so that CPython,
which buffers its jitdump file, writes the first ones out; then caller
loops for ever through hot, which calls os.getppid."""

import os
import re

from cores import core_until, of_pid
from demo_stack import fail

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


def check_core(label, target, core, want, mixed_of):
    """A core of `target` (the running Popen of this script under
    -X perf_jit) taken in hot, read by `mixed_of(core)` (a debugger's
    mixed-bt): the trampolines `want` named from the jitdump file, down to
    _start; once `target` is killed and its jitdump file hidden, none of
    them is named."""
    dump = "/tmp/jit-%d.dump" % target.pid
    try:
        mixed, attempt = core_until(of_pid(target.pid), core, mixed_of,
                                    lambda mixed: native_names(mixed)[1] == want, label,
                                    "named the trampolines %r" % want)
        natives = native_names(mixed)[0]
        if natives[-1] != "_start":
            fail("%s core: mixed-bt does not reach _start:\n%s" % (label, mixed))
        print("ok: %s -X perf_jit, a core: the trampolines py::hot, py::caller and py::<module> "
              "named from the jitdump file, down to _start (core %d)" % (label, attempt))
        target.kill()
        target.wait()
        os.rename(dump, dump + ".hidden")
        try:
            mixed = mixed_of(core)
        finally:
            os.rename(dump + ".hidden", dump)
        if set(native_names(mixed)[1]) & set(want):
            fail("%s core, the jitdump file hidden: trampolines named by function:\n%s"
                 % (label, mixed))
        print("ok: %s core, the jitdump file hidden: no trampoline named by function" % label)
    finally:
        target.kill()
        target.wait()
        if os.path.exists(core):
            os.unlink(core)
