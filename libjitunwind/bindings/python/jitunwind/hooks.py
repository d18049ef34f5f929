"""Tell gdb and lldb about an installed libjitunwind (`python -m jitunwind`).

The hooks are init-file lines that load the plugins from wherever this
package is installed (a wheel, `cmake --install`, or the source tree). They
are written idempotently between marker lines, so running the installer
twice changes nothing and `--remove` takes exactly them out again.

gdb reads one home init file: $XDG_CONFIG_HOME/gdb/gdbinit (by default
~/.config/gdb/gdbinit) when it exists, else ~/.gdbinit. The gdb hook goes in
the one it reads, and a file of the first kind is never created: it would hide
~/.gdbinit from gdb for good.
"""

import os

from . import system_hook
from .hook_block import InitFile
from .initfile import Refused

SYSTEM_GDB_DIR = "/etc/gdb/gdbinit.d"   # Debian's gdb: --with-system-gdbinit-dir
SYSTEM_GDB_FILE = system_hook.FILE

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
    # gdb's `source` takes the rest of the line as the name, spaces included.
    return "source %s" % _one_line(gdb_hook_script())


def lldb_line():
    # LLDB splits its arguments at spaces unless quoted; within double
    # quotes a backslash escapes `"` and itself.
    path = _one_line(lldb_plugin_dir()).replace("\\", "\\\\").replace('"', '\\"')
    return 'command script import "%s"' % path


def _one_line(path):
    if "\n" in path or "\r" in path:
        raise Refused("the install path %r has a line break, which no init file line can hold"
                      % path)
    return path


def _home():
    return os.path.expanduser("~")


def gdb_config_init():
    """(folder, parts, name) of gdb's XDG-style home init file."""
    config = os.environ.get("XDG_CONFIG_HOME")
    if config:
        return os.path.abspath(config), ["gdb"], "gdbinit"
    return _home(), [".config", "gdb"], "gdbinit"


def gdb_home_init():
    return _home(), [], ".gdbinit"


def lldb_init():
    return _home(), [], ".lldbinit"


def _take_out(where):
    with InitFile(where) as f:
        done = f.take_out()
    return [done] if done else []


def _gdb_user():
    with InitFile(gdb_config_init()) as cfg, InitFile(gdb_home_init()) as dot:
        if not cfg.exists:
            return [dot.put(gdb_line())]
        rest, count = cfg.rest()
        if dot.exists and count and not rest.strip():
            # Nothing of the user's is in it, and it hides ~/.gdbinit: the hook moves.
            done = dot.put(gdb_line())
            cfg.delete()
            return [done, "removed %s: it held only the hook and kept gdb from reading %s"
                    % (cfg.shown, dot.shown)]
        done = [cfg.put(gdb_line())]
        if dot.exists:
            done.append("note: gdb reads %s, and so not %s (it reads only the first of the two "
                        "that exists)" % (cfg.shown, dot.shown))
        return done


def _lldb_user():
    with InitFile(lldb_init()) as f:
        return [f.put(lldb_line())]


def _system_hook_loads():
    """The files and folders whose code the system hook runs: the gdb plugin,
    this package, the library it would load and a wheel's vendored libraries."""
    from . import _ffi
    roots = [os.path.dirname(gdb_hook_script()), _HERE]
    library = next((path for path, chosen in _ffi._candidates()
                    if not chosen and os.path.isabs(path) and os.path.exists(path)), None)
    if library:
        roots.append(library)
    vendored = os.path.join(os.path.dirname(_HERE), "jitunwind.libs")
    if os.path.isdir(vendored):
        roots.append(vendored)
    return roots


def install(scope="user", remove=False, gdbinit_dir=SYSTEM_GDB_DIR, force=False):
    """Write (or remove) the hooks; (lines to print, refusals). A refused
    file is left as it was; the others are still done."""
    if scope == "system":
        steps = [lambda: (system_hook.remove(gdbinit_dir) if remove else system_hook.write(
            gdbinit_dir, gdb_hook_script(), _system_hook_loads(), force))]
    elif remove:
        steps = [lambda where=where: _take_out(where)
                 for where in (gdb_config_init(), gdb_home_init(), lldb_init())]
    else:
        steps = [_gdb_user, _lldb_user]
    lines, refused = [], []
    for step in steps:
        try:
            lines.extend(step())
        except Refused as exc:
            refused.append(str(exc))
    if scope == "system":
        lines.append("lldb has no system-wide init file: use --user for lldb")
    return lines, refused
