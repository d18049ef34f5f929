#!/usr/bin/env python3
"""The debugger hooks as the installer writes them from the source tree
(`python -m jitunwind install-debugger-hooks`, --user and --system), then
plain gdb and lldb in every way they meet a process (check_debuggers.py).
HOME is a scratch folder: the machine's own init files are never read or
touched. The system hook goes to a scratch gdbinit.d that gdb sources with
-nx -iex, and, as root in CI, to the real /etc/gdb/gdbinit.d (when it has no
jitunwind.py already), removed after; both with --force, since a checkout
need not be root's alone (test_installer.py checks the refusal).

Usage: test_hooks.py BUILD_DIR SOURCE_DIR   (77: python3.11 or the library missing)"""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SYSTEM_DIR = "/etc/gdb/gdbinit.d"


def installer(env, *args):
    p = subprocess.run([sys.executable, "-m", "jitunwind", "install-debugger-hooks"] + list(args),
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        print(p.stdout)
        print("FAIL: install-debugger-hooks %s exited %d" % (" ".join(args), p.returncode))
        sys.exit(1)
    return p.stdout


def check(env, what, *gdb_args):
    status = subprocess.run([sys.executable, os.path.join(HERE, "check_debuggers.py"), what]
                            + list(gdb_args), env=env).returncode
    if status != 0:
        sys.exit(status)


def main():
    build, src = sys.argv[1], sys.argv[2]
    library = os.path.join(build, "libjitunwind", "libjitunwind.so")
    if not os.path.exists("/usr/bin/python3.11") or not os.path.exists(library):
        print("SKIP: /usr/bin/python3.11 or %s is missing" % library)
        return 77
    with tempfile.TemporaryDirectory() as scratch:
        home = os.path.join(scratch, "home")
        os.mkdir(home)
        env = {k: v for k, v in os.environ.items() if k != "XDG_CONFIG_HOME"}
        env.update(HOME=home, JITUNWIND_LIBRARY=library,
                   PYTHONPATH=os.path.join(src, "libjitunwind", "bindings", "python"))
        installer(env)
        check(env, "source tree, --user")
        installer(env, "--remove")

        gdbinit_d = os.path.join(scratch, "gdbinit.d")
        installer(env, "--system", "--gdbinit-dir", gdbinit_d, "--force")
        check(dict(env, JITUNWIND_SKIP_LLDB="1"), "source tree, --system (scratch gdbinit.d)",
              "-nx", "-iex", "source %s" % os.path.join(gdbinit_d, "jitunwind.py"))
        if os.geteuid() == 0 and os.environ.get("CI") and \
                not os.path.exists(os.path.join(SYSTEM_DIR, "jitunwind.py")):
            installer(env, "--system", "--force")
            try:
                check(dict(env, JITUNWIND_SKIP_LLDB="1"), "source tree, --system (%s)" % SYSTEM_DIR)
            finally:
                installer(env, "--system", "--remove")
        else:
            print("ok: %s not tried (only as root with CI set, and without a jitunwind.py there)"
                  % SYSTEM_DIR)
    return 0


if __name__ == "__main__":
    sys.exit(main())
