#!/usr/bin/env python3
"""Plain gdb and lldb, typed as a user types them (no -x, no `source`, no
`command script import`), on python3.11 running hook_target.py: the hooks an
installation wrote (HOME's init files, or /etc/gdb/gdbinit.d) must have
loaded the plugins before the first command, in every way gdb meets a
process: started with `run`, attached with -p or with a later `attach`, a
core, in batch mode or reading commands as at a prompt; and gdb must
exit cleanly (no crash at exit). lldb: started with `run`, attached with -p
or with `process attach` typed at its prompt, a core.

Usage: check_debuggers.py WHAT [gdb-args...]
  gdb-args go before the commands (a test of an unpacked package passes
  `-nx -iex 'source HOOK'`). JITUNWIND_SKIP_LLDB=1 leaves lldb out.
Prints ok lines; exits 1 on the first failure."""

import os
import re
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from demo_stack import markers  # noqa: E402

TARGET = os.path.join(HERE, "hook_target.py")
PYTHON = "/usr/bin/python3.11"
LLDB = "lldb-19"
TAKEOVER_NOTE = "now use libjitunwind (libpython's versions are replaced"


LINE = markers(TARGET)
PY_BT = [r'File ".*hook_target\.py", line %d, in leaf' % LINE["leaf"],
         r'File ".*hook_target\.py", line %d, in middle' % LINE["middle"],
         r'File ".*hook_target\.py", line %d, in <module>' % LINE["module"]]
# bt's and mixed-bt's [py] lines: "[py] leaf () at FILE:N" and "[py] leaf at FILE:N"
MIXED = [r"\[py\] leaf (\(\) )?at .*hook_target\.py:%d" % LINE["leaf"],
         r"\[py\] middle (\(\) )?at .*hook_target\.py:%d" % LINE["middle"],
         r"\[py\] <module> (\(\) )?at .*hook_target\.py:%d" % LINE["module"]]


def fail(what, out, why):
    print(out[-4000:])
    print("FAIL: %s: %s" % (what, why))
    sys.exit(1)


def libpython_script():
    """CPython's libpython.py that gdb auto-loads for PYTHON (python3.11-dbg), if any."""
    path = "/usr/share/gdb/auto-load" + os.path.realpath(PYTHON) + "-gdb.py"
    return path if os.path.exists(path) else None


def run(cmd, stdin=None):
    p = subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, errors="replace", timeout=300)
    return p.returncode, p.stdout


def check(what, status, out, want, ours=True):
    if status != 0 or "Fatal signal" in out:
        fail(what, out, "exit status %d (want 0)" % status)
    for pattern in want:
        if not re.search(pattern, out):
            fail(what, out, "no line matching %s" % pattern)
    if ours and libpython_script() and TAKEOVER_NOTE not in out:
        fail(what, out, "py-bt is libpython's, not the plugin's (no takeover note)")
    print("ok: %s" % what)


class Waiting:
    """hook_target.py waiting in leaf() for a debugger to attach."""

    def __enter__(self):
        self.proc = subprocess.Popen([PYTHON, TARGET, "wait"], stdout=subprocess.PIPE, text=True)
        if self.proc.stdout.readline().strip() != "ready":
            raise RuntimeError("hook_target.py did not start")
        # "ready" comes just before pause(): wait until the process sleeps in it.
        for _ in range(200):
            with open("/proc/%d/stat" % self.proc.pid) as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "S":
                    break
            time.sleep(0.01)
        return self.proc.pid

    def __exit__(self, *exc):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()


def write_core(what, pid, folder):
    """A core of process `pid`, written by a gdb that reads no init file."""
    core = os.path.join(folder, "core")
    _, out = run(["gdb", "-nx", "-batch", "-iex", "set debuginfod enabled off",
                  "-p", str(pid), "-ex", "gcore %s" % core])
    if not os.path.exists(core):
        fail(what, out, "gcore wrote no core")
    return core


