#!/usr/bin/env python3
"""LLDB's own `bt` through JIT and trampoline code with the plugin's ELF
image (lldb-plugin/jitunwind_lldb/images.py; LLDB 19-21).

Usage: test_lldb_images.py BUILD_DIR REPO_DIR MODE
  MODE jithost   tests/jitpublish/jit_host (its ranges in the jitunwind
                 descriptor only, GDB JIT publishing off): `bt` names both JIT
                 ranges and reaches _start, `frame select`, `up` and `finish`
                 go through them, `jit-image` reports the image; without the
                 plugin `bt` stops; on a core after `jit-image refresh`
  MODE demo      the test bed's demo on Debian's python3.11 (no frame pointers),
                 live and on a core: `bt` is no worse than without the plugin
                 (LLDB 19 loses its way in python3.11's own frames before any
                 JIT frame; docs/lldb.md), and every JIT or trampoline frame it
                 reaches is named
  MODE demo-fp   the same demo, its module built for the extended matrix's
                 3.12 and 3.13 builds with frame pointers (whose C frames LLDB
                 19 unwinds): live and on a core (no `jit-image refresh`) `bt`
                 names every JIT and trampoline frame in order and reaches
                 _start; `frame select`,
                 `up` and `finish` go through them; skipped when no such build
  MODE pyenv     pyenv 3.12.1 and 3.13.0 with -X perf: no worse than stock; on
                 3.13.0 `bt` reaches _start naming every trampoline (3.12.1's
                 eval loop already stops stock LLDB, trampolines or not)
  MODE extra     $JITUNWIND_EXTRA_PYTHONS: perf trampolines (3.12+) and JIT
                 executors (JIT builds: this stop's rows for the SCAN rule):
                 `bt` reaches _start naming each; skipped when unset
Exit 0 on success, 1 on failure, 77 to skip (with the reason printed).
"""

import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from demo_stack import (WARM_IGNORE, WARM_JIT_SCRIPT, demo_env, demo_setup,  # noqa: E402
                        expected_stack, fail, interesting, markers)
from extra_pythons import JIT_ON, WHY_NONE, extra_pythons, frame_pointer_pythons  # noqa: E402
from test_lldb_demo import (LLDB, PERF_MAPS, PERF_SCRIPT, SKIP, gcore_at,  # noqa: E402
                            interpreter_facts, lldb_cmd, run, section)
from testbed_for import testbed_for  # noqa: E402

TRAMP = "jit:tramp [trampoline sub8]"
FP_CODE = "jit:fp_code [jit fp-preserving]"
IMAGE_ERROR = "jitunwind: jit-image:"


def bt_frames(text):
    """(function, module) of each frame of a `bt` section, in order; module
    None for a frame LLDB has no symbol for. Symbols of the plugin's image
    (module jit-*.elf) are whole labels, parentheses and all."""
    frames = []
    for m in re.finditer(r"^\s+\*? ?frame #\d+: 0x[0-9a-f]+(?: ([^`\s]+)`(.*))?$", text or "",
                         re.M):
        module, rest = m.group(1), m.group(2) or ""
        if module and module.endswith(".elf"):
            name = re.sub(r" \+ \d+$", "", rest)
        else:
            name = re.split(r"\(| at | \+ \d+", rest)[0]
        frames.append((name.strip(), module))
    return frames


def names(text):
    return [re.sub(r" \[inlined\].*", "", f) for f, _ in bt_frames(text)]


def no_image_errors(label, out):
    if IMAGE_ERROR in out:
        fail("%s: the stop hook or jit-image reported a problem:\n%s" % (label, out[-3000:]))


