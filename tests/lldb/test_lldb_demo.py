#!/usr/bin/env python3
"""lldb batch tests against the test bed's demo (tests/testbed/demo.py).

Usage: test_lldb_demo.py BUILD_DIR REPO_DIR MODE
  MODE live        plugin: mixed-bt, py-bt, jit-ranges at jitbed_checkpoint
  MODE core        the same on a core of the demo (written with gdb's gcore)
  MODE stock       what stock `bt` in LLDB prints at the same stop (on record)
  MODE recognizer  the eval-loop frame recognizer names the Python frames
  MODE provider    the scripted frame provider, where LLDB has the API (22+)
  MODE errors      every command with bad arguments, without a process, on a non-Python
                   process, before Python is initialised, after a descriptor write; the
                   plugin imported twice; without the library
  MODE lldbinit    one ~/.lldbinit line loads the plugin
  MODE real        mixed-bt through CPython's own -X perf trampolines (pyenv 3.12, 3.13)
  MODE extra       the same, and through JIT executors when their JIT is enabled, on the
                   interpreters in $JITUNWIND_EXTRA_PYTHONS (skipped when unset)
Exit 0 on success, 1 on failure, 77 to skip (with the reason printed).
"""

import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from extra_pythons import JIT_ON, WHY_NONE, extra_pythons, lldb_args, present  # noqa: E402
from lldb_under_test import (LLDB, demo_setup_or_skip, has_frame_providers,  # noqa: E402
                             without_stop_reports, work_dir)
from demo_stack import (EVAL, WARM_IGNORE, WARM_JIT_SCRIPT, accepted_by_parser,  # noqa: E402
                        as_guessed, check_stack, expected_py_bt, expected_stack, fail, markers,
                        missing_library_wrong, parse_mixed, parse_py_bt)

SKIP = 77
PERF_MAPS = []


def lldb_cmd(repo, plugin, commands, args):
    # A sanitizer runtime preloaded into lldb is not the target's.
    cmd = [LLDB, "--no-lldbinit", "--batch", "-O", "settings set target.unset-env-vars LD_PRELOAD"]
    cmd += lldb_args(args + [w for c in commands for w in c.split()])
    if plugin:
        cmd += ["-o", "command script import %s/lldb-plugin/jitunwind_lldb" % repo]
    for c in commands:
        cmd += ["-o", c]
    return cmd + args


def run(cmd, env):
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=300)
    PERF_MAPS.extend("/tmp/perf-%s.map" % pid
                     for pid in re.findall(r"Process (\d+) launched", proc.stdout))
    return without_stop_reports(proc.stdout)


def section(text, command):
    """Output of one `(lldb) command` up to the next prompt."""
    start = text.find("(lldb) %s\n" % command)
    if start < 0:
        fail("lldb output has no %r:\n%s" % (command, text[-3000:]))
    start += len("(lldb) %s\n" % command)
    end = text.find("(lldb) ", start)
    return text[start:end if end >= 0 else len(text)]


def check_plugin(label, out, demo):
    want = expected_stack(demo)
    mixed = section(out, "mixed-bt")
    check_stack(label + " mixed-bt", parse_mixed(mixed), want)
    sources = re.findall(r"\((initial|rule|fp|lr|cfi)\)$", mixed, re.M)
    if "rule" not in sources or "cfi" not in sources:
        fail("%s: frames should say how they were found (rule and cfi): %r" % (label, sources))
    if "stopped: end of stack" not in mixed:
        fail("%s: the native walk did not reach the end of the stack:\n%s" % (label, mixed))
    print("ok: %s mixed-bt: every frame says how it was found (%d by rule, %d by CFI)" % (
        label, sources.count("rule"), sources.count("cfi")))
    check_inlined(label, mixed)
    got_py = parse_py_bt(section(out, "py-bt"))
    if got_py != expected_py_bt(demo):
        fail("%s: py-bt\n  expected %r\n  got      %r" % (label, expected_py_bt(demo), got_py))
    print("ok: %s py-bt: %d Python frames" % (label, len(got_py)))
    ranges = " ".join(section(out, "jit-ranges").split())
    for needle in ("fp-preserving descriptor py::jit:leaf", "fp-preserving descriptor py::jit:middle",
                   "sub8 perf-map py::leaf:%s" % demo, "framed perf-map py::outer:%s" % demo):
        if needle not in ranges:
            fail("%s: jit-ranges lacks %r:\n%s" % (label, needle, ranges))
    print("ok: %s jit-ranges lists both executors and both trampoline layouts" % label)
    every = section(out, "mixed-bt -a")
    if not re.match(r'thread #1, tid \d+(, "[^"\n]*")?\n#0 ', every):
        fail("%s: mixed-bt -a does not walk every thread:\n%s" % (label, every[:500]))
    check_stack(label + " mixed-bt -a", parse_mixed(every), want)
    for flag in ("-a", "--all"):  # one parser: both spellings print the thread header
        if not re.match(r"Thread 1 \(tid \d+[^)\n]*\):\nTraceback", section(out, "py-bt " + flag)):
            fail("%s: py-bt %s has no thread header:\n%s" % (label, flag,
                                                              section(out, "py-bt " + flag)))


    if section(out, "py-bt").startswith("Thread "):
        fail("%s: py-bt without -a has a thread header:\n%s" % (label, section(out, "py-bt")))


