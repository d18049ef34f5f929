#!/usr/bin/env python3
"""How much py-bt-full (every frame with its arguments rendered) costs over
py-bt, on one stop of a live interpreter 2,000 Python frames deep.

Usage: bench_py_bt_full.py [PYTHON] [DEPTH]   (default: this interpreter, 2000)
Runs the shared command code (jitunwind.ui) against a sleeping target, with
the library found as the binding finds it (JITUNWIND_LIBRARY, or build/).
Prints the time of each and the ratio; the goal is a ratio within 3."""

import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "libjitunwind", "bindings", "python"))

import jitunwind  # noqa: E402
from jitunwind.ui import labels, levels, values  # noqa: E402

TARGET = r"""
import sys
sys.setrecursionlimit(100000)
def down(n, text, items):
    if n == 0:
        print("ready", flush=True)
        sys.stdin.readline()
        return
    down(n - 1, text, items)
down(%d, "some text", [1, 2, 3])
"""


def best_of(runs, fn):
    best = None
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best


def main():
    python = sys.argv[1] if len(sys.argv) > 1 else sys.executable
    depth = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    proc = subprocess.Popen([python, "-c", TARGET % depth], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    try:
        proc.stdout.readline()
        loc = jitunwind.locate_live(proc.pid)
        mem = jitunwind.ProcessMemory(proc.pid)
        reader = jitunwind.PyReader(mem, loc.runtime_addr, loc.version_hex, loc.module)
        main_thread = [t for t in reader.threads()[0] if t.native_thread_id == proc.pid][0]

        def frames():
            return reader.frames(main_thread.current_frame, 4096)

        def py_bt():
            f, err = frames()
            return labels.py_bt_lines(f, err)

        def py_bt_full():
            f, err = frames()
            return values.bt_full_lines(reader, levels.plain(f), err)

        lines_bt, lines_full = py_bt(), py_bt_full()
        assert len(lines_full) >= depth, len(lines_full)
        t_bt = best_of(5, py_bt)
        t_full = best_of(5, py_bt_full)
        print("target: %s, %d Python frames (%s)" % (python, len(frames()[0]), reader.layout_name))
        print("py-bt:      %8.1f ms  (%d lines)" % (t_bt * 1000, len(lines_bt)))
        print("py-bt-full: %8.1f ms  (%d lines, arguments rendered)" % (t_full * 1000,
                                                                         len(lines_full)))
        print("ratio py-bt-full / py-bt: %.2f (goal: <= 3)" % (t_full / t_bt))
    finally:
        proc.kill()
        proc.wait()


if __name__ == "__main__":
    main()
