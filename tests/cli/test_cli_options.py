#!/usr/bin/env python3
"""The command's frame limit and the options a py-spy user types.

  deep:     Debian's python3.11 recursing 5,000 deep: `stack --python` and
            `stack` show every frame (5,002 Python frames); `--max-frames 100`
            shows 100 frames, the innermost and the outermost, and says how many
            were left out (text and JSON); bad values are refused (exit 1); a
            chain longer than the library's JITUNWIND_PY_MAX_FRAMES ends with a
            note and exit 6.
  idle:     a thread that spins, one that sleeps, one blocked on a lock:
            `top` and `record` (mixed and --nonblocking) leave the two idle
            ones out; --idle keeps them.
  output:   --duration/--rate/--output are -d/-F/-o (top takes the first two
            as well); `record -o -` writes to
            standard output (no file named "-"); the progress line uses \\r
            only when stderr is a terminal.

Usage: test_cli_options.py BUILD_DIR MODE   (77: the command or python3.11 missing)"""

import json
import os
import re
import pty
import subprocess
import sys
import tempfile

PYTHON = "/usr/bin/python3.11"

DEEP = """
import sys, time
sys.setrecursionlimit(%(limit)d)
def down(n):
    if n == 0:
        print("ready", flush=True)
        time.sleep(120)
    else:
        down(n - 1)
down(%(depth)d)
"""

THREADS = """
import threading, time
lock = threading.Lock()
lock.acquire()
def spin():
    while True:
        pass
def nap():
    while True:
        time.sleep(1)
def wait_lock():
    lock.acquire()
for f in (nap, wait_lock, spin):
    threading.Thread(target=f, daemon=True).start()
print("ready", flush=True)
time.sleep(120)
"""


def fail(why):
    print("FAIL: " + why)
    sys.exit(1)


def run(args, **kw):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=60, **kw)
    return p.returncode, p.stdout, p.stderr


def started(source):
    proc = subprocess.Popen([PYTHON, "-c", source], stdout=subprocess.PIPE, text=True)
    if proc.stdout.readline().strip() != "ready":
        proc.kill()
        fail("the target did not start")
    return proc


def shown_frames(text):
    """The frame lines of a one-thread `stack` text, innermost first."""
    return [l for l in text.splitlines() if l.lstrip().startswith(("[py]", "#"))]


def deep(cli):
    proc = started(DEEP % {"limit": 20000, "depth": 5000})
    try:
        pid = str(proc.pid)
        full = {}
        for extra in (["--python"], []):
            rc, out, err = run([cli, "stack", pid] + extra)
            py = [l.strip() for l in out.splitlines() if l.strip().startswith("[py]")]
            if rc != 0 or len(py) != 5002 or "cut short" in out:
                fail("stack %s: exit %d, %d Python frames (want 0, 5002): %s" %
                     (extra, rc, len(py), err or out[-300:]))
            if not py[0].endswith(":7") or "<module>" not in py[-1]:
                fail("stack %s: the innermost or outermost frame is wrong: %s ... %s" %
                     (extra, py[0], py[-1]))
            full[tuple(extra)] = shown_frames(out)
            print("ok: stack %s shows all 5002 Python frames" % " ".join(extra))

        for extra in (["--python"], []):
            whole = full[tuple(extra)]
            rc, out, err = run([cli, "stack", pid, "--max-frames", "100"] + extra)
            kept = shown_frames(out)
            want = "%d frames left out (--max-frames)" % (len(whole) - 100)
            if rc != 0 or len(kept) != 100 or want not in out:
                fail("--max-frames 100 %s: exit %d, %d frames, want 100 and %r: %s" %
                     (extra, rc, len(kept), want, out[-500:]))
            if kept[:50] != whole[:50] or kept[50:] != whole[-50:]:
                fail("--max-frames 100 %s: not the 50 innermost and 50 outermost frames" % extra)
            print("ok: --max-frames 100 %s: both ends kept, %s" % (" ".join(extra), want))

        rc, out, err = run([cli, "stack", pid, "--python", "--json", "--max-frames", "9"])
        th = json.loads(out)["threads"][0]
        if rc != 0 or len(th["frames"]) != 9 or th["frames_left_out"] != 5002 - 9:
            fail("--json --max-frames 9: exit %d, %d frames, %r left out" %
                 (rc, len(th["frames"]), th.get("frames_left_out")))
        if th["frames"][0].get("function") != "down" or \
                th["frames"][-1].get("function") != "<module>":
            fail("--json --max-frames 9: the outermost frame is not kept: %r" % th["frames"][-1])
        print("ok: --json --max-frames 9: 9 frames, frames_left_out 4993")

        for bad in (["0"], ["-3"], ["ten"], ["1.5"], []):
            rc, out, err = run([cli, "stack", pid, "--max-frames"] + bad)
            if rc != 1 or "--max-frames" not in err:
                fail("--max-frames %s: exit %d, %r (want 1)" % (bad, rc, err))
        rc, out, err = run([cli, "record", pid, "--max-frames", "5"])
        if rc != 1:
            fail("record --max-frames: exit %d (want 1: a stack option)" % rc)
        print("ok: bad --max-frames values are refused with exit 1")
    finally:
        proc.kill()
        proc.wait()

    # Longer than the library reads (JITUNWIND_PY_MAX_FRAMES, 65536): the
    # innermost frames, a note, exit 6.
    proc = started(DEEP % {"limit": 80000, "depth": 70000})
    try:
        rc, out, err = run([cli, "stack", str(proc.pid), "--python"])
        py = [l for l in out.splitlines() if l.strip().startswith("[py]")]
        if rc != 6 or "Python frame chain cut short: more than 65536 frames" not in out or \
                len(py) < 60000:
            fail("a 70000-deep chain: exit %d, %d frames, %r" % (rc, len(py), out[-300:]))
        print("ok: a 70000-deep chain: %d frames, then a note, exit 6" % len(py))
    finally:
        proc.kill()
        proc.wait()
    return 0


