"""The demo's expected stack, shared by the gdb and lldb tests: derived from
demo.py's `# @marker` comments, so the tests state exactly which native and
Python frames must appear, in order."""

import os
import re
import sys

EVAL = "_PyEval_EvalFrameDefault"
DEMO_PYTHON = "/usr/bin/python3.11"


def demo_setup(build):
    """(python, demo script, environment) for running the test bed's demo
    with the built library, or None after printing why it cannot run (the
    caller then skips)."""
    demo = os.path.join(build, "testbed", "demo.py")
    if not os.path.exists(DEMO_PYTHON) or not os.path.exists(demo):
        print("SKIP: %s or the test bed (%s) is missing" % (DEMO_PYTHON, demo))
        return None
    return DEMO_PYTHON, demo, demo_env(build, os.path.join(build, "testbed"))


def demo_env(build, testbed):
    """The environment the demo runs in with the test bed's module from the
    folder `testbed` (build/testbed, or one testbed_for.py made)."""
    env = dict(os.environ, PYTHONPATH=testbed,
               JITUNWIND_LIBRARY=os.path.join(build, "libjitunwind", "libjitunwind.so"))
    sanitized = os.environ.get("JITUNWIND_SANITIZED_LIBRARY")
    if sanitized:
        env.update(sanitized_debugger_env(sanitized))
    return env


def sanitized_debugger_env(library):
    """The environment in which the debugger's plugin loads `library`, a
    libjitunwind built with clang's -fsanitize=address,undefined
    -shared-libsan (tests/dev.sh sets JITUNWIND_SANITIZED_LIBRARY): clang's
    ASan runtime preloaded into the uninstrumented debugger (it must come
    first; GCC's libasan deadlocks gdb 13 and lldb 19 at start-up, in
    setlocale), the debugger's own leaks not reported, any finding fatal.
    The inferior does not inherit the preload (gdb_cmd/lldb_cmd unset it)."""
    import subprocess
    runtime = os.environ.get("JITUNWIND_SANITIZER_RUNTIME") or subprocess.run(
        ["clang-19", "-print-file-name=libclang_rt.asan-x86_64.so"], stdout=subprocess.PIPE,
        text=True).stdout.strip()
    return {"JITUNWIND_LIBRARY": library, "LD_PRELOAD": runtime,
            "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1:halt_on_error=1",
            "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1"}


def end_target(proc):
    """Kill a target process, reap it, and remove the perf map it may have
    written (-X perf)."""
    proc.kill()
    proc.wait()
    try:
        os.unlink("/tmp/perf-%d.map" % proc.pid)
    except OSError:
        pass


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def part_missing(why):
    """A part of a test that cannot run here (an interpreter the machine
    lacks): said as a skipped part, and a failure in CI (CI set), whose
    machines have every interpreter the tests name."""
    if os.environ.get("CI"):
        fail("in CI, " + why)
    print("SKIP part: " + why)


def markers(demo):
    """{marker: line} for every `# @marker` comment of a script file."""
    out = {}
    with open(demo) as f:
        for n, line in enumerate(f, 1):
            m = re.search(r"# @(\w+)", line)
            if m:
                out[m.group(1)] = n
    return out


def expected_stack(demo, other_layout="sub8"):
    """Interesting frames, innermost first: native names, ("py", name, line).
    `other_layout` is the rule label of leaf's and inner's trampolines (on
    AArch64 both layouts are frame records: "framed")."""
    m = markers(demo)
    py = lambda name, marker: ("py", name, m[marker])
    tramp = lambda name, layout: "py::%s:%s [trampoline %s]" % (name, demo, layout)
    jit = lambda name: "py::jit:%s [jit fp-preserving]" % name
    return [
        "jitbed_checkpoint",
        EVAL, py("leaf", "leaf"), tramp("leaf", other_layout),
        jit("leaf"),
        EVAL, py("inner", "inner"), tramp("inner", other_layout),
        EVAL, py("middle", "middle"), tramp("middle", "framed"),
        jit("middle"),
        EVAL, py("outer", "outer"), tramp("outer", "framed"),
        # main started before the eval hook: it runs inline in <module>'s eval loop.
        EVAL, py("main", "main"), py("<module>", "module"),
        "_start",  # the whole native stack, down to the ELF entry point
    ]


def interesting(item):
    if isinstance(item, tuple):
        return True
    return item in ("jitbed_checkpoint", EVAL, "_start") or item.startswith(("py::", "guess:"))


