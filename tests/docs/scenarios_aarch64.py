"""The runs docs/aarch64.md shows, made as the aarch64.* tests make theirs
(tests/aarch64/test_aarch64.py: its sysroot and cross-built test bed, qemu
guest and debugger command lines): gdb-multiarch on the test bed and on
Debian's arm64 python3.11, lldb on the test bed built with pac-ret."""

import contextlib
import io
import os
import shutil
import sys

from doc_runs import HERE, Skip, gdb_prompted

sys.path.insert(0, os.path.join(HERE, "..", "aarch64"))
import test_aarch64  # noqa: E402


def _setup(build, repo, need_testbed, variant="", debugger=None):
    """test_aarch64.Setup (it builds what is missing, once), or Skip with
    the reason it gives."""
    if not shutil.which(test_aarch64.QEMU):
        raise Skip("%s not installed (apt-get install qemu-user-static)" % test_aarch64.QEMU)
    if not debugger:
        raise Skip("gdb-multiarch or lldb-19 not installed")
    said = io.StringIO()
    try:
        with contextlib.redirect_stdout(said):
            return test_aarch64.Setup(build, repo, need_testbed, variant)
    except SystemExit as exit:
        if exit.code == test_aarch64.SKIP:
            raise Skip("aarch64 setup: " + said.getvalue().strip().replace("SKIP: ", ""))
        raise RuntimeError("aarch64 setup failed: " + said.getvalue().strip())


def _in_guest(setup, args, session):
    guest = test_aarch64.Guest(setup, args)
    try:
        return session(guest)
    finally:
        guest.close()
        for path in test_aarch64.PERF_MAPS:
            if os.path.exists(path):
                os.unlink(path)
        del test_aarch64.PERF_MAPS[:]


def gdb_testbed(build, repo):
    """gdb-multiarch, live, at the test bed's checkpoint: bt, info jit-ranges."""
    setup = _setup(build, repo, True, debugger=test_aarch64.GDB)
    return _in_guest(setup, [test_aarch64.demo_path(setup)], lambda guest: test_aarch64.gdb(
        setup, ["break jitbed_checkpoint", "continue"] + gdb_prompted(["bt", "info jit-ranges"]),
        guest=guest))


def gdb_debian(build, repo):
    """gdb-multiarch, live, Debian's arm64 python3.11 in getppid."""
    setup = _setup(build, repo, False, debugger=test_aarch64.GDB)
    script = setup.write("debian_target.py", test_aarch64.DEBIAN_SCRIPT)
    return _in_guest(setup, [script], lambda guest: test_aarch64.gdb(
        setup, ["break getppid", "continue"] + gdb_prompted(["py-bt", "mixed-bt"]), guest=guest))


def lldb_pac(build, repo):
    """lldb, live, the pac-ret test bed at its checkpoint: stock bt, then
    the plugin's mixed-bt."""
    setup = _setup(build, repo, True, "pac", debugger=test_aarch64.LLDB)
    return _in_guest(setup, [test_aarch64.demo_path(setup)], lambda guest: test_aarch64.lldb(
        setup, ["breakpoint set -n jitbed_checkpoint", "continue", "bt", "mixed-bt"], guest=guest))


SCENARIOS = {
    "aarch64-gdb-testbed": gdb_testbed,
    "aarch64-gdb-debian": gdb_debian,
    "aarch64-lldb-pac": lldb_pac,
}
