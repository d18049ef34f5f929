"""The gdb session of py-locals, py-print, py-up, py-down and py-list
(jitunwind.ui.values): the debugger's selected frame. takeover.py registers
the commands (and keeps them ours when libpython.py defines them too)."""

import gdb

from jitunwind.ui import values as shared

from .commands import GdbSession


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

