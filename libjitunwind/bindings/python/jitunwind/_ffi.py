"""ctypes declarations mirroring libjitunwind/include/jitunwind/*.h.

Only this module knows the C layouts; keep it in step with the headers
(tests/python/test_binding_layout.py compares the sizes with the C ones).
"""

import ctypes
import ctypes.util
import os

c_u8p = ctypes.POINTER(ctypes.c_uint8)

READ_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_uint64,
                           ctypes.c_void_p, ctypes.c_size_t)


class Memory(ctypes.Structure):
    _fields_ = [("read", READ_FN), ("arg", ctypes.c_void_p)]


class Error(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("address", ctypes.c_uint64),
                ("message", ctypes.c_char * 384)]


class Range(ctypes.Structure):
    _fields_ = [("start", ctypes.c_uint64), ("end", ctypes.c_uint64),
                ("kind", ctypes.c_uint32), ("rule", ctypes.c_uint32),
                ("stride", ctypes.c_uint32), ("origin", ctypes.c_uint32),
                ("cookie", ctypes.c_uint64), ("name", ctypes.c_char_p),
                ("scan_start", ctypes.c_uint64), ("scan_end", ctypes.c_uint64),
                ("frame_size", ctypes.c_uint32), ("reserved", ctypes.c_uint32)]


class Regs(ctypes.Structure):
    _fields_ = [("pc", ctypes.c_uint64), ("sp", ctypes.c_uint64),
                ("fp", ctypes.c_uint64), ("lr", ctypes.c_uint64),
                ("valid", ctypes.c_uint32), ("reserved", ctypes.c_uint32)]


class Frame(ctypes.Structure):
    _fields_ = [("regs", Regs), ("source", ctypes.c_uint32),
                ("depth", ctypes.c_uint32), ("range", ctypes.POINTER(Range))]


class JitReadInfo(ctypes.Structure):
    _fields_ = [("generation", ctypes.c_uint64), ("retries", ctypes.c_uint32),
                ("torn", ctypes.c_uint32), ("added", ctypes.c_uint64),
                ("skipped", ctypes.c_uint64)]


class PyLocation(ctypes.Structure):
    _fields_ = [("runtime_addr", ctypes.c_uint64), ("version_hex", ctypes.c_uint32),
                ("reserved", ctypes.c_uint32), ("module", ctypes.c_char * 512)]


class PyThread(ctypes.Structure):
    _fields_ = [("tstate", ctypes.c_uint64), ("interp", ctypes.c_uint64),
                ("interp_id", ctypes.c_int64), ("thread_id", ctypes.c_uint64),
                ("native_thread_id", ctypes.c_uint64),
                ("current_frame", ctypes.c_uint64), ("holds_gil", ctypes.c_int32),
                ("reserved", ctypes.c_uint32)]


class PyFrame(ctypes.Structure):
    _fields_ = [("address", ctypes.c_uint64), ("code", ctypes.c_uint64),
                ("line", ctypes.c_int32), ("first_line", ctypes.c_int32),
                ("lasti", ctypes.c_int32), ("owner", ctypes.c_int32),
                ("flags", ctypes.c_uint32), ("reserved", ctypes.c_uint32),
                ("qualname", ctypes.c_char * 256), ("filename", ctypes.c_char * 1024)]


class PyDwarfReport(ctypes.Structure):
    _fields_ = [("source", ctypes.c_char * 1024), ("checked", ctypes.c_uint32),
                ("mismatches", ctypes.c_uint32), ("adopted", ctypes.c_uint32),
                ("derived", ctypes.c_uint32), ("first_mismatch", ctypes.c_char * 192)]


class PyExecutor(ctypes.Structure):
    _fields_ = [("address", ctypes.c_uint64), ("interp", ctypes.c_uint64),
                ("jit_code", ctypes.c_uint64), ("jit_size", ctypes.c_uint64),
                ("code", ctypes.c_uint64), ("flags", ctypes.c_uint32),
                ("first_line", ctypes.c_int32),
                ("qualname", ctypes.c_char * 256), ("filename", ctypes.c_char * 1024)]


class Mapping(ctypes.Structure):
    _fields_ = [("start", ctypes.c_uint64), ("end", ctypes.c_uint64)]


