#!/usr/bin/env python3
"""Tests of the jitunwind command (tools/jitunwind, docs/cli.md).

Usage: test_cli.py BUILD_DIR REPO_DIR MODE [PYTHON [ARG...]]
  MODE demo     the test bed's demo waiting at its checkpoint: the mixed stack
                (Python functions in order, JIT and trampoline frames named by
                their ranges and rules), --json, --python, --threads, and the
                target running on afterwards
  MODE core     the demo's core: the same stack; a wrong --exe refused (exit 7)
  MODE errors   usage (1), no such process (2), ptrace refused by another
                tracer (3), not a Python process (4), each with one line
  MODE real PYTHON [ARG...]   a live stack on a real interpreter ("extra":
                $JITUNWIND_EXTRA_PYTHONS; JIT builds must show executor frames)
  MODE layout-cache  stack on Debian's 3.11 (separate, compressed DWARF): the
                same output cold, warm (the entry written under
                $XDG_CACHE_HOME/jitunwind), with JITUNWIND_NO_CACHE=1 and
                --no-cache (nothing written; also without the in-run code and
                block caches: --stats shows four times the reads or more), and
                after the entry is damaged, cut short or another build's
                (ignored, then rewritten)
  MODE debug-files  Debian's stripped python3.15 ($JITUNWIND_EXTRA_PYTHONS, JIT
                on and off) and python3.15d, each live and on a core, with
                their debug root passed (--debug-file-directory,
                JITUNWIND_DEBUG_FILE_DIRECTORY): every Python frame run by an
                eval-loop frame (`.cold` included), uops named (stack; top only
                with the root), record's stacks from _start with and without
                the root, another build's debug file refused with a note
  MODE chains   record on a 100-deep recursion with a hot leaf: the same stacks
                with the frame-chain cache as without, fewer reads per sample
Exit 0 on success, 1 on failure, 77 to skip.
"""

import ctypes
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from cores import core_until, of_pid  # noqa: E402
from demo_stack import (EVAL, JIT_SCRIPT, demo_setup, expected_stack, fail, markers,  # noqa: E402
                        parse_mixed)
from extra_pythons import JIT_ON, debug_root, named  # noqa: E402
from values_target import gcore  # noqa: E402

SKIP = 77


def tool(build):
    path = os.path.join(build, "tools", "jitunwind", "jitunwind")
    if not os.access(path, os.X_OK):
        fail("%s was not built" % path)
    return path


def run(cmd, timeout=120):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def state(pid):
    """The process state letter of /proc/PID/stat (R, S, t, T, Z...)."""
    with open("/proc/%d/stat" % pid) as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def assert_running(pid, label):
    """Not left stopped: never in a ptrace stop (t) or a stop (T)."""
    for _ in range(5):
        s = state(pid)
        if s in ("t", "T"):
            fail("%s: the target was left stopped (state %s)" % (label, s))
        time.sleep(0.02)


def wait_for(path, proc, what, timeout=30):
    deadline = time.time() + timeout
    while not os.path.exists(path):
        if proc.poll() is not None:
            fail("%s exited (%s) before %s:\n%s" % (proc.args, proc.returncode, what,
                                                    proc.stdout.read() if proc.stdout else ""))
        if time.time() > deadline:
            fail("timed out waiting for %s" % what)
        time.sleep(0.05)


