"""The library itself for the binding: loading it, its constants and errors,
and the handle every C object the binding owns is wrapped in."""

import ctypes

from . import _ffi
from ._ffi import text as _text


ARCH_X86_64 = 1
ARCH_AARCH64 = 2

KIND_JIT, KIND_TRAMPOLINE, KIND_OTHER = 1, 2, 3
RULE_FP_PRESERVING, RULE_TRAMPOLINE_FRAMED, RULE_TRAMPOLINE_SUB8, RULE_SCAN = 1, 2, 3, 4
ORIGIN_USER, ORIGIN_DESCRIPTOR, ORIGIN_PERF_MAP, ORIGIN_INTERPRETER, ORIGIN_GUESS = range(5)

KIND_NAMES = {KIND_JIT: "jit", KIND_TRAMPOLINE: "trampoline", KIND_OTHER: "other"}
RULE_NAMES = {RULE_FP_PRESERVING: "fp-preserving", RULE_TRAMPOLINE_FRAMED: "framed",
              RULE_TRAMPOLINE_SUB8: "sub8", RULE_SCAN: "fp-or-scan"}
ORIGIN_NAMES = {ORIGIN_USER: "user", ORIGIN_DESCRIPTOR: "descriptor",
                ORIGIN_PERF_MAP: "perf-map", ORIGIN_INTERPRETER: "interpreter",
                ORIGIN_GUESS: "guess"}

REG_PC, REG_SP, REG_FP, REG_LR = 1, 2, 4, 8

PYFRAME_ENTRY = 1 << 0
PYFRAME_GENERATOR = 1 << 1
PYFRAME_SHIM = 1 << 2
PYFRAME_NAME_TRUNCATED = 1 << 3
PYFRAME_NO_LINE = 1 << 4
PYFRAME_LINE_MAY_LAG = 1 << 5
PYFRAME_BAD_CODE = 1 << 6
PYFRAME_IN_JIT = 1 << 7
PYREADER_ASSUME_LAYOUT = 1 << 0
PYEXEC_DELETED = 1 << 0
PYEXEC_COLD_EXIT = 1 << 1
PYEXEC_NO_CODE = 1 << 2

ROLE_OTHER, ROLE_EVAL, ROLE_JIT, ROLE_TRAMPOLINE = 0, 1, 2, 3
MIXED_NATIVE, MIXED_PYTHON = 1, 2
NO_ANCHOR = 0xFFFFFFFF
MIXED_LINE_MAY_LAG = 1 << 0

PY_MAX_FRAMES = 65536  # JITUNWIND_PY_MAX_FRAMES: the longest chain the library walks

EREAD = -3
ENOTFOUND = -5
EUNSUPPORTED = -13

_lib = None


def library():
    """The loaded C library (loaded on first use)."""
    global _lib
    if _lib is None:
        _lib = _ffi.load_library()
    return _lib


def load_notes():
    """One-line notes about how the library was found (a JITUNWIND_LIBRARY
    passed over, functions an older library lacks), for a plugin to print
    once at load."""
    return list(getattr(library(), "jitunwind_load_notes", ()))


class JitunwindError(Exception):
    def __init__(self, code, detail=""):
        self.code = code
        text = library().jitunwind_strerror(code).decode()
        self.detail = detail
        super().__init__("%s: %s" % (text, detail) if detail else text)


def error_detail(err_ptr):
    if not err_ptr:
        return ""
    return _text(err_ptr.contents.message)


def stop_reason_string(reason):
    return _text(library().jitunwind_stop_reason_string(reason))


def frame_source_string(source):
    return _text(library().jitunwind_frame_source_string(source))


def host_arch():
    return library().jitunwind_host_arch()


def lookup_address(arch, pc, innermost):
    """The address to look a frame's code up at (jitunwind_lookup_address):
    a caller's pc is a return address, moved back into its call."""
    return library().jitunwind_lookup_address(arch or 0, pc, 1 if innermost else 0)


def version():
    return _text(library().jitunwind_version_string())


class Owned:
    """A library handle, made by `_create`, freed with the function named by
    _FREE when the object goes (never raising from a finaliser); `_check`
    raises with the detail of the function named by _LAST_ERROR."""
    _FREE = None
    _LAST_ERROR = None
    _handle = None

    def _create(self, new, *args, detail=""):
        self._lib = library()
        self._handle = ctypes.c_void_p()
        rc = getattr(self._lib, new)(ctypes.byref(self._handle), *args)
        if rc < 0:
            if self._handle:  # a library that hands back a handle on failure
                getattr(self._lib, self._FREE)(self._handle)
            self._handle = ctypes.c_void_p()
            raise JitunwindError(rc, detail)

    def _check(self, rc):
        if rc < 0:
            raise JitunwindError(rc, error_detail(getattr(self._lib, self._LAST_ERROR)(self._handle)))
        return rc

    def __del__(self):
        try:
            if self._handle:
                getattr(self._lib, self._FREE)(self._handle)
        except Exception:
            pass


def text_escape(text):
    """`text` (a str, or bytes) as jitunwind_text_escape shows it: controls,
    characters repr() would not print and bytes that are not UTF-8 escaped."""
    if isinstance(text, str):
        try:
            text = text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # other lone surrogates: not UTF-8, escaped as bytes
            text = text.encode("utf-8", "surrogatepass")
    text = text.replace(b"\0", b"\\x00")
    buf = ctypes.create_string_buffer(4 * len(text) + 1)
    try:
        library().jitunwind_text_escape(text, buf, len(buf))
    except OSError:  # a library without it: Python's own repr() escapes, never raw text
        return repr(text.decode("utf-8", "surrogateescape"))[1:-1]
    return buf.value.decode("utf-8", "replace")
