"""The runs docs/lldb.md shows: the test bed's demo in LLDB 19 and LLDB 22+
(with the plugin and without), the eval-loop recognizer, pyenv's 3.13.0
with -X perf and a 3.14 JIT build through LLDB 19's image of the ranges,
and a JIT that publishes through the GDB JIT interface (no plugin).
(pyenv's 3.13.0 values session is scenarios_values.py's.)"""

import os

from doc_runs import (PROGRAMS, Skip, extra_jit_python, launched_perf_maps, library_env, lldb,
                      lldb_session, need, pyenv_python, work_file)
from demo_stack import JIT_SCRIPT, demo_env, demo_setup
from test_lldb_demo import PERF_SCRIPT

STOP = ["breakpoint set -n jitbed_checkpoint", "run"]


def _demo(build):
    setup = demo_setup(build)
    if setup is None:
        raise Skip("the demo needs /usr/bin/python3.11 and the test bed (build/testbed)")
    python, demo, env = setup
    return python, demo, env


def _session(flavour, build, repo, commands, args, env, plugin=True):
    out = lldb_session(lldb(flavour, build), repo, commands, args, env, plugin)
    launched_perf_maps(out)
    return out


def demo_lldb19(build, repo):
    """LLDB 19, plugin loaded, the demo at its checkpoint: the plugin's
    commands, then LLDB's own `bt`."""
    python, demo, env = _demo(build)
    return _session("lldb", build, repo, STOP + ["mixed-bt", "py-bt", "jit-ranges", "bt",
                                                 "frame select 6", "kill"],
                    ["--", python, demo], env)


def demo_lldb19_fp(build, repo):
    """LLDB 19, plugin loaded, the demo's module built for the extended
    matrix's 3.12.0 with frame pointers: LLDB's own `bt` through the
    plugin's image, `frame select` on an executor frame, `up`."""
    from extra_pythons import WHY_NONE, extra_pythons, frame_pointer_pythons
    from testbed_for import testbed_for
    pythons = frame_pointer_pythons()
    if not pythons:
        raise Skip(WHY_NONE if not extra_pythons() else
                   "JITUNWIND_EXTRA_PYTHONS names no 3.12/3.13 build with frame pointers")
    folder, why = testbed_for(build, pythons[0], os.path.join(build, "docs-outputs"))
    if folder is None:
        raise RuntimeError(why)
    env = demo_env(build, folder)
    return _session("lldb", build, repo, STOP + ["bt", "frame select 8", "up", "kill"],
                    ["--", pythons[0], os.path.join(folder, "demo.py")], env)


def demo_lldb22(build, repo):
    """LLDB 22+, plugin loaded (its frame provider): `bt`, `frame select`,
    `frame info`, `up` at the checkpoint."""
    python, demo, env = _demo(build)
    return _session("lldb22", build, repo, STOP + ["bt", "frame select 6", "frame info", "up",
                                                   "kill"], ["--", python, demo], env)


def demo_lldb22_stock(build, repo):
    python, demo, env = _demo(build)
    return _session("lldb22", build, repo, STOP + ["bt", "kill"], ["--", python, demo], env,
                    plugin=False)


def recognizer(build, repo):
    """LLDB 19 stopped inside _PyEval_EvalFrameDefault (python3.11-dbg's
    line table) after the checkpoint: `frame variable` lists the Python
    frames that activation runs."""
    python, _, env = _demo(build)
    script = os.path.join(PROGRAMS, "recognized.py")
    out = _session("lldb", build, repo, STOP + ["breakpoint set -f ceval.c -l 4772", "continue",
                                                "frame variable", "kill"], ["--", python, script],
                   env)
    if "Breakpoint 2: no locations" in out:
        raise Skip("no line table for ceval.c (apt-get install python3.11-dbg)")
    return out


def _perf_script(build):
    return work_file(build, "perf.py", PERF_SCRIPT)


def perf_stock(build, repo):
    """Stock LLDB 19 at getppid under pyenv 3.13.0 -X perf."""
    python = pyenv_python("3.13.0")
    return _session("lldb", build, repo, ["breakpoint set -n getppid", "run", "bt", "kill"],
                    ["--", python, "-X", "perf", _perf_script(build)], library_env(build),
                    plugin=False)


def perf_images(build, repo):
    """The same stop with the plugin: LLDB 19's `bt` through the image of
    the ranges, `jit-image`, `frame select`, `up`, and `mixed-bt`."""
    python = pyenv_python("3.13.0")
    return _session("lldb", build, repo, ["breakpoint set -n getppid", "run", "bt", "jit-image",
                                          "frame select 7", "up", "mixed-bt", "kill"],
                    ["--", python, "-X", "perf", _perf_script(build)], library_env(build))


def _jit_run(build, repo, plugin):
    python = extra_jit_python()
    script = work_file(build, "jit.py", JIT_SCRIPT)
    commands = ["breakpoint set -n getppid", "run", "breakpoint modify -i 5000 1", "continue",
                "bt 9"] + (["jit-image"] if plugin else []) + ["kill"]
    return _session("lldb", build, repo, commands, ["--", python, script], library_env(build),
                    plugin)


def jit_stock(build, repo):
    """Stock LLDB 19 in getppid called from a 3.14 JIT executor."""
    return _jit_run(build, repo, False)


def jit_images(build, repo):
    return _jit_run(build, repo, True)


def jitpublish(build, repo):
    """Stock LLDB 19 (no plugin) on tests/jitpublish/jit_host publishing
    each range through the GDB JIT interface."""
    host = os.path.join(build, "tests", "jitpublish", "jit_host")
    need(host, "tests/jitpublish/jit_host is built on x86-64 only")
    return _session("lldb", build, repo, ["breakpoint set -n jit_callee", "process launch -- 300 1",
                                          "bt", "kill"], [host], {}, plugin=False)


SCENARIOS = {
    "lldb19-demo": demo_lldb19,
    "lldb19-demo-fp": demo_lldb19_fp,
    "lldb22-demo": demo_lldb22,
    "lldb22-demo-stock": demo_lldb22_stock,
    "lldb19-recognizer": recognizer,
    "lldb19-perf-stock": perf_stock,
    "lldb19-perf-images": perf_images,
    "lldb19-jit-stock": jit_stock,
    "lldb19-jit-images": jit_images,
    "lldb19-jitpublish-stock": jitpublish,
}
