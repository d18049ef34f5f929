#!/usr/bin/env python3
"""gdb end to end on a real CPython: Python frames interleaved with native
ones, through CPython's own `-X perf` trampolines (3.12+), live and on a core.

Usage: test_gdb_real.py BUILD_DIR REPO_DIR PYTHON...
  Each PYTHON is an interpreter path; "extra" means the colon-separated list
  in $JITUNWIND_EXTRA_PYTHONS (for locally built interpreters). Exit 77 when
  none of them exists.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from demo_stack import EVAL, WARM_IGNORE, WARM_JIT_SCRIPT, fail, markers, parse_py_bt  # noqa: E402
from extra_pythons import (JIT_ON, WHY_NONE, debug_root, extra_pythons, gdb_args,  # noqa: E402
                           jit_available, present)  # noqa: E402

SKIP = 77
SCRIPT = """\
import os
import threading

started = threading.Event()


def worker():
    started.set()
    threading.Event().wait()  # @worker


def leaf():
    os.getppid()  # @leaf


def middle():
    leaf()  # @middle


def outer():
    middle()  # @outer


threading.Thread(target=worker, daemon=True).start()
started.wait()
outer()  # @module
"""




def check_jit(build, repo, python, version, work, env, label):
    """A JIT-enabled interpreter: stop in a C function called from JIT code;
    the executor is found from the interpreter's own list (its DWARF locates
    the list), named by its code object, and the walk goes through it and
    on past the eval loop, live and on a core."""
    script = os.path.join(work, "jit_target.py")
    with open(script, "w") as f:
        f.write(WARM_JIT_SCRIPT)
    lines = markers(script)
    core = os.path.join(work, "jit.core")
    pairs = [("bt", "bt"), ("ranges", "info jit-ranges")]
    # The JIT view names the uop at the return address: a call uop, whose
    # bytecode target's line is the call's, which the innermost Python frame
    # then shows exactly (no "line may lag"); before 3.15 the executor's
    # shim, which called the trace, is a frame of its own; 3.15's JIT code
    # keeps RBP (the executor absorbs _PyJIT_Entry's frame: no shim).
    rule = "fp-preserving" if version >= (3, 15) else "fp-or-scan"
    executor = re.compile(r" in py::jit:hot \[uop \d+/\d+ _\w*CALL\w*\] \(%s:%d\) "
                          r"\[jit %s\] \(\)" % (re.escape(script), lines["hot"], rule))
    want = (["py::jit:hot"] + (["py::jit:hot [shim]"] if version < (3, 15) else []) +
            [EVAL, ("py", "hot", lines["hot"]), ("py", "caller", lines["caller"]),
             ("py", "<module>", lines["module"]), "_start"])
    out = run_gdb(repo, env, ["set breakpoint pending on", "break getppid", "run",
                              "ignore 1 %d" % WARM_IGNORE, "continue"] + sections(pairs) +
                  ["gcore " + core, "kill"], ["--args", python, script])
    try:
        for where, text in (("live", out),
                            ("core", run_gdb(repo, env, sections(pairs), [python, core]))):
            frames = parse_bt(section(text, "bt"))
            got = [re.sub(r" \[uop [^]]*\]$", "", f) if isinstance(f, str) else f
                   for f in frames
                   if isinstance(f, tuple) or f in (EVAL, "_start") or f.startswith("py::")]
            if got != want:
                fail("%s JIT %s: bt\n  expected %r\n  got      %r\n%s"
                     % (label, where, want, got, section(text, "bt")[-4000:]))
            if not executor.search(section(text, "bt")):
                fail("%s JIT %s: the JIT frame is not shown as %r:\n%s"
                     % (label, where, executor.pattern, section(text, "bt")[-4000:]))
            ranges = section(text, "ranges")
            if not re.search(r" jit +%s +interpreter py::jit:hot \(" % rule, ranges):
                fail("%s JIT %s: the executor is not listed from the interpreter:\n%s"
                     % (label, where, ranges))
            print("ok: %s JIT %s: through executor %s to the eval loop and on to _start"
                  % (label, where, executor.search(section(text, "bt")).group(0).strip()))
    finally:
        if os.path.exists(core):
            os.unlink(core)


SUB_SCRIPT = """\
import os
import threading
import time

try:
    import _interpreters as interpreters
except ImportError:
    import _xxsubinterpreters as interpreters

started = threading.Event()
SUB = "import time\\ndef sub_worker():\\n    time.sleep(600)\\nsub_worker()\\n"


