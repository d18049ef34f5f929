"""The extended matrix: the interpreters JITUNWIND_EXTRA_PYTHONS names
(colon-separated paths; tests/dev.sh sets it from ../shared/cpython-builds).
Tests that read it skip (77) with WHY_NONE when it names nothing usable."""

import glob
import os
import re
import subprocess
import sys

WHY_NONE = ("JITUNWIND_EXTRA_PYTHONS names no interpreter (colon-separated paths; "
            "tests/dev.sh sets it from ../shared/cpython-builds when that folder is "
            "beside the repository)")
WHY_NO_JIT = ("no JIT-enabled interpreter in JITUNWIND_EXTRA_PYTHONS (the 3.14.7 "
              "--enable-experimental-jit builds)")


def extra_pythons():
    """Every path named, executable or not (a caller reports the missing)."""
    return [p for p in os.environ.get("JITUNWIND_EXTRA_PYTHONS", "").split(":") if p]


def present(pythons):
    """`pythons`, all of which must be there: a path the variable names but
    that is missing (an archive not unpacked, a build removed) fails the
    test rather than shrinking the matrix unnoticed."""
    missing = [p for p in pythons if not os.access(p, os.X_OK)]
    if missing:
        print("FAIL: JITUNWIND_EXTRA_PYTHONS names interpreters that are not there: %s"
              % ", ".join(missing))
        sys.exit(1)
    return list(pythons)


def named(name):
    """The interpreter on the list whose file is called `name`
    ("python3.15"), or None."""
    return next((p for p in extra_pythons()
                 if os.path.basename(p) == name and os.access(p, os.X_OK)), None)


def debug_root(python):
    """The debug root a distribution layout keeps beside PREFIX/bin/python
    (PREFIX/lib/debug, where its -dbg package's files are), or None."""
    root = os.path.join(os.path.dirname(os.path.dirname(python)), "lib", "debug")
    return root if os.path.isdir(root) else None


# Why a test of Debian's 3.15.2 layout skips when python315_with_debug finds none.
NO_PYTHON315_DEBUG = "no python3.15 with PREFIX/lib/debug on JITUNWIND_EXTRA_PYTHONS"


def python315_with_debug():
    """(python3.15 on the list, its debug root PREFIX/lib/debug), or
    (None, None) when either is missing."""
    python = named("python3.15")
    root = debug_root(python) if python else None
    return (python, root) if root else (None, None)


def separate_debug_file(python):
    """The debug file of a stripped interpreter under its debug root, found
    by build id (.build-id/xx/rest.debug), or None."""
    root = debug_root(python)
    if not root:
        return None
    notes = subprocess.run(["readelf", "-n", python], stdout=subprocess.PIPE, text=True,
                           timeout=60).stdout
    m = re.search(r"Build ID: ([0-9a-f]{2})([0-9a-f]+)", notes)
    path = m and os.path.join(root, ".build-id", m.group(1), m.group(2) + ".debug")
    return path if path and os.path.isfile(path) else None


def libthread_db_dir(python):
    """The folder of the libthread_db matching the glibc a distribution
    layout carries beside PREFIX/bin/python (PREFIX/lib/<triplet>), or None."""
    prefix = os.path.dirname(os.path.dirname(python))
    for lib in sorted(glob.glob(os.path.join(prefix, "lib", "*-linux-gnu", "libthread_db.so.1"))):
        return os.path.dirname(lib)
    return None


def gdb_settings(python):
    """The gdb settings a user gives gdb for this interpreter's layout: its
    debug root and the libthread_db of the glibc it carries."""
    root, tdb = debug_root(python), libthread_db_dir(python)
    return ((["set debug-file-directory %s" % root] if root else []) +
            (["add-auto-load-safe-path %s" % tdb, "set libthread-db-search-path %s" % tdb]
             if tdb else []))


def gdb_args(args):
    """gdb's "-iex" options for every interpreter among gdb's arguments
    `args` (before the target is read, as a gdbinit would set them)."""
    out = []
    for a in args:
        if os.path.isfile(a) and os.access(a, os.X_OK):
            for setting in gdb_settings(a):
                out += ["-iex", setting]
    return out


def lldb_args(words):
    """LLDB's "-O" options (run before any target is created) for every
    interpreter among `words` (LLDB's arguments, or the words of its
    commands): where its layout keeps its debug files."""
    out = []
    for w in words:
        root = os.path.isfile(w) and os.access(w, os.X_OK) and debug_root(w)
        if root:
            out += ["-O", "settings append target.debug-file-search-paths %s" % root]
    return out


# The environment entry that turns a built-in JIT on; 3.14's
# --enable-experimental-jit builds have it on already, 3.15's "yes-off" off.
JIT_ON = {"PYTHON_JIT": "1"}


def jit_enabled(python, env=None):
    """Whether the interpreter runs with its JIT on (sys._jit.is_enabled())
    in `env` (default: this process's environment)."""
    out = subprocess.run([python, "-c", "import sys; j = getattr(sys, '_jit', None); "
                          "print(bool(j and j.is_enabled()))"], env=env,
                         stdout=subprocess.PIPE, text=True, timeout=60).stdout.strip()
    return out == "True"


def jit_available(python):
    """Whether the interpreter's JIT runs when JIT_ON is in its environment."""
    return jit_enabled(python, dict(os.environ, **JIT_ON))


def jit_pythons():
    """The interpreters with a JIT; run them with JIT_ON in their environment."""
    return [p for p in present(extra_pythons()) if jit_available(p)]


def frame_pointer_pythons():
    """The CPython 3.12 and 3.13 builds of the extended matrix made with
    frame pointers (the test bed's module builds for them:
    tests/support/testbed_for.py)."""
    picked = []
    for python in present(extra_pythons()):
        out = subprocess.run([python, "-c", "import sys, sysconfig; print(sys.version_info[:2] "
                              "in ((3, 12), (3, 13)) and '-fno-omit-frame-pointer' in "
                              "(sysconfig.get_config_var('CFLAGS') or ''))"],
                             stdout=subprocess.PIPE, text=True, timeout=60).stdout.strip()
        if out == "True":
            picked.append(python)
    return picked