class ModuleInfo(ctypes.Structure):
    _fields_ = [("path", ctypes.c_char_p), ("start", ctypes.c_uint64), ("end", ctypes.c_uint64),
                ("bias", ctypes.c_uint64), ("has_cfi", ctypes.c_int), ("reserved", ctypes.c_int)]


class MixedItem(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_uint32), ("index", ctypes.c_uint32),
                ("anchor", ctypes.c_uint32), ("flags", ctypes.c_uint32)]


def _candidates():
    env = os.environ.get("JITUNWIND_LIBRARY")
    if env:
        yield env
        return  # an explicit choice is never silently replaced by another library
    here = os.path.dirname(os.path.abspath(__file__))
    # In the source tree: libjitunwind/bindings/python/jitunwind -> <repo>/build/...
    repo = os.path.normpath(os.path.join(here, "..", "..", "..", ".."))
    for build in ("build", "build-ci"):
        yield os.path.join(repo, build, "libjitunwind", "libjitunwind.so")
    # Installed: <prefix>/share/jitunwind/python/jitunwind -> <prefix>/lib*/
    prefix = os.path.normpath(os.path.join(here, "..", "..", "..", ".."))
    for libdir in ("lib", "lib64", "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu"):
        yield os.path.join(prefix, libdir, "libjitunwind.so.0")
    found = ctypes.util.find_library("jitunwind")
    if found:
        yield found


def load_library():
    """Load libjitunwind and declare its functions; raises OSError with every
    path tried when none loads."""
    tried = []
    for path in _candidates():
        if os.path.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as exc:
            tried.append("%s (%s)" % (path, exc))
            continue
        _declare(lib)
        lib.jitunwind_loaded_from = path
        return lib
    raise OSError("libjitunwind not found (set JITUNWIND_LIBRARY); tried: " + ", ".join(tried))


def _fn(lib, name, restype, *argtypes):
    try:
        f = getattr(lib, name)
    except AttributeError:
        # An older or partial library: fail when the function is used, with
        # its name, rather than refusing to load at all.
        def missing(*_args, _name=name):
            raise OSError("%s is not in the loaded libjitunwind (%s)" % (
                _name, getattr(lib, "jitunwind_loaded_from", "?")))
        setattr(lib, name, missing)
        return
    f.restype = restype
    f.argtypes = list(argtypes)


