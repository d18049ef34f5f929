#!/usr/bin/env python3
"""The jitunwind command against targets that do what live processes do:
exec, exit, die and give their PID away, have thousands of threads; and
against readers and terminals that do not keep up (a pager, Ctrl-Z, a full
disk). Each mode is bounded: a command that hangs is killed and the test
fails (the kernel releases a tracer's threads when it dies).

Usage: test_cli_process.py BUILD_DIR REPO_DIR MODE
  exec      20 threads recursing and sleeping while the main thread execs the
            script again, 25 times: `record -F 1000` and `stack` in a loop all
            along never hang, the execs all finish, Ctrl-C ends a record
  exit      the target exits (os._exit) while `record` samples it: its parent
            reaps it at once, and `record` ends by itself; a zombie target too
  pager     `stack` into a pipe nobody reads: no target thread stays stopped
  suspend   SIGTSTP, SIGTTIN, SIGTTOU to a `record`: it stops with no target
            thread stopped, and goes on after SIGCONT
  reuse     (a PID namespace) the target dies and another process takes its
            PID while `record` is suspended: record ends, the other process is
            neither sampled nor stopped
  output    `stack` into /dev/full, --json, a closed standard output, `top`
            into /dev/full: exit 8 and one line
  threads   `stack --stats` reads per thread do not grow with the number of
            threads (8 and 64 threads); more than 4,096 threads: the ones left
            out are counted, --threads TID finds any thread, and `record -d`
            ends within a sample
  files     --core FIFO and --exe FIFO end at once (regular files only); a
            core cut before its notes is a damaged core (exit 7)
  messages  record --no-cache / --no-chain-cache print no marker figure
Exit 0 on success, 1 on failure, 77 to skip.
"""

import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from demo_stack import fail  # noqa: E402

SKIP = 77
PYTHON = "/usr/bin/python3.11"  # Debian's: fast to start, its layout known
HANG = 20  # seconds after which a command is taken to hang


def tool(build):
    path = os.path.join(build, "tools", "jitunwind", "jitunwind")
    if not os.access(path, os.X_OK):
        fail("%s was not built" % path)
    return path


def bounded(cmd, label, timeout=HANG, **kw):
    """Run `cmd`; a command still running after `timeout` is killed (which
    frees the target) and fails the test."""
    p = subprocess.Popen(cmd, stdout=kw.pop("stdout", subprocess.PIPE),
                         stderr=subprocess.PIPE, text=True, **kw)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        fail("%s: still running after %d s: it hangs (%s)" % (label, timeout, " ".join(cmd)))
    return p.returncode, out, err


def task_states(pid):
    """{tid: state letter} of every thread of `pid` ({} when it is gone)."""
    states = {}
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return states
    for tid in tids:
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                states[int(tid)] = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            pass
    return states


def traced_stopped(pid):
    return sorted(t for t, s in task_states(pid).items() if s == "t")


def wait_file(path, proc, what, timeout=30):
    deadline = time.time() + timeout
    while not os.path.exists(path):
        if proc.poll() is not None:
            fail("the target exited (%s) before %s" % (proc.returncode, what))
        if time.time() > deadline:
            fail("timed out waiting for %s" % what)
        time.sleep(0.02)


def write(work, name, text):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def ready_target(work, name, text, *args, **kw):
    """A Python target that creates FILE.ready once set up."""
    script = write(work, name, text)
    ready = script + ".ready"
    if os.path.exists(ready):
        os.unlink(ready)  # an earlier target's
    proc = subprocess.Popen([PYTHON, script, ready] + [str(a) for a in args], **kw)
    wait_file(ready, proc, "%s to start" % name)
    return proc


THREADS = """\
import sys, threading, time
ready, count, depth, pause = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
threading.stack_size(256 * 1024)
started = threading.Barrier(count + 1)


def recurse(k):
    if k == 0:
        started.wait()
        while True:
            time.sleep(pause)
    recurse(k - 1)


for i in range(count):
    threading.Thread(target=recurse, args=(depth,), daemon=True).start()
started.wait()
open(ready, "w").close()
time.sleep(600)
"""


def threads_target(work, count, depth=20, pause=0.001, **kw):
    return ready_target(work, "threads.py", THREADS, count, depth, pause, **kw)


def stop(proc):
    if proc.poll() is None:
        proc.kill()
    proc.wait()


