#!/usr/bin/env python3
"""jitunwind on Debian's CPython 3.15.2 ($JITUNWIND_EXTRA_PYTHONS names
python3.15: stripped, JIT built in, PYTHON_JIT=1 turns it on).

Usage: test_cli_315.py BUILD_DIR MODE
  MODE stripped  no debug file at all (no debug root, no debuginfod): the
                 eval loop's `.cold` part, which only the debug file's
                 symbol table names, is still found (from the function's
                 jumps and .eh_frame): every Python frame of the JIT process
                 is run by it, the part found is the one the debug file's
                 symbol names (same offset), and record's stacks go from
                 _start with the Python frames placed
  MODE perf      -X perf_jit (a jitdump file, no perf map) with PYTHON_JIT=1, live and on a core
                 (python3.15, and python3.15d when listed):
                 the stack goes through the trampolines, each named by its
                 Python function from the jitdump (the script makes enough
                 functions after its own for the interpreter to flush their
                 records), every Python frame run by an eval-loop frame;
                 -X perf with PYTHON_JIT=1: the JIT is off (no JIT frame),
                 the trampolines named from the perf map
  MODE markers   record --mark-frames on python3.15 (its debug root given)
                 and python3.15d, a recursion that returns all the time: the
                 frame markers are written and stopped at, every recorded
                 stack is one the script can have and goes from _start with
                 its Python frames placed, and the interpreter moved
                 the marker of frames that returned
                 (tstate->last_profiled_frame_seq, read by gdb from DWARF,
                 is no longer 0)
  MODE locals    stack --locals (and --json) on the values corpus
                 (tests/values/corpus_target.py) under python3.15 and
                 python3.15d, each with the JIT off and on, live and on a
                 core: each frame's bound locals, in order, are the reprs the
                 target printed, within the documented cut
Exit 0 on success, 1 on failure, 77 to skip.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
sys.path.insert(0, HERE)
from cores import core_until, of_pid  # noqa: E402
from demo_stack import fail  # noqa: E402
from extra_pythons import JIT_ON, debug_root, named, separate_debug_file  # noqa: E402
from values_target import gcore, glob_match  # noqa: E402
from test_cli import (HOT_SCRIPT, PY_LABEL, eval_anchored, has_jit_frame,  # noqa: E402
                      parse_collapsed, run, stack_until, start_script, tool)

SKIP = 77
COLD = "_PyEval_EvalFrameDefault.cold"


def no_debug_files_env(**extra):
    """An environment in which no debug file can be found."""
    env = dict(os.environ, **extra)
    for name in ("JITUNWIND_DEBUG_FILE_DIRECTORY", "DEBUGINFOD_URLS"):
        env.pop(name, None)
    return env


def debug_symbol(debug_file, name):
    """(value, size) of `name` in the debug file's symbol table, or None."""
    out = subprocess.run(["readelf", "-sW", debug_file], stdout=subprocess.PIPE, text=True,
                         timeout=60).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 8 and f[7] == name:
            return int(f[1], 16), int(f[2])
    return None


