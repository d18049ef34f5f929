"""The system-wide gdb hook: one file in gdb's system init folder
(/etc/gdb/gdbinit.d on Debian) that every gdb on the machine runs.

It is written only when nobody but root can change what it loads
(system_trust), unless forced, with a warning."""

import os

from . import initfile, system_trust
from .hook_block import InitFile
from .initfile import Refused

FILE = "jitunwind.py"
_SHOWN_PROBLEMS = 8


def _where(folder):
    folder = os.path.abspath(folder)
    return os.path.dirname(folder), [os.path.basename(folder)], FILE


def _text(hook):
    return ("# Written by `python -m jitunwind install-debugger-hooks --system`;\n"
            "# `... --system --remove` deletes it. Loads nothing until gdb sees a CPython.\n"
            "with open(%r) as _f:\n"
            "    exec(compile(_f.read(), %r, 'exec'), {'__file__': %r, '__name__': 'jitunwind_hook'})\n"
            % (hook, hook, hook))


def remove(folder):
    with InitFile(_where(folder)) as f:
        if not f.exists:
            return ["unchanged %s (not there)" % f.shown]
        f.delete()
        return ["removed %s" % f.shown]


def write(folder, hook, loads, force):
    """Make the hook file run the lazy hook `hook`; `loads`: the files and
    folders whose code it runs. Raises Refused when others than root could
    change them and `force` is off."""
    notes = []
    others = system_trust.problems(loads)
    if others:
        listed = "; ".join(others[:_SHOWN_PROBLEMS])
        if len(others) > _SHOWN_PROBLEMS:
            listed += "; and %d more" % (len(others) - _SHOWN_PROBLEMS)
        why = "every gdb, root's too, would run code that others than root can change: " + listed
        if not force:
            raise Refused("--system refused: %s. Install jitunwind as root into folders only root "
                          "can write, or pass --force to write the hook anyway" % why)
        notes.append("warning (--force): " + why)
    base, parts, _ = _where(folder)
    os.close(initfile.open_folder(base, parts, create=True))
    with InitFile(_where(folder)) as f:
        text = _text(hook)
        if f.text == text:
            return notes + ["unchanged %s" % f.shown]
        f.write(text)
        return notes + ["wrote %s" % f.shown]
