#!/usr/bin/env python3
"""LLDB 22+: plain `bt` through the plugin's scripted frame provider, live
and on a core. It must list, in order, the native frames through JIT and
trampoline code (named by their ranges) with each Python function as a
frame `<qualname> [Python] at file:line` right above the eval loop that
runs it, down to _start; `frame select` on a Python frame shows its source
and `frame info` says it is Python; `up` and `down` cross it.

Usage: test_lldb_provider.py BUILD_DIR REPO_DIR TARGET
  TARGET  "demo": the test bed's demo (JIT + trampolines) on Debian's python3.11;
          PYTHON[,ARG...]: a script stopped in os.getppid() under that interpreter
          (any CPython: the target need not be able to host LLDB);
          "extra": each interpreter of $JITUNWIND_EXTRA_PYTHONS (its JIT too).
Exit 0 on success, 1 on failure, 77 to skip (with the reason printed)."""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from demo_stack import (EVAL, WARM_IGNORE, WARM_JIT_SCRIPT, check_stack,  # noqa: E402
                        expected_stack, fail, markers, parse_mixed)
from extra_pythons import JIT_ON  # noqa: E402
from lldb_under_test import LLDB, demo_setup_or_skip, has_frame_providers, work_dir  # noqa: E402
from test_lldb_demo import (PERF_MAPS, PERF_SCRIPT, STOP, STOP_GDB, gcore_at,  # noqa: E402
                            interpreter_facts, lldb_cmd, run, section)

SKIP = 77
FLAGS = re.compile(r" \[(?:synthetic|inlined|artificial)\]")


def parse_bt(text):
    """[(frame number, item)] of LLDB's `bt`: a Python frame as ("py",
    qualname, line), a native one by its function name or range label. On a
    core, lldb's one-frame stop report may be printed in the middle: the
    longest `* thread #` block is the backtrace."""
    blocks = [parse_block(b) for b in re.split(r"^\* thread #", text, flags=re.M)]
    return max(blocks, key=len)


def parse_block(text):
    out = []
    for m in re.finditer(r"^[ *]*frame #(\d+): (.*)$", text, re.M):
        rest = FLAGS.sub("", m.group(2)).strip()
        py = re.match(r"^(.+) \[Python\] at (\S+):(\d+)$", rest)
        if py:
            out.append((int(m.group(1)), ("py", py.group(1), int(py.group(3)))))
            continue
        rest = re.sub(r"^0x[0-9a-f]+ ?", "", rest)
        if "`" in rest:
            rest = re.split(r"[( ]", rest.split("`", 1)[1])[0]
        out.append((int(m.group(1)), rest or "??"))
    return out


def plain(name):
    """A function name without GCC's clone suffixes (.lto_priv.0, .cold),
    which a frame named by its symbol (no debug information) keeps."""
    return re.sub(r"(\.(?:lto_priv|constprop|isra|part|cold)(?:\.\d+)?)+$", "", name) \
        if isinstance(name, str) else name


def same_frames(label, bt, mixed):
    """`bt` through the provider lists what `mixed-bt` lists, frame for frame
    (inlined calls and Python frames included)."""
    got, want = [plain(f) for _, f in bt], [plain(f) for f in mixed]
    if got != want:
        diff = next(i for i, (a, b) in enumerate(zip(got + [None], want + [None])) if a != b)
        fail("%s: bt and mixed-bt differ at frame #%d: %r / %r\n  bt:       %r\n  mixed-bt: %r"
             % (label, diff, got[diff:diff + 1], want[diff:diff + 1], got, want))
    print("ok: %s: bt lists the same %d frames as mixed-bt" % (label, len(got)))


def check_navigation(label, repo, env, stop, args, frames, script):
    """`frame select` on the first Python frame shows its source line and
    `frame info` says Python; `up` leaves it, `down` comes back."""
    number, (_, name, line) = next((n, f) for n, f in frames if isinstance(f, tuple))
    cmds = stop + ["frame select %d" % number, "frame info", "up", "down"]
    out = run(lldb_cmd(repo, True, cmds + (["kill"] if stop else []), args), env)
    selected = section(out, "frame select %d" % number)
    source = open(script).read().splitlines()[line - 1].strip()
    if "%s [Python] at" % name not in selected or source not in selected:
        fail("%s: frame select %d does not show Python frame %s and its line %r:\n%s"
             % (label, number, name, source, selected))
    if "[Python]" not in section(out, "frame info"):
        fail("%s: frame info on a Python frame does not say so:\n%s"
             % (label, section(out, "frame info")))
    up, down = section(out, "up"), section(out, "down")
    if not up.startswith("frame #%d:" % (number + 1)) or \
            not down.startswith("frame #%d: %s [Python]" % (number, name)):
        fail("%s: up/down do not cross the Python frame #%d:\n%s\n%s" % (label, number, up, down))
    print("ok: %s: frame select %d shows %s's line, frame info says Python, up/down cross it"
          % (label, number, name))