def mode_stripped(build, work):
    j = tool(build)
    release = named("python3.15")
    debug_file = release and separate_debug_file(release)
    if not debug_file:
        print("SKIP: needs python3.15 with its debug file under PREFIX/lib/debug on "
              "JITUNWIND_EXTRA_PYTHONS (to check the part found against its symbol)")
        return SKIP
    cold = debug_symbol(debug_file, COLD)
    if not cold:
        fail("%s names no %s" % (debug_file, COLD))
    env = no_debug_files_env(**JIT_ON)
    proc, gate = start_script(release, [], HOT_SCRIPT, work, "hot.py", env=env)
    try:
        pid = str(proc.pid)
        label = "python3.15 PYTHON_JIT=1 without a debug file"
        rc, doc = stack_until(label, [j, "stack", pid, "--json", "--no-cache",
                                      "--debug-file-directory", ""],
                              lambda d: has_jit_frame(d) and any(
                                  f["kind"] == "native" and f["symbol"] == COLD
                                  for t in d["threads"] for f in t["frames"]), env=env)
        symbols = eval_anchored(label, doc)
        if rc != 0 or symbols != {COLD}:
            fail("%s: exit %d, Python frames run by %r" % (label, rc, sorted(symbols)))
        for f in (f for t in doc["threads"] for f in t["frames"]):
            if f["kind"] == "native" and f["symbol"] == COLD:
                pc = int(f["pc"], 16)
                if not (cold[0] <= pc - 1 < cold[0] + cold[1]) or f["offset"] != pc - cold[0]:
                    fail("%s: the frame at %#x is not in the debug file's %s [%#x, +%d) at "
                         "offset %d" % (label, pc, COLD, cold[0], cold[1], f["offset"]))
        print("ok: %s: every Python frame run by %s, the part the debug file's symbol names "
              "([%#x, +%d))" % (label, COLD, cold[0], cold[1]))
        path = os.path.join(work, "record.txt")
        rc, out, err = run([j, "record", pid, "-d", "1", "-F", "50", "-o", path,
                            "--debug-file-directory", ""])
        stacks = parse_collapsed(open(path).read())
        placed = [s for s in stacks if any(PY_LABEL.match(f) for f in s)]
        unplaced = [s for s in placed if "no native frame" in " ".join(s)]
        if rc != 0 or any(s[0] != "_start" for s in stacks) or not placed or unplaced:
            fail("record without a debug file: exit %d, roots %r, %d stacks with Python "
                 "frames, %d not placed, first %r" % (rc, sorted({s[0] for s in stacks}),
                                                      len(placed), len(unplaced), placed[:1]))
        print("ok: record without a debug file: %d stacks, every one from _start, the Python "
              "frames placed" % len(stacks))
    finally:
        if os.path.exists(gate):
            os.unlink(gate)
        proc.wait(timeout=60)
    return 0


# hot and caller get their trampolines, then 200 more functions do: CPython
# buffers its jitdump file, and their records push the first ones out to it.
PERF_SCRIPT = """\
import os, sys
GATE = sys.argv[1]


def hot(n):
    total = 0
    for i in range(n):
        total += i
        os.getppid()
    return total


def caller(loop):
    while loop and os.path.exists(GATE):
        hot(1000)


hot(1)
caller(False)
for k in range(200):
    exec("def f%d():\\n    return %d\\nf%d()" % (k, k, k))
open(GATE + ".ready", "w").close()
caller(True)
"""


def trampoline_names(doc):
    return [f["name"] for t in doc["threads"] for f in t["frames"]
            if f["kind"] == "native" and f["role"] == "trampoline"]


def running_getppid(doc):
    return any(f["kind"] == "native" and f["symbol"] and "getppid" in f["symbol"]
               for t in doc["threads"] for f in t["frames"])


def mode_perf(build, work):
    j = tool(build)
    release = named("python3.15")
    if not release:
        print("SKIP: no python3.15 on JITUNWIND_EXTRA_PYTHONS")
        return SKIP
    script = os.path.join(work, "perf.py")
    want = ["py::hot:%s" % script, "py::caller:%s" % script, "py::<module>:%s" % script]
    runs = [(release, option) for option in ("perf_jit", "perf")]
    if named("python3.15d"):
        runs.append((named("python3.15d"), "perf_jit"))
    for python, option in runs:
        source = "/tmp/jit-%d.dump" if option == "perf_jit" else "/tmp/perf-%d.map"
        env = dict(os.environ, **JIT_ON)
        proc, gate = start_script(python, ["-X", option], PERF_SCRIPT, work, "perf.py",
                                  env=env)
        label = "%s -X %s PYTHON_JIT=1" % (os.path.basename(python), option)
        try:
            rc, doc = stack_until(label, [j, "stack", str(proc.pid), "--json"],
                                  running_getppid)
            names = [n.split(" [")[0] for n in trampoline_names(doc)]
            if rc != 0 or names != want or has_jit_frame(doc):
                fail("%s: exit %d, trampolines %r (want %r), JIT frames %s, notes %r" % (
                    label, rc, names, want, has_jit_frame(doc), doc["notes"]))
            natives = [f for f in doc["threads"][0]["frames"] if f["kind"] == "native"]
            if natives[-1]["symbol"] != "_start":
                fail("%s: the stack ends at %r" % (label, natives[-1]["name"]))
            eval_anchored(label, doc)
            if not os.path.exists(source % proc.pid):
                fail("%s: no %s" % (label, source % proc.pid))
            print("ok: %s: through trampolines %s (from %s), to _start, no JIT frame" % (
                label, ", ".join(trampoline_names(doc)), source % proc.pid))
            # The same from a core of the process: the file still names them.
            # A core caught in os.path.exists (once per 1000 calls of hot) has
            # genericpath's trampoline on top, whose jitdump record CPython may
            # still hold in its buffer: cores are taken until one is in hot.
            core = os.path.join(work, "perf.core")
            (rc, out, err), _ = core_until(
                of_pid(proc.pid), core,
                lambda c: run([j, "stack", "--core", c, "--exe", python, "--json"]),
                lambda r: r[1] and running_getppid(json.loads(r[1])), label + ", core",
                "was taken in hot", tries=20)
            os.unlink(core)
            names = [n.split(" [")[0] for n in trampoline_names(json.loads(out))]
            if rc != 0 or names != want:
                fail("%s, core: exit %d, trampolines %r (want %r): %s" % (
                    label, rc, names, want, err[-600:]))
            print("ok: %s, core: the same trampolines named" % label)
        finally:
            if os.path.exists(gate):
                os.unlink(gate)
            proc.wait(timeout=60)
            for path in (source % proc.pid,):
                if os.path.exists(path):
                    os.unlink(path)
    return 0


