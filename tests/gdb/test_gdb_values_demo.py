#!/usr/bin/env python3
"""py-up/py-down on the test bed's demo (tests/testbed/demo.py): a stack
where every Python call goes through JIT code or a perf trampoline, so each
Python frame has an eval loop of its own. Each py-up must select exactly the
next _PyEval_EvalFrameDefault of gdb's raw stack (the one running that
Python frame), py-down the previous one, and py-locals/py-print must read
the selected frame.

Usage: test_gdb_values_demo.py BUILD_DIR REPO_DIR    (exit 77: no test bed)"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from demo_stack import EVAL, demo_setup, fail  # noqa: E402

SKIP = 77
FRAME_RE = re.compile(r"^#(\d+)\s+(?:0x[0-9a-f]+ in )?(\S+) \(", re.M)


def main():
    build, repo = sys.argv[1], sys.argv[2]
    setup = demo_setup(build)
    if setup is None:
        return SKIP
    python, demo, env = setup
    # the stop is in a builtin leaf calls: the first py-up selects leaf (libpython's levels)
    steps = [("raw", "bt -no-filters"), ("up0", "py-up"), ("f0", "frame"), ("up1", "py-up"),
             ("f1", "frame"),
             ("locals1", "py-locals"), ("up2", "py-up"), ("f2", "frame"), ("up3", "py-up"),
             ("f3", "frame"), ("print", "py-print jit_leaf"), ("down", "py-down"),
             ("f4", "frame")]
    cmd = ["gdb", "-nx", "-batch", "-q", "-iex", "set debuginfod enabled off",
           "-iex", "set auto-load python-scripts off",
           "-ex", "source %s/gdb-plugin/jitunwind-gdb.py" % repo,
           "-iex", "set breakpoint pending on", "-ex", "break jitbed_checkpoint", "-ex", "run"]
    for name, command in steps:
        cmd += ["-ex", "echo <<%s>>\\n" % name, "-ex", command, "-ex", "echo <<end>>\\n"]
    out = subprocess.run(cmd + ["--args", python, demo], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=300).stdout
    sections = dict(re.findall(r"<<([^>]+)>>\n(.*?)<<end>>\n", out, re.S))
    if len(sections) != len(steps):
        fail("gdb output lacks sections:\n" + out[-3000:])
    evals = [int(n) for n, name in FRAME_RE.findall(sections["raw"]) if name == EVAL]
    if len(evals) < 4:
        fail("raw stack has %d eval loops:\n%s" % (len(evals), sections["raw"]))

    def selected(name):
        m = FRAME_RE.search(sections[name])
        return (int(m.group(1)), m.group(2)) if m else None

    want = [("up0", "leaf", evals[0]), ("up1", "inner", evals[1]), ("up2", "middle", evals[2]), ("up3", "outer", evals[3]),
            ("down", "middle", evals[2])]
    frames = {"up0": "f0", "up1": "f1", "up2": "f2", "up3": "f3", "down": "f4"}
    for step, function, index in want:
        first = sections[step].splitlines()[:1]
        if not first or " in %s (" % function not in first[0]:
            fail("%s: expected Python frame %s, got %s" % (step, function, first))
        if selected(frames[step]) != (index, EVAL):
            fail("%s: selected native frame %s, expected #%d %s (raw eval loops at %s)"
                 % (step, selected(frames[step]), index, EVAL, evals))
    print("ok: py-up/py-down select eval loops %s through JIT and trampoline frames" % evals[1:4])
    inner = sections["locals1"].strip().splitlines()
    # inner has no variables: its header, then at most the next frame's
    if inner[:1] != ["Locals for inner"] or (len(inner) > 1 and
                                             not inner[1].startswith("Locals for ")):
        fail("py-locals in inner: %r" % sections["locals1"])
    if not sections["print"].startswith("global 'jit_leaf' = "):
        fail("py-print jit_leaf from outer: %r" % sections["print"])
    print("ok: py-locals and py-print read the selected frame")
    return 0


if __name__ == "__main__":
    sys.exit(main())