def check(label, repo, env, python_args, script, stop, stop_gdb, want):
    """bt live and on a core, then navigation live."""
    args = ["--"] + python_args
    live = run(lldb_cmd(repo, True, stop + ["bt", "mixed-bt", "kill"], args), env)
    same_frames(label, parse_bt(section(live, "bt")), parse_mixed(section(live, "mixed-bt")))
    core = os.path.join(work_dir(BUILD), "provider-%d.core" % os.getpid())
    gcore_at(env, python_args, stop_gdb, core)
    from_core = run(lldb_cmd(repo, True, ["target create %s --core %s" % (python_args[0], core),
                                          "bt"], []), env)
    os.unlink(core)
    for kind, out in (("live", live), ("core", from_core)):
        check_stack("%s %s bt" % (label, kind), [f for _, f in parse_bt(section(out, "bt"))], want)
    check_navigation(label + " live", repo, env, stop, args, parse_bt(section(live, "bt")), script)


def getppid_want(script, version, perf):
    """A PERF_SCRIPT stack: with -X perf each function has its eval loop
    and trampoline; without, 3.11+ runs them all in one eval loop."""
    at = markers(script)
    names = (("leaf", "leaf"), ("mid", "mid"), ("<module>", "module"))
    if not perf:
        return [EVAL] + [("py", n, at[m]) for n, m in names] + ["_start"]
    layout = "framed" if version >= (3, 14) else "sub8"
    want = []
    for name, marker in names:
        want += [EVAL, ("py", name, at[marker]),
                 "py::%s:%s [trampoline %s]" % (name, script, layout)]
    return want + ["_start"]


def check_interpreter(repo, env, spec):
    python, *extra = spec.split(",")
    if not os.access(python, os.X_OK):
        print("SKIP: %s is not installed" % python)
        return SKIP
    version, jit = interpreter_facts(python)
    perf = "perf" in extra
    label = "%s%s" % (python, " -X perf" if perf else "")
    script = os.path.join(work_dir(BUILD), "provider_%s%s.py"
                          % (os.path.basename(python), "_perf" if perf else ""))
    with open(script, "w") as f:
        f.write(PERF_SCRIPT)
    stop = ["breakpoint set -n getppid", "run"]
    check(label, repo, env, [python] + extra + [script], script, stop,
          ["break getppid", "run"], getppid_want(script, version, perf))
    if jit and not perf:
        check_jit(repo, env, python, version)
    return 0


def check_jit(repo, env, python, version):
    """Through a CPython JIT executor, named by its trace's call uop and
    line, and before 3.15 the shim that entered it (3.15's executors absorb
    _PyJIT_Entry's frame), to the eval loop that runs `hot` and on to
    _start; live and on a core."""
    script = os.path.join(work_dir(BUILD), "provider_jit_%s.py" % os.path.basename(python))
    with open(script, "w") as f:
        f.write(WARM_JIT_SCRIPT)
    at = markers(script)
    rule = "fp-preserving" if version >= (3, 15) else "fp-or-scan"
    shim = ["py::jit:hot [shim] (%s:%d) [jit %s]" % (script, at["hot_def"], rule)]
    want = (["py::jit:hot [uop CALL] (%s:%d) [jit %s]" % (script, at["hot"], rule)] +
            (shim if version < (3, 15) else []) +
            [EVAL, ("py", "hot", at["hot"]), ("py", "caller", at["caller"]),
             ("py", "<module>", at["module"]), "_start"])
    env = dict(env, **JIT_ON)
    stop = ["breakpoint set -n getppid", "run", "breakpoint modify -i %d 1" % WARM_IGNORE,
            "continue"]
    live = run(lldb_cmd(repo, True, stop + ["bt", "kill"], ["--", python, script]), env)
    core = os.path.join(work_dir(BUILD), "provider-jit-%d.core" % os.getpid())
    gcore_at(env, [python, script], ["break getppid", "run", "ignore 1 %d" % WARM_IGNORE,
                                     "continue"], core)
    from_core = run(lldb_cmd(repo, True, ["target create %s --core %s" % (python, core), "bt"],
                             []), env)
    os.unlink(core)
    for kind, out in (("live", live), ("core", from_core)):
        got = [re.sub(r"\[uop \d+/\d+ _\w*CALL\w*\]", "[uop CALL]", f) if isinstance(f, str)
               else f for _, f in parse_bt(section(out, "bt"))]
        check_stack("%s JIT %s bt" % (python, kind), got, want)