def in_sub():
    interp = interpreters.create()
    started.set()
    getattr(interpreters, "exec", None) and interpreters.exec(interp, SUB)  # @in_sub
    interpreters.run_string(interp, SUB)


threading.Thread(target=in_sub, daemon=True).start()
started.wait()
time.sleep(0.5)
os.getppid()  # @main
"""


def check_subinterpreters(repo, env, python, work, label):
    """A thread that entered a subinterpreter has a thread state in each
    interpreter: its Python backtrace is the subinterpreter's frames, then
    the main interpreter's, each group under its own eval loop."""
    script = os.path.join(work, "sub_target.py")
    with open(script, "w") as f:
        f.write(SUB_SCRIPT)
    at = markers(script)
    out = run_gdb(repo, env, ["set breakpoint pending on", "break getppid", "run",
                              "thread 2"] + sections([("bt", "bt"), ("py-bt", "py-bt")]) +
                  ["kill"], ["--args", python, script])
    names = [f[2] for f in parse_py_bt(section(out, "py-bt"))]
    want = ["sub_worker", "<module>", "in_sub", "Thread.run"]
    if names[:4] != want:
        fail("%s: py-bt of the subinterpreter thread\n  expected %r...\n  got      %r\n%s"
             % (label, want, names, section(out, "py-bt")))
    frames = parse_bt(section(out, "bt"))
    got = [f if isinstance(f, str) else f[1] for f in frames
           if f == EVAL or (isinstance(f, tuple) and f[1] in ("sub_worker", "in_sub"))]
    if got[:4] != [EVAL, "sub_worker", EVAL, "in_sub"]:
        fail("%s: bt of the subinterpreter thread does not put each interpreter's frames under "
             "its own eval loop: %r\n%s" % (label, got, section(out, "bt")[-4000:]))
    in_sub_line = [int(f[1]) for f in parse_py_bt(section(out, "py-bt")) if f[2] == "in_sub"][0]
    if in_sub_line not in (at["in_sub"], at["in_sub"] + 1):
        fail("%s: in_sub at line %d" % (label, in_sub_line))
    print("ok: %s: a thread inside a subinterpreter shows both interpreters' frames, each under "
          "its eval loop" % label)


def interpreter_file(python):
    """The ELF file that holds the interpreter's runtime: its shared libpython,
    or the executable."""
    code = ("import sys, sysconfig, os\n"
            "d = sysconfig.get_config_var\n"
            "lib = os.path.join(d('LIBDIR') or '', d('INSTSONAME') or '')\n"
            "print(lib if d('Py_ENABLE_SHARED') and os.path.exists(lib) "
            "else os.path.realpath(sys.executable))")
    return subprocess.run([python, "-c", code], stdout=subprocess.PIPE, text=True,
                          timeout=60).stdout.strip()


def check_dwarf_oracle(repo, env, python, label):
    """3.13+: where the executor lists are is build-specific; the library's
    DWARF reader must agree with gdb's own reading of the same file."""
    sys.path.insert(0, os.path.join(repo, "libjitunwind", "bindings", "python"))
    os.environ["JITUNWIND_LIBRARY"] = env["JITUNWIND_LIBRARY"]
    import jitunwind as ju
    module = interpreter_file(python)
    ju.set_debug_file_directories(debug_root(python))  # where gdb_args points gdb
    try:
        types = ju.DwarfTypes(module)
    except ju.JitunwindError as exc:
        fail("%s: the library reads no DWARF from %s (%s)" % (label, module, exc))
    # 3.15 keeps the live executors in an array instead of a list.
    head = "executor_ptrs" if version_of(python) >= (3, 15) else "executor_list_head"
    fields = [("PyInterpreterState", head), ("_PyExecutorObject", "jit_code"),
              ("_PyExecutorObject", "vm_data.links.next")]
    cmds = []
    for struct, member in fields:
        cmds += ["-ex", "print (long)&((%s*)0)->%s" % (struct, member)]
    out = subprocess.run(["gdb", "-nx", "-batch", "-iex", "set debuginfod enabled off"] +
                         gdb_args([python]) + cmds + [module], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         timeout=120).stdout
    oracle = [int(v) for v in re.findall(r"^\$\d+ = (\d+)$", out, re.M)]
    ours = [types.member_offset(struct, member) for struct, member in fields]
    if oracle != ours:
        fail("%s: DWARF offsets of %s: library %r, gdb %r\n%s" % (label, module, ours, oracle, out))
    print("ok: %s: the library's DWARF reader agrees with gdb on %s (%s)" % (
        label, module, ", ".join("%s.%s = %d" % (f[0], f[1], o) for f, o in zip(fields, ours))))


