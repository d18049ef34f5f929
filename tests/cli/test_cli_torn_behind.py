#!/usr/bin/env python3
"""`record --nonblocking` at a rate the machine cannot keep: each sample
follows the last at once, so the last check's call also reads the next
sample's pages, and the next sample walks that reading and checks it
against a fresh one (cli_target_read_carrying). On cli.torn's target,
whose chain changes all the time, every recorded stack must still be
possible and torn chains counted, as at a rate kept with sleeps between
samples.

Usage: test_cli_torn_behind.py BUILD_DIR
Exit 0 on success, 1 on failure, 77 to skip.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from demo_stack import end_target, fail  # noqa: E402
from test_cli_torn import PYTHON, SKIP, TARGET, check_record  # noqa: E402

UNKEPT_HZ = 1000000


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    j = os.path.join(sys.argv[1], "tools", "jitunwind", "jitunwind")
    if not os.access(j, os.X_OK):
        fail("%s was not built" % j)
    if not os.access(PYTHON, os.X_OK):
        print("SKIP: no %s" % PYTHON)
        return SKIP
    work = tempfile.mkdtemp(prefix="ju-torn-behind-")
    try:
        script = os.path.join(work, "target.py")
        with open(script, "w") as f:
            f.write(TARGET)
        proc = subprocess.Popen([PYTHON, script])
        try:
            time.sleep(1)
            check_record(j, proc.pid, work, [], 1.5, UNKEPT_HZ, 2, True)
        finally:
            end_target(proc)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
