#!/usr/bin/env python3
"""What the jitunwind command says about its target's surroundings, one
mode each:

  perfmap   a refused /tmp/perf-PID.map (another user's) is named once in
            its note, not twice;
  vsyscall  a gcore of a plain Python process holds the kernel's
            [vsyscall] page, executable and not file-backed: no range is
            guessed from it (no "GUESSED" note, no range);
  tracer    `record` and `stack` on a process another process traces name
            the tracer, by PID and command name;
  replaced  a core whose files were replaced on disk by other builds since
            the dump: the interpreter's file refuses the core (exit 7, the
            two build ids said) rather than blaming the layout; another
            file (a library) is a note;
  cachefolder  run as root with another user's HOME, or with a cache
            folder that is a symbolic link: the layout cache writes nothing
            there, and the stack is shown all the same;
  locals    `stack --locals` on a CPython without a value table whose
            DWARF is not found (Debian's stripped 3.15.2 release, from
            JITUNWIND_EXTRA_PYTHONS) names the field the values lack, as
            docs/values.md says, not just "not supported".

Usage: test_cli_notes.py BUILD_DIR MODE
Exit 0 on success, 1 on failure, 77 to skip.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

SKIP = 77
PYTHON = "/usr/bin/python3.11"
SLEEPER = "import time\ndef waiting():\n    time.sleep(120)\nwaiting()\n"


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def tool(build):
    path = os.path.join(build, "tools", "jitunwind", "jitunwind")
    if not os.access(path, os.X_OK):
        fail("%s was not built" % path)
    return path


def run(cmd, timeout=60, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout, env=env)
    return p.returncode, p.stdout, p.stderr


def sleeper():
    """A Python process asleep in waiting() (given a second to get there)."""
    proc = subprocess.Popen([PYTHON, "-c", SLEEPER])
    time.sleep(1)
    return proc


def mode_perfmap(j, work):
    if os.geteuid() != 0:
        print("SKIP: only root can make a perf map of another user")
        return SKIP
    proc = sleeper()
    path = "/tmp/perf-%d.map" % proc.pid
    try:
        with open(path, "w") as f:
            f.write("1000 10 py::x:/x.py\n")
        os.chown(path, 65534, 65534)
        rc, out, err = run([j, "stack", "--json", str(proc.pid)])
        if rc != 0:
            fail("stack: exit %d: %s" % (rc, err))
        notes = [n for n in json.loads(out)["notes"] if path in n]
        if len(notes) != 1 or notes[0].count(path) != 1:
            fail("want one note naming %s once, got %r" % (path, notes))
        print("ok: the refusal names the perf map once: %s" % notes[0])
    finally:
        os.unlink(path)
        proc.kill()
        proc.wait()
    return 0


def mode_vsyscall(j, work):
    gcore = shutil.which("gcore")
    if not gcore:
        print("SKIP: no gcore")
        return SKIP
    with open("/proc/self/maps") as f:
        if "[vsyscall]" not in f.read():
            print("SKIP: this kernel maps no [vsyscall] page")
            return SKIP
    proc = sleeper()
    try:
        prefix = os.path.join(work, "core")
        subprocess.run([gcore, "-o", prefix, str(proc.pid)], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=120)
        core = "%s.%d" % (prefix, proc.pid)
        if not os.path.exists(core):
            fail("gcore wrote no core")
        rc, out, err = run([j, "stack", "--json", "--core", core, "--exe", PYTHON])
        if rc != 0:
            fail("stack --core: exit %d: %s" % (rc, err))
        doc = json.loads(out)
        guessed = [n for n in doc["notes"] if "GUESSED" in n]
        if guessed or doc["target"]["ranges"] != 0:
            fail("ranges guessed in a plain Python's core: %r, %d ranges" % (
                guessed, doc["target"]["ranges"]))
        if "waiting" not in out:
            fail("the core's stack lacks the sleeping function: %s" % out[:2000])
        print("ok: a gcore of plain Python: no range guessed, no note")
    finally:
        proc.kill()
        proc.wait()
    return 0


TRACER = r"""
import ctypes, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl(15, b"ju-tracer", 0, 0, 0)   # PR_SET_NAME
if libc.ptrace(0x4206, int(sys.argv[1]), None, None) != 0:   # PTRACE_SEIZE
    print("seize failed", ctypes.get_errno(), flush=True)
    sys.exit(1)