def check_stack(label, got, want):
    picked = [f for f in got if interesting(f)]
    if picked != want:
        lines = ["%s: stack differs" % label, "  expected:"]
        lines += ["    %r" % (w,) for w in want]
        lines += ["  got (interesting frames):"] + ["    %r" % (g,) for g in picked]
        fail("\n".join(lines))
    unknown = [f for f in got if f == "??"]
    if unknown:
        fail("%s: %d frames without a name: %r" % (label, len(unknown), got))
    print("ok: %s: %d frames, %d interesting, in the expected order" % (
        label, len(got), len(picked)))


def as_guessed(want):
    """The expected stack when the target publishes no metadata: the same
    frames, found through ranges guessed from anonymous executable mappings."""
    out = []
    for w in want:
        if isinstance(w, str) and w.startswith("py::jit:"):
            w = "guess: anonymous executable code [jit fp-or-scan]"
        elif isinstance(w, str) and w.startswith("py::"):
            w = "guess: trampoline arena [trampoline %s]" % w.rsplit(" ", 1)[1].rstrip("]")
        out.append(w)
    return out


def parse_mixed(text):
    """The one-line-per-frame format of both plugins' mixed-bt."""
    frames = []
    for line in text.splitlines():
        m = re.match(r"^#(\d+)\s+0x[0-9a-f]+ in (.+?)(?: at \S+:\d+| from \S+)?"
                     r"(?: \((?:initial|rule|fp|lr|cfi)\))?$",
                     line)
        if m:
            frames.append(m.group(2))
            continue
        m = re.match(r"^\s+\[py\] (.+?) at (.+):(\d+)$", line)
        if m:
            frames.append(("py", m.group(1), int(m.group(3))))
    return frames


def expected_py_bt(demo):
    return [(demo, str(w[2]), w[1]) for w in expected_stack(demo) if isinstance(w, tuple)]


def parse_py_bt(text):
    return re.findall(r'File "(.+)", line (\d+), in (\S+)', text)


# A loop hot enough for CPython's JIT (3.13+) that calls a C function on
# every iteration: a breakpoint there, after a few thousand hits, stops in a
# C function called from a JIT executor. Markers name the lines tests expect.
JIT_SCRIPT = """\
import os


def hot(n):  # @hot_def
    total = 0
    for i in range(n):
        total += i
        os.getppid()  # @hot
    return total


def caller():
    for _ in range(20):
        hot(1000)  # @caller


caller()  # @module
"""


# JIT_SCRIPT without a breakpoint's thousands of ignored hits: the loop gets
# hot calling os.getpid, then calls os.getppid through the same compiled
# call uop (_CALL_NON_PY_GENERAL does not guard the callable); getppid's
# first call of the hot run comes before the loop's back edge enters the
# executor, its third from JIT code (break getppid, ignore 2).
WARM_JIT_SCRIPT = """\
import os


def hot(n, call):  # @hot_def
    total = 0
    for i in range(n):
        total += i
        call()  # @hot
    return total


def caller():
    for k in range(20):
        hot(1000, os.getppid if k >= 10 else os.getpid)  # @caller


caller()  # @module
"""
WARM_IGNORE = 2


def accepted_by_parser(spec, bad):
    """Whether `bad` is a valid argument list for `spec`: a positive count,
    or one word (an address) for a command that takes a word."""
    if spec.positional is None:
        return False
    if spec.positional.word:
        return not bad.startswith(("-", '"')) and " " not in bad
    return bad.isdigit() and bad != "0"


def missing_library_wrong(out, bad):
    """What is wrong with a debugger's output after loading a copy of the
    plugin away from the build tree with JITUNWIND_LIBRARY=bad (None when
    right): one clear line, then the debugger carries on (it prints
    'survived'). With libjitunwind installed where the system's loader finds
    it (a package on this machine), the documented search ends there, and the
    line says so instead."""
    import ctypes.util
    said = [line for line in out.splitlines() if line.startswith("jitunwind:")]
    installed = ctypes.util.find_library("jitunwind")
    if installed:
        want = "jitunwind: JITUNWIND_LIBRARY=%s is unusable (no such file); using %s" % (bad, installed)
        ok = len(said) == 1 and said[0] == want
    else:
        want = "jitunwind: plugin not loaded: libjitunwind not found; tried: JITUNWIND_LIBRARY=" \
               "%s (no such file)" % bad
        ok = len(said) == 1 and said[0].startswith(want)
    if ok and "survived" in out:
        return None
    return "want one clear line (%s) and the debugger going on:\n%s" % (want, out[-3000:])