def check_jithost(build, repo):
    host = os.path.join(build, "tests", "jitpublish", "jit_host")
    if not os.path.exists(host):
        print("SKIP: %s is not built (x86-64 only)" % host)
        return SKIP
    env = dict(os.environ)
    stop = ["breakpoint set -n jit_callee", "process launch -- 300 0"]
    want = ["jit_callee", TRAMP, "host_garbage", FP_CODE, "main"]
    out = run(lldb_cmd(repo, True, stop + ["bt", "jit-image", "frame select 3", "up",
                                           "frame select 0", "finish", "bt 2", "kill"],
                       [host]), env)
    no_image_errors("jit_host live", out)
    got = names(section(out, "bt"))
    if got[:len(want)] != want or got[-1] != "_start":
        fail("jit_host: bt with the plugin's image is %r, want %r ... _start" % (got, want))
    print("ok: jit_host live: bt names %s and %s and reaches _start (%d frames)"
          % (TRAMP, FP_CODE, len(got)))
    status = section(out, "jit-image")
    if not re.match(r"jit-image: \S+\.elf: 302 ranges \(302 with CFI, 0 without\), 302 FDEs",
                    status):
        fail("jit-image status: %r" % status)
    folder = os.path.dirname(status.split()[1].rstrip(":"))
    if os.path.exists(folder):
        fail("the image folder %s is left behind after LLDB ended" % folder)
    print("ok: the image folder %s is removed when LLDB ends" % folder)
    if FP_CODE not in section(out, "frame select 3") or "main" not in section(out, "up"):
        fail("frame select 3 / up do not go through the JIT frames:\n%s" % out[-3000:])
    finished = section(out, "bt 2")
    if names(finished)[:1] != [TRAMP]:
        fail("finish from jit_callee does not return into the trampoline: %r" % names(finished))
    print("ok: jit_host: frame select, up and finish go through the JIT frames")

    stock = run(lldb_cmd(repo, False, stop + ["bt", "kill"], [host]), env)
    if TRAMP in stock or "_start" in names(section(stock, "bt")):
        fail("stock lldb gets through jit_host without the image: the test proves nothing")

    core = os.path.join(build, "lldb-tests", "jit_host.core")
    os.makedirs(os.path.dirname(core), exist_ok=True)
    gcore_at(env, [host, "300", "0"], ["break jit_callee", "run"], core)
    out = run(lldb_cmd(repo, True, ["target create %s --core %s" % (host, core),
                                    "jit-image refresh", "bt"], []), env)
    os.unlink(core)
    no_image_errors("jit_host core", out)
    got = names(section(out, "bt"))
    if got[:len(want)] != want or got[-1] != "_start":
        fail("jit_host core: bt is %r" % got)
    print("ok: jit_host core: after jit-image refresh, bt names both JIT ranges and reaches _start")
    return 0


def no_worse(label, stock_out, plugin_out):
    """The plugin's bt has at least stock's frames, and names every JIT or
    trampoline frame it shows (no frame without a module in JIT memory)."""
    stock, plugin = names(section(stock_out, "bt")), names(section(plugin_out, "bt"))
    if len(plugin) < len(stock):
        fail("%s: bt with the plugin shows %d frames, stock %d\n%r\n%r"
             % (label, len(plugin), len(stock), plugin, stock))
    unnamed = [i for i, (_, mod) in enumerate(bt_frames(section(plugin_out, "bt"))) if mod is None]
    if unnamed:
        fail("%s: frames #%r have no symbol in the plugin's bt" % (label, unnamed))
    print("ok: %s: bt with the plugin %d frames, stock %d" % (label, len(plugin), len(stock)))
    return plugin


def check_demo(build, repo):
    setup = demo_setup(build)
    if setup is None:
        return SKIP
    python, demo, env = setup
    stop = ["breakpoint set -n jitbed_checkpoint", "run"]
    stock = run(lldb_cmd(repo, False, stop + ["bt", "kill"], ["--", python, demo]), env)
    live = run(lldb_cmd(repo, True, stop + ["bt", "jit-image", "kill"], ["--", python, demo]), env)
    no_image_errors("demo live", live)
    if not re.match(r"jit-image: \S+\.elf: 6 ranges \(6 with CFI, 0 without\)",
                    section(live, "jit-image")):
        fail("demo: the image does not hold the demo's 6 ranges: %r" % section(live, "jit-image"))
    no_worse("demo live (python3.11)", stock, live)
    core = os.path.join(build, "lldb-tests", "demo-images.core")
    os.makedirs(os.path.dirname(core), exist_ok=True)
    gcore_at(env, [python, demo], ["break jitbed_checkpoint", "run"], core)
    stock = run(lldb_cmd(repo, False, ["target create %s --core %s" % (python, core), "bt"], []),
                env)
    out = run(lldb_cmd(repo, True, ["target create %s --core %s" % (python, core),
                                    "jit-image refresh", "bt"], []), env)
    os.unlink(core)
    no_image_errors("demo core", out)
    no_worse("demo core (python3.11)", stock, out)
    return 0


