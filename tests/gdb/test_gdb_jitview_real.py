#!/usr/bin/env python3
"""The JIT developer view end to end on the real 3.14 JIT builds listed in
$JITUNWIND_EXTRA_PYTHONS (exit 77 when none is JIT-enabled):

- a pure-Python hot loop stopped by a timer: the uop at the PC of the JIT
  frame has a line inside the loop body, and so has the Python frame; its
  values are still marked possibly stale (py-locals), and py-bt-full shows
  the same exact line with the frame flagged as running JIT code;
- `info jit-executors` lists an executor for each of 8 hot loops, named by
  its function;
- `jit-disas` puts a header at each uop, in the order and with the names
  `info jit-executor` lists; `jit-pc` names the uop `bt` shows.

Usage: test_gdb_jitview_real.py BUILD_DIR REPO_DIR
"""

import os
import re
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from demo_stack import JIT_SCRIPT, fail, markers  # noqa: E402
from extra_pythons import JIT_ON, WHY_NO_JIT, debug_root, jit_pythons, separate_debug_file  # noqa: E402
from test_gdb_real import run_gdb, section, sections, version_of  # noqa: E402

SKIP = 77

TIMER_SCRIPT = """\
import signal

signal.signal(signal.SIGVTALRM, lambda *args: None)
signal.setitimer(signal.ITIMER_VIRTUAL, 0.3, 0.05)


def spin():
    a, b = 0, 1
    while True:  # @body_first
        a = (a + b) % 1000003
        b = (a * 3 + b) % 999983  # @body_last


spin()
"""

LOOPS = ["loop_%s" % c for c in "abcdefgh"]
EIGHT_SCRIPT = "import os\n\n\n" + "".join(
    "def %s(n):\n    t = 0\n    for i in range(n):\n        t += i * %d\n    return t\n\n\n"
    % (name, k + 1) for k, name in enumerate(LOOPS)) + "".join(
    "%s(5000)\n" % name for name in LOOPS) + "os.getppid()\n"


def check_timer(repo, env, python, work, label):
    script = os.path.join(work, "timer.py")
    with open(script, "w") as f:
        f.write(TIMER_SCRIPT)
    at = markers(script)
    body = range(at["body_first"], at["body_last"] + 1)
    # Each SIGVTALRM stops gdb; the stops that land in JIT code are checked.
    # A CPU-time timer: it does not run while gdb holds the process, so each
    # `continue` runs the loop again before the next stop (a wall-clock timer
    # would be pending already and stop at the same PC every time).
    cmds = ["handle SIGVTALRM stop print pass", "run"]
    for i in range(12):
        cmds += sections([("bt%d" % i, "bt"), ("pc%d" % i, "jit-pc"), ("locals%d" % i, "py-locals"),
                          ("full%d" % i, "py-bt-full -v")]) + ["continue"]
    out = run_gdb(repo, env, cmds + ["kill"], ["--args", python, script])
    checked, pcs = 0, set()
    for i in range(12):
        bt, pc = section(out, "bt%d" % i), section(out, "pc%d" % i)
        m = re.search(r"py::jit:spin \[uop \d+/\d+ (\w+)\] \(%s:(\d+)\)" % re.escape(script), bt)
        if not m:
            continue  # stopped outside any JIT activation (e.g. in the eval loop)
        line = int(m.group(2))
        if line not in body:
            fail("%s: timer stop %d: the uop's line %d is outside the loop body %s:\n%s\n%s"
                 % (label, i, line, list(body), bt, pc))
        py = re.search(r"\[py\] spin \(\) at .*:(\d+)", bt)
        if not py or int(py.group(1)) not in body or "line may lag" in bt:
            fail("%s: timer stop %d: the Python frame is not at an exact loop line:\n%s"
                 % (label, i, bt))
        if "No executor" not in pc and m.group(1) not in pc:  # frame 0 was the JIT frame
            fail("%s: jit-pc does not name uop %s:\n%s" % (label, m.group(1), pc))
        # The line is exact, the values are not: the JIT keeps them in
        # registers and stack slots it has not written back yet.
        values = section(out, "locals%d" % i)
        for name in ("a", "b"):
            if not re.search(r"^%s = \d+  \(may be stale: JIT code\)$" % name, values, re.M):
                fail("%s: timer stop %d: py-locals does not mark %s as possibly stale:\n%s"
                     % (label, i, name, values))
        full = section(out, "full%d" % i)
        top = re.search(r"^#\d+ Frame 0x[0-9a-f]+, code 0x[0-9a-f]+, for file .*, line (\d+), "
                        r"in spin \(\) \[(.*)\]$", full, re.M)
        if not top or int(top.group(1)) != int(py.group(1)) or \
                "JIT code" not in top.group(2) or "line may lag" in top.group(2):
            fail("%s: timer stop %d: py-bt-full's frame is not at bt's exact line %s, "
                 "flagged as running JIT code:\n%s" % (label, i, py.group(1), full))
        checked += 1
        pcs.update(re.findall(r"^#0\s+(0x[0-9a-f]+) in ", bt, re.M))
    if checked == 0:
        fail("%s: no timer stop landed in JIT code:\n%s" % (label, out[-4000:]))
    if checked > 1 and len(pcs) < 2:
        fail("%s: %d timer stops in JIT code, all at one PC %s: the stops are not samples"
             % (label, checked, sorted(pcs)))
    print("ok: %s: %d timer stops in JIT code at %d different PCs, each at a uop of a "
          "loop-body line, values marked possibly stale" % (label, checked, len(pcs)))


