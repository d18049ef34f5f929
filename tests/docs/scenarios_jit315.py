"""The runs docs/jit.md shows for Debian's CPython 3.15.2 (python3.15 of
$JITUNWIND_EXTRA_PYTHONS: stripped, its debug file under its debug root,
PYTHON_JIT=1): gdb with the plugin stopped in getppid() called from the hot
loop's executor (demo_stack.JIT_SCRIPT after 5,000 calls, as the 3.14 run),
the executors listed."""

from doc_runs import Skip, gdb_session, library_env, work_file
from demo_stack import JIT_SCRIPT
from extra_pythons import WHY_NONE, gdb_args, named


def jit_gdb_315(build, repo):
    python = named("python3.15")
    if not python:
        raise Skip("no python3.15 on JITUNWIND_EXTRA_PYTHONS (%s)" % WHY_NONE)
    script = work_file(build, "jit315.py", JIT_SCRIPT)
    env = dict(library_env(build), PYTHON_JIT="1")
    # gdb_args: the debug root and libthread_db, set before gdb reads the file.
    return gdb_session(repo, ["bt", "info jit-executors", "kill"],
                       gdb_args([python]) + ["--args", python, script], env,
                       setup=["set breakpoint pending on", "break getppid", "run",
                              "ignore 1 5000", "continue"])


SCENARIOS = {"gdb-jit-view-315": jit_gdb_315}
