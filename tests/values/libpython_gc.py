# A collection started from Python: bar calls foo calls gc.collect, which
# the debugger stops in (gc_collect_main, the collection), once
# stopped in id first (collections while starting up run no Python code).
from gc import collect

id(42)


def foo():
    collect()


def bar():
    foo()


bar()
