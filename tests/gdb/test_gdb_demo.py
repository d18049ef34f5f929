#!/usr/bin/env python3
"""gdb batch tests against the test bed's demo (tests/testbed/demo.py).

Usage: test_gdb_demo.py BUILD_DIR REPO_DIR MODE
  MODE live   plugin loaded, live process stopped at jitbed_checkpoint; also writes a core
  MODE core   plugin loaded, the core written by a live run
  MODE stock  no plugin, live and core: shows that stock gdb does not get through
  MODE errors plugin on a non-Python process and with the library missing
  MODE autoload  no source line: gdb auto-loads the plugin next to libjitunwind
  MODE guess  the target publishes nothing: ranges guessed from anonymous mappings

The expected stack is derived from demo.py's `# @marker` comments, so the
test states exactly which native and Python frames must appear, in order.
Exit 0 on success, 1 on failure, 77 to skip.
"""

import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from demo_stack import (EVAL, as_guessed, check_stack, demo_setup, expected_py_bt,  # noqa: E402
                        expected_stack, fail, parse_mixed, parse_py_bt)

SKIP = 77

FRAME_RE = re.compile(r"^#(\d+)\s+(?:0x[0-9a-f]+ in )?(.+?) \(")
PY_RE = re.compile(r"^\s+\[py\] (.+?) \(\) at (.+):(\d+)\s*$")


def parse_bt(text):
    """Frames of the first `bt` block between the markers."""
    frames = []
    for line in text.splitlines():
        fm = FRAME_RE.match(line)
        if fm:
            frames.append(fm.group(2))
            continue
        pm = PY_RE.match(line)
        if pm:
            frames.append(("py", pm.group(1), int(pm.group(3))))
    return frames


def section(text, name):
    start = text.find("<<%s>>" % name)
    end = text.find("<<end %s>>" % name)
    if start < 0 or end < 0:
        fail("gdb output has no section %s:\n%s" % (name, text[-3000:]))
    return text[start + len(name) + 4:end]


def gdb_cmd(repo, plugin, commands, args):
    cmd = ["gdb", "-nx", "-batch", "-q", "-iex", "set debuginfod enabled off",
           "-iex", "set auto-load python-scripts off"]
    if plugin:
        cmd += ["-ex", "source %s/gdb-plugin/jitunwind-gdb.py" % repo]
    for c in commands:
        cmd += ["-ex", c]
    return cmd + args


def with_sections(pairs):
    cmds = []
    for name, command in pairs:
        cmds += ["echo <<%s>>\\n" % name, command, "echo <<end %s>>\\n" % name]
    return cmds


def check_errors(repo, env, python):
    """The plugin never raises into gdb: each problem is one clear line."""
    cmds = ["break exit", "run", "py-bt", "mixed-bt", "info jit-ranges", "bt 3", "echo survived\\n"]
    out = run_gdb(gdb_cmd(repo, True, cmds, ["--args", "/bin/sleep", "0"]), env)
    for needle in ("jitunwind: py-bt: no CPython runtime", "No JIT or trampoline ranges registered.",
                   "survived"):
        if needle not in out:
            fail("gdb on a non-Python program: %r missing:\n%s" % (needle, out[-3000:]))
    if "Traceback" in out or "Python Exception" in out:
        fail("the plugin raised into gdb:\n" + out[-3000:])
    print("ok: non-Python process: one-line messages, no exception")
    bad_env = dict(env, JITUNWIND_LIBRARY="/nonexistent/libjitunwind.so")
    out = run_gdb(gdb_cmd(repo, True, ["echo survived\\n"], [python, "-c", "pass"]), bad_env)
    if "jitunwind: plugin not loaded: libjitunwind not found" not in out or "survived" not in out:
        fail("missing library: no clear line:\n" + out[-3000:])
    print("ok: missing library: one clear line, gdb carries on")
    return 0


PERF_MAPS = []


