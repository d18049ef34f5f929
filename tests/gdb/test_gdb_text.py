#!/usr/bin/env python3
"""gdb with the plugin on a target whose function name, file name and
thread name hold terminal escapes and forged lines (tests/support/
hostile_names.py): py-bt, py-bt -a, py-bt-full, mixed-bt (-a), bt (the frame
filter's Python frames), py-list and py-locals print them escaped, never
raw; with -X perf (a CPython 3.12 here) so do info jit-ranges and the
trampoline frames named by the perf map.

Usage: test_gdb_text.py BUILD_DIR REPO_DIR
Exit 0 on success, 1 on failure, 77 to skip.
"""

import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from demo_stack import end_target, fail, part_missing  # noqa: E402
from hostile_names import FILE_SHOWN, HOSTILE_SHOWN, THREAD_SHOWN, no_controls, start  # noqa: E402

SKIP = 77
PYTHON = "/usr/bin/python3.11"
PERF_PYTHONS = [os.path.expanduser("~/.pyenv/versions/3.12.1/bin/python3.12"),
                "/work/cpython-builds/p312/bin/python3.12"]
COMMANDS = ["py-bt", "py-bt -a", "py-bt-full", "mixed-bt", "mixed-bt -a", "bt", "py-list",
            "py-locals"]


def gdb(build, repo, pid, commands):
    env = dict(os.environ, JITUNWIND_LIBRARY=os.path.join(build, "libjitunwind",
                                                          "libjitunwind.so"))
    cmd = ["gdb", "-nx", "-batch", "-q", "-iex", "set debuginfod enabled off",
           "-iex", "set auto-load python-scripts off",
           "-ex", "source %s/gdb-plugin/jitunwind-gdb.py" % repo]
    for command in commands:
        cmd += ["-ex", "echo <<%s>>\\n" % command, "-ex", command]
    return subprocess.run(cmd + ["-p", str(pid)], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=120).stdout


def check(build, repo, python, args, work, perf):
    proc = start(work, python, *args)
    try:
        out = gdb(build, repo, proc.pid, COMMANDS + (["info jit-ranges"] if perf else []))
    finally:
        end_target(proc)
    text = no_controls("gdb's output", out)
    sections = {}
    name = None
    for line in text.splitlines():
        if line.startswith("<<") and line.endswith(">>"):
            name = line[2:-2]
            sections[name] = []
        elif name:
            sections[name].append(line)
    # -a: the thread's Python name, whole (gdb's own name for it ends at the newline)
    want = {"py-bt": [HOSTILE_SHOWN, FILE_SHOWN], "py-bt -a": [HOSTILE_SHOWN, THREAD_SHOWN],
            "py-bt-full": [HOSTILE_SHOWN, FILE_SHOWN], "mixed-bt": [HOSTILE_SHOWN, FILE_SHOWN],
            "mixed-bt -a": [HOSTILE_SHOWN, THREAD_SHOWN], "bt": [HOSTILE_SHOWN],
            "py-list": [FILE_SHOWN]}
    if perf:
        want["info jit-ranges"] = ["py::evil\\x1b]0;title\\x07"]
    for command, shown in want.items():
        body = "\n".join(sections.get(command, []))
        for s in shown:
            if s not in body:
                fail("%s (%s) does not show %r escaped:\n%s" % (command, python, s, body))
    print("ok: %s%s: %s print the target's names escaped" % (
        python, " -X perf" if perf else "", ", ".join(sorted(want))))


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    build, repo = sys.argv[1:]
    if not shutil.which("gdb") or not os.access(PYTHON, os.X_OK):
        print("skip: gdb or %s is not installed" % PYTHON)
        return SKIP
    work = tempfile.mkdtemp(prefix="ju-gdb-text-")
    try:
        check(build, repo, PYTHON, [], work, False)
        perf = next((p for p in PERF_PYTHONS if os.access(p, os.X_OK)), None)
        if perf:
            check(build, repo, perf, ["-X", "perf"], work, True)
        else:
            part_missing("no CPython 3.12 here: perf-map names not checked")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
