# CPython's gdb scenario: foo calls bar calls baz, which calls a builtin
# (id) that the debugger stops in. WARM=N first runs the calls N times with
# abs in place of id, so that a JIT build runs baz's call from JIT code.
import os

call = abs


def foo(a, b, c):
    bar(a=a, b=b, c=c)


def bar(a, b, c):
    baz(a, b, c)


def baz(*args):
    call(42)


for _ in range(int(os.environ.get("WARM", "0"))):
    foo(1, 2, 3)
call = id
foo(1, 2, 3)