def run_gdb(cmd, env):
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=300)
    # The demo's perf map outlives it (as CPython's do); remove it at exit.
    PERF_MAPS.extend("/tmp/perf-%s.map" % pid
                     for pid in re.findall(r"\(process (\d+)\) killed", proc.stdout))
    return proc.stdout


def remove_perf_maps():
    for path in PERF_MAPS:
        if os.path.exists(path):
            os.unlink(path)


def check_plugin_output(label, out, demo):
    want = expected_stack(demo)
    check_stack(label + " bt", parse_bt(section(out, "bt")), want)
    check_stack(label + " mixed-bt", parse_mixed(section(out, "mixed-bt")), want)
    raw = parse_bt(section(out, "raw"))
    if any(isinstance(f, tuple) for f in raw):
        fail("%s: bt -no-filters shows Python frames" % label)
    if raw.count(EVAL) != want.count(EVAL) or raw[-1] != "_start":
        fail("%s: bt -no-filters does not walk the whole native stack: %r" % (label, raw))
    print("ok: %s bt -no-filters: %d raw native frames, through to _start" % (label, len(raw)))
    pybt = parse_py_bt(section(out, "py-bt"))
    want_py = expected_py_bt(demo)
    if pybt != want_py:
        fail("%s: py-bt\n  expected %r\n  got      %r" % (label, want_py, pybt))
    print("ok: %s py-bt: %d Python frames" % (label, len(pybt)))
    full = re.findall(r"^#(\d+) Frame 0x[0-9a-f]+, code 0x[0-9a-f]+, for file (.+), line (\d+), "
                      r"in (\S+)( \[entry\])?$", section(out, "py-bt-full"), re.M)
    got_full = [(name, int(line), bool(entry)) for _, _, line, name, entry in full]
    # Each eval-loop activation's outermost frame is its entry; main runs
    # inline in <module>'s activation.
    want_full = [("leaf", want_py[0][1], True), ("inner", want_py[1][1], True),
                 ("middle", want_py[2][1], True), ("outer", want_py[3][1], True),
                 ("main", want_py[4][1], False), ("<module>", want_py[5][1], True)]
    want_full = [(n, int(l), e) for n, l, e in want_full]
    if got_full != want_full:
        fail("%s: py-bt-full\n  expected %r\n  got      %r" % (label, want_full, got_full))
    print("ok: %s py-bt-full: entry flags mark each eval-loop activation" % label)
    if not re.search(r"^\s+jitunwind\s*$", section(out, "unwinders"), re.M):
        fail("%s: info unwinder does not list jitunwind:\n%s" % (label, section(out, "unwinders")))
    print("ok: %s info unwinder lists jitunwind" % label)
    ranges = section(out, "ranges")
    for needle in ("fp-preserving descriptor py::jit:leaf",
                   "fp-preserving descriptor py::jit:middle",
                   "sub8          perf-map   py::leaf:%s" % demo,
                   "sub8          perf-map   py::inner:%s" % demo,
                   "framed        perf-map   py::middle:%s" % demo,
                   "framed        perf-map   py::outer:%s" % demo):
        if " ".join(needle.split()) not in " ".join(ranges.split()):
            fail("%s: info jit-ranges lacks %r:\n%s" % (label, needle, ranges))
    print("ok: %s info jit-ranges lists both executors and both trampoline layouts" % label)


