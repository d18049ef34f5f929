#!/usr/bin/env python3
"""`jitunwind stack PID` on a process it cannot read says why, with the exit
code docs/cli.md gives, rather than "not a Python process" (4):

  - another user's Python (run as an unprivileged uid): 3, with the two uids
    and the missing CAP_SYS_PTRACE (needs root, to switch uid; skipped and
    said otherwise)
  - a process of jitunwind's own uid that turned dumping off, read without
    CAP_SYS_PTRACE: 3, "not dumpable"; and the same where
    kernel.yama.ptrace_scope is 1: 3, naming the setting and its value
    (this machine may have no Yama: the setting is a file of a private
    /proc/sys/kernel, in a mount namespace of the command's own). Both need
    root, to run as another uid and to mount; skipped and said otherwise.
  - a zombie: 2, "has exited (a zombie ...)"
  - a Python whose main thread has exited while another thread runs: 2,
    "the main thread of process N has exited"

Usage: test_cli_access.py BUILD_DIR   (77: the command or python3.11 missing)"""

import os
import subprocess
import sys
import time

PYTHON = "/usr/bin/python3.11"
OTHER_UID = 54321


def fail(why):
    print("FAIL: " + why)
    sys.exit(1)


def stack(cli, pid, prefix=()):
    p = subprocess.run(list(prefix) + [cli, "stack", str(pid)], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=60)
    return p.returncode, p.stderr


def expect(what, got, code, words):
    """Exit `code` and every one of `words` on stderr, the first only once
    (the error is named once, the reason is not the error again)."""
    status, err = got
    if status != code or any(w not in err for w in words) or err.count(words[0]) > 1:
        fail("%s: exit %d, %r (want exit %d with %s)" % (what, status, err, code, words))
    print("ok: %s: exit %d: %s" % (what, code, err.strip()))


def started(args):
    proc = subprocess.Popen([PYTHON, "-c", args], stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline().strip()
    if not line:
        fail("the helper process did not start")
    return proc, line


def same_uid_refusals(cli, prefix):
    """Refusals between two processes of one unprivileged uid: the target
    turned dumping off (prctl PR_SET_DUMPABLE 0), and the reason given with
    and without a ptrace_scope of 1."""
    if os.geteuid() != 0 or not os.path.exists("/usr/bin/unshare"):
        print("ok: a process of the same uid: not tried (needs root and unshare)")
        return
    if subprocess.run(prefix + ["test", "-x", cli]).returncode != 0:
        print("ok: a process of the same uid: not tried (uid %d cannot run %s)" % (OTHER_UID, cli))
        return
    proc = subprocess.Popen(prefix + [PYTHON, "-c", "import ctypes, time\n"
                                      "ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)\n"
                                      "print('ready', flush=True)\ntime.sleep(120)"],
                            stdout=subprocess.PIPE, text=True)
    try:
        if proc.stdout.readline().strip() != "ready":
            fail("the non-dumpable helper did not start")
        expect("a process of the same uid that is not dumpable", stack(cli, proc.pid, prefix), 3,
               ["Permission denied", "not dumpable", "CAP_SYS_PTRACE"])
        scope = ("mount -t tmpfs none /proc/sys/kernel && mkdir -p /proc/sys/kernel/yama && "
                 "echo 1 > /proc/sys/kernel/yama/ptrace_scope && exec \"$@\"")
        expect("a process of the same uid where kernel.yama.ptrace_scope is 1",
               stack(cli, proc.pid, ["unshare", "-m", "sh", "-c", scope, "sh"] + prefix), 3,
               ["Permission denied", "kernel.yama.ptrace_scope is 1", "ancestors"])
    finally:
        proc.kill()
        proc.wait()


def main():
    cli = os.path.join(sys.argv[1], "tools", "jitunwind", "jitunwind")
    if not os.access(cli, os.X_OK) or not os.path.exists(PYTHON):
        print("SKIP: %s or %s is missing" % (cli, PYTHON))
        return 77

    proc, _ = started("import time; print('ready', flush=True); time.sleep(120)")
    try:
        prefix = ["setpriv", "--reuid=%d" % OTHER_UID, "--regid=%d" % OTHER_UID, "--clear-groups"]
        if os.geteuid() != 0:
            print("ok: another user's process: not tried (needs root to run as another uid)")
        elif subprocess.run(prefix + ["test", "-x", cli]).returncode != 0:
            print("ok: another user's process: not tried (uid %d cannot run %s: a folder above "
                  "it is closed to others)" % (OTHER_UID, cli))
        else:
            expect("another user's process", stack(cli, proc.pid, prefix), 3,
                   ["Permission denied", "runs as root", "uid %d" % OTHER_UID, "CAP_SYS_PTRACE"])
    finally:
        proc.kill()
        proc.wait()

    same_uid_refusals(cli, prefix)

    # A child that exits and is never collected.
    proc, child = started("import os, time\npid = os.fork()\nif pid == 0: os._exit(0)\n"
                          "print(pid, flush=True); time.sleep(120)")
    try:
        time.sleep(0.2)
        expect("a zombie", stack(cli, int(child)), 2, ["has exited", "zombie"])
    finally:
        proc.kill()
        proc.wait()

    # The main thread leaves through pthread_exit; a worker runs on.
    proc, _ = started("import ctypes, threading, time\n"
                      "threading.Thread(target=lambda: time.sleep(120)).start()\n"
                      "print('ready', flush=True)\nctypes.CDLL(None).pthread_exit(None)")
    try:
        time.sleep(0.2)
        expect("a process whose main thread has exited", stack(cli, proc.pid), 2,
               ["the main thread of process %d has exited" % proc.pid, "1 other thread still runs"])
    finally:
        proc.kill()
        proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