def version_of(python):
    out = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                         stdout=subprocess.PIPE, text=True, timeout=60).stdout.strip()
    return tuple(int(x) for x in out.split("."))


def run_gdb(repo, env, cmds, args):
    # past-main: builds whose main is a frame of its own (debug builds; release
    # builds tail-call Py_BytesMain) would otherwise end gdb's bt at main.
    cmd = ["gdb", "-nx", "-batch", "-q", "-iex", "set debuginfod enabled off",
           "-iex", "set auto-load python-scripts off", "-iex", "set backtrace past-main on",
           "-ex", "source %s/gdb-plugin/jitunwind-gdb.py" % repo] + gdb_args(args)
    for c in cmds:
        cmd += ["-ex", c]
    return subprocess.run(cmd + args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=300).stdout


def section(text, name):
    start, end = text.find("<<%s>>" % name), text.find("<<end %s>>" % name)
    if start < 0 or end < 0:
        fail("no section %s in gdb output:\n%s" % (name, text[-3000:]))
    return text[start + len(name) + 4:end]


def sections(pairs):
    out = []
    for name, command in pairs:
        out += ["echo <<%s>>\\n" % name, command, "echo <<end %s>>\\n" % name]
    return out


def expected(script, perf, tramp=None, layout="sub8"):
    lines = markers(script)
    want = []
    for name, marker in (("leaf", "leaf"), ("middle", "middle"), ("outer", "outer"),
                         ("<module>", "module")):
        if perf or name == "leaf":
            want.append(EVAL)
        want.append(("py", name, lines[marker]))
        if perf:
            want.append((tramp or "py::%s:%s" % (name, script)) + " [trampoline %s]" % layout)
    return want + ["_start"]


def parse_bt(text):
    frames = []
    for line in text.splitlines():
        m = re.match(r"^#\d+\s+(?:0x[0-9a-f]+ in )?(.+?) \(", line)
        if m:
            frames.append(m.group(1))
            continue
        m = re.match(r"^\s+\[py\] (.+?) \(\) at (.+):(\d+)\s*$", line)
        if m:
            frames.append(("py", m.group(1), int(m.group(3))))
    return frames


def check(label, out, script, perf, tramp=None, layout="sub8", unsaved=None):
    want = expected(script, perf, tramp, layout)
    frames = parse_bt(section(out, "bt"))
    # glibc's __libc_start_call_main is a local symbol: a stripped libc
    # without its debug file (the one 3.15.2 carries) cannot name it.
    unnamed = [i for i, f in enumerate(frames)
               if f == "??" and frames[i + 1:i + 2] != ["__libc_start_main"]]
    if unnamed:
        fail("%s: frames without a name:\n%s" % (label, section(out, "bt")[-4000:]))
    got = [f for f in frames
           if isinstance(f, tuple) or f in (EVAL, "_start") or f.startswith("py::")]
    if got != want:
        fail("%s: bt\n  expected %r\n  got      %r\n%s" % (label, want, got, section(out, "bt")[-4000:]))
    # Tail-call interpreters (3.14+ clang builds): the one handler frame of
    # each activation sits directly above its eval loop, whose Python frames
    # follow the eval loop (they come from tstate->current_frame).
    handlers = [i for i, f in enumerate(frames) if isinstance(f, str) and f.startswith("_TAIL_CALL_")]
    if handlers:
        bad = [frames[i] for i in handlers if i + 1 >= len(frames) or frames[i + 1] != EVAL]
        if bad or len(handlers) != sum(1 for f in frames if f == EVAL):
            fail("%s: tail-call handler frames not one per eval loop, directly above it:\n%s"
                 % (label, section(out, "bt")[-4000:]))
        print("ok: %s: tail-call interpreter: one %s handler frame above each of the %d eval loops"
              % (label, "/".join(sorted({frames[i] for i in handlers})), len(handlers)))
    pybt = parse_py_bt(section(out, "py-bt"))
    want_py = [(script, str(w[2]), w[1]) for w in want if isinstance(w, tuple)]
    if pybt != want_py:
        fail("%s: py-bt\n  expected %r\n  got      %r" % (label, want_py, pybt))
    # The other thread, which does not hold the GIL, has its own Python stack.
    if unsaved:
        print("ok: %s: bt and py-bt show %d Python frames; the worker thread is not checked: "
              "gcore could not save its stack (gdb: %s)" % (label, len(want_py), unsaved))
        return
    worker_line = [n for n, l in enumerate(open(script), 1) if "# @worker" in l][0]
    threads = parse_py_bt(section(out, "threads"))
    if (script, str(worker_line), "worker") not in threads or len(threads) < len(want_py) + 1:
        fail("%s: thread apply all py-bt misses the worker thread:\n%s" % (label, section(out, "threads")))
    print("ok: %s: bt and py-bt show %d Python frames%s, down to _start" % (
        label, len(want_py), " each under its eval loop and %s trampoline" % layout if perf else ""))
    print("ok: %s: the worker thread (not holding the GIL) is decoded too" % label)