PLUGIN_SECTIONS = [("bt", "bt"), ("mixed-bt", "mixed-bt"), ("raw", "bt -no-filters"),
                   ("py-bt", "py-bt"), ("py-bt-full", "py-bt-full"), ("ranges", "info jit-ranges"),
                   ("unwinders", "info unwinder")]


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    build, repo, mode = sys.argv[1:]
    if not shutil.which("gdb"):
        print("SKIP: gdb not installed")
        return SKIP
    setup = demo_setup(build)
    if setup is None:
        return SKIP
    python, demo, env = setup
    workdir = os.path.join(build, "gdb-tests")
    os.makedirs(workdir, exist_ok=True)
    core = os.path.join(workdir, "demo-%s.core" % mode)
    stop = ["set breakpoint pending on", "break jitbed_checkpoint", "run"]

    if mode in ("live", "core"):
        live_cmds = stop + with_sections(PLUGIN_SECTIONS) + ["gcore " + core, "kill"]
        out = run_gdb(gdb_cmd(repo, True, live_cmds, ["--args", python, demo]), env)
        if "jitbed_checkpoint" not in out:
            fail("did not stop at jitbed_checkpoint:\n" + out[-3000:])
        if mode == "live":
            check_plugin_output("live", out, demo)
            return 0
        if not os.path.exists(core):
            fail("gcore wrote no core:\n" + out[-2000:])
        out = run_gdb(gdb_cmd(repo, True, with_sections(PLUGIN_SECTIONS),
                              [python, core]), env)
        check_plugin_output("core", out, demo)
        os.unlink(core)
        return 0

    if mode == "autoload":
        # No `source` line: gdb loads the plugin next to libjitunwind itself.
        cmd = ["gdb", "-nx", "-batch", "-q", "-iex", "set debuginfod enabled off",
               "-iex", "add-auto-load-safe-path %s" % os.path.join(build, "libjitunwind")]
        cmd += [x for c in stop + with_sections(PLUGIN_SECTIONS) + ["kill"] for x in ("-ex", c)]
        out = run_gdb(cmd + ["--args", python, demo], env)
        check_plugin_output("autoload", out, demo)
        return 0

    if mode == "errors":
        return check_errors(repo, env, python)

    if mode == "guess":
        # The target publishes no descriptor and no perf map: the plugin
        # falls back to classifying anonymous executable mappings.
        guess_env = dict(env, JITBED_NO_METADATA="1")
        pairs = [("bt", "bt"), ("ranges", "info jit-ranges")]
        out = run_gdb(gdb_cmd(repo, True, stop + with_sections(pairs) + ["gcore " + core, "kill"],
                              ["--args", python, demo]), guess_env)
        # A core of it: the guesses come from the core's executable segments
        # that no file backs.
        from_core = run_gdb(gdb_cmd(repo, True, with_sections(pairs), [python, core]), guess_env)
        for label, text in (("live", out), ("core", from_core)):
            check_stack("guess bt (%s)" % label, parse_bt(section(text, "bt")),
                        as_guessed(expected_stack(demo)))
            ranges = section(text, "ranges")
            if "GUESSED from anonymous executable mappings" not in ranges or " guess " not in ranges:
                fail("info jit-ranges (%s) does not say the ranges are guesses:\n%s" % (label, ranges))
            print("ok: %s: without metadata, guessed ranges get through, and info jit-ranges says so"
                  % label)
        return 0

    if mode == "stock":
        cmds = stop + with_sections([("bt", "bt")]) + ["gcore " + core, "kill"]
        out = run_gdb(gdb_cmd(repo, False, cmds, ["--args", python, demo]), env)
        if "jitbed_checkpoint" not in out:
            fail("stock gdb did not stop at jitbed_checkpoint:\n" + out[-3000:])
        for label, text in (("live", out),
                            ("core", run_gdb(gdb_cmd(repo, False, with_sections([("bt", "bt")]),
                                                     [python, core]), env))):
            frames = parse_bt(section(text, "bt"))
            evals = frames.count(EVAL)
            print("stock gdb %s: %d frames, %d eval-loop frames, reaches _start: %s" % (
                label, len(frames), evals, "_start" in frames))
            print(section(text, "bt").strip())
            if evals >= expected_stack(demo).count(EVAL) and \
                    "_start" in frames:
                fail("stock gdb got through the JIT frames on its own (%s): the plugin "
                     "test would prove nothing" % label)
        print("ok: stock gdb does not get through the JIT frames (live and core)")
        if os.path.exists(core):
            os.unlink(core)
        return 0
    print("unknown mode " + mode)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        remove_perf_maps()
