"""libjitunwind for GDB: an unwinder for JIT and trampoline ranges, a frame
filter for mixed native/Python backtraces, and the shared commands
(jitunwind.ui.commands) adapted to gdb.

Load with `source <repo>/gdb-plugin/jitunwind-gdb.py`. All logic is in
libjitunwind and the shared `jitunwind` package; this package adapts gdb."""

import gdb
import gdb.unwinder

import jitunwind as ju

from . import jitview_commands, takeover
from .frame_filter import MixedFrameFilter
from .state import new_state
from .unwinder import JitUnwinder


class Plugin:
    def __init__(self):
        self._states = {}

    @staticmethod
    def _say(exc):
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print("jitunwind: %s" % text)

    # The registry is re-read lazily once per stop: resuming, or writing the
    # target's memory (`set var`), marks every state stale.
    def _invalidate(self, _event=None, reread=False):
        for state in self._states.values():
            state.invalidate(reread)

    def _on_new_objfile(self, _event):
        try:
            state = self._states.get(gdb.selected_inferior().num)
            if state is not None:
                state.resolve()
            else:
                self._state(resolve=True)
        except Exception as exc:  # never raise into gdb
            self._say(exc)
        gdb.invalidate_cached_frames()

    def _on_memory_changed(self, _event):
        self._invalidate(reread=True)
        gdb.invalidate_cached_frames()

    def _on_exited(self, event):
        self._states.pop(getattr(event.inferior, "num", None), None)

    def _state(self, resolve):
        inferior = gdb.selected_inferior()
        if inferior is None or (inferior.pid == 0 and not inferior.threads()):
            return None
        state = self._states.get(inferior.num)
        if state is None:
            if not resolve:
                return None
            state = new_state(inferior)
            state.resolve()
            self._states[inferior.num] = state
        state.refresh()
        return state

    def state_for_unwinder(self):
        """Never resolves symbols (unsafe while sniffing); reads memory only."""
        return self._state(resolve=False)

    def state_for_command(self):
        return self._state(resolve=True)

    def register(self):
        gdb.unwinder.register_unwinder(None, JitUnwinder(self), replace=True)
        gdb.frame_filters["jitunwind"] = MixedFrameFilter(self)
        takeover.register(self)
        jitview_commands.register(self)
        gdb.events.cont.connect(self._invalidate)
        gdb.events.new_objfile.connect(self._on_new_objfile)
        gdb.events.exited.connect(self._on_exited)
        gdb.events.memory_changed.connect(self._on_memory_changed)
        # If a process or core is already there, read its tables now.
        try:
            if self._state(resolve=True) is not None:
                gdb.invalidate_cached_frames()
        except Exception as exc:
            self._say(exc)


_plugin = None


def register():
    global _plugin
    if _plugin is not None:
        return _plugin
    ju.library()  # fail early, with the paths tried, if the library is missing
    for note in ju.load_notes():
        print("jitunwind: %s" % note)
    _plugin = Plugin()
    _plugin.register()
    return _plugin