class WaitingDemo:
    """The demo, waiting in jitbed_checkpoint until `release()`."""

    def __init__(self, build, work):
        setup = demo_setup(build)
        if setup is None:
            sys.exit(SKIP)
        python, self.script, env = setup
        self.gate = os.path.join(work, "gate")
        if os.path.exists(self.gate + ".ready"):
            os.unlink(self.gate + ".ready")  # an earlier demo's, in a reused folder
        open(self.gate, "w").close()
        env = dict(env, JITBED_WAIT_AT_CHECKPOINT=self.gate)
        self.proc = subprocess.Popen([python, self.script], env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        wait_for(self.gate + ".ready", self.proc, "the demo's checkpoint")

    def release(self):
        """Let the demo finish: it must print its last line and exit 0."""
        os.unlink(self.gate)
        out, _ = self.proc.communicate(timeout=60)
        if self.proc.returncode != 0 or "demo: done" not in out:
            fail("the demo did not finish after the stack was taken (exit %s):\n%s"
                 % (self.proc.returncode, out))

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def interesting(frames):
    """The frames the demo's expected stack names; the abort of a core's
    checkpoint happens in its compiler-split cold part."""
    keep = ("jitbed_checkpoint", "jitbed_wait_at_checkpoint", EVAL, "_start")
    frames = [f[:-len(".cold")] if isinstance(f, str) and f.endswith(".cold") else f
              for f in frames]
    return [f for f in frames if isinstance(f, tuple) or f in keep or f.startswith("py::")]


def check_demo_text(label, out, demo, live=True):
    """A live demo waits in jitbed_wait_at_checkpoint, where a core (an
    abort) has jitbed_checkpoint."""
    want = [w for w in expected_stack(demo)]
    if live:
        want[0] = "jitbed_wait_at_checkpoint"
    got = interesting(parse_mixed(out))
    if got != want:
        fail("%s: stack differs\n  expected:\n%s\n  got:\n%s\n%s" % (
            label, "\n".join("    %r" % (w,) for w in want),
            "\n".join("    %r" % (g,) for g in got), out))
    # How each frame was found: the frame a range's rule gave, and CFI for
    # native code (Debian's python3.11 has no frame pointers).
    sources = re.findall(r"^#\d+ .* \((initial|rule|fp|lr|cfi)\)$", out, re.M)
    if "rule" not in sources or "cfi" not in sources or sources[0] != "initial":
        fail("%s: frames do not say how they were found: %r" % (label, sources))
    print("ok: %s: %d interesting frames in the expected order, through JIT and both "
          "trampoline layouts" % (label, len(got)))


def json_keys(value):
    """Every object key anywhere in a parsed JSON document."""
    keys, todo = set(), [value]
    while todo:
        v = todo.pop()
        if isinstance(v, dict):
            keys |= set(v)
            todo.extend(v.values())
        elif isinstance(v, list):
            todo.extend(v)
    return keys


def documented_json_keys():
    """The keys docs/cli.md's `jitunwind-stack/1` block names."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "cli.md")
    with open(path) as f:
        text = f.read()
    start = text.index("### `--json`: the schema `jitunwind-stack/1`")
    block = text[text.index("```", start) + 3:]
    return set(re.findall(r'"(\w+)":', block[:block.index("```")]))


ONLY_WITH_LOCALS = {"locals", "name", "repr", "argument"}


def check_demo_json(label, text, demo, pid):
    doc = json.loads(text)
    documented = documented_json_keys()
    real = json_keys(doc)
    if real - documented or documented - real - ONLY_WITH_LOCALS:
        fail("%s: docs/cli.md's schema and the real JSON differ: undocumented %r, "
             "documented but absent %r" % (label, sorted(real - documented),
                                           sorted(documented - real - ONLY_WITH_LOCALS)))
    for key in ("schema", "tool", "target", "notes", "threads", "exit_code"):
        if key not in doc:
            fail("%s: JSON has no %r" % (label, key))
    if doc["schema"] != "jitunwind-stack/1" or doc["exit_code"] != 0:
        fail("%s: schema/exit code: %r %r" % (label, doc["schema"], doc["exit_code"]))
    if doc["target"]["pid"] != pid or not doc["target"]["python"].startswith("3.11"):
        fail("%s: target %r" % (label, doc["target"]))
    (thread,) = doc["threads"]
    if thread["tid"] != pid or not thread["python"] or thread["stop_reason"] != "end of stack":
        fail("%s: thread %r" % (label, {k: v for k, v in thread.items() if k != "frames"}))
    frames = thread["frames"]
    py = [(f["function"], f["line"]) for f in frames if f["kind"] == "python"]
    want = [(w[1], w[2]) for w in expected_stack(demo) if isinstance(w, tuple)]
    if py != want:
        fail("%s: Python frames %r, expected %r" % (label, py, want))
    for f in frames:
        if f["kind"] == "python":
            anchor = frames[[i for i, g in enumerate(frames) if g["kind"] == "native"
                             and g["index"] == f["anchor"]][0]]
            if anchor["role"] != "eval" or anchor["symbol"] != EVAL:
                fail("%s: %s anchored to %r" % (label, f["function"], anchor))
    ranges = [(f["range"]["kind"], f["range"]["rule"], f["range"]["origin"], f["found_by"])
              for f in frames if f["kind"] == "native" and f["range"]]
    kinds = sorted(set(r[:3] for r in ranges))
    if kinds != [("jit", "fp-preserving", "descriptor"), ("trampoline", "framed", "perf-map"),
                 ("trampoline", "sub8", "perf-map")]:
        fail("%s: ranges %r" % (label, kinds))
    for f in frames:
        if f["kind"] == "native" and (not f["pc"].startswith("0x") or f["found_by"] not in
                                      ("initial", "rule", "fp", "lr", "cfi")):
            fail("%s: frame %r" % (label, f))
    print("ok: %s: JSON parsed, every key as docs/cli.md documents it; %d Python frames "
          "anchored to eval loops; ranges %r" % (label, len(py), kinds))


def mode_demo(build, work):
    j = tool(build)
    demo = WaitingDemo(build, work)
    try:
        pid = demo.proc.pid
        rc, out, err = run([j, "stack", str(pid)])
        if rc != 0 or err:
            fail("stack: exit %d, stderr %r\n%s" % (rc, err, out))
        check_demo_text("stack PID", out, demo.script)
        assert_running(pid, "stack PID")
        hidden = re.findall(r"\.\.\. (\d+) interpreter frames?", out)
        rc, full, _ = run([j, "stack", str(pid), "--native-all"])
        check_demo_text("stack --native-all", full, demo.script)
        if not hidden or len(parse_mixed(full)) != len(parse_mixed(out)) + sum(map(int, hidden)):
            fail("--native-all does not show the %r hidden frames:\n%s" % (hidden, full))
        rc, out, err = run([j, "stack", str(pid), "--json"])
        if rc != 0:
            fail("--json: exit %d: %s" % (rc, err))
        check_demo_json("stack --json", out, demo.script, pid)
        rc, out, err = run([j, "stack", str(pid), "--python"])
        py = [f for f in parse_mixed(out) if isinstance(f, tuple)]
        want = [w for w in expected_stack(demo.script) if isinstance(w, tuple)]
        if rc != 0 or py != want or re.search(r"^#\d", out, re.M):
            fail("--python: exit %d, want only %r:\n%s%s" % (rc, want, out, err))
        print("ok: stack --python: %d Python frames, no native ones" % len(py))
        rc, out, err = run([j, "stack", str(pid), "--threads", str(pid), "--locals"])
        if rc != 0 or "Thread %d" % pid not in out:
            fail("--threads/--locals: exit %d:\n%s%s" % (rc, out, err))
        print("ok: stack --threads %d --locals" % pid)
        rc, out, err = run([j, "stack", str(pid), "--threads", "1"])
        if rc != 1 or "none of --threads" not in err:
            fail("--threads of another process: exit %d, %r" % (rc, err))
        assert_running(pid, "after every command")
        demo.release()
        print("ok: the demo ran on to the end after 5 stacks")
    finally:
        demo.kill()


THREADS_SCRIPT = """\
import os, sys, threading, time
gate = sys.argv[1]
ready = threading.Barrier(9)
release, releaser = os.pipe()
arrived = []


def make(i):
    # Blocked in C (os.read), never in a Python helper: a sample must find
    # worker_N innermost whenever it is taken. Leaving the barrier takes a
    # thread a while (it must take the condition's lock again), so the main
    # thread waits until each has said it is out (list.append: a C call,
    # worker_N stays innermost).
    def spin():
        ready.wait()
        arrived.append(i)
        os.read(release, 1)
    name = "worker_%d" % i
    spin.__code__ = spin.__code__.replace(co_name=name, co_qualname=name)
    return spin


def recurse(n, fn):
    if n == 0:
        return fn()
    return recurse(n - 1, fn)


threads = [threading.Thread(target=recurse, args=(20, make(i))) for i in range(8)]
for t in threads:
    t.start()
ready.wait()
while len(arrived) < len(threads):
    time.sleep(0.001)
open(gate + ".ready", "w").close()
while os.path.exists(gate):
    time.sleep(0.01)
os.write(releaser, b"x" * len(threads))
for t in threads:
    t.join()
print("threads: done")
"""


def start_script(python, args, script_text, work, name, env=None):
    script = os.path.join(work, name)
    with open(script, "w") as f:
        f.write(script_text)
    gate = os.path.join(work, name + ".gate")
    if os.path.exists(gate + ".ready"):
        os.unlink(gate + ".ready")  # a previous interpreter's
    open(gate, "w").close()
    proc = subprocess.Popen([python] + args + [script, gate], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env)
    wait_for(gate + ".ready", proc, "%s to start" % name)
    return proc, gate


def check_threads(build, work, python, args, label):
    j = tool(build)
    proc, gate = start_script(python, args, THREADS_SCRIPT, work, "threads.py")
    try:
        t0 = time.time()
        rc, out, err = run([j, "stack", str(proc.pid), "--json"])
        took = time.time() - t0
        if rc != 0:
            fail("%s: exit %d: %s\n%s" % (label, rc, err, out[-3000:]))
        doc = json.loads(out)
        threads = doc["threads"]
        perf = "perf" in args
        if len(threads) != 9:
            fail("%s: %d threads, want 9" % (label, len(threads)))
        seen = set()
        for t in threads:
            py = [f["function"] for f in t["frames"] if f["kind"] == "python"]
            natives = [f for f in t["frames"] if f["kind"] == "native"]
            if not natives or t["stop_reason"] != "end of stack":
                fail("%s: thread %d: no complete native stack (%s)" % (
                    label, t["tid"], t["stop_reason"]))
            if t["tid"] == proc.pid:
                continue
            if not py or not py[0].startswith("worker_") or py.count("recurse") != 21:
                fail("%s: thread %d: Python frames %r" % (label, t["tid"], py))
            if any(f["anchor"] is None for f in t["frames"] if f["kind"] == "python"):
                fail("%s: thread %d: Python frames without a native eval loop" % (label, t["tid"]))
            if perf and not any(f["range"] and f["range"]["kind"] == "trampoline"
                                and f["name"].startswith("py::") for f in t["frames"]
                                if f["kind"] == "native"):
                fail("%s: thread %d: -X perf, but no trampoline frame" % (label, t["tid"]))
            seen.add(py[0])
        if seen != {"worker_%d" % i for i in range(8)}:
            fail("%s: workers seen %r" % (label, sorted(seen)))
        assert_running(proc.pid, label)
        os.unlink(gate)
        out, _ = proc.communicate(timeout=60)
        if "threads: done" not in out:
            fail("%s: the target did not finish: %s" % (label, out))
        print("ok: %s: 9 threads, each worker's 22 Python frames anchored%s (%.2f s)" % (
            label, ", through perf trampolines" if perf else "", took))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def make_core(python, demo, env, work):
    """A core of the demo at jitbed_checkpoint, and the pid it was taken of:
    the kernel's, written in `work` when core_pattern writes a file there,
    else gdb's gcore (core_pattern may pipe cores to a crash collector)."""
    with open("/proc/sys/kernel/core_pattern") as f:
        pattern = f.read().strip()
    if pattern == "core" or pattern.startswith("core."):
        import resource
        proc = subprocess.Popen([python, demo], env=dict(env, JITBED_ABORT_AT_CHECKPOINT="1"),
                                cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                preexec_fn=lambda: resource.setrlimit(
                                    resource.RLIMIT_CORE, (resource.RLIM_INFINITY,) * 2))
        proc.communicate(timeout=120)
        cores = [os.path.join(work, n) for n in os.listdir(work) if n.startswith("core")]
        if not cores:
            fail("no core was written in %s (core_pattern %r)" % (work, pattern))
        return cores[0], proc.pid
    if not shutil.which("gdb"):
        print("SKIP: core_pattern %r writes no core here, and gdb (gcore) is not installed"
              % pattern)
        sys.exit(SKIP)
    core = os.path.join(work, "demo.gcore")
    out = subprocess.run(["gdb", "-nx", "-batch", "-iex", "set debuginfod enabled off",
                          "-ex", "set breakpoint pending on", "-ex", "break jitbed_checkpoint",
                          "-ex", "run", "-ex", "gcore " + core, "-ex", "kill",
                          "--args", python, demo], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=300).stdout
    pid = re.search(r"\(process (\d+)\) killed", out)
    if not pid or not os.path.exists(core):
        fail("gcore wrote no core of the demo:\n" + out[-3000:])
    return core, int(pid.group(1))


def mode_core(build, work):
    j = tool(build)
    setup = demo_setup(build)
    if setup is None:
        return SKIP
    python, demo, env = setup
    core, pid = make_core(python, demo, env, work)
    try:
        rc, out, err = run([j, "stack", "--core", core, "--exe", python])
        if rc != 0:
            fail("stack --core: exit %d: %s\n%s" % (rc, err, out))
        check_demo_text("stack --core", out, demo, live=False)
        if "Thread %d" % pid not in out:
            fail("stack --core: the thread is not the dumped process's %d" % pid)
        rc, out, err = run([j, "stack", "--core", core, "--json"])
        doc = json.loads(out)
        if rc != 0 or doc["target"]["core"] != core or doc["target"]["pid"] != pid:
            fail("stack --core --json: exit %d, target %r" % (rc, doc["target"]))
        print("ok: stack --core --json")
        other = next((p for p in ("/root/.pyenv/versions/3.11.7/bin/python3.11", "/bin/sh",
                                  "/usr/bin/env") if os.path.exists(p)
                      and os.path.realpath(p) != os.path.realpath(python)), None)
        rc, out, err = run([j, "stack", "--core", core, "--exe", other])
        if rc != 7 or out or len(err.splitlines()) != 1 or "does not match" not in err:
            fail("wrong --exe: exit %d, stdout %r, stderr %r" % (rc, out, err))
        print("ok: wrong --exe %s: exit 7, %s" % (other, err.strip()))
        rc, out, err = run([j, "stack", "--core", demo])
        if rc != 7 or len(err.splitlines()) != 1 or "not an ELF" not in err:
            fail("a core that is not one: exit %d, %r" % (rc, err))
        rc, out, err = run([j, "stack", "--core", os.path.join(work, "absent")])
        if rc != 2 or len(err.splitlines()) != 1:
            fail("a missing core: exit %d, %r" % (rc, err))
        print("ok: not a core: exit 7; a missing core: exit 2")
        check_partial_core(j, work, core, doc)
    finally:
        os.unlink(core)
    return 0


def check_partial_core(j, work, core, doc):
    """Exit 6: a core cut short before the segment of the thread's stack
    (its notes, and so its registers, kept) gives the thread's frames up to
    the unreadable stack, says where the walk stopped, and exits 6."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gdb"))
    from test_gdb_demo import truncate_before
    frames = doc["threads"][0]["frames"]
    sp = next(int(f["sp"], 16) for f in frames if f["kind"] == "native" and f.get("sp"))
    cut = os.path.join(work, "core.cut")
    if not truncate_before(core, sp, cut):
        fail("no segment of the core holds the stack pointer %#x" % sp)
    try:
        rc, out, err = run([j, "stack", "--core", cut])
        stopped = [line for line in out.splitlines() if "cut short" in line]
        if rc != 6 or err.strip() or len(stopped) != 1 or "native stack cut short" not in out:
            fail("a core without the thread's stack: exit %d, stderr %r, output:\n%s" % (
                rc, err, out))
        rc, out, err = run([j, "stack", "--core", cut, "--json"])
        thread = json.loads(out)["threads"][0]
        if rc != 6 or thread["partial"] is not True or thread["stop_reason"] == "end of stack":
            fail("--json of a core without the thread's stack: exit %d, %r" % (
                rc, {k: v for k, v in thread.items() if k != "frames"}))
        print("ok: a core without the thread's stack: exit 6, %s" % stopped[0].strip())
    finally:
        os.unlink(cut)


PTRACE_SEIZE, PTRACE_DETACH = 0x4206, 17

# A program that looks like CPython 3.10 to the locator: it defines
# _PyRuntime and a Py_Version of 3.10.0 (which 3.10 itself did not have).
FAKE_PY310 = r"""
#include <unistd.h>
__attribute__((used)) char _PyRuntime[4096];
__attribute__((used)) const unsigned long Py_Version = 0x030a00f0;
int main(void) { write(1, "ready\n", 6); pause(); return 0; }
"""


def check_unsupported_version(j, work):
    src, exe = os.path.join(work, "fake310.c"), os.path.join(work, "fake310")
    with open(src, "w") as f:
        f.write(FAKE_PY310)
    if subprocess.run(["cc", "-O0", "-o", exe, src]).returncode != 0:
        fail("could not compile the fake interpreter")
    proc = subprocess.Popen([exe], stdout=subprocess.PIPE, text=True)
    try:
        proc.stdout.readline()
        rc, out, err = run([j, "stack", str(proc.pid)])
        if rc != 5 or out or "3.10" not in err or "not supported" not in err \
                or len(err.splitlines()) != 1:
            fail("an unsupported version: exit %d, %r %r" % (rc, out, err))
        print("ok: an unsupported version: exit 5, %s" % err.strip())
    finally:
        proc.kill()
        proc.wait()


def mode_errors(build, work):
    j = tool(build)
    checks = [
        ([j], 1, "no command"),
        ([j, "stack"], 1, "give a PID"),
        ([j, "stack", "abc"], 1, "not a process id"),
        ([j, "stack", "1", "--bogus"], 1, "--bogus"),
        ([j, "stack", "--core", "x", "--python"], 1, "--python"),
        ([j, "stack", "0x10"], 1, "not a process id"),
        ([j, "frobnicate", "1"], 1, "unknown command"),
        ([j, "stack", "4194303"], 2, "no process 4194303"),
        ([j, "stack", "1", "--debug-file-directory"], 1, "needs a value"),
        ([j, "record", "1", "--debug-file-directory", "/d" * 2048], 1, "too long"),
        ([j, "record", "1", "-F", "1e-300"], 1, "-F wants a rate of at least 1 Hz"),
        ([j, "top", "1", "-F", "0.5"], 1, "-F wants a rate of at least 1 Hz"),
        ([j, "record", "1", "--stack-size", "8192"], 1, "--stack-size goes with --perf"),
        ([j, "record", "1", "--perf", "--nonblocking"], 1, "give one"),
    ]
    for cmd, code, text in checks:
        rc, out, err = run(cmd)
        if rc != code or text not in err or out or not err.startswith("jitunwind: "):
            fail("%r: want exit %d and %r, got %d %r %r" % (cmd[1:], code, text, rc, out, err))
    print("ok: %d bad command lines: exit codes 1 and 2, one line and the usage" % len(checks))
    rc, out, err = run([j, "--help"])
    if rc != 0 or "Exit codes" not in out or "--nonblocking" not in out:
        fail("--help: %d %r" % (rc, out))
    rc, out, _ = run([j, "--version"])
    if rc != 0 or not re.match(r"jitunwind \d+\.\d+\.\d+$", out.strip()):
        fail("--version: %r" % out)
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        rc, out, err = run([j, "stack", str(sleeper.pid)])
        if rc != 4 or out or "not a Python process" not in err or len(err.splitlines()) != 1:
            fail("non-Python process: exit %d, %r %r" % (rc, out, err))
        print("ok: a non-Python process: exit 4, %s" % err.strip())
    finally:
        sleeper.kill()
        sleeper.wait()
    check_unsupported_version(j, work)
    check_range_over_a_module(build, j, work)
    # Another tracer holds the target: PTRACE_SEIZE is refused with EPERM.
    demo = WaitingDemo(build, work)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    try:
        pid = demo.proc.pid
        if libc.ptrace(PTRACE_SEIZE, pid, None, None) != 0:
            fail("the test could not seize the demo: errno %d" % ctypes.get_errno())
        rc, out, err = run([j, "stack", str(pid)])
        if rc != 3 or out or "already traced by process %d" % os.getpid() not in err \
                or len(err.splitlines()) != 1:
            fail("ptrace refused: exit %d, %r %r" % (rc, out, err))
        print("ok: ptrace refused: exit 3, %s" % err.strip())
        rc, out, err = run([j, "stack", str(pid), "--python"])
        if rc != 0 or "[py] leaf at" not in out:
            fail("--python on a traced process: exit %d %r %r" % (rc, out, err))
        print("ok: --python still reads it (no ptrace)")
    finally:
        demo.kill()
    return 0


# A JIT that registers a range over libc's getppid (corrupt metadata: JIT
# code lives in anonymous memory) with the library's in-process API.
CORRUPT_SCRIPT = """\
import ctypes, os, sys, time
lib = ctypes.CDLL(os.environ["JITUNWIND_LIBRARY"])
libc = ctypes.CDLL(None)
lib.jitunwind_jit_register.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                                       ctypes.c_int, ctypes.c_char_p, ctypes.c_uint64,
                                       ctypes.c_void_p]
