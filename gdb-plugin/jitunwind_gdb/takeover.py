"""Every shared command (jitunwind.ui.commands and jitunwind.ui.values) as a
gdb command, kept ours when CPython's libpython.py defines the same names.

libpython.py (auto-loaded by Debian's python3-dbg with its interpreter)
defines py-bt, py-bt-full, py-locals, py-print, py-up, py-down and py-list.
Whichever is loaded first, ours win: names already taken when the plugin
registers are replaced, and names libpython takes later (it is auto-loaded
with its interpreter's objfile, after the new_objfile observers ran) are
taken back as soon as its script has run (script_watch), at the next new
objfile and before the next prompt. One note,
once per session, names what was replaced; libpython's PyObject* pretty
printer is not a command and keeps working."""

import gdb

from jitunwind.ui import commands as shared_commands
from jitunwind.ui import session as shared_session
from jitunwind.ui import values as shared_values

from . import script_watch
from .commands import GdbSession, command_class
from .values import GdbValuesSession

_noted = []


def ours():
    """(spec, run, session class, invoke) of every command we own."""
    return ([(spec, run, GdbSession, shared_session.invoke)
             for spec, run in shared_commands.COMMANDS] +
            [(spec, run, GdbValuesSession, shared_values.invoke)
             for spec, run in shared_values.COMMANDS])


def _defined(spec):
    """Is `spec`'s name a gdb command? Asked through `complete`, which never
    fails: a failing `help` of an unknown name, run while gdb loads the
    plugin from a new objfile (auto-load), loses the stop it was handling."""
    lines = gdb.execute("complete %s" % spec.gdb_name, to_string=True).splitlines()
    return spec.gdb_name in lines


def _is_ours(spec):
    """Our command class's help starts with the spec's summary."""
    if not _defined(spec):
        return False
    try:
        text = gdb.execute("help %s" % spec.gdb_name, to_string=True)
    except gdb.error:
        return False
    return text.strip().startswith(spec.summary)


def note_text(replaced):
    return ("jitunwind: %s now use libjitunwind (libpython's versions are replaced; its "
            "PyObject* pretty printer still works)" % ", ".join(replaced))


def _install(plugin, commands, replaced):
    for spec, run, session_class, invoke in commands:
        command_class(spec, run, session_class, invoke)(plugin)
    if replaced and not _noted:
        _noted.append(True)
        print(note_text(replaced))


def _reclaim(plugin):
    """Take back every name another script redefined since we installed it."""
    try:
        lost = [c for c in ours() if not _is_ours(c[0])]
        if lost:
            _install(plugin, lost, [c[0].gdb_name for c in lost])
    except Exception as exc:  # never raise into gdb
        print("jitunwind: %s" % (str(exc).splitlines()[0] if str(exc) else type(exc).__name__))


def register(plugin):
    commands = ours()
    taken = [c[0].gdb_name for c in commands if _defined(c[0])]
    _install(plugin, commands, taken)
    pending = []
    script_watch.on_scripts_run(lambda: _reclaim(plugin))
    script_watch.watch(gdb.objfiles(), loaded=True)

    def on_new_objfile(event):
        pending[:] = [True]
        _reclaim(plugin)
        script_watch.watch([event.new_objfile])

    def before_prompt():
        script_watch.stop()
        if pending:
            del pending[:]
            _reclaim(plugin)
    gdb.events.new_objfile.connect(on_new_objfile)
    gdb.events.before_prompt.connect(before_prompt)
