#!/usr/bin/env python3
"""`record --nonblocking` on a thread that calls a small function without
pause: a read may find a frame being pushed (linked, its code not yet
readable). Such an innermost frame is left out and counted (--stats:
"frames being pushed left out"), never recorded as an unknown function.

Usage: test_cli_frame_push.py BUILD_DIR PYTHON|extra:NAME
Exit 0 on success, 1 on failure, 77 to skip.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from demo_stack import end_target, fail  # noqa: E402
from ready_target import built_tool, interpreters, start_ready  # noqa: E402

SKIP = 77

TARGET = r'''
import sys
def f(a):
    return a
def spin():
    while True:
        f(1); f(2); f(3)
open(sys.argv[1], "w").close()
spin()
'''


def check(j, command):
    if not os.access(command[0], os.X_OK):
        print("skip: %s is not installed" % command[0])
        return SKIP
    work = tempfile.mkdtemp(prefix="ju-push-")
    target = start_ready(command, TARGET, work)
    try:
        r = subprocess.run([j, "record", str(target.pid), "--nonblocking", "-F", "2000", "-d",
                            "3", "--stats"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=120)
        if r.returncode != 0:
            fail("record exited %d: %s" % (r.returncode, r.stderr))
        for line in r.stdout.splitlines():
            names = [f.split(" (")[0] for f in line.rpartition(" ")[0].split(";")]
            if names[:2] != ["<module>", "spin"] or names[2:] not in ([], ["f"]):
                fail("%s: a stack other than <module>, spin[, f]: %s" % (command[0], line))
        m = re.search(r"^frames being pushed left out: (\d+)$", r.stderr, re.M)
        if not m:
            fail("no count of frames being pushed in --stats: %s" % r.stderr)
        print("ok: %s: %s frames being pushed left out" % (command[0], m.group(1)))
    finally:
        end_target(target)
        shutil.rmtree(work, ignore_errors=True)
    return 0


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    j = built_tool(sys.argv[1])
    commands = interpreters(sys.argv[2])
    if not commands:
        print("skip: JITUNWIND_EXTRA_PYTHONS names no %s" % sys.argv[2])
        return SKIP
    codes = [check(j, command) for command in commands]
    return 0 if 0 in codes else SKIP


if __name__ == "__main__":
    sys.exit(main())