at = ctypes.cast(libc.getppid, ctypes.c_void_p).value
rc = lib.jitunwind_jit_register(at, 64, KIND, RULE, b"corrupt", 0, None)
gate = sys.argv[1]
open(gate + ".ready", "w").close()
print("registered", rc, flush=True)
while os.path.exists(gate):
    time.sleep(0.01)
"""


def check_range_over_a_module(build, j, work):
    """`stack` drops a registered range that overlaps a mapped file, and
    says so, as the debugger plugins do."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                    "libjitunwind", "bindings", "python"))
    import jitunwind
    script = CORRUPT_SCRIPT.replace("KIND", str(jitunwind.KIND_JIT)).replace(
        "RULE", str(jitunwind.RULE_FP_PRESERVING))
    os.environ.setdefault("JITUNWIND_LIBRARY",
                          os.path.join(build, "libjitunwind", "libjitunwind.so"))
    proc, gate = start_script("/usr/bin/python3.11", [], script, work, "corrupt.py")
    try:
        rc, out, err = run([j, "stack", str(proc.pid)])
        if "1 ranges dropped: they overlap mapped files" not in out + err or "corrupt [jit" in out:
            fail("a range over libc: exit %d\n%s%s" % (rc, out, err))
        print("ok: a registered range over libc is dropped, with a note")
    finally:
        os.unlink(gate)
        proc.wait(timeout=60)


