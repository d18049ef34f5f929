#!/usr/bin/env python3
"""`jitunwind record --perf --all` and the module files its processes
share: two processes of one interpreter (Debian's python3.11) spin at
their own known Python depths under their own function names. Each
process's stacks must be its own, complete to its thread's root, with at
least one merged stack of exactly its frames (check() of
test_cli_perf_all.py); and `--stats` must show the interpreter's file
open once for both (one line for it in the run's module files, used by
at least two module sets), as must the C library.

Usage: test_cli_perf_all_shared.py BUILD_DIR
Exit 0 on success, 1 on failure, 77 to skip.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
sys.path.insert(0, HERE)
from demo_stack import end_target, fail  # noqa: E402
from ready_target import start_ready  # noqa: E402
from test_cli_perf import per_cpu_refused, perf_test_start  # noqa: E402
from test_cli_perf_all import TARGET, check  # noqa: E402

SKIP = 77
SECONDS, HZ = 6, 250
PYTHON = "/usr/bin/python3.11"
NAMES = {"first": 7, "second": 9}  # function names: Python depth


def mapped(pid, part):
    """The path of the file process `pid` maps whose name holds `part`."""
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            fields = line.split(None, 5)
            if len(fields) == 6 and part in os.path.basename(fields[5].strip()):
                return fields[5].strip()
    fail("process %d maps no file named like %s" % (pid, part))
    return None


def main():
    j, code = perf_test_start(__doc__, 1, [PYTHON])
    if code is not None:
        return code
    work = tempfile.mkdtemp(prefix="ju-perf-shared-")
    procs, targets = [], {}
    try:
        for name, depth in NAMES.items():
            sub = os.path.join(work, name)
            os.mkdir(sub)
            p = start_ready([PYTHON], TARGET % {"n": name, "d": depth}, sub)
            procs.append(p)
            targets[p.pid] = (name, depth, os.path.basename(PYTHON)[:15])
        shared = [mapped(procs[0].pid, "python3.11"), mapped(procs[0].pid, "libc.so")]
        out = os.path.join(work, "out.txt")
        rec = subprocess.run([j, "record", "--perf", "--all", "--stats", "-F", str(HZ), "-d",
                              str(SECONDS), "-o", out], stderr=subprocess.PIPE, text=True)
        err = rec.stderr
        if per_cpu_refused(rec.returncode, err):
            return SKIP
        with open(out) as f:
            seen = check(f.read(), targets, NAMES)
        for pid, (stacks, merged) in seen.items():
            if not stacks or not merged:
                fail("%s (process %d): %d stacks, %d with its Python frames: %s"
                     % (targets[pid][0], pid, stacks, merged, err))
        for path in shared:
            lines = re.findall(r"^module file open once for (\d+) module sets: %s$"
                               % re.escape(path), err, re.M)
            if len(lines) != 1 or int(lines[0]) < len(procs):
                fail("%s is not one file shared by the %d processes: %s"
                     % (path, len(procs), err))
        print("ok: %s" % {targets[p][0]: v for p, v in seen.items()})
        print(err.strip())
    finally:
        for p in procs:
            end_target(p)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
