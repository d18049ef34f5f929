"""What the debug-root tests of both plugins share (tests/gdb and
tests/lldb test_*_debug_files.py): a root holding another build's file,
and how their mixed-bt output shows the Python frames placed."""

import os
import re
import shutil

# The library's note on a debug file whose build id is not the binary's.
REFUSED = "refused: its build id is"
NO_PYDEBUG = "no python3.15d on JITUNWIND_EXTRA_PYTHONS"


def bogus_root(root, other, bogus):
    """The debug root `bogus`, holding the file `other` (another build) at
    every path `root` has under .build-id."""
    shutil.copytree(os.path.join(root, ".build-id"), os.path.join(bogus, ".build-id"),
                    copy_function=lambda src, dst: shutil.copy(other, dst))
    return bogus


def under_eval_loop(mixed):
    """Whether mixed-bt's Python frames are each under a native frame, and
    spin's frame is the eval loop the debugger names from the debug file,
    or a function inlined into it (shown as frames at the same pc)."""
    m = re.search(r"^#\d+\s+(0x[0-9a-f]+) in .*\n(?:\s+\[py\] .*\n)*\s+\[py\] spin at ",
                  mixed, re.M)
    return "no native frame" not in mixed and m and re.search(
        r"^#\d+\s+%s in _PyEval_EvalFrameDefault\b" % m.group(1), mixed, re.M)


def uop_pattern(script):
    """spin's JIT frame named by function and uop."""
    return r"py::jit:spin \[uop \d+/\d+ \w+\] \(%s:\d+\)" % re.escape(script)
