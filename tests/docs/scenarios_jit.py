"""The run docs/jit.md shows: gdb with the plugin on the 3.14 JIT release
build of $JITUNWIND_EXTRA_PYTHONS, stopped in getppid() called from a hot
loop's executor (demo_stack.JIT_SCRIPT, after 5,000 calls: the JIT has
compiled the loop by then), and the JIT developer commands."""

from doc_runs import extra_jit_python, gdb_session, launched_perf_maps, library_env, work_file
from demo_stack import JIT_SCRIPT

# `jit-pc ADDR` on an address inside the shim (the trace's caller, frame 6,
# returns into it), typed as the address a user would copy from `bt`.
JIT_PC_IN_SHIM = ("python a = gdb.selected_frame().older().pc() - 1; "
                  "gdb.write('(gdb) jit-pc %#x\\n' % a); gdb.execute('jit-pc %#x' % a)")


def jit_gdb(build, repo):
    python = extra_jit_python()
    script = work_file(build, "jit.py", JIT_SCRIPT)
    out = gdb_session(repo, ["bt", "info jit-executors", "info jit-executor 0", "jit-disas 0",
                             "frame 5", "jit-pc", ("", JIT_PC_IN_SHIM), "kill"],
                      ["--args", python, script], library_env(build),
                      setup=["set breakpoint pending on", "break getppid", "run", "ignore 1 5000",
                             "continue"])
    launched_perf_maps(out)
    return out


SCENARIOS = {"gdb-jit-view": jit_gdb}
