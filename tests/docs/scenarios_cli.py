"""The runs docs/cli.md shows: `stack` and `stack --python` of the demo
waiting at its checkpoint, `stack --core` of a 3.14 JIT build's core
stopped in getppid() under a hot loop's executor, the error for a core
opened with the wrong executable, and `record`'s progress line and `top`'s
view of the demo (their numbers vary: those blocks say numbers=any). Each
returns a transcript: the command after `$ `, its output, and `$ echo $?`
with its exit status where the doc shows it. Cores are written with gdb's
gcore at a fixed stop, so their output does not depend on timing."""

import os
import subprocess

from doc_runs import Skip, extra_jit_python, need, pyenv_python, work_file
from demo_stack import JIT_SCRIPT
from test_cli import WaitingDemo
from test_lldb_demo import PERF_MAPS, gcore_at


def _tool(build):
    tool = os.path.join(build, "tools", "jitunwind", "jitunwind")
    need(tool, "the jitunwind command is not built")
    return tool


def _transcript(cmd, shown, cwd=None, status=False):
    """`$ shown` then the output of `cmd` (and `$ echo $?`, its status)."""
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=cwd,
                          universal_newlines=True, errors="replace", timeout=300)
    text = "$ %s\n%s" % (shown, proc.stdout)
    if status:
        text += "$ echo $?\n%d\n" % proc.returncode
    return text


def _core(build, args, stop, name, env=None):
    """A core of `args` at the gdb commands `stop`, written by gcore as
    BUILD/docs-outputs/NAME."""
    folder = os.path.join(build, "docs-outputs")
    os.makedirs(folder, exist_ok=True)
    core = os.path.join(folder, name)
    if os.path.exists(core):
        os.unlink(core)
    try:
        gcore_at(dict(os.environ, **(env or {})), args, stop, core)
    except SystemExit:  # gcore_at fails the way a test does
        raise RuntimeError("gdb's gcore wrote no core of %s" % " ".join(args)) from None
    return core


def _drop_perf_maps():
    for path in PERF_MAPS:
        if os.path.exists(path):
            os.unlink(path)
    del PERF_MAPS[:]


def _on_demo(build, args):
    """`jitunwind ARGS` (PID: the demo's) against the demo waiting at its
    checkpoint (test_cli's WaitingDemo): a transcript, each redrawn
    progress line on a line of its own."""
    tool = _tool(build)
    need(os.path.join(build, "testbed", "demo.py"), "the test bed is not built")
    need("/usr/bin/python3.11", "the demo runs on Debian's python3.11")
    work = os.path.join(build, "docs-outputs")
    os.makedirs(work, exist_ok=True)
    demo = WaitingDemo(build, work)
    try:
        out = _transcript([tool] + [str(demo.proc.pid) if a == "PID" else a for a in args],
                          " ".join(["jitunwind"] + args))
    except BaseException:
        demo.kill()
        raise
    demo.release()
    return out.replace("\r", "\n")  # a progress line is redrawn with a carriage return


def stack_demo(build, repo, extra=()):
    """`jitunwind stack PID [extra]` of the demo waiting at its checkpoint."""
    return _on_demo(build, ["stack", "PID"] + list(extra))


def record_demo(build, repo):
    folded = os.path.join(build, "docs-outputs", "demo.folded")
    os.makedirs(os.path.dirname(folded), exist_ok=True)
    return _on_demo(build, ["record", "PID", "-d", "1", "-o", folded])


def top_demo(build, repo):
    return _on_demo(build, ["top", "PID", "-d", "1"])


def stack_python(build, repo):
    return stack_demo(build, repo, ["--python"])


def stack_jit_core(build, repo):
    """`jitunwind stack --core` of the 3.14 JIT build stopped in getppid()
    called from the hot loop's executor (after 5,000 calls)."""
    tool = _tool(build)
    python = extra_jit_python()
    script = work_file(build, "jh.py", JIT_SCRIPT)
    core = _core(build, [python, script], ["break getppid", "run", "ignore 1 5000", "continue"],
                 "jit.core")
    try:
        return _transcript([tool, "stack", "--core", core, "--exe", python],
                           "jitunwind stack --core jit.core --exe %s" % python)
    finally:
        os.unlink(core)
        _drop_perf_maps()


def core_mismatch(build, repo):
    """A core of the demo opened with pyenv's 3.11.7 as its executable."""
    tool = _tool(build)
    other = pyenv_python("3.11.7")
    script = os.path.join(build, "testbed", "demo.py")
    need(script, "the test bed is not built")
    core = _core(build, ["/usr/bin/python3.11", script], ["break jitbed_checkpoint", "run"],
                 "core", {"PYTHONPATH": os.path.join(build, "testbed")})
    try:
        return _transcript([tool, "stack", "--core", "core", "--exe", other],
                           "jitunwind stack --core core --exe %s" % other,
                           cwd=os.path.dirname(core), status=True)
    finally:
        os.unlink(core)
        _drop_perf_maps()


SCENARIOS = {
    "cli-stack-python": stack_python,
    "cli-stack-jit-core": stack_jit_core,
    "cli-core-mismatch": core_mismatch,
    "cli-record-demo": record_demo,
    "cli-top-demo": top_demo,
}
__all__ = ["SCENARIOS", "Skip"]
