"""libjitunwind for LLDB: py-bt, mixed-bt and jit-ranges commands, a frame
recognizer on eval-loop frames, and a scripted frame provider where the LLDB
has them (22+). All logic is in libjitunwind, through the shared `jitunwind`
binding; this package only adapts LLDB's registers, memory and modules.

Load with:  command script import /path/to/lldb-plugin/jitunwind_lldb
"""

import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
for _path in (os.path.join(_here, "..", "..", "libjitunwind", "bindings", "python"),  # source tree
              os.path.join(_here, "..", "..", "python"),                              # installed
              os.path.join(_here, "..", "..", "..")):                                 # in a wheel
    _path = os.path.normpath(_path)
    if os.path.exists(os.path.join(_path, "jitunwind", "__init__.py")):
        if _path not in sys.path:
            sys.path.insert(0, _path)
        break



def __lldb_init_module(debugger, internal_dict):
    try:
        import jitunwind
        jitunwind.library()  # fail early, with the paths tried
        for note in jitunwind.load_notes():
            print("jitunwind: %s" % note)
        from . import commands, provider, recognizer, values  # noqa: F401 (lldb resolves classes by name)
        from . import images, jitview_commands
        if not provider.available():  # LLDB 19-21: before the eval-loop recognizer
            images.register_first_frame(debugger, __name__)
        commands.register(debugger, __name__)
        jitview_commands.register(debugger, __name__)
        values.register(debugger, __name__)
        provider.register_if_available(debugger, __name__)
        # LLDB 19-21: stock bt through an ELF image of the ranges
        images.register(debugger, __name__, stop_hook=not provider.available())
    except Exception as exc:  # never raise into lldb
        print("jitunwind: plugin not loaded: %s" % exc)
