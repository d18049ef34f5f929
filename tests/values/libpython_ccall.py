# A Python function called from C: bar calls _testcapi.pyobject_vectorcall,
# which calls baz, which calls id (where the debugger stops). Then every
# PyCFunction calling convention of _testcapi, as a module function, class
# method, static method and method, each stopped in by the debugger.
import _testcapi


def foo(a, b, c):
    bar(a, b, c)


def bar(a, b, c):
    _testcapi.pyobject_vectorcall(baz, (a, b, c), None)


def baz(*args):
    id(42)


foo(1, 2, 3)

CONVENTIONS = [("meth_noargs", ()), ("meth_o", ([],)), ("meth_varargs", ()),
               ("meth_varargs_keywords", ()), ("meth_fastcall", ()),
               ("meth_fastcall_keywords", ())]
for owner in (_testcapi, _testcapi.MethClass, _testcapi.MethClass(), _testcapi.MethStatic()):
    for name, args in CONVENTIONS:
        getattr(owner, name)(*args)
