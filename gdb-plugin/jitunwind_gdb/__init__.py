"""libjitunwind for GDB: an unwinder for JIT and trampoline ranges, a frame
filter for mixed native/Python backtraces, and py-bt style commands.

Load with `source <repo>/gdb-plugin/jitunwind-gdb.py`. All logic is in
libjitunwind, reached through the shared `jitunwind` Python binding."""

import gdb
import gdb.unwinder

import jitunwind as ju

from . import commands
from .frame_filter import MixedFrameFilter
from .state import TargetState
from .unwinder import JitUnwinder


class Plugin:
    def __init__(self):
        self._states = {}
        self._run_counter = 0  # changes whenever the inferior may have changed

    # The registry is re-read lazily once per stop: resuming bumps the counter,
    # so the first unwind after the next stop sees fresh tables.
    def _on_cont(self, _event):
        self._run_counter += 1

    def _on_new_objfile(self, _event):
        self._run_counter += 1
        try:
            state = self._states.get(gdb.selected_inferior().num)
            if state is not None:
                state.resolve_symbols()
            else:
                self._state(resolve=True)
        except Exception as exc:  # never raise into gdb
            print("jitunwind: %s" % exc)
        gdb.invalidate_cached_frames()

    def _on_exited(self, event):
        self._states.pop(getattr(event.inferior, "num", None), None)
        self._run_counter += 1

    def _state(self, resolve):
        inferior = gdb.selected_inferior()
        if inferior is None or (inferior.pid == 0 and not inferior.threads()):
            return None
        state = self._states.get(inferior.num)
        if state is None:
            if not resolve:
                return None
            state = TargetState(inferior)
            state.resolve_symbols()
            self._states[inferior.num] = state
        state.refresh(self._run_counter)
        return state

    def state_for_unwinder(self):
        """Never resolves symbols (unsafe while sniffing); reads memory only."""
        return self._state(resolve=False)

    def state_for_command(self):
        return self._state(resolve=True)

    def register(self):
        gdb.unwinder.register_unwinder(None, JitUnwinder(self), replace=True)
        gdb.frame_filters["jitunwind"] = MixedFrameFilter(self)
        commands.PyBt(self)
        commands.PyBtFull(self)
        commands.MixedBt(self)
        commands.InfoJitRanges(self)
        gdb.events.cont.connect(self._on_cont)
        gdb.events.new_objfile.connect(self._on_new_objfile)
        gdb.events.exited.connect(self._on_exited)
        # If a process or core is already there, read its tables now.
        try:
            if self._state(resolve=True) is not None:
                gdb.invalidate_cached_frames()
        except Exception as exc:
            print("jitunwind: %s" % exc)


_plugin = None


def register():
    global _plugin
    if _plugin is not None:
        return _plugin
    ju.library()  # fail early, with the paths tried, if the library is missing
    _plugin = Plugin()
    _plugin.register()
    return _plugin
