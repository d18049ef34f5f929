#!/usr/bin/env python3
"""gdb-multiarch and lldb on real AArch64 code under qemu-user: the test bed
cross-built for AArch64 (tests/aarch64/build_testbed.sh) and Debian's arm64
python3.11 (tests/aarch64/setup.sh), live (qemu-aarch64-static -g PORT) and
on the guest core qemu writes on a fatal signal. The library and the
plugins run host-side (x86-64); the architecture comes from the target.

Usage: test_aarch64.py BUILD_DIR REPO_DIR MODE
  MODE gdb-live     test bed: bt, mixed-bt, bt -no-filters, py-bt, info jit-ranges
  MODE gdb-core     the same on the guest core of the test bed (abort at the checkpoint)
  MODE gdb-debian   Debian's arm64 python3.11: py-bt and bt, live and on a guest core
  MODE gdb-entry    stopped on a trampoline's first three instructions (caller's pc
                    in x30, then the record at sp, then at x29)
  MODE lldb-live    test bed: the plugin's mixed-bt (by the library's own walk), py-bt
  MODE lldb-core    the same on the guest core
  MODE lldb-debian  Debian's arm64 python3.11, live and on a guest core
  MODE lldb-pac     test bed built with -mbranch-protection=pac-ret, live and core: saved
                    return addresses carry pointer-authentication codes (stock lldb stops
                    at the first one; the library's walk strips them)
Exit 0 on success, 1 on failure, 77 to skip (with the reason printed).
"""

import glob
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
sys.path.insert(0, os.path.join(HERE, "..", "gdb"))
sys.path.insert(0, os.path.join(HERE, "..", "lldb"))
from demo_stack import (EVAL, check_stack, expected_py_bt, expected_stack,  # noqa: E402
                        fail, markers, parse_mixed, parse_py_bt)
from test_gdb_demo import parse_bt, section, with_sections  # noqa: E402
import test_lldb_demo  # noqa: E402
from lldb_under_test import without_stop_reports  # noqa: E402

SKIP = 77
QEMU = "qemu-aarch64-static"
GDB = shutil.which("gdb-multiarch")
LLDB = shutil.which("lldb-19") or shutil.which("lldb")
PERF_MAPS = []

DEBIAN_SCRIPT = """\
import os
import sys


def leaf():
    if len(sys.argv) > 1:
        os.abort()  # @abort
    os.getppid()  # @leaf


def mid():
    leaf()  # @mid


mid()  # @module
"""

ENTRY_SCRIPT = """\
import _jitbed


def f():
    _jitbed.checkpoint()  # @f


_jitbed.enable_trampolines("framed")
f()  # @first
f()  # @second
"""

# Run in gdb after the first stop: a breakpoint on the first instruction of
# f's trampoline, found in the perf map the guest wrote (named by the first
# thread's id: qemu-user reports pid 1).
BREAK_ON_TRAMPOLINE = (
    "python import gdb; t = sorted(gdb.selected_inferior().threads(), key=lambda t: t.num)[0]; "
    "line = [l for l in open('/tmp/perf-%d.map' % t.ptid[1]) if ' py::f:' in l][0]; "
    "gdb.execute('break *0x' + line.split()[0])")