def jit_enabled(python, args):
    """Whether `python ARGS` runs its JIT with JIT_ON in its environment."""
    out = subprocess.run([python] + args + ["-c", "import sys; j = getattr(sys, '_jit', None); "
                          "print(bool(j and j.is_enabled()))"], env=dict(os.environ, **JIT_ON),
                         stdout=subprocess.PIPE, text=True, timeout=60).stdout.strip()
    return out == "True"


HOT_SCRIPT = JIT_SCRIPT.replace("for _ in range(20):", "while os.path.exists(GATE):").replace(
    "import os\n", "import os, sys\nGATE = sys.argv[1]\nopen(GATE + '.ready', 'w').close()\n", 1)


def check_jit(build, work, python, args, label):
    """A JIT build: some stack taken while the hot loop runs shows the
    executor as a JIT frame named after its code, and the walk goes on
    through it to the eval loop and _start."""
    j = tool(build)
    proc, gate = start_script(python, args, HOT_SCRIPT, work, "hot.py",
                              env=dict(os.environ, **JIT_ON))
    try:
        for attempt in range(200):
            rc, out, err = run([j, "stack", str(proc.pid)])
            frames = parse_mixed(out)
            jit = [f for f in frames if isinstance(f, str) and f.startswith("py::jit:hot")]
            # A stack taken in the loop's call of os.getppid out of JIT code
            # (not one stopped in the JIT code itself, nor in a helper a
            # stencil calls, as debug builds do): its pc there is the
            # return address of a call uop.
            callees = frames[:frames.index(jit[0])] if jit else []
            if rc == 0 and jit and "_start" in frames and \
                    any(isinstance(f, str) and "getppid" in f for f in callees):
                names = [f for f in frames if isinstance(f, tuple)]
                if [n[1] for n in names] != ["hot", "caller", "<module>"]:
                    fail("%s: Python frames %r\n%s" % (label, names, out))
                # The uop at the return address is a call, whose bytecode
                # target gives the innermost Python frame its exact line,
                # and the JIT frame's label that uop's line (not the
                # executor's first line).
                hot = markers(os.path.join(work, "hot.py"))["hot"]
                if "CALL" not in jit[0] or names[0][2] != hot or \
                        "hot.py:%d) [jit" % hot not in jit[0]:
                    fail("%s: the JIT frame %r, its Python frame %r: want a call uop and "
                         "line %d" % (label, jit[0], names[0], hot))
                print("ok: %s: executor frame %r after %d stacks" % (label, jit[0], attempt + 1))
                break
            assert_running(proc.pid, label)
        else:
            fail("%s: no stack of 200 showed a call out of a JIT frame; last:\n%s%s"
                 % (label, out, err))
    finally:
        if os.path.exists(gate):
            os.unlink(gate)
        proc.wait(timeout=60)


def mode_real(build, work, spec):
    python, args = spec[0], spec[1:]
    pythons = [[python] + args]
    if python == "extra":
        pythons = [[p] for p in os.environ.get("JITUNWIND_EXTRA_PYTHONS", "").split(":") if p]
        if not pythons:
            print("SKIP: JITUNWIND_EXTRA_PYTHONS is not set (colon-separated interpreter paths)")
            return SKIP
    present = [p for p in pythons if os.access(p[0], os.X_OK)]
    if not present:
        print("SKIP: no interpreter at %s" % ", ".join(p[0] for p in pythons))
        return SKIP
    for p in present:
        label = " ".join(p)
        # A distribution layout's stripped interpreter has its symbols under
        # PREFIX/lib/debug, passed as a user passes it.
        os.environ["JITUNWIND_DEBUG_FILE_DIRECTORY"] = debug_root(p[0]) or ""
        check_threads(build, work, p[0], p[1:], label)
        if jit_enabled(p[0], p[1:]):
            check_jit(build, work, p[0], p[1:], label + " (JIT)")
    return 0


HOT_PROFILE_SCRIPT = """\
import os, sys, time
GATE = sys.argv[1]


def hot_function(n):
    total = 0
    for i in range(n):
        total += i * i
    return total


def cold_function():
    # CPU work too (a tenth of hot_function's): waiting for a CPU on a loaded
    # machine after a sleep would count against it in wall-clock samples.
    total = 0
    for i in range(10000):
        total += i
    return total


def main():
    open(GATE + ".ready", "w").close()
    while os.path.exists(GATE):
        hot_function(100000)
        cold_function()


main()
"""


def parse_collapsed(text):
    """{stack tuple (root first): count}; every line must be `a;b;c N`."""
    stacks = {}
    for line in text.splitlines():
        m = re.match(r"^(.+) (\d+)$", line)
        if not m:
            fail("collapsed: a line that does not parse: %r" % line)
        stacks[tuple(m.group(1).split(";"))] = int(m.group(2))
    if not stacks:
        fail("collapsed: no stacks")
    return stacks


PY_LABEL = re.compile(r"^(.+) \((.+):(\d+)\)$")


def python_leaves(stacks):
    """{innermost Python function: count} (native frames above it skipped)."""
    out = {}
    for s, n in stacks.items():
        names = [m.group(1) for m in map(PY_LABEL.match, s) if m]
        if names:
            out[names[-1]] = out.get(names[-1], 0) + n
    return out


def dominates(label, leaves, name="hot_function", other="cold_function"):
    """`name` is the innermost Python function of most samples, far ahead of
    `other` (on a loaded machine the share itself varies)."""
    total = sum(leaves.values())
    hot, cold = leaves.get(name, 0), leaves.get(other, 0)
    if hot != max(leaves.values()) or hot < 2 * cold or hot < 0.4 * total:
        fail("%s: %s does not dominate: %r" % (label, name, leaves))
    return hot / total