FALSE_CONDITION_SCRIPT = """\
import os
for _ in range(%d):
    os.getppid()
os.getpgrp()
"""
FALSE_CONDITION_HITS = 300


def check_false_condition(repo, env, python):
    """Hits whose condition is false are stops LLDB continues from unseen:
    the provider answers their frame 0 without a walk."""
    script = os.path.join(work_dir(BUILD), "provider_false_condition.py")
    with open(script, "w") as f:
        f.write(FALSE_CONDITION_SCRIPT % FALSE_CONDITION_HITS)
    walks = "script print('WALKS', jitunwind_lldb.provider.walks())"
    where = "script print('STOPPED IN', lldb.frame.GetFunctionName())"
    out = run(lldb_cmd(repo, True, ["breakpoint set -n getppid -c '0 == 1'",
                                    "breakpoint set -n getpgrp", "run", where, walks, "kill"],
                       ["--", python, script]), env)
    if "STOPPED IN getpgrp" not in section(out, where):
        fail("%s: the run did not stop in getpgrp after the hits of the false condition:\n%s"
             % (python, out[-2000:]))
    m = re.search(r"^WALKS (\d+)$", section(out, walks), re.M)
    if not m or int(m.group(1)) > MAX_WALKS_SHOWN:
        fail("%s: the provider walked the stack %s times for %d hits of a false condition "
             "and 1 stop shown" % (python, m.group(1) if m else "an unknown number of",
                                   FALSE_CONDITION_HITS))
    print("ok: %s: %s walks for %d hits of a false condition and 1 stop shown"
          % (python, m.group(1), FALSE_CONDITION_HITS))


def check_not_python(repo, env):
    """A program without Python or JIT code: the same `bt` as LLDB's own."""
    cmds = ["breakpoint set -n clock_nanosleep", "run", "bt", "kill"]
    stock, ours = [[f for _, f in parse_bt(section(run(lldb_cmd(repo, plugin, cmds,
                                                                 ["--", "/bin/sleep", "0.1"]),
                                                        env), "bt"))]
                   for plugin in (False, True)]
    if not stock or ours != stock:
        fail("/bin/sleep: bt with the provider %r, LLDB's own %r" % (ours, stock))
    print("ok: /bin/sleep: bt with the provider is LLDB's own (%d frames)" % len(ours))


BUILD = None
MAX_WALKS_SHOWN = 4  # the stops of a run LLDB shows or looks at from its main thread
UNSEEN_HITS = 1000   # breakpoint hits LLDB is told to ignore in the JIT check


def main():
    global BUILD
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    BUILD, repo, target = sys.argv[1:]
    setup = demo_setup_or_skip(BUILD)
    if setup is None:
        return SKIP
    python, demo, env = setup
    if not has_frame_providers(env):
        print("SKIP: %s has no SBTarget.RegisterScriptedFrameProvider (LLDB 22+)" % LLDB)
        return SKIP
    if target == "demo":
        check("demo", repo, env, [python, demo], demo, STOP, STOP_GDB, expected_stack(demo))
        check_not_python(repo, env)
        check_false_condition(repo, env, python)
        return 0
    if target == "extra":
        pythons = [p for p in os.environ.get("JITUNWIND_EXTRA_PYTHONS", "").split(":")
                   if p and os.access(p, os.X_OK)]
        if not pythons:
            print("SKIP: JITUNWIND_EXTRA_PYTHONS names no interpreter (colon-separated paths; "
                  "tests/dev.sh sets it from ../shared/cpython-builds)")
            return SKIP
        for py in pythons:
            check_interpreter(repo, env, py)
            if interpreter_facts(py)[0] >= (3, 12):
                check_interpreter(repo, env, py + ",-X,perf")
        return 0
    return check_interpreter(repo, env, target)


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        for path in PERF_MAPS:
            if os.path.exists(path):
                os.unlink(path)