IDLE_WORDS = ("nap", "wait_lock", "clock_nanosleep", "__futex_abstimed_wait_common")


def idle(cli):
    proc = started(THREADS)
    try:
        pid = str(proc.pid)
        for cmd in (["top"], ["top", "--nonblocking"], ["record", "-o", "-"],
                    ["record", "-o", "-", "--nonblocking"]):
            for keep in ([], ["--idle"]):
                rc, out, err = run([cli] + cmd + [pid, "-d", "0.6"] + keep)
                seen = sorted(w for w in IDLE_WORDS if w in out)
                if not keep:
                    right = not seen
                elif cmd == ["top"]:
                    # top lists 25 functions: the idle threads' innermost
                    # (native) frames, not their Python callers, are sure
                    # to be among them.
                    right = bool(seen)
                else:
                    right = {"nap", "wait_lock"} <= set(seen)
                if rc != 0 or "spin" not in out or not right:
                    fail("%s %s: exit %d, idle frames %s: %s" %
                         (" ".join(cmd), keep, rc, seen, err or out[-600:]))
                print("ok: %s %s: idle frames %s" % (" ".join(cmd), " ".join(keep), seen))
    finally:
        proc.kill()
        proc.wait()
    return 0


def output(cli):
    proc = started(THREADS)
    try:
        pid = str(proc.pid)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "p.txt")
            rc, out, err = run([cli, "record", pid, "--duration", "0.5", "--rate", "20",
                                "--output", path])
            if rc != 0 or out or "spin" not in open(path).read():
                fail("--duration/--rate/--output: exit %d: %s" % (rc, err))
            rc, out, err = run([cli, "record", pid, "--duration", "0.5", "--rate", "1e9",
                                "--nonblocking", "--output", path])
            if rc != 0 or not re.search(r"asked for 1000000000 samples/s, achieved \d+/s", err):
                fail("--rate 1e9: exit %d, %r (want 0 and achieved vs asked)" % (rc, err))
            rc, out, err = run([cli, "top", pid, "--duration", "0.5", "--rate", "20"])
            head = re.search(r"top: process \d+, ([\d.]+) s, (\d+) samples", out)
            if rc != 0 or "spin" not in out or not head or float(head.group(1)) > 1.5 or \
                    not 1 <= int(head.group(2)) <= 11:
                fail("top --duration 0.5 --rate 20: exit %d, %r" % (rc, (out + err)[-600:]))
            print("ok: --duration, --rate, --output are -d, -F, -o (top: --duration, --rate)")

            rc, out, err = run([cli, "record", pid, "-d", "0.5", "-o", "-"], cwd=d)
            if rc != 0 or "spin" not in out or os.path.exists(os.path.join(d, "-")):
                fail("-o -: exit %d, stdout %r, a file '-': %s" %
                     (rc, out[:200], os.path.exists(os.path.join(d, "-"))))
            print("ok: record -o - writes to standard output")

            # stderr a pipe: no \r; whole progress lines, at most one every
            # 10 s and the final one, then, on a machine too busy for the
            # rate, the line saying how many samples were missed.
            lines = err.splitlines()
            if lines and re.match(r"jitunwind: asked for \d+ samples/s, achieved \d+/s: ",
                                  lines[-1]):
                lines = lines[:-1]
            if "\r" in err or not 1 <= len(lines) <= 2 or \
                    not all(l.startswith("jitunwind: ") and " samples" in l for l in lines):
                fail("progress to a pipe: %r" % err)
            print("ok: progress to a pipe: whole lines, no \\r")
            main_fd, tty_fd = pty.openpty()
            p = subprocess.Popen([cli, "record", pid, "-d", "1.2", "-o", path],
                                 stdout=subprocess.DEVNULL, stderr=tty_fd)
            os.close(tty_fd)
            seen = b""
            while True:
                try:
                    chunk = os.read(main_fd, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                seen += chunk
            p.wait(timeout=30)
            os.close(main_fd)
            if p.returncode != 0 or seen.count(b"\rjitunwind:") < 2:
                fail("progress to a terminal: exit %d, %r" % (p.returncode, seen))
            print("ok: progress to a terminal: rewritten with \\r")
    finally:
        proc.kill()
        proc.wait()
    return 0


def main():
    cli = os.path.abspath(os.path.join(sys.argv[1], "tools", "jitunwind", "jitunwind"))
    if not os.access(cli, os.X_OK) or not os.path.exists(PYTHON):
        print("SKIP: %s or %s is missing" % (cli, PYTHON))
        return 77
    return {"deep": deep, "idle": idle, "output": output}[sys.argv[2]](cli)


if __name__ == "__main__":
    sys.exit(main())