EXEC = """\
import os, sys, threading, time
ready, n = sys.argv[1], int(sys.argv[2])


def recurse(k):
    if k == 0:
        while True:
            time.sleep(0.001)
    recurse(k - 1)


for i in range(20):
    threading.Thread(target=recurse, args=(30,), daemon=True).start()
if n == 0:
    open(ready, "w").close()
    time.sleep(600)
time.sleep(0.05 + (n % 5) * 0.02)
os.execv(sys.executable, [sys.executable, sys.argv[0], ready, str(n - 1)])
"""


def mode_exec(j, work):
    script = write(work, "exec.py", EXEC)
    done = script + ".done"
    proc = subprocess.Popen([PYTHON, script, done, "25"])
    try:
        time.sleep(0.3)
        runs = 0
        deadline = time.time() + 60
        while not os.path.exists(done) and time.time() < deadline:
            rc, _, err = bounded([j, "record", str(proc.pid), "-F", "1000", "-d", "1", "-o",
                                  os.devnull], "record during execs")
            if rc != 0:
                fail("record during execs: exit %d: %s" % (rc, err))
            bounded([j, "stack", str(proc.pid)], "stack during execs", stdout=subprocess.DEVNULL)
            runs += 1
        if not os.path.exists(done):
            fail("the target did not finish its 25 execs in 60 s (frozen in execve?): %r"
                 % task_states(proc.pid))
        print("ok: %d record and stack runs while the target exec'ed 25 times: none hung, "
              "every exec finished" % runs)
    finally:
        stop(proc)
    # Ctrl-C ends a record whatever the target does.
    proc = subprocess.Popen([PYTHON, script, done + "2", "40"])
    try:
        time.sleep(0.3)
        for _ in range(3):
            rec = subprocess.Popen([j, "record", str(proc.pid), "-F", "1000", "-o", os.devnull],
                                   stderr=subprocess.PIPE, text=True)
            time.sleep(0.7)
            rec.send_signal(signal.SIGINT)
            try:
                rec.communicate(timeout=5)
            except subprocess.TimeoutExpired:
                rec.kill()
                rec.communicate()
                fail("Ctrl-C did not end a record of a target that execs")
        print("ok: Ctrl-C ended each record of a target that execs")
    finally:
        stop(proc)
    return 0


EXITING = THREADS.replace("time.sleep(600)", "time.sleep(float(sys.argv[5]))\nimport os\n"
                                             "os._exit(3)")


def mode_exit(j, work):
    for i in range(5):
        when = 0.3 + 0.13 * i
        proc = ready_target(work, "exiting.py", EXITING, 20, 20, 0.001, when)
        rec = subprocess.Popen([j, "record", str(proc.pid), "-F", "1000", "-o", os.devnull],
                               stderr=subprocess.PIPE, text=True)
        try:
            try:
                code = proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                fail("the target exited while sampled, but its parent could not reap it "
                     "(threads %r)" % task_states(proc.pid))
            if code != 3:
                fail("the target's exit status is %r, not 3" % code)
            try:
                _, err = rec.communicate(timeout=5)
            except subprocess.TimeoutExpired:
                fail("record did not end once its target exited")
            if rec.returncode != 0 or "process %d exited" % proc.pid not in err:
                fail("record of an exited target: exit %d, %r" % (rec.returncode, err))
        finally:
            stop(rec)
            stop(proc)
    print("ok: 5 targets exited while sampled at 1000 Hz: each reaped by its parent at once, "
          "each record ended by itself")
    # A zombie: its parent (a shell that exec'ed sleep) never reaps it.
    script = write(work, "zombie.py", EXITING)
    ready = script + ".ready"
    parent = subprocess.Popen(["sh", "-c", 'echo $$; "$0" "$@" & exec sleep 60', PYTHON, script,
                               ready, "4", "5", "0.01", "0.8"], stdout=subprocess.PIPE, text=True)
    try:
        wait_file(ready, parent, "the zombie-to-be to start")
        pid = int(open("/proc/%d/task/%d/children" % (parent.pid, parent.pid)).read().split()[0])
        rc, _, err = bounded([j, "record", str(pid), "-o", os.devnull], "record of a zombie",
                             timeout=10)
        if task_states(pid).get(pid) != "Z":
            fail("the target is not a zombie: %r" % task_states(pid))
        if rc != 0 or "process %d exited" % pid not in err:
            fail("record of a zombie: exit %d, %r" % (rc, err))
        print("ok: record of a target that became a zombie ended: %s" % err.strip().splitlines()[-1])
    finally:
        stop(parent)
    return 0