def check_inlined(label, mixed):
    """Inlined calls are frames of their own, as gdb lists them: the inlined
    function at its own line, then the function it was inlined into, at the
    same pc, at the call's line (Debian's python3.11 inlines
    _PyObject_VectorcallTstate, pycore_call.h, into PyObject_Vectorcall)."""
    lines = re.findall(r"^#\d+ +(0x[0-9a-f]+) in (\S+) at (\S+):(\d+)( \(\w+\))?$", mixed, re.M)
    pairs = [(a, b) for a, b in zip(lines, lines[1:]) if a[0] == b[0] and not a[4] and b[4]]
    if not any(a[1] == "_PyObject_VectorcallTstate" and a[2].endswith("/pycore_call.h") and
               b[1] == "PyObject_Vectorcall" and b[2].endswith("/Objects/call.c") for a, b in pairs):
        fail("%s: mixed-bt does not list the inlined _PyObject_VectorcallTstate as a frame "
             "above PyObject_Vectorcall at call.c:\n%s" % (label, mixed))
    print("ok: %s mixed-bt: %d inlined calls listed as frames, each above its caller at the "
          "call's line" % (label, len(pairs)))


PERF_SCRIPT = ("import os\n\ndef leaf():\n    os.getppid()  # @leaf\n\n"
               "def mid():\n    leaf()  # @mid\n\nmid()  # @module\n")


def interpreter_facts(python):
    """(version, whether its JIT runs with JIT_ON in its environment)."""
    out = subprocess.run([python, "-c", "import sys; j = getattr(sys, '_jit', None); "
                          "print(sys.version_info[0], sys.version_info[1], "
                          "bool(j and j.is_enabled()))"], env=dict(os.environ, **JIT_ON),
                         stdout=subprocess.PIPE, text=True, timeout=60).stdout.split()
    return (int(out[0]), int(out[1])), out[2] == "True"


def gcore_at(env, args, stop, core):
    """A core written by gdb's gcore after the gdb commands `stop`."""
    cmd = ["gdb", "-nx", "-batch", "-iex", "set debuginfod enabled off",
           "-iex", "set auto-load python-scripts off", "-iex", "unset environment LD_PRELOAD",
           "-ex", "set breakpoint pending on"]
    for c in stop + ["gcore " + core, "kill"]:
        cmd += ["-ex", c]
    out = subprocess.run(cmd + ["--args"] + args, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=300).stdout
    PERF_MAPS.extend("/tmp/perf-%s.map" % pid for pid in re.findall(r"\(process (\d+)\) killed", out))
    if not os.path.exists(core):
        fail("gcore wrote no core:\n" + out[-2000:])


