"""py-locals, py-print, py-up, py-down and py-list (jitunwind.ui.values) as
LLDB commands, one class per Spec (LLDB resolves `command script add -c`
classes by name). py-up/py-down select LLDB's frame for the eval loop
that runs the Python frame: the library's native walk (which goes through
JIT code) is matched to LLDB's frames by pc and stack pointer."""

from jitunwind.ui import values as shared

from . import provider
from .commands import LldbSession, command_class
from .walk import match_frame


class LldbValuesSession(LldbSession, shared.ValuesSession):
    def selected_native(self, thread, natives):
        frame = thread.thread.GetSelectedFrame()
        for i, n in enumerate(natives):
            if n.pc == frame.GetPC() and (n.sp is None or n.sp == frame.GetSP()):
                return i
        for i, n in enumerate(natives):
            if n.sp is not None and n.sp == frame.GetSP() and n.symbol and \
                    n.symbol == frame.GetFunctionName():
                return i
        return 0

    def select_native(self, thread, natives, index):
        found = match_frame(thread.thread, natives, index)
        if found is None:
            return False
        thread.thread.SetSelectedFrame(found)
        return True

    def selected_python(self, thread):
        selected = thread.thread.GetSelectedFrame().GetFrameID()
        listed = provider.python_frame_ids(thread.thread)
        return listed.index(selected) if selected in listed else None

    def select_python(self, thread, index):
        listed = provider.python_frame_ids(thread.thread)
        if index >= len(listed):
            return False
        thread.thread.SetSelectedFrame(listed[index])
        return True


CLASSES = [command_class(spec, run, LldbValuesSession, shared.invoke)
           for spec, run in shared.COMMANDS]
globals().update((cls.__name__, cls) for cls in CLASSES)


def register(debugger, package):
    for cls in CLASSES:
        debugger.HandleCommand("command script add -o -c %s.values.%s %s"
                               % (package, cls.__name__, cls.NAME))