def mode_pager(j, work):
    import fcntl
    proc = threads_target(work, 6, depth=150, pause=0.05)
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, 1031, 4096)  # F_SETPIPE_SZ: a pager's pipe, full at once
    try:
        st = subprocess.Popen([j, "stack", str(proc.pid)], stdout=write_end,
                              stderr=subprocess.PIPE)
        os.close(write_end)
        time.sleep(1.0)  # the pipe is full: stack waits to write
        held = traced_stopped(proc.pid)
        if st.poll() is not None:
            fail("stack ended before the pipe was read (exit %s)" % st.returncode)
        if held:
            fail("stack waits for its reader with target thread(s) %r stopped" % held)
        text = b""
        while True:
            chunk = os.read(read_end, 65536)
            if not chunk:
                break
            text += chunk
        st.wait(timeout=HANG)
        if st.returncode != 0 or text.count(b"\nThread ") != 7:
            fail("stack into a pipe: exit %d, %d threads" % (st.returncode,
                                                             text.count(b"\nThread ")))
        print("ok: stack waited for its reader with no target thread stopped; %d bytes, "
              "7 threads" % len(text))
    finally:
        os.close(read_end)
        stop(proc)
    return 0


def wait_state(pid, letters, timeout=5):
    deadline = time.time() + timeout
    while time.time() < deadline:
        s = task_states(pid).get(pid)
        if s in letters:
            return s
        time.sleep(0.002)
    return task_states(pid).get(pid)


def mode_suspend(j, work):
    proc = threads_target(work, 10, depth=20, pause=0.0005)
    # Its own process group in this session: a stop signal stops it, as in
    # a shell (an orphaned group would ignore it).
    rec = subprocess.Popen([j, "record", str(proc.pid), "-F", "1000", "-o", os.devnull],
                           stderr=subprocess.PIPE, text=True, preexec_fn=os.setpgrp)
    try:
        time.sleep(0.5)
        sigs = [signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU] * 4
        for n, sig in enumerate(sigs):
            time.sleep(0.05 + 0.013 * n)
            rec.send_signal(sig)
            if wait_state(rec.pid, "T") != "T":
                fail("%s did not stop record" % sig.name)
            time.sleep(0.05)
            held = traced_stopped(proc.pid)
            if held:
                fail("record stopped by %s holds target thread(s) %r stopped" % (sig.name, held))
            rec.send_signal(signal.SIGCONT)
            if wait_state(rec.pid, "RSD") not in ("R", "S", "D"):
                fail("record did not go on after SIGCONT")
        rec.send_signal(signal.SIGINT)
        _, err = rec.communicate(timeout=HANG)
        if rec.returncode != 0:
            fail("record after %d stops: exit %d: %s" % (len(sigs), rec.returncode, err))
        print("ok: %d stops of record (SIGTSTP, SIGTTIN, SIGTTOU): none held a target thread "
              "stopped; it went on after each SIGCONT" % len(sigs))
    finally:
        stop(rec)
        stop(proc)
    return 0


NAMED = """\
import sys, time
open(sys.argv[1], "w").close()


def NAME():
    while True:
        time.sleep(0.001)


NAME()
"""


