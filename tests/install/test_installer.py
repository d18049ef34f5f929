#!/usr/bin/env python3
"""`python -m jitunwind install-debugger-hooks` as a user runs it, on scratch
HOMEs (the machine's own init files are never read or touched), and gdb and
lldb then reading what it wrote:

  gdbinit    gdb keeps reading an existing ~/.gdbinit (the hook goes into the
             file gdb reads, and the installer names it); --remove names
             it too and leaves no file that hides it
  block      --remove (and a new install) leave a file whose begin marker
             has no end marker as it was, and say why
  links      run as root on another user's HOME: a planted link at any name
             (a fixed temporary name, the init file itself) or a hard
             link makes it write nothing outside that HOME; owner and mode kept
  system     --system refuses when others than root can change what the hook
             loads, and writes with a warning under --force
  bytes      a non-UTF-8 byte in ~/.lldbinit is kept, with no traceback
  space      an install path with a space gives lines gdb and lldb read

Usage: test_installer.py BUILD_DIR SOURCE_DIR [CASE...]   (77: library missing)"""

import os
import shutil
import stat
import subprocess
import sys
import tempfile

BEGIN = "# >>> jitunwind hook >>>"
END = "# <<< jitunwind hook <<<"
OTHER_UID = 54321   # a user that owns the scratch HOME in the root cases


def fail(why, out=""):
    if out:
        print(out)
    print("FAIL: " + why)
    sys.exit(1)


