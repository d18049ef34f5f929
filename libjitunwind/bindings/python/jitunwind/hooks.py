"""Tell gdb and lldb about an installed libjitunwind (`python -m jitunwind`).

The hooks are init-file lines that load the plugins from wherever this
package is installed (a wheel, `cmake --install`, or the source tree). They
are written idempotently between marker lines, so running the installer
twice changes nothing and `--remove` takes exactly them out again.
"""

import os

BEGIN = "# >>> jitunwind hook >>>"
END = "# <<< jitunwind hook <<<"
SYSTEM_GDB_DIR = "/etc/gdb/gdbinit.d"   # Debian's gdb: --with-system-gdbinit-dir
SYSTEM_GDB_FILE = "jitunwind.py"

_HERE = os.path.dirname(os.path.abspath(__file__))


def _first_existing(candidates, what):
    for path in candidates:
        path = os.path.normpath(path)
        if os.path.exists(path):
            return path
    raise FileNotFoundError("jitunwind: no %s found; looked in %s" % (what, ", ".join(
        os.path.normpath(c) for c in candidates)))


def _plugin_file(folder, name, what):
    """`folder/name` in a wheel (<pkg>/folder), installed by CMake
    (<prefix>/share/jitunwind/python/jitunwind -> ../../folder) or in the
    source tree (<repo>/libjitunwind/bindings/python/jitunwind)."""
    return _first_existing([os.path.join(_HERE, folder, name),
                            os.path.join(_HERE, "..", "..", folder, name),
                            os.path.join(_HERE, "..", "..", "..", "..", folder, name)],
                           "%s (%s)" % (what, name))


def gdb_hook_script():
    """The lazy gdb hook script."""
    return _plugin_file("gdb-plugin", "jitunwind-lazy.py", "gdb hook")


def lldb_plugin_dir():
    return _plugin_file("lldb-plugin", "jitunwind_lldb", "lldb plugin")


def gdb_line():
    return "source %s" % gdb_hook_script()


def lldb_line():
    return "command script import %s" % lldb_plugin_dir()


def user_gdbinit():
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(config, "gdb", "gdbinit")


def user_lldbinit():
    return os.path.join(os.path.expanduser("~"), ".lldbinit")


def _without_block(text):
    """`text` with our marked block (if any) taken out."""
    out, inside = [], False
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped == BEGIN:
            inside = True
            continue
        if stripped == END and inside:
            inside = False
            continue
        if not inside:
            out.append(line)
    return "".join(out)


def _edit_init_file(path, line, remove):
    """Put `line` in our block at the end of the init file `path` (or take the
    block out); returns what was done, for one line of output."""
    old = ""
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
    new = _without_block(old)
    if not remove:
        if new and not new.endswith("\n"):
            new += "\n"
        new += "%s\n%s\n%s\n" % (BEGIN, line, END)
    if new == old:
        return "unchanged %s" % path
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".jitunwind-tmp"
    with open(tmp, "w") as f:
        f.write(new)
    os.replace(tmp, path)
    return ("removed the hook from %s" if remove else "wrote the hook to %s") % path


def _system_gdb_file(gdbinit_dir, remove):
    path = os.path.join(gdbinit_dir, SYSTEM_GDB_FILE)
    if remove:
        if os.path.exists(path):
            os.unlink(path)
            return "removed %s" % path
        return "unchanged %s (not there)" % path
    hook = gdb_hook_script()
    text = ("# Written by `python -m jitunwind install-debugger-hooks --system`;\n"
            "# `... --system --remove` deletes it. Loads nothing until gdb sees a CPython.\n"
            "with open(%r) as _f:\n"
            "    exec(compile(_f.read(), %r, 'exec'), {'__file__': %r, '__name__': 'jitunwind_hook'})\n"
            % (hook, hook, hook))
    if os.path.exists(path):
        with open(path) as f:
            if f.read() == text:
                return "unchanged %s" % path
    os.makedirs(gdbinit_dir, exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return "wrote %s" % path


def install(scope="user", remove=False, gdbinit_dir=SYSTEM_GDB_DIR):
    """Write (or remove) the hooks; returns the lines to print."""
    if scope == "system":
        return [_system_gdb_file(gdbinit_dir, remove),
                "lldb has no system-wide init file: use --user for lldb"]
    return [_edit_init_file(user_gdbinit(), gdb_line(), remove),
            _edit_init_file(user_lldbinit(), lldb_line(), remove)]