def hide_tables(elf, copy):
    """Copy `elf` with the symbols of the stencil and uop-name tables renamed
    in its .strtab, every other byte as it was (objcopy rewrites the dynamic
    sections that patchelf moved, and the copy would not run)."""
    with open(elf, "rb") as f:
        data = bytearray(f.read())
    shoff, shentsize, shnum = (struct.unpack_from("<Q", data, 0x28)[0],
                               *struct.unpack_from("<HH", data, 0x3a))
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = headers[struct.unpack_from("<H", data, 0x3e)[0]]
    for h in headers:
        if data[names[4] + h[0]:].split(b"\0", 1)[0] != b".strtab":
            continue
        table = data[h[4]:h[4] + h[5]]
        for name in (b"stencil_groups", b"_PyOpcode_uop_name"):
            table = table.replace(b"\0" + name + b"\0", b"\0X" + name[1:] + b"\0")
        data[h[4]:h[4] + h[5]] = table
    with open(copy, "wb") as f:
        f.write(data)
    os.chmod(copy, 0o755)


def check_stripped_tables(repo, env, python, work, label):
    """An interpreter without the stencil and uop-name tables' symbols (a
    partly stripped build): executor frames keep the range's own label, and
    bt and mixed-bt each say once what the JIT view lacked."""
    script = os.path.join(work, "hot.py")
    with open(script, "w") as f:
        f.write(JIT_SCRIPT)
    cmds = ["set breakpoint pending on", "break getppid", "run", "ignore 1 5000", "continue"]
    debug_file = separate_debug_file(python)
    if debug_file:
        # A stripped interpreter: the tables are symbols of its debug file,
        # stripped in a copy under a debug root of its own.
        root = os.path.join(work, "stripped-root")
        copy = os.path.join(root, os.path.relpath(debug_file, debug_root(python)))
        os.makedirs(os.path.dirname(copy), exist_ok=True)
        hide_tables(debug_file, copy)
        target = ["-iex", "set debug-file-directory %s" % root, "--args", python, script]
    else:
        copy = os.path.join(work, "python-stripped")
        hide_tables(python, copy)
        # The copy finds its standard library through PYTHONHOME, set for
        # the inferior only (gdb's own Python must not see it).
        home = os.path.dirname(os.path.dirname(os.path.realpath(python)))
        cmds = ["set environment PYTHONHOME %s" % home] + cmds
        target = ["--args", copy, script]
    out = run_gdb(repo, env, cmds + sections([("bt", "bt"), ("mixed", "mixed-bt")]) + ["kill"],
                  target)
    want = "JIT view incomplete: no stencil_groups/_PyOpcode_uop_name symbols"
    for name in ("bt", "mixed"):
        text = section(out, name)
        if text.count(want) != 1 or "py::jit:hot" not in text or "[uop " in text:
            fail("%s: %s with the tables stripped: want the range's label and one line "
                 "saying what was missing:\n%s" % (label, name, text))
    print("ok: %s: without the stencil and uop-name tables, bt and mixed-bt fall back to the "
          "range's label and say why once" % label)


def check_eight_loops(repo, env, python, work, label):
    script = os.path.join(work, "eight.py")
    with open(script, "w") as f:
        f.write(EIGHT_SCRIPT)
    out = run_gdb(repo, env, ["set breakpoint pending on", "break getppid", "run"] +
                  sections([("list", "info jit-executors"), ("one", "info jit-executor 0"),
                            ("disas", "jit-disas 0")]) + ["kill"],
                  ["--args", python, script])
    listing = section(out, "list")
    named = {name for name in LOOPS
             if re.search(r"\b%s \(%s:\d+\)" % (name, re.escape(script)), listing)}
    if named != set(LOOPS):
        fail("%s: info jit-executors misses %s:\n%s" % (label, sorted(set(LOOPS) - named),
                                                         listing))
    rows = [l for l in listing.splitlines() if re.match(r"^\d+ +0x", l)]
    if len(rows) < len(LOOPS):
        fail("%s: fewer executor rows than loops:\n%s" % (label, listing))
    trace = re.findall(r"^  (\d+) +(_\w+) ", section(out, "one"), re.M)
    heads = re.findall(r"^-- uop (\d+)/\d+ (_\w+) ", section(out, "disas"), re.M)
    if not trace or trace != heads:
        fail("%s: jit-disas headers %r do not match info jit-executor's uops %r"
             % (label, heads[:10], trace[:10]))
    shim = version_of(python) < (3, 15)  # 3.15's executors start with their first uop
    if ("-- shim" in section(out, "disas")) != shim or "-- _FATAL_ERROR" not in section(out, "disas"):
        fail("%s: jit-disas wants a _FATAL_ERROR header and %s shim header:\n%s"
             % (label, "a" if shim else "no", section(out, "disas")[-2000:]))
    print("ok: %s: %d executors listed, all 8 loops named; jit-disas headers match the %d "
          "uops of executor 0" % (label, len(rows), len(trace)))


def main():
    build, repo = sys.argv[1:3]
    pythons = jit_pythons()
    if not pythons:
        print("SKIP: " + WHY_NO_JIT)
        return SKIP
    env = dict(os.environ, JITUNWIND_LIBRARY=os.path.join(build, "libjitunwind",
                                                          "libjitunwind.so"), **JIT_ON)
    with tempfile.TemporaryDirectory(prefix="ju-jitview-", dir=build) as work:
        for python in pythons:
            check_timer(repo, env, python, work, python)
            check_stripped_tables(repo, env, python, work, python)
            check_eight_loops(repo, env, python, work, python)
    return 0


if __name__ == "__main__":
    sys.exit(main())