def check_interpreter(build, repo, python, work):
    version = version_of(python)
    perf = version >= (3, 12)
    layout = "framed" if version >= (3, 14) else "sub8"  # 3.14 gave the trampoline a frame
    label = "%s (%d.%d%s)" % (python, version[0], version[1], ", -X perf" if perf else "")
    script = os.path.join(work, "real_target.py")
    with open(script, "w") as f:
        f.write(SCRIPT)
    env = dict(os.environ, JITUNWIND_LIBRARY=os.path.join(build, "libjitunwind", "libjitunwind.so"))
    core = os.path.join(work, "real.core")
    args = ["--args", python] + (["-X", "perf"] if perf else []) + [script]
    pairs = [("bt", "bt"), ("py-bt", "py-bt"), ("threads", "thread apply all py-bt")]
    out = run_gdb(repo, env, ["set breakpoint pending on", "break getppid", "run"] + sections(pairs) +
                  ["gcore " + core, "kill"], args)
    pid = re.findall(r"\(process (\d+)\) killed", out)
    # gdb 13 drops a whole mapping from the core when part of it cannot be
    # read: glibc 2.42+ guards thread stacks with MADV_GUARD_INSTALL pages
    # (3.15.2 carries glibc 2.43), so a thread's stack may be missing.
    unsaved = re.search(r"Memory read failed for corefile section, \d+ bytes at 0x[0-9a-f]+", out)
    unsaved = unsaved and unsaved.group(0)
    if version >= (3, 13):
        check_dwarf_oracle(repo, env, python, label)
    if version >= (3, 12):
        check_subinterpreters(repo, env, python, work, label)
    if jit_available(python):
        check_jit(build, repo, python, version, work, dict(env, **JIT_ON), "%s (%d.%d, JIT)" % (python, *version[:2]))
    try:
        check(label + " live", out, script, perf, layout=layout)
        if perf:
            ranges = [l for l in run_gdb(repo, env, ["info jit-ranges"], [python, core]).splitlines()
                      if "perf-map" in l]
            if not ranges or not all(" %s " % layout in l for l in ranges):
                fail("%s: CPython's trampolines are not all read as %s from their code: %r"
                     % (label, layout, ranges[:5]))
            print("ok: %s: %d CPython trampolines in the perf map, layout read from the code"
                  % (label, len(ranges)))
        out = run_gdb(repo, env, sections(pairs), [python, core])
        check(label + " core", out, script, perf, layout=layout, unsaved=unsaved)
        if perf:
            # Without the perf map, the trampolines come from the interpreter's
            # own arena list in the core (unnamed, but unwound the same way).
            for p in pid:
                if os.path.exists("/tmp/perf-%s.map" % p):
                    os.unlink("/tmp/perf-%s.map" % p)
            out = run_gdb(repo, env, sections(pairs), [python, core])
            check(label + " core without perf map", out, script, perf, "py::<perf trampoline>",
                  layout, unsaved)
    finally:
        if os.path.exists(core):
            os.unlink(core)
        for p in pid:
            if os.path.exists("/tmp/perf-%s.map" % p):
                os.unlink("/tmp/perf-%s.map" % p)


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    build, repo, pythons = sys.argv[1], sys.argv[2], sys.argv[3:]
    if pythons == ["extra"]:
        pythons = present(extra_pythons())
        if not pythons:
            print("SKIP: " + WHY_NONE)
            return SKIP
    there = [p for p in pythons if os.access(p, os.X_OK)]
    if not there:
        print("SKIP: no interpreter at %s" % ", ".join(pythons))
        return SKIP
    work = tempfile.mkdtemp(prefix="ju-real-", dir=build)
    try:
        for python in there:
            check_interpreter(build, repo, python, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
