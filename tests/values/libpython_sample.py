# CPython's gdb scenario: foo calls bar calls baz, which calls a builtin
# (id) that the debugger stops in. With WARM=N baz makes the call N times
# more first (the debugger ignores as many stops), so that a JIT build runs
# it from JIT code by the time it stops.
import os

WARM = int(os.environ.get("WARM", "0"))


def foo(a, b, c):
    bar(a=a, b=b, c=c)


def bar(a, b, c):
    baz(a, b, c)


def baz(*args):
    for _ in range(1 + WARM):
        id(42)


foo(1, 2, 3)