def mode_reuse(j, work):
    """Run again inside a new PID namespace, where the test chooses PIDs."""
    if os.getpid() != 1:
        build = os.path.dirname(os.path.dirname(os.path.dirname(j)))
        try:
            rc = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", sys.executable,
                                 os.path.abspath(__file__), build, "-", "reuse"],
                                timeout=120).returncode
        except OSError as e:
            print("SKIP: unshare: %s" % e)
            return SKIP
        if rc != 0 and rc != SKIP:
            fail("the test in a PID namespace failed (exit %d)" % rc)
        return rc
    for blocking in (True, False):
        old = ready_target(work, "old.py", NAMED.replace("NAME", "old_target"))
        pid = old.pid
        mode = [] if blocking else ["--nonblocking"]
        out = os.path.join(work, "reuse.txt")
        # --idle: the target sleeps most of the time, and its samples are
        # what tells the two processes apart.
        rec = subprocess.Popen([j, "record", str(pid), "-F", "500", "--idle", "-o", out] + mode,
                               stderr=subprocess.PIPE, text=True, preexec_fn=os.setpgrp)
        new = None
        try:
            time.sleep(0.5)
            # Suspended while the PID changes hands (a stop signal waits for
            # the thread held to be released; SIGSTOP cannot be caught).
            rec.send_signal(signal.SIGTSTP if blocking else signal.SIGSTOP)
            if wait_state(rec.pid, "T") != "T":
                fail("record did not stop")
            old.kill()
            old.wait(timeout=10)
            with open("/proc/sys/kernel/ns_last_pid", "w") as f:
                f.write(str(pid - 1))
            new = ready_target(work, "new.py", NAMED.replace("NAME", "unrelated_process"))
            if new.pid != pid:
                print("SKIP: the new process got PID %d, not %d" % (new.pid, pid))
                return SKIP
            rec.send_signal(signal.SIGCONT)
            try:
                _, err = rec.communicate(timeout=5)
            except subprocess.TimeoutExpired:
                rec.send_signal(signal.SIGINT)
                _, err = rec.communicate(timeout=HANG)
                fail("record went on sampling PID %d after its process died: %s" % (pid, err))
            text = open(out).read()
            if "unrelated_process" in text or "old_target" not in text:
                fail("the profile holds the wrong process:\n%s" % text[-2000:])
            if "process %d exited" % pid not in err:
                fail("record did not say its target exited: %r" % err)
            if traced_stopped(pid):
                fail("the process that took the PID was left stopped")
            print("ok: %s: the target's PID went to another process: record ended, having "
                  "sampled only the target" % ("blocking" if blocking else "--nonblocking"))
        finally:
            stop(rec)
            stop(old)
            if new:
                stop(new)
    return 0


def mode_output(j, work):
    proc = threads_target(work, 2, depth=5)
    pid = str(proc.pid)
    try:
        with open("/dev/full", "w") as full:
            for label, cmd in (("stack > /dev/full", [j, "stack", pid]),
                               ("stack --json > /dev/full", [j, "stack", pid, "--json"]),
                               ("top > /dev/full", [j, "top", pid, "-d", "0.3"])):
                rc, _, err = bounded(cmd, label, stdout=full)
                said = [line for line in err.splitlines() if line.startswith("jitunwind: writing")]
                if rc != 8 or len(said) != 1 or "No space left" not in said[0] or \
                        (cmd[1] == "stack" and err.strip() != said[0]):
                    fail("%s: exit %d, %r" % (label, rc, err))
                print("ok: %s: exit 8, %s" % (label, said[0]))
        for label, args in (("stack", ["stack", pid]), ("stack --json", ["stack", pid, "--json"])):
            rc, _, err = bounded([j] + args, label + " >&-", stdout=None,
                                 preexec_fn=lambda: os.close(1))
            if rc != 8 or len(err.strip().splitlines()) != 1:
                fail("%s with standard output closed: exit %d, %r" % (label, rc, err))
        print("ok: standard output closed: exit 8, %s" % err.strip())
    finally:
        stop(proc)
    return 0


def stats_reads(err):
    m = re.search(r"^reads: (\d+)$", err, re.M)
    if not m:
        fail("no reads line in %r" % err)
    return int(m.group(1))


def mode_threads(j, work):
    per_thread = {}
    for count in (8, 64):
        proc = threads_target(work, count, depth=10, pause=0.5)
        try:
            rc, out, err = bounded([j, "stack", str(proc.pid), "--stats"], "stack --stats")
            if rc != 0 or out.count("\nThread ") != count + 1:
                fail("stack of %d threads: exit %d, %s" % (count, rc, err))
            per_thread[count] = stats_reads(err) / (count + 1.0)
        finally:
            stop(proc)
    if per_thread[64] > 2 * per_thread[8]:
        fail("stack reads %.1f times per thread at 64 threads, %.1f at 8: the work per thread "
             "grows with the number of threads" % (per_thread[64], per_thread[8]))
    print("ok: stack reads %.1f times per thread at 8 threads, %.1f at 64" % (
        per_thread[8], per_thread[64]))
    # More threads than a listing holds (4,096).
    proc = threads_target(work, 4150, depth=0, pause=5)
    try:
        tids = sorted(task_states(proc.pid))
        rc, out, err = bounded([j, "stack", str(proc.pid)], "stack of 4151 threads", timeout=120)
        left = len(tids) - 4096
        if "%d threads left out" % left not in out:
            fail("stack of %d threads: no note of the %d left out (exit %d):\n%s%s" % (
                len(tids), left, rc, out[:500], err))
        rc, out, err = bounded([j, "stack", str(proc.pid), "--threads", str(tids[-1])],
                               "stack --threads of the last thread")
        if rc != 0 or "Thread %d " % tids[-1] not in out or "(Python" not in out:
            fail("--threads %d (the %dth thread): exit %d, %r %r" % (tids[-1], len(tids), rc,
                                                                     out[:400], err))
        print("ok: %d threads: %d said to be left out; --threads finds the last" % (
            len(tids), left))
        # -d holds within a sample of thousands of threads.
        t0 = time.time()
        rc, _, err = bounded([j, "record", str(proc.pid), "-d", "0.3", "-o", os.devnull],
                             "record -d 0.3 of 4151 threads", timeout=60)
        took = time.time() - t0
        if rc != 0 or took > 5:
            fail("record -d 0.3 of %d threads: exit %d after %.1f s: %s" % (len(tids), rc, took,
                                                                          err))
        print("ok: record -d 0.3 of %d threads ended after %.1f s" % (len(tids), took))
    finally:
        stop(proc)
    return 0


