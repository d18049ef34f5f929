#!/usr/bin/env python3
"""`jitunwind record --perf` where perf events are refused: perf_event_open
fails with EACCES (a seccomp filter stands in for kernel.perf_event_paranoid
and missing capabilities). One line says so, naming
kernel.perf_event_paranoid and the capabilities, and the level it must be
lowered to (1 for one process, 0 for --all's per-CPU events); exit 3; the
target is never traced meanwhile.

Usage: test_cli_perf_refused.py BUILD_DIR
Exit 0 on success, 1 on failure, 77 to skip.
"""

import ctypes
import errno
import os
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from demo_stack import end_target, fail  # noqa: E402
from ready_target import built_tool  # noqa: E402

SKIP = 77
PYTHON = "/usr/bin/python3.11"
PERF_EVENT_OPEN = {"x86_64": 298, "aarch64": 241}.get(os.uname().machine)


def refuse_perf_events():
    """In the child before exec: perf_event_open fails with EACCES."""
    libc = ctypes.CDLL(None, use_errno=True)
    # seccomp_data.nr == PERF_EVENT_OPEN ? ERRNO(EACCES) : ALLOW
    prog = [(0x20, 0, 0, 0),                      # ld [nr]
            (0x15, 0, 1, PERF_EVENT_OPEN),        # jeq nr, next, skip
            (0x06, 0, 0, 0x00050000 | errno.EACCES),  # ret ERRNO
            (0x06, 0, 0, 0x7fff0000)]             # ret ALLOW
    code = b"".join(struct.pack("HBBI", *ins) for ins in prog)
    buf = ctypes.create_string_buffer(code, len(code))
    fprog = struct.pack("HxxxxxxQ", len(prog), ctypes.addressof(buf))
    fbuf = ctypes.create_string_buffer(fprog, len(fprog))
    ul = ctypes.c_ulong
    if libc.prctl(38, ul(1), ul(0), ul(0), ul(0)) != 0:  # PR_SET_NO_NEW_PRIVS
        os._exit(120)
    if libc.prctl(22, ul(2), ul(ctypes.addressof(fbuf)), ul(0), ul(0)) != 0:  # PR_SET_SECCOMP
        os._exit(121)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    j = built_tool(sys.argv[1])
    if PERF_EVENT_OPEN is None:
        print("skip: no perf_event_open number known for %s" % os.uname().machine)
        return SKIP
    if not os.access(PYTHON, os.X_OK):
        print("skip: %s is not installed" % PYTHON)
        return SKIP
    target = subprocess.Popen([PYTHON, "-c", "while True: pass"])
    try:
        time.sleep(0.5)
        # One process, and every process (whose per-CPU events need the
        # sysctl at 0 without the capability).
        for args, level in (([str(target.pid)], 1), (["--all"], 0)):
            r = subprocess.run([j, "record"] + args + ["--perf", "-d", "1"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=refuse_perf_events, timeout=120)
            if r.returncode in (120, 121):
                print("skip: no seccomp filter could be installed")
                return SKIP
            if r.returncode != 3:
                fail("%s: exit %d, not 3, when perf events are refused: %s"
                     % (args, r.returncode, r.stderr))
            lines = r.stderr.strip().splitlines()
            if len(lines) != 1:
                fail("%s: not one line: %r" % (args, r.stderr))
            for word in ("perf events refused", "kernel.perf_event_paranoid", "CAP_PERFMON",
                         "CAP_SYS_ADMIN", os.strerror(errno.EACCES),
                         "kernel.perf_event_paranoid=%d)" % level):
                if word not in lines[0]:
                    fail("%s: %r not in the refusal: %s" % (args, word, lines[0]))
            if r.stdout:
                fail("a profile was written though nothing was sampled: %r" % r.stdout[:200])
            with open("/proc/%d/status" % target.pid) as f:
                if "TracerPid:\t0\n" not in f.read():
                    fail("the target is traced")
            print("ok: %s: %s" % (args, lines[0]))
    finally:
        end_target(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
