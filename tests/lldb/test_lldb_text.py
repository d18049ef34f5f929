#!/usr/bin/env python3
"""LLDB with the plugin on a target whose function name, file name and
thread name hold terminal escapes and forged lines (tests/support/
hostile_names.py): py-bt, py-bt -a, py-bt-full, mixed-bt (-a), bt (with LLDB
22+'s frame provider, its Python frames) and py-list print them escaped,
never raw.

Usage: test_lldb_text.py BUILD_DIR REPO_DIR
Exit 0 on success, 1 on failure, 77 to skip.
"""

import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
sys.path.insert(0, HERE)
from demo_stack import fail  # noqa: E402
from hostile_names import FILE_SHOWN, HOSTILE_SHOWN, THREAD_SHOWN, no_controls, start  # noqa: E402
from lldb_under_test import LLDB, MISSING  # noqa: E402

SKIP = 77
PYTHON = "/usr/bin/python3.11"
COMMANDS = ["py-bt", "py-bt -a", "py-bt-full", "mixed-bt", "mixed-bt -a", "bt", "py-list"]
WANT = {"py-bt": [HOSTILE_SHOWN, FILE_SHOWN], "py-bt -a": [THREAD_SHOWN],
        "py-bt-full": [HOSTILE_SHOWN, FILE_SHOWN], "mixed-bt": [HOSTILE_SHOWN, FILE_SHOWN],
        "mixed-bt -a": [THREAD_SHOWN],
        "py-list": [FILE_SHOWN]}


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    build, repo = sys.argv[1:]
    if LLDB is None or not os.access(PYTHON, os.X_OK):
        print("skip: %s" % (MISSING or "%s is not installed" % PYTHON))
        return SKIP
    env = dict(os.environ, JITUNWIND_LIBRARY=os.path.join(build, "libjitunwind",
                                                          "libjitunwind.so"))
    work = tempfile.mkdtemp(prefix="ju-lldb-text-")
    try:
        proc = start(work, PYTHON)
        try:
            # LLDB 22+ may print its attach stop report (the thread's name as it is)
            # late: it is let out before the first command checked.
            cmd = [LLDB, "-b", "-o", "command script import %s/lldb-plugin/jitunwind_lldb" % repo,
                   "-o", "script import time; time.sleep(1)"]
            for command in COMMANDS:
                cmd += ["-o", "script print('<<%s>>')" % command, "-o", command]
            out = subprocess.run(cmd + ["-p", str(proc.pid)], env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, timeout=300).stdout
        finally:
            proc.kill()
            proc.wait()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    # LLDB's own reports (the attach stop, `bt`'s thread header) print the
    # thread's name as LLDB does: only the plugin's text is checked.
    for command in COMMANDS:
        marker = ("\n<<%s>>\n" % command).encode()  # printed, not echoed
        if marker not in out:
            fail("no output for %s:\n%r" % (command, out[:3000]))
        body = out.split(marker, 1)[1].split(b"(lldb) script print('<<", 1)[0]
        if command == "bt":
            body = b"\n".join(l for l in body.splitlines() if b"thread #" not in l)
        text = no_controls(command, body)
        if command == "mixed-bt" and "[py]" not in text:
            # LLDB's own walk of Debian's LTO python3.11 can stop short of the
            # eval loop (said in the output): no Python frame to check
            continue
        for s in WANT.get(command, []):
            if s not in text:
                fail("%s does not show %r escaped:\n%s" % (command, s, text))
    print("ok: %s: %s print the target's names escaped" % (LLDB, ", ".join(COMMANDS)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
