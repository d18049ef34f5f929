# A Python stack for the install tests: outer -> middle -> leaf. Alone, leaf
# stops the process with SIGTRAP so that a debugger started with `run` shows
# the stack; with the argument `wait` it prints "ready" and waits there for a
# debugger to attach (until a signal ends it). Both on the same line.
import os
import signal
import sys


def leaf():
    os.kill(os.getpid(), signal.SIGTRAP) if not WAIT else signal.pause()  # @leaf


def middle():
    leaf()  # @middle


def outer():
    middle()


WAIT = sys.argv[1:] == ["wait"]
if WAIT:
    print("ready", flush=True)
outer()  # @module