def check_demo_stack(label, out, demo):
    """`bt` names the demo's every JIT and trampoline frame, with the eval
    loops between them, in order, down to _start."""
    want = [f for f in expected_stack(demo) if not isinstance(f, tuple)]
    got = [f for f in names(section(out, "bt")) if interesting(f)]
    if got != want:
        fail("%s: bt's frames\n  want %r\n  got  %r\n%s" % (label, want, got, out[-4000:]))
    print("ok: %s: bt names the 2 executors and 4 trampolines in order and reaches _start (%d "
          "frames)" % (label, len(names(section(out, "bt")))))


def check_demo_fp(build, repo):
    pythons = frame_pointer_pythons()
    if not pythons:
        print("SKIP: %s" % (WHY_NONE if not extra_pythons() else
                            "JITUNWIND_EXTRA_PYTHONS names no CPython 3.12 or 3.13 built with "
                            "frame pointers"))
        return SKIP
    work = os.path.join(build, "lldb-tests")
    for python in pythons:
        folder, why = testbed_for(build, python, work)
        if folder is None:
            fail(why)
        demo = os.path.join(folder, "demo.py")
        env = demo_env(build, folder)
        stop = ["breakpoint set -n jitbed_checkpoint", "run"]
        stock = run(lldb_cmd(repo, False, stop + ["bt", "kill"], ["--", python, demo]), env)
        stock_frames = bt_frames(section(stock, "bt"))
        unnamed = sum(1 for _, module in stock_frames if module is None)
        if not unnamed:
            fail("%s: stock lldb names every frame without the image: the test proves nothing"
                 % python)
        live = run(lldb_cmd(repo, True, stop + ["bt", "kill"], ["--", python, demo]), env)
        no_image_errors(python, live)
        check_demo_stack("%s live" % python, live, demo)
        print("   (stock bt without the plugin: %d frames, %d of them unnamed)"
              % (len(stock_frames), unnamed))
        frames = names(section(live, "bt"))
        jit = frames.index("py::jit:leaf [jit fp-preserving]")
        callee = jit - 1  # the C function the JIT code called (PyObject_CallNoArgs)
        moves = run(lldb_cmd(repo, True, stop + [
            "frame select %d" % jit, "up", "frame select %d" % callee, "finish", "bt 1", "kill"],
            ["--", python, demo]), env)
        if "py::jit:leaf" not in section(moves, "frame select %d" % jit):
            fail("%s: frame select %d does not select the JIT frame:\n%s"
                 % (python, jit, section(moves, "frame select %d" % jit)))
        if "executor_call" not in section(moves, "up"):
            fail("%s: up from the JIT frame is not executor_call:\n%s"
                 % (python, section(moves, "up")))
        if names(section(moves, "bt 1"))[:1] != ["py::jit:leaf [jit fp-preserving]"]:
            fail("%s: finish from %s does not return into the JIT code:\n%s"
                 % (python, frames[callee], moves[-3000:]))
        print("ok: %s: frame select, up and finish go through the JIT frames" % python)
        core = os.path.join(work, "demo-fp.core")
        gcore_at(env, [python, demo], ["break jitbed_checkpoint", "run"], core)
        # No `jit-image refresh`: a core has no stop for the stop hook; the
        # plugin's recognizer on frame 0 loads the image for the first bt.
        out = run(lldb_cmd(repo, True, ["target create %s --core %s" % (python, core), "bt"],
                           []), env)
        os.unlink(core)
        no_image_errors(python + " core", out)
        check_demo_stack("%s core" % python, out, demo)
    return 0


def perf_run(repo, python, script, plugin):
    return run(lldb_cmd(repo, plugin, ["breakpoint set -n getppid", "run", "bt", "kill"],
                        ["--", python, "-X", "perf", script]), dict(os.environ))


def want_trampolines(label, out, script, layout):
    got = names(section(out, "bt"))
    want = ["py::%s:%s [trampoline %s]" % (name, script, layout)
            for name in ("leaf", "mid", "<module>")]
    tramps = [f for f in got if "[trampoline" in f]
    if tramps != want or got[-1] != "_start":
        fail("%s: bt names %r and ends at %r; want %r ... _start" % (label, tramps, got[-1:], want))
    print("ok: %s: bt names the 3 trampolines and reaches _start (%d frames)" % (label, len(got)))


