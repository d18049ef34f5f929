#!/usr/bin/env python3
"""gdb batch tests against the test bed's demo (tests/testbed/demo.py).

Usage: test_gdb_demo.py BUILD_DIR REPO_DIR MODE
  MODE live   plugin loaded, live process stopped at jitbed_checkpoint; also writes a core
  MODE core   plugin loaded, the core written by a live run
  MODE stock  no plugin, live and core: shows that stock gdb does not get through
  MODE errors every command with bad arguments, without a process, on a non-Python
              process, before Python is initialised, after `set var` on the
              descriptor; a wrong or missing library
  MODE help   `help <command>` and `apropos python` show each command's help
  MODE limits the Python frame cap, py-bt --limit, mixed-bt N's cut
  MODE lazy   `bt 3` pulls a few frames; `thread apply all py-bt` reads the threads once
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
from demo_stack import (EVAL, accepted_by_parser, as_guessed, check_stack, demo_setup, expected_py_bt,  # noqa: E402
                        expected_stack, fail, missing_library_wrong, parse_mixed, parse_py_bt)

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
           "-iex", "set auto-load python-scripts off",
           "-iex", "unset environment LD_PRELOAD"]  # a sanitizer runtime is gdb's, not the target's
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


LEAKS = ("Traceback (most recent call last)", "Python Exception", "Error occurred in Python", "invalid literal",
         "is not in the loaded libjitunwind", "No closing quotation")


def no_leaks(label, out):
    for leak in LEAKS:
        if leak in out:
            fail("%s: %r reached the debugger:\n%s" % (label, leak, out[-3000:]))


def shared_specs(repo, jit=False):
    """The stack commands the plugins register (jitunwind.ui.commands.COMMANDS)
    and, with `jit`, the JIT developer commands (jitunwind.ui.jit_specs)."""
    sys.path.insert(0, os.path.join(repo, "libjitunwind", "bindings", "python"))
    from jitunwind.ui.commands import COMMANDS
    from jitunwind.ui.jit_specs import JIT_SPECS
    return [spec for spec, _ in COMMANDS] + (JIT_SPECS if jit else [])



BAD_ARGUMENTS = ["--bogus", "-z", "-x", "foo", "abc", "0x10", "1e3", "-5", "0", "5 extra", '"unbalanced']


def check_bad_arguments(repo, env):
    """Every command, fed bad arguments: its name, what is wrong and the usage
    line, once each; never Python's own text."""
    specs = shared_specs(repo, jit=True)
    pairs = [("%s|%s" % (spec.gdb_name, bad), "%s %s" % (spec.gdb_name, bad))
             for spec in specs for bad in BAD_ARGUMENTS]
    out = run_gdb(gdb_cmd(repo, True, with_sections(pairs) + ["echo survived\\n"], []), env)
    no_leaks("bad arguments", out)
    for (name, command), spec in zip(pairs, [s for s in specs for _ in BAD_ARGUMENTS]):
        text = section(out, name).strip().splitlines()
        bad = command[len(spec.gdb_name) + 1:]
        if accepted_by_parser(spec, bad):
            continue
        if len(text) != 2 or not text[0].startswith(spec.gdb_name + ": ") or \
                text[1] != "usage: " + spec.usage(spec.gdb_name):
            fail("%r: want one line saying what is wrong and the usage line, got:\n%s"
                 % (command, "\n".join(text)))
    if "survived" not in out:
        fail("gdb did not carry on after bad arguments:\n" + out[-2000:])
    print("ok: %d commands x %d bad arguments: one line and the usage line each"
          % (len(specs), len(BAD_ARGUMENTS)))
    return shared_specs(repo)


