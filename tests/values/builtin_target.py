"""Stops inside a builtin (time.sleep) called from a Python function, for
py-bt-full's builtin lines."""
import time


def waiter(seconds):
    print("ready", flush=True)
    time.sleep(seconds)


waiter(600)