def check_speedscope(path):
    """The fields speedscope's file-format schema requires, and their types."""
    doc = json.load(open(path))
    if doc.get("$schema") != "https://www.speedscope.app/file-format-schema.json":
        fail("speedscope: $schema %r" % doc.get("$schema"))
    frames = doc["shared"]["frames"]
    if not frames or not all(isinstance(f.get("name"), str) for f in frames):
        fail("speedscope: frames need a name: %r" % frames[:3])
    (prof,) = doc["profiles"]
    for key in ("type", "name", "unit", "startValue", "endValue", "samples", "weights"):
        if key not in prof:
            fail("speedscope: profile has no %r" % key)
    if prof["type"] != "sampled" or prof["unit"] not in ("seconds", "none", "milliseconds"):
        fail("speedscope: %r %r" % (prof["type"], prof["unit"]))
    if len(prof["samples"]) != len(prof["weights"]) or not prof["samples"]:
        fail("speedscope: %d samples, %d weights" % (len(prof["samples"]), len(prof["weights"])))
    for sample in prof["samples"]:
        if not all(isinstance(i, int) and 0 <= i < len(frames) for i in sample):
            fail("speedscope: a sample names a frame that does not exist: %r" % sample)
    if abs(sum(prof["weights"]) - prof["endValue"]) > 1e-3:
        fail("speedscope: endValue %r is not the weights' sum" % prof["endValue"])
    hot = sum(w for s, w in zip(prof["samples"], prof["weights"])
              if frames[s[-1]]["name"] == "hot_function")
    return hot / sum(prof["weights"])


def read_varint(data, at):
    """(value, next offset) of the base-128 varint at data[at]."""
    value = shift = 0
    while True:
        b = data[at]
        at += 1
        value |= (b & 0x7f) << shift
        shift += 7
        if not b & 0x80:
            return value, at


def protobuf_fields(data):
    """(field number, wire type, value) of a protobuf message: varints as
    ints, length-delimited fields as bytes (a small decoder of the wire
    format, for pprof)."""
    out, at = [], 0
    while at < len(data):
        key, at = read_varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = read_varint(data, at)
            out.append((number, 0, value))
        elif wire == 2:
            n, at = read_varint(data, at)
            out.append((number, 2, data[at:at + n]))
            at += n
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            out.append((number, wire, data[at:at + size]))
            at += size
        else:
            fail("pprof: wire type %d" % wire)
    return out


def packed(fields, number):
    """A repeated scalar field, packed (proto3) or not."""
    values = []
    for n, wire, v in fields:
        if n != number:
            continue
        if wire == 0:
            values.append(v)
            continue
        at = 0
        while at < len(v):
            value, at = read_varint(v, at)
            values.append(value)
    return values


def check_pprof(path):
    """Decode the gzipped profile.proto: string table, functions, locations
    and samples must refer to each other; the hot function's share of the
    samples is returned."""
    import gzip
    data = gzip.open(path).read()
    top = protobuf_fields(data)
    strings = [v.decode() for n, w, v in top if n == 6]
    if not strings or strings[0] != "":
        fail("pprof: string_table[0] must be empty: %r" % strings[:3])
    functions, locations, samples = {}, {}, []
    for n, w, v in top:
        f = protobuf_fields(v) if w == 2 and n in (2, 4, 5) else None
        if n == 5:
            d = {k: val for k, _, val in f}
            functions[d[1]] = strings[d[2]]
        elif n == 4:
            d = {k: val for k, _, val in f if k != 4}
            lines = [dict((k, val) for k, _, val in protobuf_fields(l)) for k, _, l in f if k == 4]
            locations[d[1]] = [l[1] for l in lines]
        elif n == 2:
            samples.append((packed(f, 1), packed(f, 2)))
    if not functions or not locations or not samples:
        fail("pprof: %d functions, %d locations, %d samples" % (
            len(functions), len(locations), len(samples)))
    types = [dict((k, val) for k, _, val in protobuf_fields(v)) for n, w, v in top if n == 1]
    if [(strings[t[1]], strings[t[2]]) for t in types] != [("samples", "count"),
                                                          ("cpu", "nanoseconds")]:
        fail("pprof: sample types %r" % types)
    hot = total = 0
    for locs, values in samples:
        if len(values) != 2 or not locs:
            fail("pprof: sample %r %r" % (locs, values))
        for l in locs:
            if l not in locations or any(fid not in functions for fid in locations[l]):
                fail("pprof: location %d or its function is not in the profile" % l)
        total += values[0]
        if functions[locations[locs[0]][0]] == "hot_function":  # the leaf comes first
            hot += values[0]
    if subprocess.run(["sh", "-c", "command -v protoc"], stdout=subprocess.PIPE).returncode == 0:
        p = subprocess.run(["protoc", "--decode_raw"], input=data, stdout=subprocess.PIPE)
        if p.returncode != 0:
            fail("pprof: protoc --decode_raw refused the profile")
    return hot / total