def check_states(repo, env, python, demo, specs):
    """Every command with no process, on a non-Python process, before Python
    is initialised, and after the descriptor was corrupted with `set var`."""
    names = [spec.gdb_name for spec in specs]
    out = run_gdb(gdb_cmd(repo, True, with_sections([(n, n) for n in names]), []), env)
    no_leaks("no process", out)
    for n in names:
        if section(out, n).strip() != "jitunwind: %s: no process" % n:
            fail("%s without a process: %r" % (n, section(out, n)))
    print("ok: no process: `jitunwind: <command>: no process`, once each")

    cmds = ["break exit", "run"] + with_sections([(n, n) for n in names]) + ["bt",
                                                                            "echo survived\\n"]
    out = run_gdb(gdb_cmd(repo, True, cmds, ["--args", "/bin/sleep", "0"]), env)
    no_leaks("non-Python process", out)
    for needle in ("jitunwind: py-bt: no CPython runtime", "thread #1, tid",
                   "No JIT or trampoline ranges registered.", "survived"):
        if needle not in out:
            fail("gdb on a non-Python program: %r missing:\n%s" % (needle, out[-3000:]))
    # /bin/sleep is stripped: its frames have no name, shown as stock gdb does.
    if not re.search(r"^#\d+ +0x[0-9a-f]+ in \?\? \(\)$", out, re.M) or " in  ()" in out:
        fail("a nameless frame is not shown as `?? ()`:\n" + out[-3000:])
    print("ok: non-Python process: one-line messages, no exception")

    # Stopped before Py_Initialize*: _PyRuntime is there, its interpreter list empty.
    cmds = ["break Py_InitializeFromConfig", "run"] + with_sections(
        [(n, n) for n in names]) + ["kill"]
    out = run_gdb(gdb_cmd(repo, True, cmds, ["--args", python, "-c", "pass"]), env)
    no_leaks("before Py_Initialize", out)
    for n in ("py-bt", "py-bt-full"):
        if not section(out, n).strip().startswith(
                "jitunwind: %s: Python is not initialised yet" % n):
            fail("%s before Py_Initialize: %r" % (n, section(out, n)))
    ranges = section(out, "info jit-ranges")
    if ranges.count("not initialised") != 1 or "corrupt" in ranges:
        fail("info jit-ranges before Py_Initialize should say it once:\n" + ranges)
    print("ok: before Py_Initialize: `Python is not initialised yet`, once per command")

    # A descriptor written with `set var` is read again at the next command.
    cmds = ["set breakpoint pending on", "break jitbed_checkpoint", "run"] + with_sections(
        [("before", "info jit-ranges")]) + [
        "set var *(char *)&jitunwind_jit_descriptor = 88"] + with_sections(
        [("after", "info jit-ranges"), ("bt", "bt"), ("mixed-bt", "mixed-bt")]) + ["kill"]
    out = run_gdb(gdb_cmd(repo, True, cmds, ["--args", python, demo]), env)
    no_leaks("descriptor overwritten", out)
    if "py::jit:leaf" not in section(out, "before"):
        fail("the descriptor's ranges are missing before the write:\n" + section(out, "before"))
    after = section(out, "after")
    if "py::jit:leaf" in after or "descriptor at 0x" not in after:
        fail("info jit-ranges shows the ranges of the descriptor as it was before `set var`:\n"
             + after)
    print("ok: `set var` on the descriptor: info jit-ranges re-reads it (ranges gone, one note)")


THREADS_SCRIPT = """\
import os, threading
ready = threading.Barrier(21)
def worker():
    ready.wait()
    threading.Event().wait()  # @worker
for _ in range(20):
    threading.Thread(target=worker, daemon=True).start()
ready.wait()
os.kill(os.getpid(), 5)
"""

COUNT_PULLS = """python
import gdb
class CountPulls:
    # Runs before jitunwind's filter (higher priority): counts the frames it pulls.
    def __init__(self):
        self.name, self.priority, self.enabled, self.pulled = "count-pulls", 1000, True, 0
    def filter(self, frames):
        for f in frames:
            self.pulled += 1
            yield f
counter = CountPulls()
gdb.frame_filters["count-pulls"] = counter
end"""

COUNT_THREAD_READS = """python
import jitunwind
thread_reads = [0]
_threads = jitunwind.PyReader.threads
def counted(self):
    thread_reads[0] += 1
    return _threads(self)
jitunwind.PyReader.threads = counted
end"""