def check_extra_jit(repo, env, work, python, version):
    """Through a CPython JIT executor found from the interpreter's own list,
    named by its code object, on past the eval loop; live and on a core."""
    script = os.path.join(work, "jit_target.py")
    with open(script, "w") as f:
        f.write(WARM_JIT_SCRIPT)
    at = markers(script)
    # The JIT view: the trace frame names its call uop and the call's line,
    # before 3.15 the shim that called the trace is a frame of its own (3.15's
    # executors keep RBP and absorb _PyJIT_Entry's frame), and the Python
    # frame has the exact line.
    rule = "fp-preserving" if version >= (3, 15) else "fp-or-scan"
    executor = "py::jit:hot [uop CALL] (%s:%d) [jit %s]" % (script, at["hot"], rule)
    shim = ["py::jit:hot [shim] (%s:%d) [jit %s]" % (script, at["hot_def"], rule)]
    want = [executor] + (shim if version < (3, 15) else []) + [
        EVAL, ("py", "hot", at["hot"]), ("py", "caller", at["caller"]),
        ("py", "<module>", at["module"]), "_start"]
    env = dict(env, **JIT_ON)
    core = os.path.join(work, "jit.core")
    gcore_at(env, [python, script], ["break getppid", "run", "ignore 1 %d" % WARM_IGNORE,
                                     "continue"], core)
    live = run(lldb_cmd(repo, True, ["breakpoint set -n getppid", "run",
                                     "breakpoint modify -i %d 1" % WARM_IGNORE, "continue", "mixed-bt",
                                     "jit-ranges", "kill"], ["--", python, script]), env)
    from_core = run(lldb_cmd(repo, True, ["target create %s --core %s" % (python, core),
                                          "mixed-bt", "jit-ranges"], []), env)
    os.unlink(core)
    for label, out in (("live", live), ("core", from_core)):
        got = [re.sub(r"\[uop \d+/\d+ _\w*CALL\w*\]", "[uop CALL]", f) if isinstance(f, str)
               else f for f in parse_mixed(section(out, "mixed-bt"))]
        check_stack("lldb %s JIT %s mixed-bt" % (python, label), got, want)
        if not re.search(r" jit +%s +interpreter py::jit:hot \(" % rule,
                         section(out, "jit-ranges")):
            fail("%s JIT %s: the executor is not listed from the interpreter:\n%s"
                 % (python, label, section(out, "jit-ranges")))
        print("ok: lldb %s JIT %s: through %s to the eval loop and on to _start"
              % (python, label, executor))


def check_extra_perf(repo, env, work, python, version):
    script = os.path.join(work, "perf_%d%d.py" % version)
    with open(script, "w") as f:
        f.write(PERF_SCRIPT)
    at = markers(script)
    layout = "framed" if version >= (3, 14) else "sub8"
    out = run(lldb_cmd(repo, True, ["breakpoint set -n getppid", "run", "mixed-bt", "kill"],
                       ["--", python, "-X", "perf", script]), env)
    want = []
    for name, marker in (("leaf", "leaf"), ("mid", "mid"), ("<module>", "module")):
        want += [EVAL, ("py", name, at[marker]), "py::%s:%s [trampoline %s]" % (name, script, layout)]
    check_stack("lldb %s -X perf mixed-bt" % python, parse_mixed(section(out, "mixed-bt")),
                want + ["_start"])


LEAKS = ("Traceback (most recent call last)", "Python Exception", "invalid literal", "No closing quotation",
         "is not in the loaded libjitunwind")


def no_leaks(label, out):
    for leak in LEAKS:
        if leak in out:
            fail("%s: %r reached lldb:\n%s" % (label, leak, out[-3000:]))


