"""Cores taken until one shows what a check needs: a process that spends
most of its time in one place (JIT code, a function under a trampoline)
still spends some elsewhere, and a core is a single instant of it."""

import os
import subprocess
import time

from demo_stack import fail
from values_target import gcore


def core_until(take, core, read, wanted, label, what, tries=5):
    """Cores written at `core` by take(core) (True when written) and read by
    read(core), until wanted(what read returned): returns that and the
    attempt's number (from 1), the core left at `core` for the caller to
    read again and remove. The other cores are removed. Fails the test when
    a take fails, or when none of `tries` cores was as wanted (`what` says
    what was wanted; the last read is shown)."""
    for attempt in range(1, tries + 1):
        if not take(core):
            fail("%s: gcore failed" % label)
        result = read(core)
        if wanted(result):
            return result, attempt
        os.unlink(core)
    fail("%s: no core of %d %s:\n%s" % (label, tries, what, str(result)[-3000:]))


def of_pid(pid):
    """take for core_until: a core of the running process `pid`."""
    return lambda core: gcore(pid, core)


def of_fresh_run(argv, env, warm_up=1.0):
    """take for core_until: a core of a new run of `argv`, taken `warm_up`
    seconds after its start (past a JIT's warm-up), the run then killed."""
    def take(core):
        proc = subprocess.Popen(argv, env=env)
        try:
            time.sleep(warm_up)
            return gcore(proc.pid, core)
        finally:
            proc.kill()
            proc.wait()
    return take
