# Load the libjitunwind GDB plugin:  (gdb) source /path/to/gdb-plugin/jitunwind-gdb.py
# It finds its package and the shared Python binding next to it (source tree or
# installed layout) and registers the unwinder, the frame filter and the commands.
import os
import sys

# gdb's `source` sets __file__ in its shared __main__ only when it is unset, so
# a file sourced while another script runs (the system hook's eager load, a
# user's script that opens a Python executable) sees that script's __file__.
# The code object's own file name is always this file.
_here = os.path.dirname(os.path.abspath(sys._getframe(0).f_code.co_filename))
for _path in (_here,
              os.path.join(_here, "..", "libjitunwind", "bindings", "python"),  # source tree
              os.path.join(_here, "..", "python"),                               # installed
              os.path.join(_here, "..", "..")):                                  # in a wheel
    _path = os.path.normpath(_path)
    if _path != _here and not os.path.exists(os.path.join(_path, "jitunwind", "__init__.py")):
        continue
    if os.path.isdir(_path) and _path not in sys.path:
        sys.path.insert(0, _path)
        if _path != _here:
            break

try:
    import jitunwind_gdb
    jitunwind_gdb.register()
except Exception as _exc:  # never raise into gdb
    print("jitunwind: plugin not loaded: %s" % _exc)
