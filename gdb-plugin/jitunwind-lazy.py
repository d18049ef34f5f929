# The jitunwind hook for gdb's init files (/etc/gdb/gdbinit.d, ~/.config/gdb/gdbinit).
#
# It costs nothing until gdb sees a CPython interpreter: it only watches new
# object files, and the first time one is a Python executable or libpython
# (python3.11, python3.14d, libpython3.12.so.1.0, ...) it sources the plugin
# beside it (jitunwind-gdb.py) there and then, then stops watching. A gdb
# session that never sees a Python process loads nothing.
# JITUNWIND_HOOK_EAGER=1 loads at once.
#
# Loaded in the observer, not deferred with gdb.post_event: gdb -batch runs
# its -ex commands and exits without running posted events, so the plugin
# would miss every command, and gdb 13 crashes at exit destroying the
# pending event (its destructor takes the GIL of a Python already finalized).
# The plugin takes back the commands libpython's auto-load script defines
# after this observer (jitunwind_gdb.takeover).
import os
import re

import gdb

_LOADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jitunwind-gdb.py")
_PYTHON_FILE = re.compile(r"^(lib)?python3\.\d+[a-z]*(\.so(\.[0-9.]+)?)?$")


def _jitunwind_hook_load():
    try:
        gdb.execute("source %s" % _LOADER, to_string=False)
    except gdb.error as exc:  # never raise into gdb
        print("jitunwind: plugin not loaded from %s: %s" % (_LOADER, exc))


def _jitunwind_hook_on_objfile(event):
    name = os.path.basename(getattr(event.new_objfile, "filename", None) or "")
    if _PYTHON_FILE.match(name):
        gdb.events.new_objfile.disconnect(_jitunwind_hook_on_objfile)
        _jitunwind_hook_load()


if not getattr(gdb, "_jitunwind_hook_installed", False):
    gdb._jitunwind_hook_installed = True
    gdb.events.new_objfile.connect(_jitunwind_hook_on_objfile)
    if os.environ.get("JITUNWIND_HOOK_EAGER") == "1":
        gdb.events.new_objfile.disconnect(_jitunwind_hook_on_objfile)
        _jitunwind_hook_load()
