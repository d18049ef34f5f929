#!/usr/bin/env python3
"""A Python process read in its first instructions, before the dynamic
loader has relocated the interpreter (`record --perf --all` opens processes
that young): `stack` on a core made at gdb's `starti` must say the process
is still starting, not blame the build ("a --with-trace-refs build?"), and
exit non-zero. `record` of a live process caught that young (held at
`starti` by gdb, let go half a second later) waits for its interpreter to
come up and records it; held for good, it gives up after the wait with
the same reason. It runs on every interpreter of $JITUNWIND_EXTRA_PYTHONS
that holds PyType_Type in a position-independent executable (the others
have no runtime mapped yet at that point, or nothing to relocate).

Usage: test_cli_starting.py BUILD_DIR
Exit 0 on success, 1 on failure, 77 to skip.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from demo_stack import fail, part_missing  # noqa: E402
from extra_pythons import WHY_NONE, extra_pythons, present  # noqa: E402
from ready_target import built_tool  # noqa: E402

SKIP = 77
STARTING = "the process is still starting"


def relocated_by_loader(python):
    """Whether the executable is position-independent and defines PyType_Type."""
    header = subprocess.run(["readelf", "-hW", python], capture_output=True, text=True).stdout
    symbols = subprocess.run(["readelf", "-sW", python], capture_output=True, text=True).stdout
    return "DYN (" in header and any(line.split()[-1:] == ["PyType_Type"]
                                     for line in symbols.splitlines())


SPIN = "import time\nend = time.time() + 8\nwhile time.time() < end:\n    pass\n"


def held_at_starti(python, work, hold):
    """A gdb holding `python` (running SPIN) at its first instruction for
    `hold` seconds, then letting it go; and the held process's PID."""
    pid_file = os.path.join(work, "pid")
    if os.path.exists(pid_file):
        os.unlink(pid_file)
    gdb = subprocess.Popen(["gdb", "-nx", "-batch", "-ex", "starti", "-ex",
                            "python open(%r, 'w').write(str(gdb.selected_inferior().pid))" % pid_file,
                            "-ex", "shell sleep %g" % hold, "-ex", "detach",
                            "--args", python, "-c", SPIN],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline:
        if os.path.exists(pid_file) and open(pid_file).read().strip():
            return gdb, int(open(pid_file).read())
        time.sleep(0.02)
    gdb.kill()
    fail("gdb did not start %s at starti" % python)


def check_record_waits(j, python, work):
    out = os.path.join(work, "profile.txt")
    gdb, pid = held_at_starti(python, work, 0.5)
    try:
        p = subprocess.run([j, "record", str(pid), "-d", "3", "-F", "50", "-o", out],
                           capture_output=True, text=True, timeout=120)
        stacks = open(out).read() if os.path.exists(out) else ""
        if p.returncode != 0 or "<module>" not in stacks:
            fail("%s caught at starti, let go after 0.5 s: record wants exit 0 and the "
                 "program's stacks, got exit %d: %s %r" % (python, p.returncode,
                                                           p.stderr.strip(), stacks[:300]))
        print("ok: %s: record waited for the interpreter and recorded it" % python)
    finally:
        gdb.wait(timeout=60)
        subprocess.run(["kill", "-9", str(pid)], stderr=subprocess.DEVNULL)
    gdb, pid = held_at_starti(python, work, 6)
    try:
        started = time.time()
        p = subprocess.run([j, "record", str(pid), "-d", "1", "-F", "50", "-o", out],
                           capture_output=True, text=True, timeout=120)
        took = time.time() - started
        if p.returncode == 0 or STARTING not in p.stderr or took > 5:
            fail("%s held at starti: record wants a non-zero exit saying %r within the run's "
                 "second, got exit %d after %.1f s: %s" % (python, STARTING, p.returncode, took,
                                                           p.stderr.strip()))
        print("ok: %s held at starti: record gave up after %.1f s: %s"
              % (python, took, p.stderr.strip()))
    finally:
        gdb.kill()
        gdb.wait(timeout=60)
        subprocess.run(["kill", "-9", str(pid)], stderr=subprocess.DEVNULL)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    j = built_tool(sys.argv[1])
    if not shutil.which("gdb"):
        print("skip: gdb is not installed (it makes the core at starti)")
        return SKIP
    pythons = [p for p in present(extra_pythons()) if relocated_by_loader(p)]
    if not pythons:
        part_missing(WHY_NONE if not extra_pythons() else
                     "no interpreter of JITUNWIND_EXTRA_PYTHONS defines PyType_Type in a "
                     "position-independent executable")
        return SKIP
    work = tempfile.mkdtemp(prefix="ju-starting-")
    try:
        for python in pythons:
            core = os.path.join(work, "core")
            subprocess.run(["gdb", "-nx", "-batch", "-ex", "starti", "-ex", "gcore " + core,
                            "--args", python, "-c", "pass"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
            if not os.path.exists(core):
                fail("gdb made no core of %s at starti" % python)
            p = subprocess.run([j, "stack", "--core", core, "--exe", python],
                               capture_output=True, text=True, timeout=120)
            os.unlink(core)
            said = p.stderr.strip()
            if p.returncode == 0 or STARTING not in said or "trace-refs" in said:
                fail("%s at starti: want a non-zero exit saying %r, got exit %d: %s"
                     % (python, STARTING, p.returncode, said))
            print("ok: %s read before its relocation: %s" % (python, said))
            check_record_waits(j, python, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
