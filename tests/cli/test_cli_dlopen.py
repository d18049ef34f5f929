#!/usr/bin/env python3
"""`record` on a process that loads a library (dlopen, here through ctypes)
after sampling started: the library's functions are named and unwound
through (its symbols and CFI), like those of the libraries loaded before.
A pc outside every known module makes record read the process's mappings
again.

Usage: test_cli_dlopen.py BUILD_DIR
Exit 0 on success, 1 on failure, 77 to skip.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from demo_stack import end_target, fail  # noqa: E402

SKIP = 77
PYTHON = "/usr/bin/python3.11"
LIBRARY = r"""
long ju_spin_in_new_library(long n)
{
    volatile long x = 0;
    for (long i = 0; i < n; i++)
        x += i;
    return x;
}
"""
TARGET = r"""
import ctypes, os, sys, time
library, ready, go = sys.argv[1:4]
open(ready, "w").close()
while not os.path.exists(go):
    time.sleep(0.01)
spin = ctypes.CDLL(library).ju_spin_in_new_library
spin.argtypes = [ctypes.c_long]
def call_new_library():
    spin(2000000)
while True:
    call_new_library()
"""


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    j = os.path.join(sys.argv[1], "tools", "jitunwind", "jitunwind")
    if not os.access(j, os.X_OK):
        fail("%s was not built" % j)
    cc = shutil.which("cc")
    if not cc or not os.access(PYTHON, os.X_OK):
        print("SKIP: needs cc and %s" % PYTHON)
        return SKIP
    work = tempfile.mkdtemp(prefix="ju-dlopen-")
    try:
        source, library = os.path.join(work, "late.c"), os.path.join(work, "liblate.so")
        script, ready, go = (os.path.join(work, n) for n in ("target.py", "ready", "go"))
        with open(source, "w") as f:
            f.write(LIBRARY)
        subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", library, source], check=True)
        with open(script, "w") as f:
            f.write(TARGET)
        proc = subprocess.Popen([PYTHON, script, library, ready, go])
        try:
            deadline = time.time() + 30
            while not os.path.exists(ready):
                if proc.poll() is not None or time.time() > deadline:
                    fail("the target did not start")
                time.sleep(0.02)
            out = os.path.join(work, "profile.txt")
            # --idle: the call releases the GIL, which makes the samples idle.
            rec = subprocess.Popen([j, "record", str(proc.pid), "-d", "2.5", "-F", "100",
                                    "--idle", "--stats", "-o", out], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
            time.sleep(0.5)  # record has read the modules: now the library is loaded
            with open("/proc/%d/maps" % proc.pid) as f:
                if "liblate.so" in f.read():
                    fail("the library was loaded before record started")
            open(go, "w").close()
            _, err = rec.communicate(timeout=60)
            if rec.returncode != 0:
                fail("record: exit %d: %s" % (rec.returncode, err))
        finally:
            end_target(proc)
        with open(out) as f:
            lines = f.read().splitlines()
        count = lambda pred: sum(int(l.rpartition(" ")[2]) for l in lines if pred(l))  # noqa
        inside = count(lambda l: "ju_spin_in_new_library" in l)
        through = count(lambda l: re.search(r"call_new_library.*ju_spin_in_new_library", l))
        unknown = count(lambda l: l.rpartition(" ")[0].endswith("??") or ";??;" in l)
        print("%d samples in the new library, %d of them unwound to its Python caller, %d "
              "ending in an unknown frame" % (inside, through, unknown))
        if inside < 20 or through < inside - 2 or unknown > 2:
            fail("the library loaded after record started is not named or unwound:\n%s\n%s"
                 % (err, "\n".join(l[-400:] for l in lines)[:6000]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