print("seized", flush=True)
time.sleep(60)
"""


def mode_tracer(j, work):
    proc = sleeper()
    tracer = subprocess.Popen([sys.executable, "-c", TRACER, str(proc.pid)],
                              stdout=subprocess.PIPE, text=True)
    try:
        line = tracer.stdout.readline()
        if line.strip() != "seized":
            print("SKIP: cannot trace a process here (%s)" % line.strip())
            return SKIP
        want = "already traced by process %d (ju-tracer)" % tracer.pid
        for cmd in (["record", str(proc.pid), "-d", "0.5", "-o", os.devnull],
                    ["stack", str(proc.pid)]):
            rc, out, err = run([j] + cmd)
            if want not in err:
                fail("%s: the tracer is not named (%r): exit %d, %r" % (cmd[0], want, rc, err))
            print("ok: %s names the tracer: %s" % (cmd[0], err.strip().splitlines()[0]))
    finally:
        tracer.kill()
        tracer.wait()
        proc.kill()
        proc.wait()
    return 0


def mode_replaced(j, work):
    gcore = shutil.which("gcore")
    if not gcore or not os.access(PYTHON + "d", os.X_OK):
        print("SKIP: needs gcore and %sd (another build of the same version)" % PYTHON)
        return SKIP
    python, lib = os.path.join(work, "python3"), os.path.join(work, "lib")
    os.mkdir(lib)
    shutil.copy(PYTHON, python)
    shutil.copy("/lib/x86_64-linux-gnu/libz.so.1", lib)
    proc = subprocess.Popen([python, "-c", SLEEPER], env=dict(os.environ, LD_LIBRARY_PATH=lib))
    time.sleep(1)
    try:
        prefix = os.path.join(work, "core")
        subprocess.run([gcore, "-o", prefix, str(proc.pid)], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=120)
        core = "%s.%d" % (prefix, proc.pid)
    finally:
        proc.kill()
        proc.wait()
    rc, out, err = run([j, "stack", "--core", core])
    if rc != 0 or "replaced" in out + err:
        fail("the files as dumped: exit %d, %s%s" % (rc, out, err))
    os.unlink(os.path.join(lib, "libz.so.1"))
    shutil.copy("/lib/x86_64-linux-gnu/libexpat.so.1", os.path.join(lib, "libz.so.1"))
    rc, out, err = run([j, "stack", "--core", core])
    if rc != 0 or "1 file replaced on disk since the dump" not in out or \
            os.path.join(lib, "libz.so.1") not in out or "waiting" not in out:
        fail("a replaced library: exit %d, want a note naming it: %s%s" % (rc, out, err))
    print("ok: a replaced library is noted: %s" % next(
        line for line in out.splitlines() if "replaced" in line))
    os.unlink(python)
    shutil.copy(PYTHON + "d", python)
    rc, out, err = run([j, "stack", "--core", core])
    if rc != 7 or "the interpreter's file was replaced since the dump: %s is build" % python \
            not in err or "trace-refs" in err:
        fail("a replaced interpreter: exit %d, want 7 and its build ids: %s%s" % (rc, out, err))
    print("ok: a replaced interpreter: exit 7, %s" % err.strip())
    return 0


def mode_cachefolder(j, work):
    if os.geteuid() != 0:
        print("SKIP: only root can run with another user's HOME")
        return SKIP
    theirs, linked, elsewhere = (os.path.join(work, n) for n in ("theirs", "linked", "elsewhere"))
    os.mkdir(theirs)
    os.chown(theirs, 65534, 65534)
    os.makedirs(os.path.join(linked, ".cache"))
    os.mkdir(elsewhere)
    os.symlink(elsewhere, os.path.join(linked, ".cache", "jitunwind"))
    proc = sleeper()
    try:
        for home in (theirs, linked):
            env = {k: v for k, v in os.environ.items()
                   if k not in ("XDG_CACHE_HOME", "JITUNWIND_NO_CACHE")}
            env["HOME"] = home
            rc, out, err = run([j, "stack", str(proc.pid)], env=env)
            if rc != 0 or "waiting" not in out:
                fail("HOME=%s: exit %d: %s%s" % (home, rc, out, err))
        written = os.listdir(theirs) + os.listdir(elsewhere)
        if written:
            fail("the layout cache wrote %r through another user's folder or a link" % written)
        print("ok: another user's HOME and a linked cache folder: nothing written, the stack "
              "shown")
    finally:
        proc.kill()
        proc.wait()
    return 0


def mode_locals(j, work):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                    "support"))
    from extra_pythons import WHY_NONE, named
    python = named("python3.15")
    if not python:
        print("SKIP: no release python3.15 (%s)" % WHY_NONE)
        return SKIP
    proc = subprocess.Popen([python, "-c", SLEEPER.replace("waiting():", "waiting(a=1):")])
    time.sleep(1.5)
    try:
        # No layout cache: an entry from a run that found the DWARF would
        # answer for it.
        rc, out, err = run([j, "stack", "--python", "--locals", str(proc.pid)],
                           env=dict(os.environ, JITUNWIND_NO_CACHE="1"))
        if rc != 0 or "waiting" not in out:
            fail("stack --locals: exit %d: %s%s" % (rc, out, err))
        cut = [line.strip() for line in out.splitlines() if "variables cut short" in line]
        if not cut:
            print("SKIP: %s's values were read (its DWARF was found): %s" % (python, out))
            return SKIP
        for line in cut:
            if "PyDictObject.dict_used" not in line or "not supported" in line:
                fail("the missing field is not named: %r" % line)
        print("ok: %s without DWARF: %s" % (python, cut[0]))
    finally:
        proc.kill()
        proc.wait()
    return 0


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    build, mode = os.path.abspath(sys.argv[1]), sys.argv[2]
    if not os.access(PYTHON, os.X_OK):
        print("SKIP: no %s" % PYTHON)
        return SKIP
    modes = {"perfmap": mode_perfmap, "vsyscall": mode_vsyscall, "tracer": mode_tracer,
             "locals": mode_locals, "replaced": mode_replaced,
             "cachefolder": mode_cachefolder}
    if mode not in modes:
        print("unknown mode %s" % mode)
        return 2
    work = tempfile.mkdtemp(prefix="ju-cli-notes-")
    try:
        return modes[mode](tool(build), work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