def check_lazy(repo, env, python, demo, workdir):
    """`bt 3` pulls a few frames, not the whole stack, and
    `thread apply all py-bt` reads the thread list once per stop (item 8).
    Counted, not timed: tests/bench/bench_gdb.py prints the times."""
    stop = ["set breakpoint pending on", "break jitbed_checkpoint", "run"]
    out = run_gdb(gdb_cmd(repo, True, stop + [COUNT_PULLS, "bt 3",
                                              "python print('PULLED', counter.pulled)",
                                              "bt -no-filters", "kill"],
                          ["--args", python, demo]), env)
    pulled = re.findall(r"^PULLED (\d+)$", out, re.M)
    total = len(re.findall(r"^#\d+ ", out.split("PULLED")[-1], re.M))
    if not pulled or total < 40 or int(pulled[0]) > 8:
        fail("bt 3 pulled %s of %d frames from gdb (want at most 8):\n%s"
             % (pulled, total, out[-3000:]))
    print("ok: bt 3 pulls %s of the %d frames" % (pulled[0], total))
    script = os.path.join(workdir, "threads.py")
    with open(script, "w") as f:
        f.write(THREADS_SCRIPT)
    out = run_gdb(gdb_cmd(repo, True, ["handle SIGTRAP stop nopass", "run", COUNT_THREAD_READS,
                                       "thread apply all py-bt",
                                       "python print('READS', thread_reads[0])", "kill"],
                          ["--args", python, script]), env)
    reads = re.findall(r"^READS (\d+)$", out, re.M)
    workers = out.count("in worker")
    if workers != 20 or reads != ["1"]:
        fail("thread apply all py-bt: %d workers shown, thread list read %s times (want 20, 1):\n%s"
             % (workers, reads, out[-3000:]))
    print("ok: thread apply all py-bt over 21 threads reads the thread list once")
    return 0


DEEP_SCRIPT = """\
import os, sys
sys.setrecursionlimit(20000)
def down(n):
    if n == 0:
        os.kill(os.getpid(), 5)
        return 0
    return down(n - 1) + 1
down(5000)  # @module
"""


def check_limits(repo, env, python, demo, workdir):
    """The Python frame cap (4096) is said once and never as a frame with `()`;
    `py-bt --limit` reaches <module> of a deeper recursion; `mixed-bt 3` says
    that the other Python frames run past its limit."""
    script = os.path.join(workdir, "deep.py")
    with open(script, "w") as f:
        f.write(DEEP_SCRIPT)
    out = run_gdb(gdb_cmd(repo, True, ["handle SIGTRAP stop nopass", "run"] + with_sections(
        [("py-bt", "py-bt"), ("limit", "py-bt --limit 6000"), ("bt", "bt")]) + ["kill"],
        ["--args", python, script]), env)
    no_leaks("deep recursion", out)
    capped = section(out, "py-bt")
    if "in <module>" in capped or capped.count("Python frame chain cut short") != 1:
        fail("py-bt of a 5000-deep recursion should stop at 4096 and say so once:\n"
             + capped[-1500:])
    if "in <module>" not in section(out, "limit") or "cut short" in section(out, "limit"):
        fail("py-bt --limit 6000 does not reach <module>:\n" + section(out, "limit")[-1500:])
    cut = [line for line in section(out, "bt").splitlines() if "cut short" in line]
    if len(cut) != 1 or cut[0].rstrip().endswith("()"):
        fail("bt: the cap should be one note without `()`: %r" % cut)
    print("ok: 5000-deep recursion: py-bt says where it stopped, --limit 6000 reaches <module>, "
          "bt's note has no `()`")
    stop = ["set breakpoint pending on", "break jitbed_checkpoint", "run"]
    out = run_gdb(gdb_cmd(repo, True, stop + with_sections([("mixed", "mixed-bt 3")]) + ["kill"],
                          ["--args", python, demo]), env)
    mixed = section(out, "mixed")
    if "no matching native frame" in mixed or \
            not re.search(r"\(6 more Python frames, run by native frames past the first 3\)", mixed):
        fail("mixed-bt 3 should say the Python frames run past its limit:\n" + mixed)
    print("ok: mixed-bt 3 says the Python frames are past its limit, not unmatched")
    return 0


def with_other_build_id(python, out_path):
    """Copy the executable `python` to `out_path` with one byte of its
    NT_GNU_BUILD_ID changed: the same program under another build id.
    Returns False when it has no build id note."""
    import struct
    with open(python, "rb") as f:
        data = bytearray(f.read())
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for i in range(phnum):
        p_type, _, p_offset, _, _, p_filesz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
        at, end = p_offset, p_offset + p_filesz
        while p_type == 4 and at + 12 <= end:
            namesz, descsz, n_type = struct.unpack_from("<III", data, at)
            desc = at + 12 + (namesz + 3) // 4 * 4
            if n_type == 3 and bytes(data[at + 12:at + 12 + namesz]) == b"GNU\0" and descsz:
                data[desc + descsz - 1] ^= 0xff
                with open(out_path, "wb") as f:
                    f.write(data)
                os.chmod(out_path, 0o755)
                return True
            at = desc + (descsz + 3) // 4 * 4
    return False


