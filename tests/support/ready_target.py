"""A Python target for the sampling tests: its script is written to a
folder, started with the path of a file it creates once its stack is in
place, and waited for."""

import os
import subprocess
import time

from demo_stack import fail


def built_tool(build):
    """The jitunwind command of BUILD_DIR (a failure when it was not built)."""
    j = os.path.join(build, "tools", "jitunwind", "jitunwind")
    if not os.access(j, os.X_OK):
        fail("%s was not built" % j)
    return j


def start_ready(command, source, work, args=(), env=None, timeout=60):
    """Run `source` as WORK/target.py under `command` (a list: the
    interpreter and its options) with argv[1] = WORK/ready, then `args`;
    return the process once it has created that file."""
    script, ready = os.path.join(work, "target.py"), os.path.join(work, "ready")
    with open(script, "w") as f:
        f.write(source)
    proc = subprocess.Popen(list(command) + [script, ready] + list(args), env=env)
    deadline = time.time() + timeout
    while not os.path.exists(ready):
        if time.time() > deadline or proc.poll() is not None:
            proc.kill()
            proc.wait()
            fail("the target %s did not start" % " ".join(command))
        time.sleep(0.05)
    return proc


def interpreters(spec):
    """The interpreter commands (lists) a test's PYTHON argument names:
    PATH[,ARG...], or extra:NAME for each of $JITUNWIND_EXTRA_PYTHONS whose
    file is named NAME."""
    if not spec.startswith("extra:"):
        return [spec.split(",")]
    name = spec[len("extra:"):]
    return [p.split(",") for p in os.environ.get("JITUNWIND_EXTRA_PYTHONS", "").split(":")
            if p and os.path.basename(p.split(",")[0]) == name]


def record_perf(j, proc, hz, seconds):
    """`jitunwind record PID --perf` of `proc` (standard output: the
    collapsed profile): the finished run, or None after printing why perf
    events are refused here (the caller skips). A failure otherwise."""
    r = subprocess.run([j, "record", str(proc.pid), "--perf", "-F", str(hz), "-d", str(seconds)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    if r.returncode != 0:
        if "perf events refused" in r.stderr:
            print("skip: %s" % r.stderr.strip())
            return None
        fail("record --perf exited %d: %s" % (r.returncode, r.stderr))
    return r


def rooted_stacks(r):
    """The stacks of a finished `record --perf` run `r` of one process, as
    (frames, count), after failing the test on any stack that does not
    reach _start or on a summary that counts such stacks."""
    if " 0 did not reach the thread's root" not in r.stderr:
        fail("stacks did not reach their root: %s" % r.stderr)
    stacks = []
    for line in r.stdout.splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        if frames[0] != "_start":
            fail("a stack that does not reach _start: %s" % stack)
        stacks.append((frames, int(count)))
    return stacks