def check_gdb(what, gdb_args):
    gdb = ["gdb", "-iex", "set debuginfod enabled off"] + gdb_args
    status, out = run(gdb + ["-batch", "-ex", "run", "-ex", "bt", "-ex", "py-bt",
                             "--args", PYTHON, TARGET])
    check("%s: gdb -batch -ex run --args python ..." % what, status, out, MIXED + PY_BT)
    with Waiting() as pid:
        status, out = run(gdb + ["-batch", "-p", str(pid), "-ex", "py-bt", "-ex", "mixed-bt"])
        check("%s: gdb -batch -p PID -ex py-bt -ex mixed-bt" % what, status, out, PY_BT + MIXED)
        status, out = run(gdb + ["-batch", "-ex", "attach %d" % pid, "-ex", "py-bt",
                                 "-ex", "mixed-bt"])
        check("%s: gdb -batch -ex 'attach PID' -ex py-bt -ex mixed-bt" % what, status, out,
              PY_BT + MIXED)
        # As at a prompt: the commands come from standard input.
        status, out = run(gdb + ["-q", "-p", str(pid)], stdin="py-bt\nmixed-bt\ndetach\nquit\n")
        check("%s: gdb -p PID, then py-bt and mixed-bt typed at the prompt" % what, status, out,
              PY_BT + MIXED)
        with tempfile.TemporaryDirectory() as scratch:
            core = write_core(what, pid, scratch)
            status, out = run(gdb + ["-batch", PYTHON, core, "-ex", "py-bt", "-ex", "mixed-bt"])
            check("%s: gdb -batch python3.11 CORE -ex py-bt -ex mixed-bt" % what, status, out,
                  PY_BT + MIXED)
            status, out = run(gdb + ["-q", PYTHON, core], stdin="py-bt\nmixed-bt\nquit\n")
            check("%s: gdb python3.11 CORE, then py-bt and mixed-bt typed at the prompt" % what,
                  status, out, PY_BT + MIXED)
    # Lazy: a gdb session that never sees a CPython loads nothing of ours.
    status, out = run(gdb + ["-batch", "-ex", "run", "-ex",
                             'python import sys; print("jitunwind loaded:", "jitunwind" in sys.modules)',
                             "--args", "/bin/true"])
    check("%s: the gdb hook stays idle for a process that is not Python" % what, status, out,
          ["jitunwind loaded: False"], ours=False)


def check_lldb(what):
    status, out = run([LLDB, "-b", "-o", "run", "-o", "py-bt", "-o", "mixed-bt", "--",
                       PYTHON, TARGET])
    lldb_want = [r"leaf.*hook_target\.py:%d" % LINE["leaf"],
                 r"middle.*hook_target\.py:%d" % LINE["middle"],
                 r"<module>.*hook_target\.py:%d" % LINE["module"]]
    check("%s: lldb -b -o run -o py-bt -o mixed-bt -- python ..." % what, status, out,
          lldb_want, ours=False)
    with Waiting() as pid:
        status, out = run([LLDB, "-b", "-p", str(pid), "-o", "py-bt", "-o", "mixed-bt"])
        check("%s: lldb -b -p PID -o py-bt -o mixed-bt" % what, status, out, lldb_want,
              ours=False)
        status, out = run([LLDB], stdin="process attach -p %d\npy-bt\nmixed-bt\n"
                          "process detach\nquit\n" % pid)
        check("%s: lldb, then process attach -p PID, py-bt and mixed-bt typed at the prompt"
              % what, status, out, lldb_want, ours=False)
        with tempfile.TemporaryDirectory() as scratch:
            core = write_core(what, pid, scratch)
            status, out = run([LLDB, "-b", "-c", core, PYTHON, "-o", "py-bt", "-o", "mixed-bt"])
            check("%s: lldb -b -c CORE python3.11 -o py-bt -o mixed-bt" % what, status, out,
                  lldb_want, ours=False)


def main():
    what, gdb_args = sys.argv[1], sys.argv[2:]
    if not os.path.exists(PYTHON):
        print("SKIP: %s is not installed" % PYTHON)
        return 77
    check_gdb(what, gdb_args)
    if os.environ.get("JITUNWIND_SKIP_LLDB") != "1" and \
            subprocess.run(["sh", "-c", "command -v %s" % LLDB], stdout=subprocess.DEVNULL).returncode == 0:
        check_lldb(what)
    return 0


if __name__ == "__main__":
    sys.exit(main())
