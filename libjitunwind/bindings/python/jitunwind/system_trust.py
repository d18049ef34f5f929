"""Who besides root could change what the system-wide gdb hook loads.

Every gdb on the machine, root's too, runs the hook, which loads the plugin's
Python files and libjitunwind from where the package is installed. A file
there, or a folder on the way to it, that another user owns or that its group
or anyone may write lets that user run code in root's gdb. Sticky folders
(/tmp) are allowed on the way: others cannot replace root's entries in them.
Access control lists are not read."""

import os
import stat

_MAX_ENTRIES = 20000   # a package is a few hundred files; a larger tree is not ours


def _problem(path, st, on_the_way):
    if st.st_uid != 0:
        return "%s is owned by uid %d" % (path, st.st_uid)
    writable = st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    if writable and not (on_the_way and stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX):
        return "%s is writable by %s" % (path, "its group" if writable == stat.S_IWGRP else "others")
    return None


def _ancestors(path):
    """The folders from / down to `path`'s parent."""
    out = []
    parent = os.path.dirname(path)
    while True:
        out.append(parent)
        up = os.path.dirname(parent)
        if up == parent:
            break
        parent = up
    return reversed(out)


def problems(roots):
    """What others than root could change among `roots` (files or folders,
    each with everything below it) and the folders above them; [] when none."""
    found, seen, count = [], set(), 0

    def check(path, on_the_way):
        if path in seen:
            return
        seen.add(path)
        try:
            why = _problem(path, os.stat(path), on_the_way)
        except OSError as exc:
            why = "%s: %s" % (path, exc.strerror)
        if why:
            found.append(why)

    for root in roots:
        root = os.path.realpath(root)
        for folder in _ancestors(root):
            check(folder, True)
        check(root, False)
        if not os.path.isdir(root):
            continue
        for folder, dirs, files in os.walk(root):
            for name in dirs + files:
                count += 1
                if count > _MAX_ENTRIES:
                    found.append("%s holds more than %d files: not checked further" % (root, _MAX_ENTRIES))
                    return found
                path = os.path.join(folder, name)
                check(path, False)
                if os.path.islink(path):
                    real = os.path.realpath(path)
                    for up in _ancestors(real):
                        check(up, True)
                    check(real, False)
    return found
