"""Source lines of the files a target names (a code object's co_filename),
read under the library's policy for such paths (docs/usage.md, "Files the
library opens"; C side: src/base/host_files.c): a FIFO, a device, a socket
or a directory planted there must not hang the debugger or feed it endless
data. Only a regular file is read, opened non-blocking, at most MAX_BYTES
of it; anything else gives no lines and a reason. Like linecache, lines
are cached per path, and re-read when the file's identity, size or mtime
changes."""

import io
import os
import stat
import tokenize

MAX_BYTES = 4 << 20   # lines past the first 4 MiB of a file are not read
MAX_FILES = 64        # files whose lines are kept

_cache = {}  # path -> (identity, SourceFile)


class SourceFile:
    """`lines`: the file's lines without their ends (a line cut by the size
    cap is dropped); `truncated`: the file is larger than MAX_BYTES;
    `refused`: why nothing was read ("a FIFO", "No such file or directory"),
    or None."""
    __slots__ = ("lines", "truncated", "refused")

    def __init__(self, lines=(), truncated=False, refused=None):
        self.lines, self.truncated, self.refused = list(lines), truncated, refused

    def line(self, number):
        """Line `number` (1-based), or None when the file has no such line
        (or it lies past the size cap)."""
        if 1 <= number <= len(self.lines):
            return self.lines[number - 1]
        return None


def file_type(mode):
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def _identity(st):
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _decode(data):
    """Text lines as Python reads source: its coding cookie or BOM, else
    UTF-8; undecodable bytes are replaced; \\r\\n and \\r end lines too."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        encoding = "utf-8"
    try:
        text = data.decode(encoding, "replace")
    except LookupError:
        text = data.decode("utf-8", "replace")
    return io.StringIO(text, newline=None).read().split("\n")


def _read(path, st):
    """The lines of the regular file `path` that stat() described as `st`."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        return SourceFile(refused=exc.strerror or str(exc)), None
    try:
        # the path may have been replaced between stat() and open()
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return SourceFile(refused=file_type(st.st_mode)), None
        chunks, size = [], 0
        while size <= MAX_BYTES:
            chunk = os.read(fd, min(1 << 20, MAX_BYTES + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        return SourceFile(refused=exc.strerror or str(exc)), None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    truncated = len(data) > MAX_BYTES
    if truncated:
        data = data[:data.rfind(b"\n", 0, MAX_BYTES) + 1]  # whole lines only
    lines = _decode(data)
    if lines and lines[-1] == "":
        lines.pop()  # the text after the last line end
    return SourceFile(lines, truncated), _identity(st)


def source_file(path):
    """The SourceFile for `path` (refused when it is not a regular file);
    never raises, never blocks on a FIFO or a device."""
    if not path or (path.startswith("<") and path.endswith(">")):
        return SourceFile(refused="not a file name")
    try:
        st = os.stat(path)
    except (OSError, ValueError) as exc:
        return SourceFile(refused=getattr(exc, "strerror", None) or str(exc))
    if not stat.S_ISREG(st.st_mode):  # refused before opening: a device's open() may act
        _cache.pop(path, None)
        return SourceFile(refused=file_type(st.st_mode))
    cached = _cache.get(path)
    if cached is not None and cached[0] == _identity(st):
        return cached[1]
    result, identity = _read(path, st)
    _cache.pop(path, None)
    if identity is not None:
        while len(_cache) >= MAX_FILES:
            del _cache[next(iter(_cache))]
        _cache[path] = (identity, result)
    return result


def source_line(path, number):
    """Line `number` of `path`, or None (refused, unreadable, no such line)."""
    return source_file(path).line(number) if number > 0 else None
