"""Stock gdb / LLDB (no plugin, no init file) on a JIT that publishes its
ranges through the GDB JIT interface (tests/jitpublish/jit_host.c): `bt`
from a breakpoint in a callee of the JIT code names both JIT ranges by
their labels and reaches main (LLDB: _start); `frame` selection lands on
them. The control run, with publishing off, must not name them: the test
would notice if the images stopped mattering.

usage: test_jitpublish.py gdb|lldb JIT_HOST each|batched|foreign

foreign: JIT_HOST defines its own __jit_debug_descriptor (as CPython 3.15
does). Published into the library's own list, the images are not seen
(both debuggers read the first definition: image.h); with
JITUNWIND_GDB_JIT_SHARE_FOREIGN they are."""

import re
import shutil
import subprocess
import sys

TRAMP = "jit:tramp [trampoline sub8]"
FP_CODE = "jit:fp_code [jit fp-preserving]"
# Frames from the breakpoint up: the FP-preserving rule's caller is the
# caller of the function that entered the code (host_fp_enter is skipped,
# as CPython's own CFI for executors skips the shim).
WANT = ["jit_callee", TRAMP, "host_garbage", FP_CODE, "main"]


def skip(why):
    print("SKIP:", why)
    sys.exit(77)


def run_gdb(host, args, extra):
    cmd = ["gdb", "-batch", "-nx", "-ex", "set pagination off", "-ex", "break jit_callee",
           "-ex", "run " + args, "-ex", "bt"]
    for e in extra:
        cmd += ["-ex", e]
    return subprocess.run(cmd + [host], capture_output=True, text=True, timeout=240).stdout


def run_lldb(host, args, extra):
    cmd = ["lldb-19", "--batch", "--no-lldbinit", "-o", "b jit_callee", "-o",
           "process launch -- " + args, "-o", "bt"]
    for e in extra:
        cmd += ["-o", e]
    return subprocess.run(cmd + [host], capture_output=True, text=True, timeout=240).stdout


def frames(debugger, out):
    """The function of each frame of the first backtrace, in order."""
    names = []
    if debugger == "gdb":
        for m in re.finditer(r"^#(\d+)\s+(?:0x[0-9a-f]+ in )?(.+?) \(", out, re.M):
            if int(m.group(1)) != len(names):  # a later command's frame line
                break
            names.append(m.group(2))
    else:
        out = out.split("(lldb) bt", 1)[-1]
        for m in re.finditer(r"^\s+\*? ?frame #(\d+): 0x[0-9a-f]+ [^`\s]+`(.+?)(?: \+ \d+)?(?: at |$)",
                             out, re.M):
            if int(m.group(1)) == 0 and names:
                break
            names.append(re.sub(r"\(.*$", "", m.group(2)).strip())
    return names


def fail(why, out):
    print(out)
    print("FAIL:", why)
    sys.exit(1)


def main():
    debugger, host, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    publish = {"each": "1", "batched": "2", "foreign": "257"}[mode]
    exe = "gdb" if debugger == "gdb" else "lldb-19"
    if not shutil.which(exe):
        skip("%s is not installed" % exe)
    run = run_gdb if debugger == "gdb" else run_lldb
    select = ["frame 3"] if debugger == "gdb" else ["frame select 3", "up", "frame info"]
    out = run(host, "300 " + publish, select)
    got = frames(debugger, out)
    print("published:", got)
    if got[:len(WANT)] != WANT:
        fail("bt shows %r, want %r first" % (got, WANT), out)
    if debugger == "lldb" and got[-1] != "_start":
        fail("LLDB's bt does not reach _start: %r" % got, out)
    if "2 images" not in out:
        fail("302 ranges were not batched into 2 images", out)
    # Selecting the FP-preserving JIT frame, then (LLDB) the one above it.
    if debugger == "gdb":
        # printed by bt, then again by `frame 3`
        if len(re.findall(r"^#3\s+0x[0-9a-f]+ in jit:fp_code \[jit fp-preserving\] \(\)$",
                          out, re.M)) != 2:
            fail("`frame 3` does not select the JIT frame", out)
    else:
        if not re.search(r"frame #3: 0x[0-9a-f]+ JIT\(0x[0-9a-f]+\)`jit:fp_code \[jit fp-preserving\] \+ 6\n",
                         out.split("frame select 3", 1)[1]):
            fail("`frame select 3` does not select the JIT frame", out)
        if "frame #4:" not in out.split("(lldb) up", 1)[1] or "main" not in out.split("(lldb) up", 1)[1]:
            fail("`up` from the JIT frame does not reach main", out)

    if mode == "foreign" and "(another descriptor first) (in its list)" not in out:
        fail("the status does not say the images went into the executable's list", out)
    # The control: not published, or (foreign) published into the library's
    # own list, which the debuggers do not read.
    control = run(host, "300 1" if mode == "foreign" else "300 0", [])
    if mode == "foreign" and "(another descriptor first)\n" not in control:
        fail("the status does not say another descriptor comes first", control)
    got = frames(debugger, control)
    print("not published:", got)
    if TRAMP in got or FP_CODE in got:
        fail("the control run names the JIT ranges", control)
    if got[:len(WANT)] == WANT:
        fail("the control run unwinds as well without the images: the test proves nothing", control)
    print("PASS")


if __name__ == "__main__":
    main()
