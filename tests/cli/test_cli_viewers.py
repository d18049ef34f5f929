#!/usr/bin/env python3
"""`record`'s outputs as the viewers people use read them.

  pprof:       the profile opened with `go tool pprof -traces` (Debian
               golang-go): `<module>` and every other Python function keep
               their names (pprof takes a name holding '<' or '(' for
               demangled C++ and cuts it unless its system name differs).
  pprof-jit:   the same for JIT frames' labels, on the 3.14 JIT build of
               $JITUNWIND_EXTRA_PYTHONS.
  speedscope:  one profile per thread, named by thread id and name, each
               thread's samples in the order taken: a thread that runs one
               phase and then another has every sample of the first before
               any of the second.
  flamegraph:  `--format flamegraph` writes one SVG that an XML parser reads,
               that refers to nothing outside itself, whose frames are as wide
               as their share of the samples, and in which a hostile function
               name (markup, an escape sequence) is text, escaped.
  deep:        a 5,000-deep recursion is recorded whole (5,002 Python frames a
               stack), --nonblocking and mixed.

Usage: test_cli_viewers.py BUILD_DIR MODE   (77: a needed program is missing)"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

PYTHON = "/usr/bin/python3.11"

HOT = """
import time
def hot_function():
    x = 0
    for i in range(10000):
        x += i
    return x
print("ready", flush=True)
end = time.time() + 60
while time.time() < end:
    hot_function()
"""

# Two named threads, each running phase_one for ONE_SECONDS, then phase_two.
# The OS names are set by the thread itself (Python 3.11 does not).
PHASES = """
import ctypes, threading, time
libc = ctypes.CDLL(None)
ONE_SECONDS = 1.5
def phase_one(end):
    while time.time() < end:
        sum(range(1000))
def phase_two(end):
    while time.time() < end:
        sum(range(1000))
def work(name, start):
    libc.prctl(15, name.encode(), 0, 0, 0)  # PR_SET_NAME: the OS name; threading's is the same
    phase_one(start + ONE_SECONDS)
    phase_two(start + 60)
start = time.time() + 0.5
threads = [threading.Thread(target=work, args=(n, start), name=n) for n in ("payer", "payee")]
for t in threads:
    t.start()
print("ready", flush=True)
for t in threads:
    t.join()
"""

HOSTILE = """
import time
name = "evil<b>&amp;\\x1b]0;owned\\x07"
src = "def f():\\n    x = 0\\n    for i in range(10000):\\n        x += i\\n"
ns = {}
exec(compile(src, "<hostile>", "exec"), ns)
f = ns["f"]
f.__code__ = f.__code__.replace(co_name=name, co_qualname=name)
print("ready", flush=True)
end = time.time() + 60
while time.time() < end:
    f()
"""

DEEP = """
import sys, time
sys.setrecursionlimit(10000)
def down(n):
    if n == 0:
        print("ready", flush=True)
        end = time.time() + 60
        while time.time() < end:
            pass
    else:
        down(n - 1)