def check_errors(repo, env, python, demo):
    """Every command: bad arguments, no process, a non-Python process, Python
    not initialised, a descriptor overwritten; the plugin imported twice; a
    missing library. One clear line each, never a traceback."""
    sys.path.insert(0, os.path.join(repo, "libjitunwind", "bindings", "python"))
    from jitunwind.ui.commands import COMMANDS
    from jitunwind.ui.jit_specs import JIT_SPECS
    specs = [spec for spec, _ in COMMANDS] + JIT_SPECS
    bad_args = ["--bogus", "-z", "-x", "foo", "abc", "0x10", "-5", "0", "5 extra", '"unbalanced']
    cmds = ["%s %s" % (s.lldb_name, bad) for s in specs for bad in bad_args]
    out = run(lldb_cmd(repo, True, cmds, []), env)
    no_leaks("bad arguments", out)
    for spec in specs:
        for bad in bad_args:
            text = section(out, "%s %s" % (spec.lldb_name, bad)).strip().splitlines()
            if accepted_by_parser(spec, bad):
                continue
            if len(text) != 2 or not text[0].startswith(spec.lldb_name + ": ") or \
                    text[1] != "usage: " + spec.usage(spec.lldb_name):
                fail("%s %s: want what is wrong and the usage line:\n%s"
                     % (spec.lldb_name, bad, "\n".join(text)))
    print("ok: %d commands x %d bad arguments: one line and the usage line each"
          % (len(specs), len(bad_args)))
    specs = [spec for spec, _ in COMMANDS]
    names = [spec.lldb_name for spec in specs]
    out = run(lldb_cmd(repo, True, names, []), env)
    no_leaks("no process", out)
    for n in names:
        if section(out, n).strip() != "jitunwind: %s: no process" % n:
            fail("%s without a process: %r" % (n, section(out, n)))
    print("ok: no process: one line each")
    out = run(lldb_cmd(repo, True, ["breakpoint set -n exit", "run"] + names + ["kill"],
                       ["--", "/bin/sleep", "0"]), env)
    no_leaks("non-Python process", out)
    for needle in ("jitunwind: py-bt: no CPython runtime", "No JIT or trampoline ranges registered."):
        if needle not in out:
            fail("lldb on a non-Python program: %r missing:\n%s" % (needle, out[-3000:]))
    print("ok: non-Python process: one-line messages, no exception")
    out = run(lldb_cmd(repo, True, ["breakpoint set -n Py_InitializeFromConfig", "run", "py-bt",
                                    "jit-ranges", "kill"], ["--", python, "-c", "pass"]), env)
    no_leaks("before Py_Initialize", out)
    if not section(out, "py-bt").startswith("jitunwind: py-bt: Python is not initialised yet") \
            or section(out, "jit-ranges").count("not initialised") != 1:
        fail("before Py_Initialize: want `Python is not initialised yet` once:\n" + out[-3000:])
    print("ok: before Py_Initialize: `Python is not initialised yet`, once per command")
    # Written with `expression` between two commands at the same stop.
    out = run(lldb_cmd(repo, True, STOP + ["jit-ranges",
                                           "expression *(char *)&jitunwind_jit_descriptor = 88",
                                           "jit-ranges", "kill"], ["--", python, demo]), env)
    no_leaks("descriptor overwritten", out)
    before, _, after = out.partition("expression *(char *)&jitunwind_jit_descriptor = 88")
    if "py::jit:leaf" not in section(before, "jit-ranges") or \
            "py::jit:leaf" in section(after, "jit-ranges") or \
            "descriptor at 0x" not in section(after, "jit-ranges"):
        fail("jit-ranges does not re-read a descriptor written at the same stop:\n" + out[-3000:])
    print("ok: a descriptor written with `expression` is re-read by the next jit-ranges")
    # Imported twice: one recognizer.
    importing = "command script import %s/lldb-plugin/jitunwind_lldb" % repo
    out = run(lldb_cmd(repo, True, [importing, "frame recognizer list"], []), env)
    listed = section(out, "frame recognizer list").count("EvalFrameRecognizer")
    if listed != 1:
        fail("the plugin imported twice lists the recognizer %d times:\n%s" % (listed, out))
    print("ok: imported twice, the eval-loop recognizer is registered once")
    bad = dict(env, JITUNWIND_LIBRARY="/nonexistent/libjitunwind.so")
    import tempfile
    with tempfile.TemporaryDirectory() as alone:
        shutil.copytree(os.path.join(repo, "lldb-plugin"), os.path.join(alone, "lldb-plugin"))
        shutil.copytree(os.path.join(repo, "libjitunwind", "bindings"),
                        os.path.join(alone, "libjitunwind", "bindings"))
        out = run(lldb_cmd(alone, True, ["script print('survived')"], []), bad)
    wrong = missing_library_wrong(out, "/nonexistent/libjitunwind.so")
    if wrong:
        fail("missing library: " + wrong)
    print("ok: missing library: one clear line, lldb carries on")
    return 0