class Setup:
    """The sysroot, the cross-built test bed, and the environments."""

    def __init__(self, build, repo, need_testbed, variant=""):
        self.build, self.repo = build, repo
        script = "build_testbed.sh" if need_testbed else "setup.sh"
        proc = subprocess.run(["bash", os.path.join(HERE, script), build] + ([variant] if variant else []),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=1200)
        if proc.returncode == SKIP:
            print("SKIP: " + (proc.stderr.strip().splitlines() or ["setup skipped"])[-1])
            sys.exit(SKIP)
        if proc.returncode != 0:
            fail("%s failed:\n%s" % (script, proc.stderr[-3000:]))
        self.sysroot = os.path.join(build, "aarch64", "sysroot")
        self.testbed = os.path.join(build, "aarch64", "testbed" + ("-" + variant if variant else ""))
        self.python = os.path.join(self.sysroot, "usr", "bin", "python3.11")
        self.work = os.path.join(build, "aarch64", "tests")
        os.makedirs(self.work, exist_ok=True)
        self.env = dict(os.environ, PYTHONPATH=self.testbed,
                        JITUNWIND_LIBRARY=os.path.join(build, "libjitunwind", "libjitunwind.so"))
        self.env.pop("JITBED_ABORT_AT_CHECKPOINT", None)

    def write(self, name, text):
        path = os.path.join(self.work, name)
        with open(path, "w") as f:
            f.write(text)
        return path


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port):
    """Whether some socket listens on `port` (without connecting: qemu's
    gdbstub takes a single connection)."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                for row in f.readlines()[1:]:
                    fields = row.split()
                    if fields[1].endswith(":%04X" % port) and fields[3] == "0A":
                        return True
        except OSError:
            pass
    return False


class Guest:
    """qemu-aarch64-static -g PORT running the arm64 python3.11."""

    def __init__(self, setup, args, env=None):
        self.port = free_port()
        self.proc = subprocess.Popen([QEMU, "-L", setup.sysroot, "-g", str(self.port), setup.python]
                                     + args, env=env or setup.env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        PERF_MAPS.append("/tmp/perf-%d.map" % self.proc.pid)
        deadline = time.time() + 30
        while not listening(self.port):
            if self.proc.poll() is not None or time.time() > deadline:
                fail("qemu-aarch64-static -g %d did not start listening" % self.port)
            time.sleep(0.05)

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def guest_core(setup, args, env):
    """Run the guest to a fatal signal and return the core qemu-user wrote
    (qemu_<program>_<date>_<pid>.core in the working directory)."""
    cwd = os.path.join(setup.work, "core-run")
    shutil.rmtree(cwd, ignore_errors=True)
    os.makedirs(cwd)

    def unlimited_core():
        resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))

    proc = subprocess.run([QEMU, "-L", setup.sysroot, setup.python] + args, env=env, cwd=cwd,
                          preexec_fn=unlimited_core, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=300)
    cores = glob.glob(os.path.join(cwd, "qemu_*.core"))
    if not cores:
        print("SKIP: qemu-user wrote no guest core (exit %d): %s" % (proc.returncode,
                                                                  proc.stdout[-500:]))
        sys.exit(SKIP)
    pid = re.search(r"_(\d+)\.core$", cores[0]).group(1)
    PERF_MAPS.append("/tmp/perf-%s.map" % pid)
    # qemu re-raises the signal after writing the guest core: a host core of
    # qemu itself may lie beside it; only the guest's is kept.
    for other in os.listdir(cwd):
        if os.path.join(cwd, other) != cores[0]:
            os.unlink(os.path.join(cwd, other))
    return cores[0]


def gdb(setup, commands, core=None, guest=None):
    cmd = [GDB, "-nx", "-batch", "-q", "-iex", "set debuginfod enabled off",
           "-iex", "set auto-load python-scripts off",
           "-ex", "set sysroot " + setup.sysroot, "-ex", "set solib-search-path " + setup.testbed,
           "-ex", "file " + setup.python]
    cmd += ["-ex", "core-file " + core] if core else ["-ex", "target remote :%d" % guest.port]
    cmd += ["-ex", "source %s/gdb-plugin/jitunwind-gdb.py" % setup.repo,
            "-ex", "set breakpoint pending on", "-ex", "set print frame-arguments none"]
    for c in commands + ([] if core else ["kill"]):
        cmd += ["-ex", c]
    return subprocess.run(cmd, env=setup.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=600).stdout


def lldb(setup, commands, core=None, guest=None):
    cmd = [LLDB, "--no-lldbinit", "--batch",
           "-o", "platform select remote-linux --sysroot " + setup.sysroot,
           "-o", "settings append target.exec-search-paths " + setup.testbed]
    if core:
        cmd += ["-o", "target create %s --core %s" % (setup.python, core)]
    else:
        cmd += ["-o", "target create " + setup.python, "-o", "gdb-remote %d" % guest.port]
    cmd += ["-o", "command script import %s/lldb-plugin/jitunwind_lldb" % setup.repo]
    for c in commands + ([] if core else ["kill"]):
        cmd += ["-o", c]
    return without_stop_reports(subprocess.run(cmd, env=setup.env, stdout=subprocess.PIPE,
                                               stderr=subprocess.STDOUT, text=True,
                                               timeout=600).stdout)


def demo_path(setup):
    return os.path.join(setup.testbed, "demo.py")


def check_ranges(label, text, demo):
    """Both executors, and each trampoline with its layout's template size:
    28 bytes for CPython's branch-protected layout (paciasp ... autiasp;
    leaf, inner), 20 for its plain one."""
    rows = re.findall(r"^0x([0-9a-f]+) 0x([0-9a-f]+) +(\S+) +(.+?) +(\S+) +(py::\S+)\s*$", text, re.M)
    got = {name: (int(end, 16) - int(start, 16), kind, " ".join(rule.split()), origin)
           for start, end, kind, rule, origin, name in rows}
    want = {"py::jit:leaf": ("jit", "fp-preserving", "descriptor"),
            "py::jit:middle": ("jit", "fp-preserving", "descriptor")}
    for name, size in (("leaf", 28), ("inner", 28), ("middle", 20), ("outer", 20)):
        want["py::%s:%s" % (name, demo)] = (size, "trampoline", "framed", "perf-map")
    for name, facts in want.items():
        have = got.get(name)
        if have is None or have[-len(facts):] != facts:
            fail("%s: jit-ranges row for %s: expected %r, got %r\n%s" % (label, name, facts, have,
                                                                          text))
    print("ok: %s jit-ranges: both executors, two branch-protected and two plain trampolines" % label)


def check_gdb_testbed(label, out, demo):
    want = expected_stack(demo, other_layout="framed")
    check_stack(label + " bt", parse_bt(section(out, "bt")), want)
    check_stack(label + " mixed-bt", parse_mixed(section(out, "mixed-bt")), want)
    raw = parse_bt(section(out, "raw"))
    if any(isinstance(f, tuple) for f in raw) or raw.count(EVAL) != want.count(EVAL) \
            or raw[-1] != "_start":
        fail("%s: bt -no-filters does not walk the whole native stack: %r" % (label, raw))
    print("ok: %s bt -no-filters: %d native frames, through to _start" % (label, len(raw)))
    got_py = parse_py_bt(section(out, "py-bt"))
    if got_py != expected_py_bt(demo):
        fail("%s py-bt\n  expected %r\n  got      %r" % (label, expected_py_bt(demo), got_py))
    print("ok: %s py-bt: %d Python frames" % (label, len(got_py)))
    check_ranges(label, section(out, "ranges"), demo)


GDB_SECTIONS = [("bt", "bt"), ("mixed-bt", "mixed-bt"), ("raw", "bt -no-filters"),
                ("py-bt", "py-bt"), ("ranges", "info jit-ranges")]


def mode_gdb_testbed(setup, core):
    demo = demo_path(setup)
    if core:
        path = guest_core(setup, [demo], dict(setup.env, JITBED_ABORT_AT_CHECKPOINT="1"))
        out = gdb(setup, with_sections(GDB_SECTIONS), core=path)
        if "Program terminated with signal SIGABRT" not in out:
            fail("gdb did not read the guest core:\n" + out[-3000:])
        check_gdb_testbed("gdb-multiarch core", out, demo)
        os.unlink(path)
        return 0
    guest = Guest(setup, [demo])
    try:
        out = gdb(setup, ["break jitbed_checkpoint", "continue"] + with_sections(GDB_SECTIONS),
                  guest=guest)
    finally:
        guest.close()
    if "Breakpoint 1, jitbed_checkpoint" not in out:
        fail("did not stop at jitbed_checkpoint:\n" + out[-3000:])
    check_gdb_testbed("gdb-multiarch live", out, demo)
    return 0


def debian_want(script, top):
    at = markers(script)
    return [EVAL, ("py", "leaf", at[top]), ("py", "mid", at["mid"]),
            ("py", "<module>", at["module"]), "_start"]


def check_debian_py_bt(label, text, script, want):
    got_py = parse_py_bt(text)
    want_py = [(script, str(w[2]), w[1]) for w in want if isinstance(w, tuple)]
    if got_py != want_py:
        fail("%s py-bt\n  expected %r\n  got      %r" % (label, want_py, got_py))
    print("ok: %s py-bt: %d Python frames" % (label, len(got_py)))


def check_debian(label, out, script, top):
    want = debian_want(script, top)
    check_stack(label + " bt", parse_bt(section(out, "bt")), want)
    check_stack(label + " mixed-bt", parse_mixed(section(out, "mixed-bt")), want)
    check_debian_py_bt(label, section(out, "py-bt"), script, want)


def mode_gdb_debian(setup):
    script = setup.write("debian_target.py", DEBIAN_SCRIPT)
    pairs = [("bt", "bt"), ("mixed-bt", "mixed-bt"), ("py-bt", "py-bt")]
    guest = Guest(setup, [script])
    try:
        out = gdb(setup, ["break getppid", "continue"] + with_sections(pairs), guest=guest)
    finally:
        guest.close()
    check_debian("gdb-multiarch Debian python3.11 live", out, script, "leaf")
    core = guest_core(setup, [script, "abort"], setup.env)
    out = gdb(setup, with_sections(pairs), core=core)
    check_debian("gdb-multiarch Debian python3.11 core", out, script, "abort")
    os.unlink(core)
    return 0


def mode_gdb_entry(setup):
    script = setup.write("entry_target.py", ENTRY_SCRIPT)
    at = markers(script)
    cmds = ["break jitbed_checkpoint", "continue", BREAK_ON_TRAMPOLINE, "delete 1", "continue"]
    steps = ("before stp (caller in x30)", "after stp (record at sp)", "at blr (record at x29)")
    for i in range(len(steps)):
        cmds += with_sections([("bt%d" % i, "bt"), ("pc%d" % i, "x/i $pc")]) + ["stepi"]
    guest = Guest(setup, [script])
    try:
        out = gdb(setup, cmds, guest=guest)
    finally:
        guest.close()
    tramp = "py::f:%s [trampoline framed]" % script
    want = [tramp, EVAL, ("py", "<module>", at["second"]), "_start"]
    insns = ("stp", "mov", "blr")
    for i, step in enumerate(steps):
        pc = section(out, "pc%d" % i)
        if insns[i] not in pc:
            fail("step %d should be at `%s`:\n%s" % (i, insns[i], pc))
        frames = parse_bt(section(out, "bt%d" % i))
        check_stack("gdb-multiarch in the trampoline, %s" % step, frames, want)
        if not frames or frames[0] != tramp:
            fail("the innermost frame is not the trampoline: %r" % frames[:2])
        if len(frames) < 2 or frames[1] != "eval_hook":
            fail("%s: the trampoline's caller is not eval_hook: %r" % (step, frames[:3]))
    return 0


def check_lldb_testbed(label, out, demo, live):
    want = expected_stack(demo, other_layout="framed")
    mixed = test_lldb_demo.section(out, "mixed-bt")
    check_stack(label + " mixed-bt", parse_mixed(mixed), want)
    sources = re.findall(r"\((initial|rule|fp|lr|cfi)\)$", mixed, re.M)
    need = {"rule", "cfi"} | ({"lr"} if live else set())
    if not need <= set(sources) or "stopped: end of stack" not in mixed:
        fail("%s: the library's walk should use %s and reach the end: %r\n%s"
             % (label, sorted(need), sources, mixed))
    print("ok: %s: frames found by %s, walk reaches the end of the stack"
          % (label, ", ".join("%d %s" % (sources.count(s), s) for s in sorted(set(sources)))))
    got_py = parse_py_bt(test_lldb_demo.section(out, "py-bt"))
    if got_py != expected_py_bt(demo):
        fail("%s py-bt\n  expected %r\n  got      %r" % (label, expected_py_bt(demo), got_py))
    check_ranges(label, test_lldb_demo.section(out, "jit-ranges"), demo)


def mode_lldb_testbed(setup, core):
    demo = demo_path(setup)
    cmds = ["mixed-bt", "py-bt", "jit-ranges"]
    if core:
        path = guest_core(setup, [demo], dict(setup.env, JITBED_ABORT_AT_CHECKPOINT="1"))
        out = lldb(setup, cmds, core=path)
        check_lldb_testbed("lldb core", out, demo, live=False)
        os.unlink(path)
        return 0
    guest = Guest(setup, [demo])
    try:
        # lldb stops on the function's first instruction: x30 still holds
        # the return address, so the library's walk needs the LR step.
        out = lldb(setup, ["breakpoint set -n jitbed_checkpoint", "continue"] + cmds, guest=guest)
    finally:
        guest.close()
    check_lldb_testbed("lldb live", out, demo, live=True)
    return 0


def mode_lldb_pac(setup):
    demo = demo_path(setup)
    guest = Guest(setup, [demo])
    try:
        out = lldb(setup, ["breakpoint set -n jitbed_checkpoint", "continue", "bt", "mixed-bt",
                           "py-bt", "jit-ranges"], guest=guest)
    finally:
        guest.close()
    # Not vacuous: stock lldb shows a signed return address (bits 48-63 set).
    stock = re.findall(r"frame #\d+: 0x([0-9a-f]{16})", test_lldb_demo.section(out, "bt"))
    if not any(int(pc, 16) >> 48 for pc in stock):
        fail("no signed return address in stock lldb's bt: is pac-ret in effect?\n"
             + test_lldb_demo.section(out, "bt"))
    print("ok: stock lldb stops at a signed return address after %d frames" % len(stock))
    check_lldb_testbed("lldb pac-ret live", out, demo, live=True)
    core = guest_core(setup, [demo], dict(setup.env, JITBED_ABORT_AT_CHECKPOINT="1"))
    out = lldb(setup, ["mixed-bt", "py-bt", "jit-ranges"], core=core)
    check_lldb_testbed("lldb pac-ret core", out, demo, live=False)
    os.unlink(core)
    return 0


def mode_lldb_debian(setup):
    script = setup.write("debian_target.py", DEBIAN_SCRIPT)
    guest = Guest(setup, [script])
    try:
        live = lldb(setup, ["breakpoint set -n getppid", "continue", "mixed-bt", "py-bt"],
                    guest=guest)
    finally:
        guest.close()
    core = guest_core(setup, [script, "abort"], setup.env)
    from_core = lldb(setup, ["mixed-bt", "py-bt"], core=core)
    os.unlink(core)
    for label, out, top in (("live", live, "leaf"), ("core", from_core, "abort")):
        label = "lldb Debian python3.11 %s" % label
        want = debian_want(script, top)
        check_stack(label + " mixed-bt", parse_mixed(test_lldb_demo.section(out, "mixed-bt")), want)
        check_debian_py_bt(label, test_lldb_demo.section(out, "py-bt"), script, want)
    return 0


MODES = {
    "gdb-live": lambda setup: mode_gdb_testbed(setup, core=False),
    "gdb-core": lambda setup: mode_gdb_testbed(setup, core=True),
    "gdb-debian": mode_gdb_debian,
    "gdb-entry": mode_gdb_entry,
    "lldb-live": lambda setup: mode_lldb_testbed(setup, core=False),
    "lldb-core": lambda setup: mode_lldb_testbed(setup, core=True),
    "lldb-debian": mode_lldb_debian,
    "lldb-pac": mode_lldb_pac,
}


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    build, repo, mode = sys.argv[1:]
    if not shutil.which(QEMU):
        print("SKIP: %s not installed (apt-get install qemu-user-static)" % QEMU)
        return SKIP
    if mode.startswith("gdb") and not GDB:
        print("SKIP: gdb-multiarch not installed")
        return SKIP
    if mode.startswith("lldb") and not LLDB:
        print("SKIP: lldb not installed (apt-get install lldb-19 python3-lldb-19)")
        return SKIP
    if mode not in MODES:
        print("unknown mode " + mode)
        return 2
    setup = Setup(build, repo, need_testbed=not mode.endswith("debian"),
                  variant="pac" if mode.endswith("pac") else "")
    return MODES[mode](setup)


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        for path in PERF_MAPS:
            if path and os.path.exists(path):
                os.unlink(path)