class Env:
    def __init__(self, build, src, scratch):
        self.scratch = scratch
        self.home = os.path.join(scratch, "home")
        os.mkdir(self.home)
        self.library = os.path.join(build, "libjitunwind", "libjitunwind.so")
        self.binding = os.path.join(src, "libjitunwind", "bindings", "python")
        self.src = src

    def environ(self, **extra):
        env = {k: v for k, v in os.environ.items()
               if k not in ("XDG_CONFIG_HOME", "JITUNWIND_LIBRARY", "PYTHONPATH")}
        env.update(HOME=self.home, JITUNWIND_LIBRARY=self.library, PYTHONPATH=self.binding)
        env.update(extra)
        return env

    def installer(self, *args, want=0, **extra):
        p = subprocess.run([sys.executable, "-m", "jitunwind", "install-debugger-hooks"] + list(args),
                           env=self.environ(**extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, errors="replace")
        out = p.stdout + p.stderr
        if "Traceback" in out:
            fail("install-debugger-hooks %s printed a traceback" % " ".join(args), out)
        if p.returncode != want:
            fail("install-debugger-hooks %s exited %d (want %d)" % (" ".join(args), p.returncode, want),
                 out)
        return out

    def path(self, *parts):
        return os.path.join(self.home, *parts)

    def write(self, name, data, mode=0o644):
        path = self.path(name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
        os.chmod(path, mode)
        return path

    def gdb(self, *args, **extra):
        p = subprocess.run(["gdb", "-batch", "-iex", "set debuginfod enabled off"] + list(args),
                           env=self.environ(**extra), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors="replace", timeout=120)
        return p.stdout


def read(path):
    with open(path, "rb") as f:
        return f.read()


HOOK_LOADED = "python print('hook loaded:', getattr(gdb, '_jitunwind_hook_installed', False))"


def case_gdbinit(env):
    mine = env.write(".gdbinit", "echo USER-GDBINIT\\n\n")
    out = env.installer()
    if "wrote the hook to %s\n" % env.path(".gdbinit") not in out:
        fail("the installer must say which file it changed (~/.gdbinit)", out)
    out = env.gdb("-ex", HOOK_LOADED)
    if "USER-GDBINIT" not in out or "hook loaded: True" not in out:
        fail("after the install gdb must read ~/.gdbinit and load the hook", out)
    if os.path.exists(env.path(".config", "gdb", "gdbinit")):
        fail("the installer made ~/.config/gdb/gdbinit, which hides ~/.gdbinit from gdb")
    out = env.installer("--remove")
    if "removed the hook from %s\n" % env.path(".gdbinit") not in out:
        fail("--remove must say which file it changed (~/.gdbinit)", out)
    if read(mine) != b"echo USER-GDBINIT\\n\n":
        fail("--remove did not give ~/.gdbinit back as it was: %r" % read(mine))
    print("ok: gdbinit: the hook goes into ~/.gdbinit, which gdb goes on reading; --remove restores it")

    # A ~/.config/gdb/gdbinit that holds only the hook, beside ~/.gdbinit.
    env.write(".config/gdb/gdbinit", "%s\nsource /old/jitunwind-lazy.py\n%s\n" % (BEGIN, END))
    out = env.installer()
    if os.path.exists(env.path(".config", "gdb", "gdbinit")) or "kept gdb from reading" not in out:
        fail("a ~/.config/gdb/gdbinit holding only the hook must go (it hides ~/.gdbinit)", out)
    out = env.gdb("-ex", HOOK_LOADED)
    if "USER-GDBINIT" not in out or "hook loaded: True" not in out:
        fail("gdb must read ~/.gdbinit with the hook in it", out)
    env.installer("--remove")
    env.write(".config/gdb/gdbinit", "%s\nsource /old/jitunwind-lazy.py\n%s\n" % (BEGIN, END))
    env.installer("--remove")
    if os.path.exists(env.path(".config", "gdb", "gdbinit")):
        fail("--remove left an empty ~/.config/gdb/gdbinit, which hides ~/.gdbinit")
    print("ok: gdbinit: a ~/.config/gdb/gdbinit that held only the hook is removed, not left to hide "
          "~/.gdbinit")

    # A ~/.config/gdb/gdbinit of the user's own: gdb reads it; the installer says what that means.
    env.write(".config/gdb/gdbinit", "echo USER-CONFIG\\n\n")
    out = env.installer()
    if "so not %s" % env.path(".gdbinit") not in out:
        fail("the installer must say that gdb does not read ~/.gdbinit", out)
    out = env.gdb("-ex", HOOK_LOADED)
    if "USER-CONFIG" not in out or "hook loaded: True" not in out:
        fail("the hook must be in the file gdb reads", out)
    print("ok: gdbinit: with a ~/.config/gdb/gdbinit of the user's, the hook goes there, with a note")


def case_block(env):
    lldb = env.write(".lldbinit", "settings set a 1\n%s\ncommand script import /x\nsettings set b 2\n"
                     "settings set c 3\n" % BEGIN)
    before = read(lldb)
    for args in (["--remove"], []):
        out = env.installer(*args, want=1)
        if read(lldb) != before:
            fail("install-debugger-hooks %s changed a file whose block has no end" % " ".join(args))
        if "line 2 opens a jitunwind block" not in out or "no end marker" not in out:
            fail("install-debugger-hooks %s did not say why it left the file alone" % " ".join(args),
                 out)
    print("ok: block: a begin marker without its end: the file is left as it was, and why is said")


def _as_other_user(env):
    os.chown(env.home, OTHER_UID, OTHER_UID)


def case_links(env):
    if os.geteuid() != 0:
        print("ok: links: not tried (needs root, to run the installer on another user's HOME)")
        return
    victim = os.path.join(env.scratch, "victim")
    with open(victim, "w") as f:
        f.write("root's file\n")
    _as_other_user(env)
    lldb = env.write(".lldbinit", "settings set a 1\n", mode=0o640)
    os.chown(lldb, OTHER_UID, OTHER_UID)
    # Fixed temporary names beside the init files, planted as links.
    for name in (".lldbinit.jitunwind-tmp", ".gdbinit.jitunwind-tmp"):
        os.symlink(victim, env.path(name))
    env.installer()
    if read(victim) != b"root's file\n":
        fail("the installer wrote through a planted link: %r" % read(victim))
    st = os.stat(lldb)
    if (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) != (OTHER_UID, OTHER_UID, 0o640):
        fail("~/.lldbinit lost its owner or mode: uid %d gid %d mode %o"
             % (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)))
    made = os.stat(env.path(".gdbinit"))
    if made.st_uid != OTHER_UID:
        fail("the ~/.gdbinit made in another user's HOME belongs to uid %d" % made.st_uid)
    if BEGIN not in read(lldb).decode():
        fail("~/.lldbinit has no hook")
    print("ok: links: run as root on another user's HOME, planted links are not followed; owner and "
          "mode kept")

    env.installer("--remove")   # also deletes ~/.gdbinit, which held only the hook
    os.unlink(lldb)
    os.symlink(victim, lldb)
    os.link(victim, env.path(".gdbinit"))
    out = env.installer(want=1)
    if read(victim) != b"root's file\n" or not os.path.islink(lldb):
        fail("the installer wrote through ~/.lldbinit, a link to root's file", out)
    if "symbolic link" not in out or "hard links" not in out:
        fail("the installer did not say it refused a link", out)
    print("ok: links: an init file that is a symbolic or hard link is refused and left alone")


def _package_copy(env, where):
    """The binding laid out as in a wheel (plugins inside the package, the
    library beside it) under `where`."""
    pkg = os.path.join(where, "jitunwind")
    shutil.copytree(os.path.join(env.binding, "jitunwind"), pkg,
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(os.path.join(env.src, "gdb-plugin"), os.path.join(pkg, "gdb-plugin"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.in"))
    shutil.copytree(os.path.join(env.src, "lldb-plugin"), os.path.join(pkg, "lldb-plugin"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(env.library, os.path.join(pkg, "libjitunwind.so.0"))
    return pkg


def case_system(env):
    if os.geteuid() != 0:
        print("ok: system: not tried (needs root, so that the package's files are root's)")
        return
    site = os.path.join(env.scratch, "site")
    os.mkdir(site, 0o755)
    pkg = _package_copy(env, site)
    gdbinit_d = os.path.join(env.scratch, "gdbinit.d")
    hook = os.path.join(gdbinit_d, "jitunwind.py")
    run = dict(PYTHONPATH=site, JITUNWIND_LIBRARY="")
    out = env.installer("--system", "--gdbinit-dir", gdbinit_d, **run)
    if not os.path.exists(hook) or "warning" in out:
        fail("--system from root's own files should write the hook without a warning", out)
    env.installer("--system", "--gdbinit-dir", gdbinit_d, "--remove", **run)
    for planted, why in ((os.path.join(pkg, "gdb-plugin", "jitunwind_gdb", "unwinder.py"), "owned by uid"),
                         (os.path.join(pkg, "libjitunwind.so.0"), "writable by others"),
                         (site, "writable by its group")):
        st = os.stat(planted)
        if why.startswith("owned"):
            os.chown(planted, OTHER_UID, OTHER_UID)
        else:
            os.chmod(planted, st.st_mode | (stat.S_IWOTH if "others" in why else stat.S_IWGRP))
        out = env.installer("--system", "--gdbinit-dir", gdbinit_d, want=1, **run)
        if os.path.exists(hook) or "%s is %s" % (planted, why) not in out or "--force" not in out:
            fail("--system must refuse, naming %s (%s)" % (planted, why), out)
        os.chown(planted, st.st_uid, st.st_gid)
        os.chmod(planted, stat.S_IMODE(st.st_mode))
    os.chown(pkg, OTHER_UID, OTHER_UID)
    out = env.installer("--system", "--gdbinit-dir", gdbinit_d, "--force", **run)
    if not os.path.exists(hook) or "warning (--force)" not in out:
        fail("--system --force must write the hook and warn", out)
    print("ok: system: refused when another user owns or may write what the hook loads (a plugin "
          "file, the library, a folder above); --force writes it with a warning")


def case_bytes(env):
    data = b"settings set prompt \"(\xff\xfe lldb) \"\n"
    lldb = env.write(".lldbinit", data)
    env.installer()
    text = read(lldb)
    if not text.startswith(data) or BEGIN.encode() not in text:
        fail("~/.lldbinit's own bytes were not kept: %r" % text)
    env.installer("--remove")
    if read(lldb) != data:
        fail("--remove did not give ~/.lldbinit back byte for byte: %r" % read(lldb))
    print("ok: bytes: a non-UTF-8 ~/.lldbinit is kept byte for byte, with no traceback")


def case_space(env):
    site = os.path.join(env.scratch, "site packages")
    os.mkdir(site)
    _package_copy(env, site)
    run = dict(PYTHONPATH=site, JITUNWIND_LIBRARY=env.library)
    env.installer(**run)
    # The init file the installer wrote, read alone (-nx): a system-wide hook
    # on this machine would load its own plugin first.
    out = env.gdb("-nx", "-x", env.path(".gdbinit"), "-ex", "help mixed-bt", "-ex",
                  "python import jitunwind_gdb; print('plugin in', jitunwind_gdb.__file__)",
                  JITUNWIND_HOOK_EAGER="1", **run)
    if "mixed" not in out or "Undefined command" in out or \
            "plugin in %s%s" % (site, os.sep) not in out:
        fail("gdb did not load the plugin from a path with a space", out)
    if shutil.which("lldb-19"):
        p = subprocess.run(["lldb-19", "-b", "-o", "help mixed-bt"], env=env.environ(**run),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
        if "not a known command" in p.stdout or "error:" in p.stdout:
            fail("lldb did not load the plugin from a path with a space", p.stdout)
    print("ok: space: gdb and lldb load the plugins from an install path with a space")


CASES = {"gdbinit": case_gdbinit, "block": case_block, "links": case_links, "system": case_system,
         "bytes": case_bytes, "space": case_space}


def main():
    build, src, wanted = sys.argv[1], sys.argv[2], sys.argv[3:] or list(CASES)
    if not os.path.exists(os.path.join(build, "libjitunwind", "libjitunwind.so")):
        print("SKIP: the library is not built")
        return 77
    for name in wanted:
        scratch = tempfile.mkdtemp(prefix="jitunwind-installer-")
        try:
            CASES[name](Env(build, src, scratch))
        finally:
            shutil.rmtree(scratch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