PLUGIN_COMMANDS = ["mixed-bt", "py-bt", "jit-ranges", "mixed-bt -a", "py-bt -a", "py-bt --all"]
STOP = ["breakpoint set -n jitbed_checkpoint", "run"]
STOP_GDB = ["break jitbed_checkpoint", "run"]  # the same stop, for writing cores with gdb


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    build, repo, mode = sys.argv[1:]
    setup = demo_setup_or_skip(build)
    if setup is None:
        return SKIP
    python, demo, env = setup
    work = work_dir(build)

    if mode == "live":
        out = run(lldb_cmd(repo, True, STOP + PLUGIN_COMMANDS + ["kill"], ["--", python, demo]), env)
        check_plugin("live", out, demo)
        return 0

    if mode == "core":
        core = os.path.join(work, "demo.core")
        gcore_at(env, [python, demo], STOP_GDB, core)
        out = run(lldb_cmd(repo, True, ["target create %s --core %s" % (python, core)] +
                           PLUGIN_COMMANDS, []), env)
        check_plugin("core", out, demo)
        other = python + "d"
        if os.path.exists(other):
            out = run(lldb_cmd(repo, True, ["target create %s --core %s" % (other, core),
                                            "py-bt", "jit-ranges"], []), env)
            want = "the core does not match the executable: %s has build id" % other
            # LLDB 22+ may load the core's own executable instead (by build
            # id): then the frames are right, and must be shown.
            right = parse_py_bt(section(out, "py-bt")) == expected_py_bt(demo)
            if not right and (not section(out, "py-bt").startswith("jitunwind: py-bt: " + want)
                              or section(out, "jit-ranges").count(want) != 1):
                fail("core opened with %s: want one line naming the build ids:\n%s"
                     % (other, out[-3000:]))
            print("ok: a core opened with the wrong executable says so, by build id")
        os.unlink(core)
        return 0

    if mode == "guess":
        # No descriptor, no perf map: the ranges are guessed from anonymous
        # executable mappings (live) or unbacked executable segments (core).
        genv = dict(env, JITBED_NO_METADATA="1")
        core = os.path.join(work, "demo-guess.core")
        gcore_at(genv, [python, demo], STOP_GDB, core)
        cmds = ["mixed-bt", "jit-ranges"]
        for label, out in (
                ("live", run(lldb_cmd(repo, True, STOP + cmds + ["kill"], ["--", python, demo]),
                             genv)),
                ("core", run(lldb_cmd(repo, True, ["target create %s --core %s" % (python, core)]
                                      + cmds, []), genv))):
            check_stack("guess %s mixed-bt" % label, parse_mixed(section(out, "mixed-bt")),
                        as_guessed(expected_stack(demo)))
            ranges = section(out, "jit-ranges")
            if "GUESSED from anonymous executable mappings" not in ranges or " guess " not in ranges:
                fail("guess %s: jit-ranges does not say the ranges are guesses:\n%s" % (label, ranges))
            print("ok: guess %s: guessed ranges get through, and jit-ranges says so" % label)
        os.unlink(core)
        return 0

    if mode == "stock":
        out = run(lldb_cmd(repo, False, STOP + ["bt", "kill"], ["--", python, demo]), env)
        bt = section(out, "bt")
        frames = re.findall(r"frame #\d+: 0x[0-9a-f]+ \S+`(\S+?)[( ]", bt)
        print("stock lldb bt at the checkpoint (%d frames):" % len(frames))
        print(bt.rstrip())
        if not frames or frames[0] != "jitbed_checkpoint":
            fail("stock lldb did not stop at jitbed_checkpoint")
        # LLDB 22+ gets through the test bed's frame-pointer-keeping JIT on
        # its own, but cannot name the JIT and trampoline frames.
        unnamed = re.findall(r"frame #\d+: 0x[0-9a-f]+ *$", bt, re.M)
        if frames.count(EVAL) >= expected_stack(demo).count(EVAL) and "_start" in frames \
                and not unnamed:
            fail("stock lldb got through on its own: the plugin test would prove nothing")
        print("ok: stock lldb: %d frames, %d of them without a name; the plugin's mixed-bt "
              "walks and names the whole stack" % (len(frames), len(unnamed)))
        return 0

    if mode == "recognizer":
        script = os.path.join(work, "recognized.py")
        with open(script, "w") as f:
            f.write("import _jitbed\n\ndef g():\n    _jitbed.checkpoint()\n"
                    "    return len('abc')  # @call\n\ng()  # @module\n")
        # Stop inside _PyEval_EvalFrameDefault itself, at the generic CALL
        # (needs python3.11-dbg's line table), after the checkpoint.
        cmds = STOP + ["breakpoint set -f ceval.c -l 4772", "continue", "frame recognizer info 0",
                       "frame variable", "kill"]
        out = run(lldb_cmd(repo, True, cmds, ["--", python, script]), env)
        if re.search(r"Breakpoint 2: no locations", out):
            print("SKIP: no line table for ceval.c (install python3.11-dbg)")
            return SKIP
        if "is recognized by jitunwind_lldb.recognizer.EvalFrameRecognizer" not in out:
            fail("the eval-loop frame was not recognized:\n" + out[-3000:])
        got = re.findall(r"^\(int\) (\S+)@(\S+) = (\d+)$", out, re.M)
        if got != [("g", script, "5"), ("<module>", script, "7")]:
            fail("recognized arguments: %r\n%s" % (got, out[-3000:]))
        print("ok: frame variable shows the eval loop's Python frames: %r" % (got,))
        return 0

    if mode == "provider":
        # Registered where LLDB has frame providers (22+; tests/lldb/
        # test_lldb_provider.py checks what they show); elsewhere silently not.
        out = run(lldb_cmd(repo, True, STOP + ["kill"], ["--", python, demo]), env)
        if has_frame_providers(env):
            out = run(lldb_cmd(repo, True, STOP + ["target frame-provider list", "kill"],
                               ["--", python, demo]), env)
            if "jitunwind_lldb.provider.MixedFrameProvider" not in \
                    section(out, "target frame-provider list"):
                fail("frame provider not registered:\n" + out[-3000:])
            print("ok: the frame provider is registered")
        else:
            if "frame-provider" in out or "error" in out.split("(lldb) run")[0]:
                fail("LLDB without frame providers: the plugin said something about them:\n"
                     + out[-3000:])
            print("ok: this LLDB has no frame providers: none registered, nothing said")
        return 0

    if mode == "extra":
        pythons = present(extra_pythons())
        if not pythons:
            print("SKIP: " + WHY_NONE)
            return SKIP
        for py in pythons:
            version, jit = interpreter_facts(py)
            if version >= (3, 12):
                check_extra_perf(repo, env, work, py, version)
            if jit:
                check_extra_jit(repo, env, work, py, version)
        return 0

    if mode == "real":
        # CPython's own -X perf trampolines in pyenv's 3.12/3.13, walked by mixed-bt.
        root = os.environ.get("PYENV_ROOT", "/root/.pyenv")
        found = 0
        for version, minor in (("3.12.1", "3.12"), ("3.13.0", "3.13")):
            py = os.path.join(root, "versions", version, "bin", "python" + minor)
            if not os.access(py, os.X_OK):
                continue
            found += 1
            script = os.path.join(work, "real_%s.py" % minor)
            with open(script, "w") as f:
                f.write("import os\n\ndef leaf():\n    os.getppid()  # @leaf\n\n"
                        "def mid():\n    leaf()  # @mid\n\nmid()  # @module\n")
            out = run(lldb_cmd(repo, True, ["breakpoint set -n getppid", "run", "mixed-bt", "kill"],
                               ["--", py, "-X", "perf", script]), env)
            want = []
            for name, line in (("leaf", 4), ("mid", 7), ("<module>", 9)):
                want += [EVAL, ("py", name, line), "py::%s:%s [trampoline sub8]" % (name, script)]
            check_stack("lldb %s -X perf mixed-bt" % version, parse_mixed(section(out, "mixed-bt")),
                        want + ["_start"])
        if not found:
            print("SKIP: no pyenv 3.12.1 or 3.13.0 interpreter")
            return SKIP
        return 0

    if mode == "lldbinit":
        # One line in ~/.lldbinit loads the plugin for every session.
        home = os.path.join(work, "home")
        os.makedirs(home, exist_ok=True)
        with open(os.path.join(home, ".lldbinit"), "w") as f:
            f.write("command script import %s/lldb-plugin/jitunwind_lldb\n" % repo)
        out = run([LLDB, "--batch", "-o", "help py-bt", "-o", "help mixed-bt"],
                  dict(env, HOME=home))
        for needle in ("Print the Python frames of the selected thread, innermost first.",
                       "Usage: py-bt [-a|--all] [-n|--limit N]",
                       "Print native and Python frames interleaved", "Usage: mixed-bt"):
            if needle not in out:
                fail("~/.lldbinit did not load the plugin:\n" + out[-2000:])
        print("ok: a ~/.lldbinit line loads the plugin")
        return 0

    if mode == "errors":
        return check_errors(repo, env, python, demo)

    print("unknown mode " + mode)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        for path in PERF_MAPS:
            if os.path.exists(path):
                os.unlink(path)
