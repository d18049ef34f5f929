"""A Python target whose names hold terminal escapes and forged lines: its
running function's name and file name hold a window-title sequence
(ESC ] 0 ; title BEL), a clear-screen sequence (ESC [ 2 J), a C1 control and
newlines that forge a `Thread 1 "fake"` line with a fake frame; its main
thread's name (the OS's and threading's) holds a clear-screen sequence and
a newline. Shared by the tests of the command (tests/cli/test_cli_text.py) and of the debuggers."""

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from demo_stack import fail  # noqa: E402

FORGE = '\nThread 1 "fake":\n#0  0x0000000000000000 in fake ()'
HOSTILE = "evil\x1b]0;title\x07\x1b[2J\x9b31m" + FORGE
FILE = "/tmp/\x1b]0;file\x07\x1b[2J\nThread 2 \"fake\":.py"
THREAD = "t\x1b[2J\nThr"  # 15 bytes: a thread name's room
# How the escaped names read.
HOSTILE_SHOWN = 'evil\\x1b]0;title\\x07\\x1b[2J\\x9b31m\\nThread 1 "fake":\\n#0'
FILE_SHOWN = '/tmp/\\x1b]0;file\\x07\\x1b[2J\\nThread 2 "fake":.py'
THREAD_SHOWN = '"t\\x1b[2J\\nThr"'

TARGET = r'''
import ctypes, os, sys, threading, time
ready = sys.argv[1]
name = %r
src = ("def f(n):\n    t = time.time() + 0.05\n"
       "    while time.time() < t:\n        pass\n    return n\n")
code = compile(src, %r, "exec")
ns = {"time": time}
exec(code, ns)
f = ns["f"]
f.__code__ = f.__code__.replace(co_name=name, co_qualname=name)
libc = ctypes.CDLL(None)
thread_name = %r
libc.prctl(15, thread_name.encode(), 0, 0, 0)  # PR_SET_NAME: the OS name
threading.current_thread().name = thread_name  # and threading's, which is shown first
open(ready, "w").close()
while True:
    f(1)
''' % (HOSTILE, FILE, THREAD)


def _read_or_empty(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def _whole_line_of_evil(perf_map):
    """Whether the perf map holds the hostile function's line to its end
    (its name, then its file's, then the newline)."""
    at = perf_map.find(b"py::evil")
    return at >= 0 and FILE.encode() + b"\n" in perf_map[at:]


def start(work, python, *args):
    """The target, running in `work` under `python` ARGS, once set up."""
    script = os.path.join(work, "target.py")
    with open(script, "w") as f:
        f.write(TARGET)
    ready = script + ".ready"
    if os.path.exists(ready):
        os.unlink(ready)
    proc = subprocess.Popen([python] + list(args) + [script, ready])
    deadline = time.time() + 30
    while not os.path.exists(ready):
        if proc.poll() is not None or time.time() > deadline:
            proc.kill()
            fail("the target did not start")
        time.sleep(0.02)
    # With -X perf the hostile function's trampoline line is written at its
    # first call, after `ready`: a reader before it (a busy machine) would
    # find the map's last line half written, and no name for the trampoline.
    perf_map = "/tmp/perf-%d.map" % proc.pid
    while "perf" in args and not _whole_line_of_evil(_read_or_empty(perf_map)):
        if proc.poll() is not None or time.time() > deadline:
            proc.kill()
            fail("the target wrote no perf-map line for its function")
        time.sleep(0.02)
    return proc


def no_controls(what, data):
    """`data` (bytes) holds no C0 control but newline and tab, no DEL, no C1 (raw or
    UTF-8), no invalid UTF-8, and no forged line: its text, else fail."""
    bad = [b for b in data if b < 0x20 and b not in (0x09, 0x0a) or b == 0x7f]
    if bad:
        fail("%s holds control bytes %r:\n%r" % (what, sorted(set(bad)), data[:3000]))
    text = data.decode("utf-8", "strict")  # raises on invalid UTF-8
    if any(0x80 <= ord(c) <= 0x9f for c in text):
        fail("%s holds C1 controls:\n%r" % (what, text[:3000]))
    if any(line.startswith(('Thread 1 "fake"', 'Thread 2 "fake"',
                            "#0  0x0000000000000000 in fake"))
           for line in text.splitlines()):
        fail("%s has a forged line:\n%s" % (what, text))
    return text