def check_pyenv(build, repo):
    root = os.environ.get("PYENV_ROOT", "/root/.pyenv")
    work = os.path.join(build, "lldb-tests")
    os.makedirs(work, exist_ok=True)
    script = os.path.join(work, "perf_images.py")
    with open(script, "w") as f:
        f.write(PERF_SCRIPT)
    ran = 0
    for version, full in (("3.12.1", False), ("3.13.0", True)):
        python = os.path.join(root, "versions", version, "bin", "python" + version[:4])
        if not os.access(python, os.X_OK):
            print("not checked: %s is not installed" % python)
            continue
        ran += 1
        stock, plugin = perf_run(repo, python, script, False), perf_run(repo, python, script, True)
        no_image_errors("pyenv " + version, plugin)
        no_worse("pyenv %s -X perf" % version, stock, plugin)
        if full:
            want_trampolines("pyenv %s -X perf" % version, plugin, script, "sub8")
    if not ran:
        print("SKIP: no pyenv 3.12.1 or 3.13.0 under %s" % root)
        return SKIP
    return 0


def check_extra(build, repo):
    pythons = [p for p in os.environ.get("JITUNWIND_EXTRA_PYTHONS", "").split(":")
               if p and os.access(p, os.X_OK)]
    if not pythons:
        print("SKIP: JITUNWIND_EXTRA_PYTHONS names no interpreter")
        return SKIP
    work = os.path.join(build, "lldb-tests")
    os.makedirs(work, exist_ok=True)
    perf_script, jit_script = (os.path.join(work, n) for n in ("perf_images.py", "jit_images.py"))
    for path, text in ((perf_script, PERF_SCRIPT), (jit_script, WARM_JIT_SCRIPT)):
        with open(path, "w") as f:
            f.write(text)
    for python in pythons:
        version, jit = interpreter_facts(python)
        if version >= (3, 12):
            out = perf_run(repo, python, perf_script, True)
            no_image_errors(python, out)
            want_trampolines("%s -X perf" % python, out, perf_script,
                             "framed" if version >= (3, 14) else "sub8")
        if jit:
            out = run(lldb_cmd(repo, True, ["breakpoint set -n getppid", "run",
                                            "breakpoint modify -i %d 1" % WARM_IGNORE,
                                            "continue", "bt", "jit-image", "kill"],
                               ["--", python, jit_script]), dict(os.environ, **JIT_ON))
            no_image_errors(python, out)
            got = names(section(out, "bt"))
            at = markers(jit_script)
            jit_frames = [f for f in got if f.startswith("py::jit:hot ")]
            if not jit_frames or got[-1] != "_start" or "_PyEval_EvalFrameDefault" not in got:
                fail("%s JIT: bt %r; want py::jit:hot frames, the eval loop, _start" % (python, got))
            if "(%s:%d)" % (jit_script, at["hot_def"]) not in jit_frames[0]:
                fail("%s JIT: the executor is not named by its code object: %r" % (python, jit_frames))
            if not re.search(r"\d+ FDEs", section(out, "jit-image")):
                fail("%s JIT: jit-image: %r" % (python, section(out, "jit-image")))
            print("ok: %s JIT: bt goes through %d executor frames (this stop's rows) to _start"
                  % (python, len(jit_frames)))
    return 0


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    build, repo, mode = sys.argv[1:]
    if not LLDB:
        print("SKIP: lldb is not installed (apt-get install lldb-19 python3-lldb-19)")
        return SKIP
    version = subprocess.run([LLDB, "--version"], stdout=subprocess.PIPE, text=True).stdout
    print(version.strip().splitlines()[0] if version else LLDB)
    try:
        return {"jithost": check_jithost, "demo": check_demo, "demo-fp": check_demo_fp,
                "pyenv": check_pyenv, "extra": check_extra}[mode](build, repo)
    finally:
        for path in PERF_MAPS:
            if os.path.exists(path):
                os.unlink(path)


if __name__ == "__main__":
    sys.exit(main())
