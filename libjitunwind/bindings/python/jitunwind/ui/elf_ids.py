"""Build ids of an executable and of the executable a core was dumped from,
read from the files (64-bit little-endian ELF), to say when a core does not
match the executable it is opened with."""

import os
import struct

PT_LOAD, PT_NOTE = 1, 4
NT_GNU_BUILD_ID, NT_AUXV, NT_FILE = 3, 6, 0x46494C45
AT_PHDR = 3
PAGE = 4096
MAX_NOTES = 1 << 20  # bytes of notes read from one segment


def _header(data):
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return None
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    return phoff, phentsize, phnum


def _segments(data):
    """(type, offset, vaddr, filesz) of each program header in `data`, which
    starts with the ELF header and holds the table."""
    head = _header(data)
    if head is None or head[1] < 56:
        return []
    phoff, phentsize, phnum = head
    out = []
    for i in range(min(phnum, 4096)):
        at = phoff + i * phentsize
        if at + 56 > len(data):
            break
        p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from("<IIQQQQ", data, at)
        out.append((p_type, p_offset, p_vaddr, p_filesz))
    return out


def _notes(blob):
    at = 0
    while at + 12 <= len(blob):
        namesz, descsz, kind = struct.unpack_from("<III", blob, at)
        name_at = at + 12
        desc_at = name_at + ((namesz + 3) & ~3)
        end = desc_at + ((descsz + 3) & ~3)
        if end > len(blob):
            return
        yield blob[name_at:name_at + namesz].rstrip(b"\0"), kind, blob[desc_at:desc_at + descsz]
        at = end


def _build_id(image, read):
    """The GNU build id of the ELF image whose first bytes are `image`;
    `read(offset, size)` reads the image's file offsets."""
    for p_type, p_offset, _, p_filesz in _segments(image):
        if p_type == PT_NOTE:
            for name, kind, desc in _notes(read(p_offset, min(p_filesz, MAX_NOTES))):
                if name == b"GNU" and kind == NT_GNU_BUILD_ID:
                    return desc.hex()
    return None


def file_build_id(path):
    try:
        with open(path, "rb") as f:
            def read(offset, size):
                f.seek(offset)
                return f.read(size)
            return _build_id(read(0, PAGE), read)
    except OSError:
        return None


def _mapped_files(blob):
    """(start, end, file offset, path) of each NT_FILE entry."""
    count, page_size = struct.unpack_from("<QQ", blob, 0)
    names = blob[16 + 24 * count:].split(b"\0")
    for i in range(min(count, len(names))):
        start, end, pgoff = struct.unpack_from("<QQQ", blob, 16 + 24 * i)
        yield start, end, pgoff * page_size, names[i].decode("utf-8", "replace")


def _program_headers_address(blob):
    """AT_PHDR of an NT_AUXV note: where the executable's headers were mapped."""
    for at in range(0, len(blob) - 15, 16):
        key, value = struct.unpack_from("<QQ", blob, at)
        if key == AT_PHDR:
            return value
    return None


def core_executable_build_id(core_path, executable):
    """The build id of `executable`'s image as the core holds it (its first
    page, which Linux and gdb's gcore dump), or None when the core does not
    say or does not hold it."""
    try:
        with open(core_path, "rb") as f:
            def read(offset, size):
                f.seek(offset)
                return f.read(size)
            segments = _segments(read(0, PAGE * 16))
            files, phdr = [], None
            for p_type, p_offset, _, p_filesz in segments:
                if p_type != PT_NOTE:
                    continue
                for name, kind, desc in _notes(read(p_offset, min(p_filesz, MAX_NOTES))):
                    if kind == NT_FILE and name == b"CORE" and len(desc) >= 16:
                        files = list(_mapped_files(desc))
                    elif kind == NT_AUXV and name == b"CORE":
                        phdr = _program_headers_address(desc)
            # The executable: the file mapped from offset 0 where its program
            # headers were (AT_PHDR), else the one named like `executable`.
            start = next((b for b, e, off, _ in files if off == 0 and phdr is not None
                          and b <= phdr < e), None)
            if start is None:
                start = next((b for b, _, off, path in files if off == 0 and
                              os.path.basename(path) == os.path.basename(executable)), None)
            if start is None:
                return None
            for p_type, p_offset, p_vaddr, p_filesz in segments:
                if p_type == PT_LOAD and p_vaddr <= start < p_vaddr + p_filesz:
                    base = p_offset + (start - p_vaddr)
                    limit = p_vaddr + p_filesz - start
                    return _build_id(read(base, min(PAGE, limit)),
                                     lambda o, s: read(base + o, max(0, min(s, limit - o))))
    except (OSError, struct.error):
        return None
    return None


def core_mismatch(core_path, executable):
    """One line saying the core was not dumped from `executable`, or None
    (they match, or either build id is unknown)."""
    if not core_path or not executable:
        return None
    in_core = core_executable_build_id(core_path, executable)
    in_file = file_build_id(executable)
    if in_core and in_file and in_core != in_file:
        return ("the core does not match the executable: %s has build id %s, the core's "
                "executable %s" % (executable, in_file, in_core))
    return None
