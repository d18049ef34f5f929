"""Our marked block in one debugger init file: the lines from BEGIN to END.

Only complete blocks are taken out; a BEGIN without its END leaves the file
as it is (the lines after it may be the user's). A file that held nothing but
the block is deleted with it. The file is read and replaced through initfile
(no link followed, owner and mode kept, any bytes kept as they were)."""

import os

from . import initfile
from .initfile import Refused

BEGIN = "# >>> jitunwind hook >>>"
END = "# <<< jitunwind hook <<<"


def without_blocks(text, shown):
    """(`text` without our complete blocks, how many were taken out). A
    begin marker without its end marker raises Refused, naming `shown`."""
    out, block, count = [], None, 0
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        stripped = line.strip()
        if block is None and stripped == BEGIN:
            block = number
        elif block is not None and stripped == END:
            block, count = None, count + 1
        elif block is None:
            out.append(line)
    if block is not None:
        raise Refused("%s: line %d opens a jitunwind block (%s) that has no end marker (%s): left "
                      "unchanged, since the lines after it may be yours; end or delete the block "
                      "by hand" % (shown, block, BEGIN, END))
    return "".join(out), count


class InitFile:
    """One init file, `where` = (folder, [subfolders], name), open for
    editing as a context manager; `text` is None when it does not exist."""

    def __init__(self, where):
        base, parts, self.name = where
        self.shown = os.path.join(base, *parts, self.name)
        self.folder = initfile.open_folder(base, parts)
        self.text, self.stat = (initfile.read(self.folder, self.name, self.shown)
                                if self.folder is not None else (None, None))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.folder is not None:
            os.close(self.folder)

    @property
    def exists(self):
        return self.text is not None

    def rest(self):
        """(the text without our blocks, how many there were)."""
        return without_blocks(self.text or "", self.shown)

    def write(self, text):
        if self.folder is None:
            raise Refused("%s: its folder does not exist" % self.shown)
        initfile.replace(self.folder, self.name, text, self.stat)

    def delete(self):
        initfile.remove(self.folder, self.name)

    def put(self, line):
        """Our block with `line` at the end of the file, once; what was done."""
        rest, _ = self.rest()
        if rest and not rest.endswith("\n"):
            rest += "\n"
        new = rest + "%s\n%s\n%s\n" % (BEGIN, line, END)
        if new == self.text:
            return "unchanged %s" % self.shown
        self.write(new)
        return "wrote the hook to %s" % self.shown

    def take_out(self):
        """Our blocks out of the file; what was done, None when there is no file."""
        if not self.exists:
            return None
        rest, count = self.rest()
        if not count:
            return "unchanged %s (no hook in it)" % self.shown
        if rest.strip():
            self.write(rest)
            return "removed the hook from %s" % self.shown
        self.delete()
        return "removed the hook from %s, and the file, which held nothing else" % self.shown
