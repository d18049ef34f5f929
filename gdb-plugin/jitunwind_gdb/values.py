"""py-locals, py-print, py-up, py-down and py-list (jitunwind.ui.values) as
gdb commands. If libpython's commands of the same names are loaded
(Debian's python3-dbg auto-loads libpython.py), ours replace them with a
one-time note; libpython's other commands keep working."""

import gdb

from jitunwind.ui import values as shared

from .commands import GdbSession, _command_class

_noted = []


class GdbValuesSession(GdbSession, shared.ValuesSession):
    def selected_native(self, thread, natives):
        try:
            selected = gdb.selected_frame()
        except gdb.error:
            return 0
        index, frame = 0, gdb.newest_frame()
        while frame is not None and index < len(natives):
            if frame == selected:
                return index
            frame, index = frame.older(), index + 1
        return 0

    def select_native(self, thread, natives, index):
        frame = gdb.newest_frame()
        for _ in range(index):
            frame = frame.older() if frame is not None else None
        if frame is None or frame.pc() != natives[index].pc:
            return False
        frame.select()
        return True


def _ours(spec):
    """Is `spec`'s name gdb's command of ours (its help starts with our summary)?"""
    try:
        text = gdb.execute("help %s" % spec.gdb_name, to_string=True)
    except gdb.error:
        return False
    return text.strip().startswith(spec.summary)


def _defined(spec):
    try:
        gdb.execute("help %s" % spec.gdb_name, to_string=True)
    except gdb.error:
        return False
    return True


def _install(plugin, specs_runs, replaced):
    for spec, run in specs_runs:
        _command_class(spec, run, GdbValuesSession, shared.invoke)(plugin)
    if replaced and not _noted:
        _noted.append(True)
        print("jitunwind: %s now use libjitunwind (libpython's versions are replaced; its "
              "other commands still work)" % ", ".join(replaced))


def _reclaim(plugin):
    """libpython.py auto-loaded after us (with its interpreter) defines the
    same names again: take them back."""
    try:
        lost = [(spec, run) for spec, run in shared.COMMANDS if not _ours(spec)]
        if lost:
            _install(plugin, lost, [spec.gdb_name for spec, _ in lost])
    except Exception as exc:  # never raise into gdb
        print("jitunwind: %s" % (str(exc).splitlines()[0] if str(exc) else type(exc).__name__))


def register(plugin):
    taken = [spec.gdb_name for spec, _ in shared.COMMANDS if _defined(spec)]
    _install(plugin, shared.COMMANDS, taken)
    # libpython.py is auto-loaded with its interpreter's objfile, after the
    # new_objfile observers have run: look then, and again before the next
    # prompt (a batch run whose plugin is loaded first keeps libpython's)
    pending = []

    def on_new_objfile(_event):
        pending[:] = [True]
        _reclaim(plugin)

    def before_prompt():
        if pending:
            del pending[:]
            _reclaim(plugin)
    gdb.events.new_objfile.connect(on_new_objfile)
    gdb.events.before_prompt.connect(before_prompt)