# Each round spins through the recursion for 20 ms, then sleeps 20 ms in a
# leaf: the frames a sample marked there are still there at the next
# samples, so the walks stop at the marker whatever share of a CPU the
# target gets (a marked frame popped before the next sample, as a leaf that
# only spins is on an idle machine, moves the marker and no walk stops at
# it).
MARKERS_SCRIPT = """\
import os, sys, time
GATE = sys.argv[1]


def leaf(dwell):
    if dwell:
        time.sleep(dwell)
    return os.getppid()


def mid(k, dwell=0):
    return mid(k - 1, dwell) if k else leaf(dwell)


def run():
    while os.path.exists(GATE):
        spun = time.monotonic() + 0.02
        while time.monotonic() < spun:
            for k in (6, 2, 9, 4):
                mid(k)
        mid(3, 0.02)


open(GATE + ".ready", "w").close()
run()
"""
POSSIBLE = re.compile(r"^<module>;run(;exists|(;mid){0,10}(;leaf)?)$")


def sequence_now(python, pid, root):
    """The main thread state's last_profiled_frame_seq, read by gdb."""
    args = ["-iex", "set debug-file-directory %s" % root] if root else []
    out = subprocess.run(["gdb", "-nx", "-batch", "-q", "-iex", "set debuginfod enabled off"] +
                         args + ["-p", str(pid), "-ex",
                                 "p/d _PyRuntime.interpreters.head->threads.head->"
                                 "last_profiled_frame_seq", python],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         timeout=120).stdout
    m = re.search(r"^\$1 = (\d+)$", out, re.M)
    if not m:
        fail("gdb could not read last_profiled_frame_seq:\n%s" % out[-2000:])
    return int(m.group(1))


def builds_315():
    """(interpreter, its debug root or None) for each of python3.15 (its
    PREFIX/lib/debug) and python3.15d (DWARF inside) that is listed; empty
    after printing why when neither is."""
    pythons = [p for p in (named("python3.15"), named("python3.15d")) if p]
    if not pythons:
        print("SKIP: no python3.15 or python3.15d on JITUNWIND_EXTRA_PYTHONS")
    return [(p, debug_root(p) if p.endswith("3.15") else None) for p in pythons]


