#!/usr/bin/env python3
"""Text a target controls reaches no terminal raw: a target whose function
name, file name, thread name (and, on a CPython with -X perf, perf-map
lines) hold a window-title sequence (ESC ] 0 ; title BEL), a clear-screen
sequence (ESC [ 2 J), C1 controls, invalid UTF-8 and a newline that forges a
`Thread 1 "fake"` line. `stack` prints them escaped (\\x1b, \\n, \\x07), its
--json keeps them as JSON strings that decode to the very names, and
`record`'s collapsed lines and `top` hold no control byte and no extra line
or frame.

Usage: test_cli_text.py BUILD_DIR
Exit 0 on success, 1 on failure, 77 to skip.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from demo_stack import end_target, fail, part_missing  # noqa: E402
from hostile_names import FILE, FILE_SHOWN, HOSTILE, HOSTILE_SHOWN, THREAD, THREAD_SHOWN, \
    no_controls, start  # noqa: E402

SKIP = 77
PYTHON = "/usr/bin/python3.11"
# A 3.12+ interpreter with perf trampolines, for the perf-map lines.
PERF_PYTHONS = [os.path.expanduser("~/.pyenv/versions/3.12.1/bin/python3.12"),
                "/work/cpython-builds/p312/bin/python3.12"]


def tool(build):
    path = os.path.join(build, "tools", "jitunwind", "jitunwind")
    if not os.access(path, os.X_OK):
        fail("%s was not built" % path)
    return path


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    return p.returncode, p.stdout, p.stderr


def check_stack(j, pid, perf):
    rc, out, err = run([j, "stack", str(pid)])
    text = no_controls("stack", out)
    no_controls("stack's standard error", err)
    print(text)
    for shown in (HOSTILE_SHOWN, FILE_SHOWN, THREAD_SHOWN):
        if shown not in text:
            fail("stack does not show %r escaped:\n%s" % (shown, text))
    if perf and "py::evil\\x1b]0;title\\x07" not in text:
        fail("stack does not show the perf map's trampoline name escaped:\n%s" % text)
    rc, out, err = run([j, "stack", "--json", str(pid)])
    doc = json.loads(out.decode("utf-8", "strict"))  # valid JSON, valid UTF-8
    strings = set()

    def collect(v):
        if isinstance(v, str):
            strings.add(v)
        elif isinstance(v, dict):
            for item in v.values():
                collect(item)
        elif isinstance(v, list):
            for item in v:
                collect(item)
    collect(doc)
    for name in (HOSTILE, FILE, THREAD):
        if name not in strings:
            fail("--json does not give %r as it is:\n%s" % (name, out.decode()))


def check_record(j, pid, work):
    out_file = os.path.join(work, "profile.txt")
    rc, out, err = run([j, "record", str(pid), "-d", "1", "-F", "200", "-o", out_file])
    if rc != 0:
        fail("record: exit %d: %s" % (rc, err.decode(errors="replace")))
    with open(out_file, "rb") as f:
        data = f.read()
    text = no_controls("the collapsed profile", data)
    hostile = [line for line in text.splitlines() if "evil" in line]
    if not hostile:
        fail("the collapsed profile has no stack of the target's function:\n%s" % text)
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit() or not stack:
            fail("a collapsed line is not `frames count`: %r" % line)
    for line in hostile:
        frame = [f for f in line.rpartition(" ")[0].split(";") if "evil" in f]
        if len(frame) != 1 or not frame[0].startswith("evil\\x1b]0:title\\x07") \
                or not re.search(r"\.py:\d+\)$", frame[0]):
            fail("the target's function is not one escaped frame (';' shown as ':'): %r" % line)
    rc, out, err = run([j, "top", str(pid), "-d", "1.5"])
    text = no_controls("top", out.replace(b"\033[H\033[2J", b""))
    if "evil\\x1b]0;title" not in text:
        fail("top does not show the function escaped:\n%s" % text)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    j = tool(sys.argv[1])
    if not os.access(PYTHON, os.X_OK):
        print("skip: %s is not installed" % PYTHON)
        return SKIP
    work = tempfile.mkdtemp(prefix="ju-text-")
    try:
        proc = start(work, PYTHON)
        try:
            check_stack(j, proc.pid, False)
            check_record(j, proc.pid, work)
        finally:
            proc.kill()
            proc.wait()
        perf = next((p for p in PERF_PYTHONS if os.access(p, os.X_OK)), None)
        if perf is None:
            part_missing("no CPython 3.12 here: perf-map names not checked")
        else:
            proc = start(work, perf, "-X", "perf")
            try:
                check_stack(j, proc.pid, True)
            finally:
                end_target(proc)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