def _declare(lib):
    P = ctypes.POINTER
    vp, i, u32, u64, sz = (ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32,
                           ctypes.c_uint64, ctypes.c_size_t)
    _fn(lib, "jitunwind_strerror", ctypes.c_char_p, i)
    _fn(lib, "jitunwind_version_string", ctypes.c_char_p)
    _fn(lib, "jitunwind_host_arch", i)
    _fn(lib, "jitunwind_stop_reason_string", ctypes.c_char_p, i)
    _fn(lib, "jitunwind_frame_source_string", ctypes.c_char_p, i)
    # registry
    _fn(lib, "jitunwind_registry_new", i, P(vp))
    _fn(lib, "jitunwind_registry_free", None, vp)
    _fn(lib, "jitunwind_registry_add", i, vp, P(Range))
    _fn(lib, "jitunwind_registry_remove", i, vp, u64)
    _fn(lib, "jitunwind_registry_clear", None, vp)
    _fn(lib, "jitunwind_registry_lookup", P(Range), vp, u64)
    _fn(lib, "jitunwind_registry_count", sz, vp)
    _fn(lib, "jitunwind_registry_at", P(Range), vp, sz)
    _fn(lib, "jitunwind_registry_generation", u64, vp)
    _fn(lib, "jitunwind_registry_scan_guesses", sz, vp, u64, u64)
    _fn(lib, "jitunwind_registry_last_error", P(Error), vp)
    _fn(lib, "jitunwind_registry_load_perf_map", i, vp, ctypes.c_char_p, i, P(Memory),
        P(sz), P(sz))
    _fn(lib, "jitunwind_jit_read_descriptor", i, vp, P(Memory), u64, P(JitReadInfo))
    _fn(lib, "jitunwind_registry_load_gdb_jit", i, vp, P(Memory), u64, i, P(sz), P(sz))
    _fn(lib, "jitunwind_anonymous_exec_mappings", i, i, P(Mapping), sz, P(sz))
    _fn(lib, "jitunwind_core_anonymous_exec_mappings", i, ctypes.c_char_p, P(Mapping), sz, P(sz))
    _fn(lib, "jitunwind_registry_add_guesses", i, vp, P(Memory), i, P(Mapping), sz, P(sz))
    # unwinding
    _fn(lib, "jitunwind_step_range", i, i, P(Range), P(Memory), P(Regs), i, P(Regs), P(i))
    _fn(lib, "jitunwind_step_fp", i, i, P(Memory), P(Regs), P(Regs), P(i))
    _fn(lib, "jitunwind_unwind", i, i, vp, vp, P(Memory), P(Regs), P(Frame), sz, u32, P(i))
    # native modules and CFI
    _fn(lib, "jitunwind_modules_new", i, P(vp))
    _fn(lib, "jitunwind_modules_free", None, vp)
    _fn(lib, "jitunwind_modules_last_error", P(Error), vp)
    _fn(lib, "jitunwind_modules_add_mapping", i, vp, ctypes.c_char_p, u64, u64, u64)
    _fn(lib, "jitunwind_modules_load_proc", i, vp, i)
    _fn(lib, "jitunwind_modules_load_core", i, vp, ctypes.c_char_p)
    _fn(lib, "jitunwind_modules_count", sz, vp)
    _fn(lib, "jitunwind_modules_info", i, vp, sz, P(ModuleInfo))
    _fn(lib, "jitunwind_modules_symbolize", i, vp, u64, ctypes.c_char_p, sz, P(u64))
    _fn(lib, "jitunwind_classify_trampoline", i, i, ctypes.c_char_p, sz)
    # readers
    _fn(lib, "jitunwind_process_reader_new", i, P(vp), i)
    _fn(lib, "jitunwind_process_reader_free", None, vp)
    _fn(lib, "jitunwind_process_reader_memory", Memory, vp)
    _fn(lib, "jitunwind_elf_symbol", i, ctypes.c_char_p, ctypes.c_char_p, P(u64), P(u64))
    # python
    _fn(lib, "jitunwind_py_locate_live", i, i, P(PyLocation))
    _fn(lib, "jitunwind_py_locate_core", i, ctypes.c_char_p, P(PyLocation))
    _fn(lib, "jitunwind_py_version_supported", i, u32)
    _fn(lib, "jitunwind_pyreader_new", i, P(vp), P(Memory), u64, u32)
    _fn(lib, "jitunwind_pyreader_new_for_module", i, P(vp), P(Memory), u64, u32,
        ctypes.c_char_p)
    _fn(lib, "jitunwind_pyreader_dwarf_report", i, vp, P(PyDwarfReport))
    _fn(lib, "jitunwind_pyreader_new_with_dwarf", i, P(vp), P(Memory), u64, u32, ctypes.c_char_p,
        vp)
    _fn(lib, "jitunwind_pyreader_open", i, P(vp), P(Memory), u64, u32, ctypes.c_char_p, vp, u32)
    _fn(lib, "jitunwind_pyreader_layout_name", ctypes.c_char_p, vp)
    _fn(lib, "jitunwind_dwarf_types_open", i, P(vp), ctypes.c_char_p)
    _fn(lib, "jitunwind_dwarf_types_free", None, vp)
    _fn(lib, "jitunwind_dwarf_types_source", ctypes.c_char_p, vp)
    _fn(lib, "jitunwind_dwarf_member_offset", i, vp, ctypes.c_char_p, ctypes.c_char_p, P(u64))
    _fn(lib, "jitunwind_pyreader_executors", i, vp, P(PyExecutor), sz, P(sz))
    _fn(lib, "jitunwind_pyreader_executor_ranges", i, vp, vp, i, u64, u64, P(sz))
    _fn(lib, "jitunwind_pyreader_free", None, vp)
    _fn(lib, "jitunwind_pyreader_last_error", P(Error), vp)
    _fn(lib, "jitunwind_pyreader_threads", i, vp, P(PyThread), sz, P(sz))
    _fn(lib, "jitunwind_pyreader_frames", i, vp, u64, P(PyFrame), sz, P(sz))
    _fn(lib, "jitunwind_pyreader_trampoline_ranges", i, vp, vp, i, P(sz))
    # mixed
    _fn(lib, "jitunwind_native_role_from_symbol", i, ctypes.c_char_p)
    _fn(lib, "jitunwind_mix", i, P(u32), sz, P(PyFrame), sz, P(MixedItem), sz, P(sz))