def gcore(pid, path):
    p = subprocess.run(["gcore", "-o", path, str(pid)], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=120)
    core = "%s.%d" % (path, pid)
    if p.returncode != 0 or not os.path.exists(core):
        print("SKIP: gcore failed: %s" % p.stdout[-500:])
        sys.exit(SKIP)
    return core


def notes_offset(core):
    """The file offset of the core's first PT_NOTE segment."""
    import struct
    with open(core, "rb") as f:
        head = f.read(64)
        phoff, = struct.unpack_from("<Q", head, 32)
        phnum, = struct.unpack_from("<H", head, 56)
        f.seek(phoff)
        for _ in range(phnum):
            p_type, _, p_offset = struct.unpack("<IIQ", f.read(16))
            f.read(40)
            if p_type == 4:
                return p_offset
    fail("no PT_NOTE in %s" % core)


def mode_files(j, work):
    fifo = os.path.join(work, "fifo")
    os.mkfifo(fifo)
    rc, out, err = bounded([j, "stack", "--core", fifo], "stack --core FIFO", timeout=10)
    if rc == 0 or len(err.strip().splitlines()) != 1 or "regular file" not in err:
        fail("stack --core FIFO: exit %d, %r" % (rc, err))
    print("ok: --core FIFO: exit %d, %s" % (rc, err.strip()))
    proc = threads_target(work, 1, depth=3)
    try:
        core = gcore(proc.pid, os.path.join(work, "core"))
    finally:
        stop(proc)
    rc, out, err = bounded([j, "stack", "--core", core, "--exe", fifo], "--exe FIFO", timeout=10)
    if rc == 0 or len(err.strip().splitlines()) != 1 or "regular file" not in err:
        fail("stack --core CORE --exe FIFO: exit %d, %r" % (rc, err))
    print("ok: --exe FIFO: exit %d, %s" % (rc, err.strip()))
    cut = os.path.join(work, "core.cut")
    with open(core, "rb") as src, open(cut, "wb") as dst:
        dst.write(src.read(notes_offset(core) + 16))
    rc, out, err = bounded([j, "stack", "--core", cut], "a core cut before its notes")
    if rc != 7 or out or len(err.strip().splitlines()) != 1 or "damaged" not in err:
        fail("a core cut before its notes: exit %d, %r %r" % (rc, out, err))
    print("ok: a core cut before its notes: exit 7, %s" % err.strip())
    return 0


def mode_messages(j, work):
    proc = threads_target(work, 2, depth=5)
    try:
        for flag in ("--no-cache", "--no-chain-cache"):
            rc, _, err = bounded([j, "record", str(proc.pid), "-d", "0.6", flag, "-o",
                                  os.devnull], "record " + flag)
            if rc != 0 or "at markers" in err:
                fail("record %s: exit %d, %r" % (flag, rc, err))
        print("ok: record --no-cache and --no-chain-cache: no marker figure")
    finally:
        stop(proc)
    return 0


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    build, mode = os.path.abspath(sys.argv[1]), sys.argv[3]
    if not os.access(PYTHON, os.X_OK):
        print("SKIP: no %s" % PYTHON)
        return SKIP
    modes = {"exec": mode_exec, "exit": mode_exit, "pager": mode_pager,
             "suspend": mode_suspend, "reuse": mode_reuse, "output": mode_output,
             "threads": mode_threads, "files": mode_files, "messages": mode_messages}
    if mode not in modes:
        print("unknown mode %s" % mode)
        return 2
    work = tempfile.mkdtemp(prefix="ju-cli-process-")
    try:
        return modes[mode](tool(build), work)
    finally:
        import shutil
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
