"""A debugger init file, read and replaced without trusting its folder.

The installer may run as root on another user's HOME, whose owner can plant
links and names there. So every file is reached through a folder descriptor
opened one part at a time (as root, without following a symbolic link); the
file is read with O_NOFOLLOW and must be a regular file with no other hard
link; a new version is written to a fresh temporary name (O_EXCL, random) in
the same folder and renamed over the old one, keeping its owner and mode (a
new file gets the folder owner's and the umask's). The text is kept byte for
byte, whatever its encoding (undecodable bytes pass through as surrogates)."""

import errno
import os
import secrets
import stat

_ENCODING = "utf-8"
_ERRORS = "surrogateescape"


class Refused(Exception):
    """The file was left as it was; str() says why."""


def open_folder(base, parts, create=False):
    """A descriptor of base/parts[0]/...; as root, none of `parts` may be a
    symbolic link (a user following their own links is no risk). `create`
    makes missing parts (mode 0755 less the umask). None when a part is
    missing and `create` is off. Raises Refused."""
    nofollow = os.O_NOFOLLOW if os.geteuid() == 0 else 0
    fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts:
            if create:
                try:
                    os.mkdir(part, 0o755, dir_fd=fd)
                    _own_like_folder(fd, part)
                except FileExistsError:
                    pass
            try:
                child = os.open(part, os.O_RDONLY | os.O_DIRECTORY | nofollow | os.O_CLOEXEC,
                                dir_fd=fd)
            except FileNotFoundError:
                os.close(fd)
                return None
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise Refused("%s is a symbolic link or not a folder" % os.path.join(base, part))
                raise
            os.close(fd)
            fd = child
            base = os.path.join(base, part)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _own_like_folder(dir_fd, name=None, fd=None):
    """As root, give a new entry (by `name`, or its open `fd`) the owner of
    the folder it is in: a file made in another user's HOME is that user's."""
    if os.geteuid() == 0:
        folder = os.fstat(dir_fd)
        if fd is not None:
            os.fchown(fd, folder.st_uid, folder.st_gid)
        else:
            os.chown(name, folder.st_uid, folder.st_gid, dir_fd=dir_fd, follow_symlinks=False)


def read(dir_fd, name, shown):
    """(text, stat) of the file `name` in the folder, or (None, None) when it
    does not exist. `shown` names it in a refusal."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=dir_fd)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Refused("%s is a symbolic link: left unchanged (add the line to the file it "
                          "points to yourself)" % shown)
        raise
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise Refused("%s is not a regular file: left unchanged" % shown)
        if st.st_nlink > 1:
            raise Refused("%s has other hard links: left unchanged" % shown)
        return f.read().decode(_ENCODING, _ERRORS), st


def replace(dir_fd, name, text, old):
    """Make `name` hold `text`, atomically; `old` is the stat of the file it
    replaces (None for a new file), whose owner and mode the new one keeps."""
    data = text.encode(_ENCODING, _ERRORS)
    for _ in range(16):
        tmp = ".%s.%s.tmp" % (name, secrets.token_hex(8))
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                         0o600, dir_fd=dir_fd)
            break
        except FileExistsError:
            continue
    else:
        raise OSError(errno.EEXIST, "no free temporary name beside %s" % name)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            if old is not None:
                # Owner first: a change of owner clears the set-id bits of the mode.
                if os.geteuid() == 0:
                    os.fchown(f.fileno(), old.st_uid, old.st_gid)
                os.fchmod(f.fileno(), stat.S_IMODE(old.st_mode))
            else:
                mask = os.umask(0)
                os.umask(mask)
                os.fchmod(f.fileno(), 0o666 & ~mask)
                _own_like_folder(dir_fd, fd=f.fileno())
            os.fsync(f.fileno())
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except OSError:
            pass
        raise


def remove(dir_fd, name):
    os.unlink(name, dir_fd=dir_fd)
