"""A call back once gdb has run the auto-load scripts it still owes.

gdb runs an object file's `<file>-gdb.py` (CPython's libpython.py, for one)
after every new_objfile observer, and for a program, core or process named on
its command line only once all of them are read, right before the first -ex
command: no gdb event follows that. So while such a script is due, a profile
function waits for the end of its top-level frame. It is set only then, and
removed once every due script has run, or at the next prompt (gdb declined
one, or runs it later)."""

import fnmatch
import os
import sys

import gdb

_due = set()
_callbacks = []


def _dirs(parameter):
    """The folders of a colon-separated auto-load path, $debugdir and $datadir
    expanded as gdb does."""
    value = gdb.parameter(parameter) or ""
    debug = (gdb.parameter("debug-file-directory") or "").split(":")
    data = gdb.parameter("data-directory") or ""
    out = []
    for entry in value.split(":"):
        if "$debugdir" in entry:
            out.extend(entry.replace("$debugdir", d) for d in debug if d)
        elif entry:
            out.append(entry.replace("$datadir", data))
    return out


def _script_for(objfile):
    """The `-gdb.py` file gdb runs for `objfile`: beside its real path, else
    the first under `auto-load scripts-directory`; None when there is none."""
    name = getattr(objfile, "filename", None)
    if not name or not os.path.isabs(name):
        return None
    real = os.path.realpath(name)
    for candidate in [real + "-gdb.py"] + [d + real + "-gdb.py"
                                           for d in _dirs("auto-load scripts-directory")]:
        if os.path.isfile(candidate):
            return candidate
    return None


def _safe(path):
    """Would `auto-load safe-path` let gdb run `path`? A pattern may match the
    file or any folder above it."""
    patterns = _dirs("auto-load safe-path")
    for name in {path, os.path.realpath(path)}:
        while True:
            if any(p == "/" or fnmatch.fnmatchcase(name, p) for p in patterns):
                return True
            parent = os.path.dirname(name)
            if parent == name:
                break
            name = parent
    return False


def _already_run():
    """The scripts `info auto-load python-scripts` lists (run or declined)."""
    listed = gdb.execute("info auto-load python-scripts", to_string=True).splitlines()[1:]
    return {line.split(None, 1)[1].strip() for line in listed if len(line.split(None, 1)) == 2}


def _profile(frame, event, _arg):
    if event != "return" or frame.f_back is not None or frame.f_code.co_filename not in _due:
        return
    _due.discard(frame.f_code.co_filename)
    if not _due:
        stop()
    for callback in _callbacks:
        try:
            callback()
        except Exception as exc:  # never raise into the script gdb is running
            print("jitunwind: %s" % (str(exc).splitlines()[0] if str(exc) else type(exc).__name__))


def stop():
    _due.clear()
    if sys.getprofile() is _profile:
        sys.setprofile(None)


def on_scripts_run(callback):
    """Call `callback` each time a due auto-load script has run."""
    if callback not in _callbacks:
        _callbacks.append(callback)


def watch(objfiles, loaded=False):
    """Wait for the auto-load scripts of `objfiles` that gdb will run;
    `loaded`: the object files may have been read before, so that scripts gdb
    already ran or declined are left out. Another profiler keeps the watch off."""
    if not gdb.parameter("auto-load python-scripts"):
        return
    done = _already_run() if loaded else set()
    for objfile in objfiles:
        script = _script_for(objfile)
        if script and script not in done and _safe(script):
            _due.add(script)
    if _due and sys.getprofile() in (None, _profile):
        sys.setprofile(_profile)
