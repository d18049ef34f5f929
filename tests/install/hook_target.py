# A Python stack for the install tests: outer -> middle -> leaf, which stops
# itself with SIGTRAP so that a debugger started with `run` shows the stack.
import os
import signal


def leaf():
    os.kill(os.getpid(), signal.SIGTRAP)


def middle():
    leaf()


def outer():
    middle()


outer()
