"""The values and navigation session docs/usage.md, docs/values.md and
docs/lldb.md show: pyenv's CPython 3.13.0 running tests/docs/programs/shop.py,
blocked in total(), attached to by gdb and by LLDB 19 with the plugin."""

import os

from doc_runs import (PROGRAMS, Waiting, gdb_session, library_env, lldb, lldb_session,
                      pyenv_python)

SHOP = os.path.join(PROGRAMS, "shop.py")
# The same commands in both debuggers, from the innermost frame: every
# kind of name py-print finds, and back down.
NAVIGATION = ["py-locals", "py-print order", "py-print sys", "py-print len", "py-list",
              "py-down"]


def shop_gdb(build, repo):
    python = pyenv_python("3.13.0")
    target = Waiting([python, SHOP])
    try:
        return gdb_session(repo, ["py-bt-full", "py-locals", "py-up", "frame"] + NAVIGATION +
                           ["py-bt -a"], ["-p", str(target.proc.pid)], library_env(build),
                           setup=["set print frame-arguments all"])
    finally:
        target.close()


def shop_lldb(build, repo):
    binary = lldb("lldb", build)
    python = pyenv_python("3.13.0")
    target = Waiting([python, SHOP])
    try:
        return lldb_session(binary, repo, ["py-bt-full", "py-up", "frame info"] + NAVIGATION +
                            ["detach"], ["-p", str(target.proc.pid)], library_env(build))
    finally:
        target.close()


SCENARIOS = {
    "gdb-values-shop": shop_gdb,
    "lldb19-values-shop": shop_lldb,
}