down(5000)
"""


def fail(why):
    print("FAIL: " + why)
    sys.exit(1)


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


def start(python, source, work, name, env=None):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(source)
    proc = subprocess.Popen([python, path], stdout=subprocess.PIPE, env=env)
    if proc.stdout.readline().strip() != b"ready":
        proc.kill()
        fail("%s did not start" % name)
    return proc


def record(j, pid, *args):
    r = subprocess.run([j, "record", str(pid)] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    if r.returncode != 0:
        fail("record %s: exit %d: %s" % (" ".join(args), r.returncode,
                                         r.stderr.decode(errors="replace")[-600:]))
    return r


def mode_pprof(j, work):
    if not shutil.which("go"):
        skip("no `go` command (Debian golang-go): go tool pprof cannot open the profile")
    proc = start(PYTHON, HOT, work, "hot.py")
    try:
        path = os.path.join(work, "p.pb.gz")
        record(j, proc.pid, "-d", "1", "--format", "pprof", "-o", path)
    finally:
        proc.kill()
    r = subprocess.run(["go", "tool", "pprof", "-traces", path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    text = r.stdout.decode(errors="replace")
    if r.returncode != 0:
        fail("go tool pprof: exit %d: %s" % (r.returncode, r.stderr.decode()[-400:]))
    names = {line.strip() for line in text.splitlines() if line.startswith("  ")}
    if "<module>" not in names or "hot_function" not in names or "<unknown>" in names:
        fail("go tool pprof -traces: <module>/hot_function missing or <unknown> shown:\n" +
             text[:2000])
    print("ok: go tool pprof shows <module> and hot_function, no <unknown>")


def mode_pprof_jit(j, work):
    path = os.path.join(work, "p.pb.gz")
    jit = [p for p in os.environ.get("JITUNWIND_EXTRA_PYTHONS", "").split(":")
           if re.search(r"python3\.14$", p)]
    if not shutil.which("go"):
        skip("no `go` command (Debian golang-go): go tool pprof cannot open the profile")
    if not jit:
        skip("no 3.14 JIT build (python3.14) in JITUNWIND_EXTRA_PYTHONS")
    env = dict(os.environ, PYTHON_JIT="1")
    proc = start(jit[0], HOT, work, "hot_jit.py", env)
    try:
        time.sleep(1)  # the loop is hot: its executor exists
        record(j, proc.pid, "-d", "1", "--format", "pprof", "-o", path)
        collapsed = record(j, proc.pid, "-d", "1", "-o", "-").stdout.decode(errors="replace")
    finally:
        proc.kill()
    labels = set(re.findall(r"py::jit:[^;]*\)[^;]*\]", collapsed))
    text = subprocess.run(["go", "tool", "pprof", "-traces", path], stdout=subprocess.PIPE,
                          timeout=120).stdout.decode(errors="replace")
    shown = {line.strip() for line in text.splitlines() if "py::jit" in line}
    if not labels or not shown or not all(re.search(r"\(.*:\d+\) \[jit ", s) for s in shown):
        fail("JIT labels cut by pprof: recorded %r, shown %r" % (sorted(labels)[:3],
                                                                 sorted(shown)[:3]))
    print("ok: go tool pprof shows JIT labels whole (%d distinct)" % len(shown))


def mode_speedscope(j, work):
    import json
    proc = start(PYTHON, PHASES, work, "phases.py")
    try:
        path = os.path.join(work, "s.json")
        record(j, proc.pid, "-d", "4", "-F", "50", "--nonblocking", "--format", "speedscope",
               "-o", path)
    finally:
        proc.kill()
    doc = json.load(open(path))
    frames = [f["name"] for f in doc["shared"]["frames"]]
    profiles = {p["name"]: p for p in doc["profiles"]}
    for name in ("payer", "payee"):
        hits = [n for n in profiles if re.fullmatch(r'Thread \d+ "%s"' % name, n)]
        if len(hits) != 1:
            fail("speedscope: no single profile for thread %r: %r" % (name, sorted(profiles)))
        prof = profiles[hits[0]]
        if prof["type"] != "sampled" or len(prof["samples"]) != len(prof["weights"]):
            fail("speedscope: %s: %r, %d samples, %d weights" % (
                hits[0], prof["type"], len(prof["samples"]), len(prof["weights"])))
        order = []
        for sample in prof["samples"]:
            names = [frames[i] for i in sample]
            phase = [n for n in names if n in ("phase_one", "phase_two")]
            if phase:
                order.append(phase[0])
        if "phase_one" not in order or "phase_two" not in order:
            fail("speedscope: %s has not both phases: %r" % (hits[0], order))
        last_one = max(i for i, p in enumerate(order) if p == "phase_one")
        first_two = min(i for i, p in enumerate(order) if p == "phase_two")
        if last_one > first_two:
            fail("speedscope: %s's samples are not in time order: %r" % (hits[0], order))
    print("ok: speedscope: one profile per thread (%s), samples in time order"
          % ", ".join(sorted(profiles)))


def mode_flamegraph(j, work):
    proc = start(PYTHON, HOT, work, "hot.py")
    hostile = start(PYTHON, HOSTILE, work, "hostile.py")
    try:
        path = os.path.join(work, "f.svg")
        record(j, proc.pid, "-d", "1", "--format", "flamegraph", "-o", path)
        evil = os.path.join(work, "evil.svg")
        record(j, hostile.pid, "-d", "1", "--nonblocking", "--format", "flamegraph", "-o", evil)
    finally:
        proc.kill()
        hostile.kill()
    ns = "{http://www.w3.org/2000/svg}"
    raw = open(path).read()
    if re.search(r"(href|src)\s*=", raw) or "http://" in raw.replace(
            "http://www.w3.org/2000/svg", ""):
        fail("flamegraph refers to something outside itself")
    root = ET.parse(path).getroot()
    width = float(root.get("width")) - 20  # the drawing's padding on both sides
    frames = {}
    for g in root.iter(ns + "g"):
        title = g.find(ns + "title").text
        rect = g.find(ns + "rect")
        frames.setdefault(title.split(" (")[0], []).append(float(rect.get("width")))
    if "_start" not in frames or "hot_function" not in frames:
        fail("flamegraph: no _start or hot_function frame: %r" % sorted(frames)[:20])
    share = sum(frames["hot_function"]) / width
    if max(frames["_start"]) < 0.95 * width - 1 or share < 0.4:
        fail("flamegraph: _start %.0f px of %.0f, hot_function %.0f%%" % (
            max(frames["_start"]), width, 100 * share))
    print("ok: flamegraph: parses, self-contained, _start spans it, hot_function %.0f%%"
          % (100 * share))
    raw = open(evil, encoding="utf-8").read()
    texts = [t.text or "" for t in ET.parse(evil).getroot().iter(ns + "title")]
    if "\x1b" in raw or "<b>" in raw or not any("evil<b>&amp;\\x1b]0;owned\\x07" in t
                                                for t in texts):
        fail("flamegraph: the hostile name is not escaped text: %r" % [
            t for t in texts if "evil" in t][:2])
    print("ok: flamegraph: a hostile function name is escaped text")


def mode_deep(j, work):
    proc = start(PYTHON, DEEP, work, "deep.py")
    try:
        for args in (["--nonblocking"], ["-F", "20"]):
            out = record(j, proc.pid, "-d", "1", "-o", "-", *args).stdout.decode()
            depths = {line.rsplit(" ", 1)[0].count("down (") for line in out.splitlines()}
            if depths != {5001}:
                fail("record %s: stacks with %r frames of down, not 5,001" % (args, depths))
            print("ok: record %s: every stack holds all 5,001 frames of down" % " ".join(args))
    finally:
        proc.kill()


def main():
    build, mode = sys.argv[1], sys.argv[2]
    j = os.path.join(build, "tools", "jitunwind", "jitunwind")
    if not os.access(j, os.X_OK):
        skip("no %s" % j)
    if not os.access(PYTHON, os.X_OK):
        skip("no %s" % PYTHON)
    with tempfile.TemporaryDirectory() as work:
        {"pprof": mode_pprof, "pprof-jit": mode_pprof_jit, "speedscope": mode_speedscope, "flamegraph": mode_flamegraph,
         "deep": mode_deep}[mode](j, work)


if __name__ == "__main__":
    main()
