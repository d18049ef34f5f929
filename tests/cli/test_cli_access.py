#!/usr/bin/env python3
"""`jitunwind stack PID` on a process it cannot read says why, with the exit
code docs/cli.md gives, rather than "not a Python process" (4):

  - another user's Python (run as an unprivileged uid): 3, with the two uids
    and the missing CAP_SYS_PTRACE (needs root, to switch uid; skipped and
    said otherwise)
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
    status, err = got
    if status != code or any(w not in err for w in words):
        fail("%s: exit %d, %r (want exit %d with %s)" % (what, status, err, code, words))
    print("ok: %s: exit %d: %s" % (what, code, err.strip()))


def started(args):
    proc = subprocess.Popen([PYTHON, "-c", args], stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline().strip()
    if not line:
        fail("the helper process did not start")
    return proc, line


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