def mode_markers(build, work):
    j = tool(build)
    builds = builds_315()
    if not builds:
        return SKIP
    for python, root in builds:
        extra = ["--debug-file-directory", root] if root else []
        proc, gate = start_script(python, [], MARKERS_SCRIPT, work, "markers.py")
        label = "%s record --mark-frames" % os.path.basename(python)
        try:
            path = os.path.join(work, "markers.txt")
            rc, out, err = run([j, "record", str(proc.pid), "-d", "1", "-F", "200",
                                "--mark-frames", "--stats", "-o", path] + extra)
            stats = dict(re.findall(r"^(\w[\w ]*): (\d+)$", err, re.M))
            if rc != 0 or "frame markers on: 1 thread" not in err or \
                    int(stats.get("marker writes", 0)) < 2 or \
                    int(stats.get("marker stops", 0)) == 0:
                fail("%s: exit %d, markers not used:\n%s" % (label, rc, err))
            stacks = parse_collapsed(open(path).read())
            shapes = {";".join(m.group(1) for m in map(PY_LABEL.match, s) if m)
                      for s in stacks}
            impossible = sorted(s for s in shapes if not POSSIBLE.match(s))
            if impossible:
                fail("%s: stacks the script cannot have: %r" % (label, impossible[:5]))
            roots = {s[0] for s in stacks}
            unplaced = [s for s in stacks if "no native frame" in " ".join(s)]
            if roots != {"_start"} or unplaced:
                fail("%s: roots %r, %d stacks with Python frames not placed, first %r" % (
                    label, sorted(roots), len(unplaced), unplaced[:1]))
            seq = sequence_now(python, proc.pid, root)
            if seq == 0:
                fail("%s: last_profiled_frame_seq is 0: the interpreter never moved a marker "
                     "(not the field the library wrote next to?)" % label)
            print("ok: %s: %s marker stops, %s writes, %d stack shapes, all possible, from _start; "
                  "last_profiled_frame_seq %d" % (label, stats["marker stops"],
                                                  stats["marker writes"], len(shapes), seq))
        finally:
            if os.path.exists(gate):
                os.unlink(gate)
            proc.wait(timeout=60)
    return 0


CORPUS = os.path.join(HERE, "..", "values", "corpus_target.py")


def locals_problems(doc, data):
    """Problems comparing each corpus frame's locals in `stack --json
    --locals` with the reprs the target printed (within the documented cut:
    values_target.glob_match); unbound ones are left out, as Python leaves
    them out of f_locals."""
    frames = [f for t in doc["threads"] for f in t["frames"] if f["kind"] == "python"]
    problems = []
    for want in data["frames"]:
        got = [f for f in frames if f["function"] == want["qualname"]]
        if not got:
            problems.append("no frame %s" % want["qualname"])
            continue
        ours = [(v["name"], v["repr"]) for v in got[0].get("locals") or [] if v["repr"] is not None]
        if [n for n, _ in ours] != [n for n, _ in want["locals"]]:
            problems.append("%s: names %r, python %r" % (
                want["qualname"], [n for n, _ in ours], [n for n, _ in want["locals"]]))
            continue
        problems += ["%s.%s: ours %s, python %s" % (want["qualname"], n, o[:200], t[:200])
                     for (n, o), (_, t) in zip(ours, want["locals"]) if not glob_match(o, t)]
    return problems


def mode_locals(build, work):
    j = tool(build)
    builds = builds_315()
    if not builds:
        return SKIP
    for python, root in builds:
        extra = ["--debug-file-directory", root] if root else []
        for jit in (False, True):
            env = dict(os.environ, **JIT_ON) if jit else \
                {k: v for k, v in os.environ.items() if k != "PYTHON_JIT"}
            label = "%s JIT %s" % (os.path.basename(python), "on" if jit else "off")
            proc = subprocess.Popen([python, CORPUS], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, env=env)
            try:
                data = json.loads(proc.stdout.readline())
                core = os.path.join(work, "corpus.core")
                if not gcore(proc.pid, core):
                    fail("%s: gcore failed" % label)
                for where, cmd in (("live", [str(proc.pid)]),
                                   ("core", ["--core", core, "--exe", python])):
                    rc, out, err = run([j, "stack", "--json", "--locals"] + cmd + extra)
                    problems = locals_problems(json.loads(out), data) if out else [err]
                    if rc != 0 or problems:
                        fail("%s %s: exit %d: %s" % (label, where, rc, "; ".join(problems[:5])))
                    print("ok: %s %s: --locals of %s as Python's reprs" % (
                        label, where, " and ".join(f["qualname"] for f in data["frames"])))
                os.unlink(core)
            finally:
                proc.kill()
                proc.wait()
    return 0


MODES = {"stripped": mode_stripped, "perf": mode_perf, "markers": mode_markers,
         "locals": mode_locals}


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in MODES:
        print(__doc__)
        return 2
    build = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="ju-cli315-", dir=build) as work:
        return MODES[sys.argv[2]](build, work)


if __name__ == "__main__":
    sys.exit(main())