def check_mismatched_core(repo, env, python, core, run_with, part):
    """A core opened with another executable: said by build id, once per
    command. The other executable is the debug twin PYTHONd when there is
    one, else a copy of PYTHON under another build id."""
    other = python + "d"
    if not os.path.exists(other):
        other = core + ".other-exe"
        if not with_other_build_id(python, other):
            fail("%s has no build id note to open the core with another" % python)
    out = run_with(other)
    if other.endswith(".other-exe"):
        os.unlink(other)
    want = "the core does not match the executable: %s has build id" % other
    if not part(out, "py-bt").strip().startswith("jitunwind: py-bt: " + want) or \
            part(out, "ranges").count(want) != 1:
        fail("core opened with %s: want one line naming the build ids:\n%s" % (other, out[-3000:]))
    print("ok: a core opened with the wrong executable says so, by build id")


def truncate_before(core, address, out_path):
    """Write to `out_path` `core` as a kernel core cut short would be: notes
    whole, memory up to the PT_LOAD segment holding `address`, and that
    segment and every later one past the end of the file. (gcore writes the
    notes last, which a plain cut would lose.) Returns False when no segment
    holds `address`."""
    import struct
    with open(core, "rb") as f:
        data = f.read()
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    headers = [(phoff + i * phentsize,) + struct.unpack_from("<IIQQQQQQ", data, phoff + i * phentsize)
               for i in range(phnum)]
    cut = next((h[3] for h in headers if h[1] == 1 and h[6] and h[4] <= address < h[4] + h[7]),
               None)
    note = next((h for h in headers if h[1] == 4), None)
    if cut is None or note is None:
        return False
    notes = data[note[3]:note[3] + note[6]]
    out = bytearray(data[:cut]) + notes
    for at, p_type, _, p_offset, *_ in headers:
        if p_type == 4:
            struct.pack_into("<Q", out, at + 8, cut)
        elif p_offset >= cut:
            struct.pack_into("<Q", out, at + 8, p_offset + len(notes))
    struct.pack_into("<Q", out, 0x28, 0)       # e_shoff: gcore's section headers are gone
    struct.pack_into("<HH", out, 0x3c, 0, 0)   # e_shnum, e_shstrndx
    with open(out_path, "wb") as f:
        f.write(out)
    return True


def check_truncated_core(repo, env, python, core):
    """A core cut short before the perf trampolines' code: the perf map's
    lines are skipped, and the note says the core is truncated and by how
    much, rather than only "skipped"."""
    maps = [m for m in PERF_MAPS if os.path.exists(m)]
    if not maps:
        fail("the demo left no perf map to check a truncated core against")
    with open(maps[-1]) as f:
        first = int(f.readline().split()[0], 16)
    cut = core + ".cut"
    if not truncate_before(core, first, cut):
        fail("no segment of the core holds the trampoline at %#x" % first)
    out = run_gdb(gdb_cmd(repo, True, with_sections([("ranges", "info jit-ranges")]),
                          [python, cut]), env)
    os.unlink(cut)
    no_leaks("truncated core", out)
    if not re.search(r"note: /tmp/perf-\d+\.map: \d+ lines skipped: the core is truncated "
                     r"\(\d+ bytes of memory missing\)", section(out, "ranges")):
        fail("a truncated core: want the perf map note to say so:\n%s" % section(out, "ranges"))
    print("ok: a core cut before the trampolines says it is truncated, and by how much")