def mode_record(build, work):
    j = tool(build)
    python = "/usr/bin/python3.11"
    proc, gate = start_script(python, [], HOT_PROFILE_SCRIPT, work, "hot_profile.py")
    try:
        out_path = os.path.join(work, "profile.txt")
        rc, out, err = run([j, "record", str(proc.pid), "-d", "2", "--nonblocking", "-o",
                            out_path])
        if rc != 0 or not re.search(r"\d+ samples, [\d.]+ Hz, \d+ errors", err):
            fail("record --nonblocking: exit %d, progress %r" % (rc, err))
        stacks = parse_collapsed(open(out_path).read())
        share = dominates("record --nonblocking", python_leaves(stacks))
        print("ok: record --nonblocking: collapsed parses, hot_function %.0f%% of %d samples"
              % (100 * share, sum(stacks.values())))
        rc, out, err = run([j, "record", str(proc.pid), "-d", "2", "-o", out_path])
        stacks = parse_collapsed(open(out_path).read())
        share = dominates("record (mixed)", python_leaves(stacks))
        natives = {f for s in stacks for f in s if not PY_LABEL.match(f)}
        if rc != 0 or "_start" not in natives or any(s[0] != "_start" for s in stacks):
            fail("record (mixed): exit %d, stacks do not start at _start: %r" % (
                rc, sorted(natives)[:10]))
        assert_running(proc.pid, "record (mixed)")
        print("ok: record (mixed): every stack from _start; hot_function the innermost "
              "Python function of %.0f%%" % (100 * share))
        path = os.path.join(work, "profile.speedscope.json")
        rc, out, err = run([j, "record", str(proc.pid), "-d", "1", "--nonblocking",
                            "--format", "speedscope", "-o", path])
        share = check_speedscope(path)
        if rc != 0 or share < 0.4:
            fail("speedscope: exit %d, hot_function %.0f%%" % (rc, 100 * share))
        print("ok: speedscope: the schema's required fields; hot_function %.0f%%" % (100 * share))
        path = os.path.join(work, "profile.pb.gz")
        rc, out, err = run([j, "record", str(proc.pid), "-d", "1", "--nonblocking",
                            "--format", "pprof", "-o", path])
        share = check_pprof(path)
        if rc != 0 or share < 0.4:
            fail("pprof: exit %d, hot_function %.0f%%" % (rc, 100 * share))
        print("ok: pprof: gzipped profile.proto decoded; hot_function %.0f%%" % (100 * share))
        # Ctrl-C: a run without -d ends cleanly, writes its profile, releases.
        p = subprocess.Popen([j, "record", str(proc.pid), "-o", out_path],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        seen, deadline = b"", time.time() + 60
        while b" samples" not in seen and time.time() < deadline:  # sampling has begun
            seen += os.read(p.stderr.fileno(), 4096)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
        err = (seen + err).decode(errors="replace")
        if p.returncode != 0 or not parse_collapsed(open(out_path).read()):
            fail("record + SIGINT: exit %d: %s" % (p.returncode, err))
        assert_running(proc.pid, "record interrupted")
        print("ok: record interrupted by SIGINT: exit 0, profile written, target running")
        rc, out, err = run([j, "top", str(proc.pid), "-d", "1", "--nonblocking"])
        m = re.search(r"^ *([\d.]+)% +[\d.]+% +hot_function \(", out, re.M)
        if rc != 0 or not m or float(m.group(1)) < 40:
            fail("top: exit %d:\n%s" % (rc, out))
        print("ok: top: hot_function on top with %s%% own" % m.group(1))
    finally:
        if os.path.exists(gate):
            os.unlink(gate)
        proc.wait(timeout=60)
    return 0


def reads_per_sample(err):
    stats = dict(re.findall(r"^(\w[\w ]*): (\d+)$", err, re.M))
    return int(stats["reads"]) / int(stats["samples"]), stats


def at_checkpoint(stack):
    """A stack up to the demo's checkpoint: what the waiting thread calls
    below it (its sleep, its look at the gate file) changes while it
    waits."""
    if "jitbed_wait_at_checkpoint" in stack:
        return stack[:stack.index("jitbed_wait_at_checkpoint") + 1]
    return stack


def mode_cache(build, work):
    """The code cache: the same stacks with and without it on a target that
    does not move (the demo at its checkpoint), with fewer reads."""
    j = tool(build)
    demo = WaitingDemo(build, work)
    try:
        runs = {}
        for label, extra in (("cache", []), ("no cache", ["--no-cache"])):
            for blocking in ([], ["--nonblocking"]):
                path = os.path.join(work, "cache.txt")
                rc, out, err = run([j, "record", str(demo.proc.pid), "-d", "1", "--stats",
                                    "-o", path] + extra + blocking)
                if rc != 0:
                    fail("record %s: exit %d: %s" % (extra, rc, err))
                runs[(label, bool(blocking))] = (
                    {at_checkpoint(stack) for stack in parse_collapsed(open(path).read())},
                    reads_per_sample(err))
        for blocking in (False, True):
            (with_stacks, (with_reads, stats)) = runs[("cache", blocking)]
            (without_stacks, (without_reads, _)) = runs[("no cache", blocking)]
            mode = "nonblocking" if blocking else "mixed"
            if with_stacks != without_stacks or len(with_stacks) != 1:
                fail("%s: stacks differ with the cache:\n%r\n%r" % (
                    mode, with_stacks, without_stacks))
            saved = int(stats["reads saved"]) + int(stats["chain reads saved"])
            if not with_reads < without_reads or saved == 0:
                fail("%s: %.1f reads/sample with the cache, %.1f without (%r)" % (
                    mode, with_reads, without_reads, stats))
            print("ok: %s: the same stack with and without the cache; %.1f reads/sample with "
                  "it, %.1f without (%d reads saved)" % (mode, with_reads, without_reads,
                                                          saved))
        demo.release()
    finally:
        demo.kill()
    return 0


DEEP_SCRIPT = """\
import os, sys
GATE = sys.argv[1]
sys.setrecursionlimit(1000)


def hot_leaf():
    total = 0
    for i in range(2000):
        total += i * i
    return total


def descend(n):
    if n == 0:
        open(GATE + ".ready", "w").close()
        while os.path.exists(GATE):
            hot_leaf()
        return 0
    return descend(n - 1)


descend(100)
"""
DEEP_PATH = ("<module>",) + ("descend",) * 101 + ("hot_leaf",)


def check_mark_frames_refused(j, pid, work):
    """--mark-frames on an interpreter without the 3.15 marker: one line
    says so, nothing is written, the stacks are the chain cache's; and it
    needs the chain cache."""
    path = os.path.join(work, "marked.txt")
    rc, out, err = run([j, "record", str(pid), "-d", "0.5", "--stats", "--nonblocking",
                        "--mark-frames", "-o", path])
    if rc != 0:
        fail("record --mark-frames: exit %d: %s" % (rc, err))
    _, stats = reads_per_sample(err)
    if ("--mark-frames: CPython 3.11 has no frame marker" not in err
            or stats.get("marker writes") != "0" or stats.get("marker stops") != "0"):
        fail("record --mark-frames on 3.11: %s" % err)
    top = max(parse_collapsed(open(path).read()).items(), key=lambda kv: kv[1])[0]
    names = tuple(m.group(1) for m in (PY_LABEL.match(f) for f in top) if m)
    if names[:102] != DEEP_PATH[:102]:
        fail("record --mark-frames on 3.11: the dominant stack is %r" % (names,))
    for extra in (["--no-cache"], ["--no-chain-cache"]):
        rc, _, err = run([j, "record", str(pid), "-d", "0.1", "--mark-frames"] + extra)
        if rc != 1 or "--mark-frames needs the frame-chain cache" not in err:
            fail("record --mark-frames %s: exit %d: %s" % (extra[0], rc, err))
    print("ok: --mark-frames on 3.11: refused in one line, no writes, the same stack; "
          "refused without the chain cache")


def mode_chains(build, work):
    """The frame-chain cache: on a deep recursion whose leaf runs on, every
    stack is (a prefix of) the one Python stack, the same with and without
    the cache, and a sample makes fewer reads with it (mixed) or reuses its
    frames without more reads (--nonblocking)."""
    j = tool(build)
    proc, gate = start_script("/usr/bin/python3.11", [], DEEP_SCRIPT, work, "deep.py")
    try:
        runs = {}
        for label, extra in (("chains", []), ("no chains", ["--no-chain-cache"]),
                             ("no cache", ["--no-cache"])):
            for blocking in ([], ["--nonblocking"]):
                path = os.path.join(work, "deep.txt")
                rc, out, err = run([j, "record", str(proc.pid), "-d", "1", "--stats",
                                    "-o", path] + extra + blocking)
                if rc != 0:
                    fail("record %s %s: exit %d: %s" % (extra, blocking, rc, err))
                runs[(label, bool(blocking))] = (parse_collapsed(open(path).read()),
                                                 reads_per_sample(err))
        for (label, blocking), (stacks, _) in sorted(runs.items()):
            paths = {}
            for s, n in stacks.items():
                py = [PY_LABEL.match(f) for f in s]
                py = [(m.group(1), int(m.group(3))) for m in py if m]
                names = tuple(name for name, _ in py)
                # The leaf may be another callee of the loop (os.path.exists).
                if names[:102] != DEEP_PATH[:min(len(names), 102)] or len(names) > 103:
                    fail("%s: a stack off the recursion: %r" % (label, names))
                lines = [line for name, line in py if name == "descend"]
                if lines and (set(lines[:-1]) - {19} or lines[-1] not in (16, 17)):
                    fail("%s: descend's lines: %r" % (label, lines))
                paths[names] = paths.get(names, 0) + n
            top = max(paths, key=paths.get)
            if top != DEEP_PATH or paths[top] < 0.5 * sum(paths.values()):
                fail("%s: the full recursion is not the dominant stack: %r" % (
                    label, {len(p): n for p, n in paths.items()}))
        for blocking in (False, True):
            mode = "nonblocking" if blocking else "mixed"
            with_reads, stats = runs[("chains", blocking)][1]
            without_reads, _ = runs[("no chains", blocking)][1]
            uncached_reads, _ = runs[("no cache", blocking)][1]
            reused = int(stats["chain frames reused"]) / int(stats["chain walks"])
            # --nonblocking walks each running chain again over the blocks it
            # spans, read again (running_chain.c): there the chain cache
            # saves decoding (frames reused), not reads.
            fewer = with_reads < without_reads if not blocking else \
                with_reads <= 1.1 * without_reads
            if not fewer or not without_reads < uncached_reads or reused < 90:
                fail("%s: %.1f reads/sample with the chain cache, %.1f without, %.1f with no "
                     "cache; %.1f frames reused per walk" % (
                         mode, with_reads, without_reads, uncached_reads, reused))
            print("ok: %s: the same 103-frame stack; %.1f reads/sample with the chain cache, "
                  "%.1f without it, %.1f with no cache; %.0f frames reused per walk" % (
                      mode, with_reads, without_reads, uncached_reads, reused))
        check_mark_frames_refused(j, proc.pid, work)
    finally:
        if os.path.exists(gate):
            os.unlink(gate)
        proc.wait(timeout=60)
    return 0


BLOCKED_SCRIPT = """\
import sys, threading
gate = sys.argv[1]
ready, release = threading.Barrier(9), threading.Event()


def recurse(n):
    if n == 0:
        ready.wait()
        return release.wait()
    return recurse(n - 1)


threads = [threading.Thread(target=recurse, args=(30,)) for i in range(8)]
for t in threads:
    t.start()
ready.wait()
open(gate + ".ready", "w").close()
release.wait(600)
"""


def fnv1a(data):
    """FNV-1a, 64 bits: the layout cache's checksum."""
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return h


def mode_layout_cache(build, work):
    """Every thread blocked in a lock: the output of each run is the same
    bytes when the layout is."""
    python = "/usr/bin/python3.11"
    if not os.access(python, os.X_OK):
        print("SKIP: no %s" % python)
        return SKIP
    j = tool(build)
    cache = os.path.join(work, "xdg")
    entries = os.path.join(cache, "jitunwind")
    proc, gate = start_script(python, [], BLOCKED_SCRIPT, work, "blocked.py")

    def stack(label, *extra, env_extra=None, stats=None):
        env = dict(os.environ, XDG_CACHE_HOME=cache)
        env.pop("JITUNWIND_NO_CACHE", None)
        env.update(env_extra or {})
        p = subprocess.run([j, "stack", str(proc.pid), "--json"] + list(extra),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                           timeout=120)
        if p.returncode != 0:
            fail("%s: exit %d: %s" % (label, p.returncode, p.stderr))
        doc = json.loads(p.stdout)
        if len(doc["threads"]) != 9:
            fail("%s: %d threads, want 9" % (label, len(doc["threads"])))
        if stats is not None:
            stats.update((k, int(v)) for k, v in re.findall(r"^([a-z ]+): (\d+)$", p.stderr, re.M))
        return p.stdout

    def entry():
        names = os.listdir(entries) if os.path.isdir(entries) else []
        if len(names) != 1 or not names[0].startswith("dwarf-"):
            fail("the cache holds %r, want one dwarf-BUILDID entry" % names)
        path = os.path.join(entries, names[0])
        with open(path) as f:
            return path, f.read()

    try:
        cold = stack("cold")
        if not os.path.isdir(entries):
            note = subprocess.run(["readelf", "-n", python], stdout=subprocess.PIPE,
                                  text=True).stdout
            m = re.search(r"Build ID: ([0-9a-f]+)", note)
            if m and not os.path.exists("/usr/lib/debug/.build-id/%s/%s.debug" % (
                    m.group(1)[:2], m.group(1)[2:])):
                print("SKIP: %s has no separate DWARF (install python3.11-dbg)" % python)
                return SKIP
            fail("cold: no cache entry written under %s" % entries)
        path, written = entry()
        source = written.splitlines()[2].split(" ", 3)[3]
        if not written.startswith("jitunwind-dwarf-answers 1\n") or not os.path.exists(source):
            fail("the entry is not one: %r" % written[:300])
        if stack("warm") != cold:
            fail("warm: the output differs from the cold run's")
        if entry()[1] != written:
            fail("warm: the entry changed")
        print("ok: cold and warm give the same stack; the entry %s names %s" % (
            os.path.basename(path), source))
        shutil.rmtree(entries)
        for label, extra, env in (("JITUNWIND_NO_CACHE=1", [], {"JITUNWIND_NO_CACHE": "1"}),
                                  ("--no-cache", ["--no-cache"], None)):
            if stack(label, *extra, env_extra=env) != cold:
                fail("%s: the output differs from the cached runs'" % label)
            if os.path.exists(entries):
                fail("%s: the cache was written: %r" % (label, os.listdir(entries)))
        print("ok: JITUNWIND_NO_CACHE=1 and --no-cache: the same stack, nothing written")
        # Within a run, --no-cache also turns off the code-object cache and
        # the 4 KiB blocks: the same stack, read in many more pieces.
        cached, uncached = {}, {}
        if stack("--stats", "--stats", env_extra={"JITUNWIND_NO_CACHE": "1"},
                 stats=cached) != cold or stack("--no-cache --stats", "--no-cache", "--stats",
                                                stats=uncached) != cold:
            fail("--stats: the stack differs from the cached runs'")
        if not cached.get("reads") or not uncached.get("reads") or \
                cached["reads"] * 4 > uncached["reads"] or cached.get("cache hits", 0) < 8 * 30 \
                or uncached.get("cache hits") != 0:
            fail("--stats: with the caches %r, without %r: want a quarter of the reads or "
                 "fewer, and a code-cache hit for most of the 8 x 30 recursive frames" % (
                     cached, uncached))
        print("ok: stack reads %d times with the code and block caches, %d without; %d "
              "code-cache hits" % (cached["reads"], uncached["reads"], cached["cache hits"]))
        stack("refill")
        lines = written.splitlines(True)
        answer = next(i for i, l in enumerate(lines) if l.startswith("answer 1 0 "))
        damaged = lines[:]
        damaged[answer] = re.sub(r"^answer 1 0 (\d+)", lambda m: "answer 1 0 %d" % (
            int(m.group(1)) + 8), lines[answer])
        foreign = written.replace(os.path.basename(path)[len("dwarf-"):], "ab" * 20)
        for label, text in (("a damaged answer", "".join(damaged)),
                            ("cut short", written[:len(written) // 2]),
                            ("another build's entry", foreign),
                            ("not text", "\0\xff" * 100)):
            with open(path, "w") as f:
                f.write(text)
            if stack(label) != cold:
                fail("%s: the output differs: the entry was trusted" % label)
            if entry()[1] != written:
                fail("%s: the entry was not rewritten" % label)
            print("ok: %s: ignored, the same stack, the entry rewritten" % label)
        # Well formed, this user's, its checksum right, but wrong: co_qualname
        # answered with co_filename's offset would name every function
        # after its file. It contradicts the table, the DWARF is asked
        # again, and the run says so.
        filename = re.search(r"^answer 1 0 (\d+) PyCodeObject co_filename$", written, re.M)
        body = re.sub(r"^answer 1 0 \d+ PyCodeObject co_qualname$",
                      "answer 1 0 %s PyCodeObject co_qualname" % filename.group(1),
                      written[:written.rindex("end ")], flags=re.M)
        with open(path, "w") as f:
            f.write(body + "end %s %016x\n" % (written.rsplit(" ", 2)[1], fnv1a(body.encode())))
        doc, want = json.loads(stack("a wrong answer")), json.loads(cold)
        said = doc.pop("notes")
        want.pop("notes")
        if doc != want:
            fail("a wrong answer: the output differs: the entry was trusted")
        if entry()[1] != written:
            fail("a wrong answer: the entry was not rewritten")
        if not any("layout cache entry %s is wrong (PyCodeObject.co_qualname: %s" % (
                path, filename.group(1)) in note for note in said):
            fail("a wrong answer: not said: %r" % said)
        print("ok: a wrong answer of a well-formed entry: said, the same stack, the entry "
              "rewritten")
        assert_running(proc.pid, "after the cached runs")
    finally:
        proc.kill()
        proc.wait()
    return 0


def eval_anchored(label, doc):
    """Every Python frame of every thread is run by a native frame of the
    eval loop, the stack is whole; returns the symbols of those frames."""
    symbols = set()
    for t in doc["threads"]:
        frames = t["frames"]
        if t["partial"]:
            fail("%s: thread %d is partial:\n%s" % (label, t["tid"], json.dumps(t)[:3000]))
        for f in frames:
            if f["kind"] != "python":
                continue
            if f["anchor"] is None:
                fail("%s: %s has no native frame running it" % (label, f["function"]))
            native = [n for n in frames if n["kind"] == "native" and n["index"] == f["anchor"]][0]
            if native["role"] != "eval" or not (native["symbol"] or "").startswith(
                    "_PyEval_EvalFrameDefault"):
                fail("%s: %s is run by %r (role %s)" % (label, f["function"], native["symbol"],
                                                         native["role"]))
            symbols.add(native["symbol"])
    return symbols


def stack_until(label, cmd, want, env=None, tries=200):
    """`stack --json` repeated until want(doc) holds (a JIT frame on top...)."""
    for _ in range(tries):
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=120, env=env)
        if p.returncode in (0, 6):
            doc = json.loads(p.stdout)
            if want(doc):
                return p.returncode, doc
    fail("%s: no stack of %d was as wanted; last (exit %d):\n%s%s" % (
        label, tries, p.returncode, p.stdout[-3000:], p.stderr))


def uop_labels(doc):
    """The JIT view's labels of the executor frames of a `stack --json`."""
    return [f["range"]["uop"] for t in doc["threads"] for f in t["frames"]
            if f["kind"] == "native" and f["range"] and f["range"]["uop"]]


def has_jit_frame(doc):
    return any(f["kind"] == "native" and f["role"] == "jit" for t in doc["threads"]
               for f in t["frames"])


def mode_debug_files(build, work):
    """Debian's stripped python3.15 (JIT on and off) and python3.15d, each
    live and on a core of it: with the debug root given
    (--debug-file-directory or JITUNWIND_DEBUG_FILE_DIRECTORY) every Python
    frame is run by an eval-loop frame, `.cold` part included, the JIT view
    names uops (top only with the root), and record's stacks start at
    _start; a debug file of another build under the root is refused with a
    note; without the root record's stacks still start at _start."""
    j = tool(build)
    release, debug = named("python3.15"), named("python3.15d")
    root = debug_root(release) if release else None
    if not root:
        print("SKIP: no python3.15 with PREFIX/lib/debug on JITUNWIND_EXTRA_PYTHONS")
        return SKIP
    env_jit = dict(os.environ, PYTHON_JIT="1")
    proc, gate = start_script(release, [], HOT_SCRIPT, work, "hot.py", env=env_jit)
    try:
        pid = str(proc.pid)
        label = "python3.15 PYTHON_JIT=1 --debug-file-directory"
        rc, doc = stack_until(label, [j, "stack", pid, "--json", "--debug-file-directory",
                                      "/nonexistent:" + root], has_jit_frame)
        symbols = eval_anchored(label, doc)
        uops = uop_labels(doc)
        if rc != 0 or "_PyEval_EvalFrameDefault.cold" not in symbols or not uops:
            fail("%s: exit %d, eval symbols %r, uops %r, notes %r" % (
                label, rc, sorted(symbols), uops, doc["notes"]))
        print("ok: %s: Python frames run by %s; JIT frame at %s" % (
            label, ", ".join(sorted(symbols)), uops[0]))
        core = os.path.join(work, "jit315.core")
        (rc, out, err), _ = core_until(
            of_pid(proc.pid), core,
            lambda c: run([j, "stack", "--core", c, "--json", "--debug-file-directory", root]),
            lambda r: r[1] and has_jit_frame(json.loads(r[1])), "python3.15",
            "was taken in JIT code")
        os.unlink(core)
        doc = json.loads(out)
        symbols = eval_anchored("python3.15 core", doc)
        if "_PyEval_EvalFrameDefault.cold" not in symbols or not uop_labels(doc):
            fail("python3.15 core: eval symbols %r, uops %r" % (sorted(symbols),
                                                                 uop_labels(doc)))
        print("ok: its core: Python frames run by %s, uops named" % ", ".join(sorted(symbols)))
        env_root = dict(os.environ, JITUNWIND_DEBUG_FILE_DIRECTORY=root)
        rc, doc = stack_until("JITUNWIND_DEBUG_FILE_DIRECTORY", [j, "stack", pid, "--json"],
                              has_jit_frame, env=env_root)
        eval_anchored("JITUNWIND_DEBUG_FILE_DIRECTORY", doc)
        print("ok: JITUNWIND_DEBUG_FILE_DIRECTORY: the same")
        # Another build's debug file where this one's should be: refused.
        bogus = os.path.join(work, "bogus")
        shutil.copytree(os.path.join(root, ".build-id"), os.path.join(bogus, ".build-id"),
                        copy_function=lambda src, dst: shutil.copy(debug, dst))
        rc, out, err = run([j, "stack", pid, "--json", "--debug-file-directory", bogus])
        notes = json.loads(out)["notes"] if out else []
        if not any("refused: its build id is" in n for n in notes):
            fail("another build's debug file: exit %d, notes %r" % (rc, notes))
        print("ok: another build's debug file refused: %s" % notes[0][:120])
        # record: every stack from _start, with the root and without one.
        for extra, what in ((["--debug-file-directory", root], "with the debug root"),
                            (["--debug-file-directory", ""], "without a debug root")):
            path = os.path.join(work, "record.txt")
            rc, out, err = run([j, "record", pid, "-d", "1", "-F", "50", "-o", path] + extra)
            stacks = parse_collapsed(open(path).read())
            if rc != 0 or any(s[0] != "_start" for s in stacks):
                fail("record %s: exit %d, roots %r" % (what, rc, sorted({s[0] for s in stacks})))
            placed = [s for s in stacks if any(PY_LABEL.match(f) for f in s)]
            if extra[1] and (not placed or any("no native frame" in " ".join(s)
                                                for s in placed)):
                fail("record %s: Python frames not placed under the eval loop: %r" % (
                    what, placed[:3]))
            print("ok: record %s: %d stacks, every one from _start" % (what, len(stacks)))
        # top: JIT lines name their uop (the debug file's tables) only with the root.
        for extra, want in ((["--debug-file-directory", root], True),
                            (["--debug-file-directory", ""], False)):
            rc, out, err = run([j, "top", pid, "-d", "1"] + extra)
            jit = [l for l in out.splitlines() if "py::jit:hot" in l]
            if rc != 0 or not jit or any(("[uop " in l) != want for l in jit):
                fail("top %s: exit %d, JIT lines %r" % (" ".join(extra), rc, jit))
            print("ok: top --debug-file-directory %r: JIT lines %s uops" % (
                extra[1], "name" if want else "name no"))
    finally:
        if os.path.exists(gate):
            os.unlink(gate)
        proc.wait(timeout=60)
    for python, env, label in ((release, None, "python3.15 (JIT off)"),
                               (debug, None, "python3.15d")):
        if not python:
            continue
        proc, gate = start_script(python, [], HOT_SCRIPT, work, "hot.py")
        try:
            rc, doc = stack_until(label, [j, "stack", str(proc.pid), "--json",
                                          "--debug-file-directory", root],
                                  lambda d: any(f["kind"] == "python" for t in d["threads"]
                                                for f in t["frames"]))
            symbols = eval_anchored(label, doc)
            if rc != 0:
                fail("%s: exit %d" % (label, rc))
            print("ok: %s: Python frames run by %s" % (label, ", ".join(sorted(symbols))))
            check_debug_files_core(j, work, proc.pid, root, label)
        finally:
            if os.path.exists(gate):
                os.unlink(gate)
            proc.wait(timeout=60)
    return 0


def check_debug_files_core(j, work, pid, root, label):
    """A core of the running `pid` read with the debug root given: every
    Python frame run by an eval-loop frame, the thread whole."""
    core = os.path.join(work, "py315.core")
    if not gcore(pid, core):
        fail("%s: gcore failed" % label)
    try:
        rc, out, err = run([j, "stack", "--core", core, "--json", "--debug-file-directory", root])
    finally:
        os.unlink(core)
    doc = json.loads(out) if out else None
    if rc != 0 or not doc or not any(f["kind"] == "python" for t in doc["threads"]
                                     for f in t["frames"]):
        fail("%s core: exit %d, no Python frame: %s" % (label, rc, err[-600:]))
    symbols = eval_anchored(label + " core", doc)
    print("ok: %s core: Python frames run by %s" % (label, ", ".join(sorted(symbols))))


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    build, mode = os.path.abspath(sys.argv[1]), sys.argv[3]
    work = tempfile.mkdtemp(prefix="ju-cli-", dir=build)
    try:
        if mode == "demo":
            mode_demo(build, work)
            return 0
        if mode == "core":
            return mode_core(build, work)
        if mode == "errors":
            return mode_errors(build, work)
        if mode == "record":
            return mode_record(build, work)
        if mode == "cache":
            return mode_cache(build, work)
        if mode == "chains":
            return mode_chains(build, work)
        if mode == "layout-cache":
            return mode_layout_cache(build, work)
        if mode == "debug-files":
            return mode_debug_files(build, work)
        if mode == "real":
            return mode_real(build, work, sys.argv[4:])
        print("unknown mode %s" % mode)
        return 2
    finally:
        import shutil
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())
