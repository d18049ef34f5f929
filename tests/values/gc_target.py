"""Stops inside a garbage collection (a finalizer waiting on stdin), for
py-bt -a's "GC running" header."""
import gc
import sys


class Stop:
    def __del__(self):
        print("in-gc", flush=True)
        sys.stdin.readline()


a = Stop()
b = [a]
a.cycle = b
del a, b
gc.collect()