def check_errors(repo, env, python, demo):
    """The plugin never raises into gdb: each problem is one clear line."""
    specs = check_bad_arguments(repo, env)
    check_states(repo, env, python, demo, specs)
    # JITUNWIND_LIBRARY naming another library, or nothing: said once, then
    # the documented search goes on (the build tree's library).
    for bad in ("/nonexistent/libjitunwind.so", "libz.so.1"):
        bad_env = dict(env, JITUNWIND_LIBRARY=bad)
        out = run_gdb(gdb_cmd(repo, True, ["break exit", "run", "info jit-ranges", "py-bt",
                                           "echo survived\\n"], [python, "-c", "pass"]), bad_env)
        no_leaks("JITUNWIND_LIBRARY=" + bad, out)
        said = [line for line in out.splitlines() if line.startswith("jitunwind:")]
        if len(said) != 2 or "JITUNWIND_LIBRARY=%s is unusable" % bad not in said[0] or \
                "; using " not in said[0] or "survived" not in out:
            fail("JITUNWIND_LIBRARY=%s: want one line at load, then the build's library:\n%s"
                 % (bad, out[-3000:]))
    print("ok: an unusable JITUNWIND_LIBRARY is said once, and the build's library is used")
    # No library anywhere: a copy of the plugin away from the build tree.
    import tempfile
    with tempfile.TemporaryDirectory() as alone:
        shutil.copytree(os.path.join(repo, "gdb-plugin"), os.path.join(alone, "gdb-plugin"))
        shutil.copytree(os.path.join(repo, "libjitunwind", "bindings"),
                        os.path.join(alone, "libjitunwind", "bindings"))
        bad_env = dict(env, JITUNWIND_LIBRARY="/nonexistent/libjitunwind.so")
        out = run_gdb(gdb_cmd(alone, True, ["echo survived\\n"], [python, "-c", "pass"]), bad_env)
    wrong = missing_library_wrong(out, "/nonexistent/libjitunwind.so")
    if wrong:
        fail("missing library: " + wrong)
    no_leaks("missing library", out)
    print("ok: missing library: one clear line, gdb carries on")
    return 0


def check_help(repo, env):
    """`help <command>` shows the spec's help; `apropos python` finds every command."""
    specs = shared_specs(repo, jit=True)
    out = run_gdb(gdb_cmd(repo, True, with_sections(
        [(s.gdb_name, "help " + s.gdb_name) for s in specs] + [("apropos", "apropos python")]),
        []), env)
    for spec in specs:
        text = section(out, spec.gdb_name)
        if "not documented" in text or not text.strip().startswith(spec.summary) or \
                "Usage: " + spec.usage(spec.gdb_name) not in text:
            fail("help %s:\n%s" % (spec.gdb_name, text))
        if not re.search(r"^%s -- %s" % (re.escape(spec.gdb_name), re.escape(spec.summary)),
                         section(out, "apropos"), re.M):
            fail("apropos python does not find %s:\n%s" % (spec.gdb_name, section(out, "apropos")))
    print("ok: help and apropos python show the help of %d commands" % len(specs))
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
                      r"in (\S+)(?: \(.*\))?( \[entry\])?$", section(out, "py-bt-full"), re.M)
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
    rows = [l for l in section(out, "ranges-name").splitlines() if l.startswith("0x")]
    if len(rows) != 1 or "py::jit:leaf" not in rows[0] or \
            not re.search(r"^\(1 of \d+ ranges match 'jit:leaf'\)$", section(out, "ranges-name"), re.M):
        fail("%s: info jit-ranges jit:leaf:\n%s" % (label, section(out, "ranges-name")))
    rows = [l for l in section(out, "ranges-n").splitlines() if l.startswith("0x")]
    if len(rows) != 2 or not re.search(r"^\(2 of \d+ ranges shown: raise -n for more\)$",
                                       section(out, "ranges-n"), re.M):
        fail("%s: info jit-ranges -n 2:\n%s" % (label, section(out, "ranges-n")))
    print("ok: %s info jit-ranges NAME and -n N filter and count, and say what they left out"
          % label)


PLUGIN_SECTIONS = [("bt", "bt"), ("mixed-bt", "mixed-bt"), ("raw", "bt -no-filters"),
                   ("py-bt", "py-bt"), ("py-bt-full", "py-bt-full -v"), ("ranges", "info jit-ranges"),
                   ("ranges-name", "info jit-ranges jit:leaf"), ("ranges-n", "info jit-ranges -n 2"),
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
        check_mismatched_core(repo, env, python, core, lambda exe: run_gdb(gdb_cmd(
            repo, True, with_sections([("py-bt", "py-bt"), ("ranges", "info jit-ranges")]),
            [exe, core]), env), lambda out, name: section(out, name))
        check_truncated_core(repo, env, python, core)
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
        return check_errors(repo, env, python, demo)

    if mode == "help":
        return check_help(repo, env)

    if mode == "limits":
        return check_limits(repo, env, python, demo, workdir)

    if mode == "lazy":
        return check_lazy(repo, env, python, demo, workdir)

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
