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


class _Sized(ctypes.Structure):
    """A struct the caller passes in with a leading `size` (its sizeof, which
    the library checks): filled in, the other fields given in order."""

    def __init__(self, *args, **kwargs):
        super().__init__(ctypes.sizeof(type(self)), *args, **kwargs)


class Memory(_Sized):
    """struct jitunwind_memory; `size` is filled in: Memory(read, arg, ...)."""
    _fields_ = [("size", ctypes.c_size_t), ("read", READ_FN), ("arg", ctypes.c_void_p),
                ("pac_mask", ctypes.c_uint64),
                ("write", ctypes.c_void_p)]  # NULL: the library never writes


class PyReaderOpts(_Sized):
    """struct jitunwind_pyreader_opts; `size` is filled in:
    PyReaderOpts(module, types, flags)."""
    _fields_ = [("size", ctypes.c_size_t), ("module", ctypes.c_char_p),
                ("types", ctypes.c_void_p), ("flags", ctypes.c_uint32)]


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


DWARF_REGS = 32  # native_variables.h: JITUNWIND_DWARF_REGS
# The JIT descriptor's header (jit.h, struct jitunwind_jit_descriptor): its
# size and where its sequence word is (odd while a writer mutates).
JIT_DESCRIPTOR_SIZE = 56
JIT_DESCRIPTOR_SEQ = 16


class DwarfRegs(ctypes.Structure):
    _fields_ = [("pc", ctypes.c_uint64), ("value", ctypes.c_uint64 * DWARF_REGS),
                ("valid", ctypes.c_uint64)]


class Frame(ctypes.Structure):
    _fields_ = [("regs", Regs), ("source", ctypes.c_uint32),
                ("depth", ctypes.c_uint32), ("range", ctypes.POINTER(Range))]


class JitReadInfo(ctypes.Structure):
    _fields_ = [("generation", ctypes.c_uint64), ("retries", ctypes.c_uint32),
                ("torn", ctypes.c_uint32), ("added", ctypes.c_uint64),
                ("skipped", ctypes.c_uint64), ("left_out", ctypes.c_uint64)]


class ElfImageInfo(ctypes.Structure):
    _fields_ = [("ranges", ctypes.c_uint64), ("with_cfi", ctypes.c_uint64),
                ("without_cfi", ctypes.c_uint64), ("fdes", ctypes.c_uint64),
                ("sections", ctypes.c_uint64), ("stop_rows", ctypes.c_uint64),
                ("left_out", ctypes.c_uint64)]


class GdbJitStatus(ctypes.Structure):
    _fields_ = [("enabled", ctypes.c_uint32), ("foreign", ctypes.c_uint32),
                ("objects", ctypes.c_uint64), ("ranges", ctypes.c_uint64),
                ("publishes", ctypes.c_uint64), ("failures", ctypes.c_uint64),
                ("shared", ctypes.c_uint32), ("reserved", ctypes.c_uint32)]


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


class PyCodeRange(ctypes.Structure):
    _fields_ = [("start", ctypes.c_uint64), ("end", ctypes.c_uint64), ("main", ctypes.c_uint32),
                ("reserved", ctypes.c_uint32)]


PY_MAX_EVAL_RANGES = 16


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


# Functions whose absence means the file is not libjitunwind at all.
IDENTITY = ("jitunwind_version_string", "jitunwind_strerror", "jitunwind_registry_new")


def _candidates():
    """(path, chosen by JITUNWIND_LIBRARY) in the order documented in usage.md."""
    env = os.environ.get("JITUNWIND_LIBRARY")
    if env:
        yield env, True
    here = os.path.dirname(os.path.abspath(__file__))
    # In a wheel: beside this file.
    yield os.path.join(here, "libjitunwind.so.0"), False
    # In the source tree: libjitunwind/bindings/python/jitunwind -> <repo>/build/...
    repo = os.path.normpath(os.path.join(here, "..", "..", "..", ".."))
    for build in ("build", "build-ci"):
        yield os.path.join(repo, build, "libjitunwind", "libjitunwind.so"), False
    # Installed: <prefix>/share/jitunwind/python/jitunwind -> <prefix>/lib*/
    prefix = os.path.normpath(os.path.join(here, "..", "..", "..", ".."))
    for libdir in ("lib", "lib64", "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu"):
        yield os.path.join(prefix, libdir, "libjitunwind.so.0"), False
    found = ctypes.util.find_library("jitunwind")
    if found:
        yield found, False


def _open(path):
    """The loaded library, or raises OSError saying why `path` is not one."""
    if os.path.sep in path and not os.path.exists(path):
        raise OSError("no such file")
    lib = ctypes.CDLL(path)
    missing = [name for name in IDENTITY if not hasattr(lib, name)]
    if missing:
        raise OSError("not libjitunwind (no %s)" % missing[0])
    return lib


def load_library():
    """Load libjitunwind and declare its functions; raises OSError with every
    path tried when none loads. A JITUNWIND_LIBRARY that does not exist or is
    not libjitunwind is passed over for the next candidate, and said once in
    `lib.jitunwind_load_notes` (with any function this binding knows and the
    library lacks), for the plugins to print at load."""
    tried, notes = [], []
    for path, chosen in _candidates():
        try:
            lib = _open(path)
        except OSError as exc:
            where = "JITUNWIND_LIBRARY=%s" % path if chosen else path
            tried.append("%s (%s)" % (where, exc))
            if chosen:
                notes.append("%s is unusable (%s)" % (where, exc))
            continue
        lib.jitunwind_loaded_from = path
        _declare(lib)
        missing = lib.jitunwind_missing
        if notes:
            notes[-1] += "; using %s" % path
        if missing:
            notes.append("%s (libjitunwind %s) lacks %d functions this binding uses (%s%s): "
                         "what needs them says so" % (
                             path, lib.jitunwind_version_string().decode(), len(missing),
                             missing[0], ", ..." if len(missing) > 1 else ""))
        lib.jitunwind_load_notes = notes
        return lib
    raise OSError("libjitunwind not found; tried: " + ", ".join(tried))


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
        lib.jitunwind_missing.append(name)
        return
    f.restype = restype
    f.argtypes = list(argtypes)


def _declare(lib):
    """Declares every function; `lib.jitunwind_missing` lists those the
    library lacks."""
    lib.jitunwind_missing = []
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
    _fn(lib, "jitunwind_registry_digest", u64, vp)
    _fn(lib, "jitunwind_registry_count_rule", sz, vp, u32)
    _fn(lib, "jitunwind_registry_add_all", i, vp, vp, P(sz))
    _fn(lib, "jitunwind_registry_scan_guesses", sz, vp, u64, u64)
    _fn(lib, "jitunwind_registry_last_error", P(Error), vp)
    _fn(lib, "jitunwind_registry_load_perf_map", i, vp, ctypes.c_char_p, i, P(Memory),
        P(sz), P(sz))
    _fn(lib, "jitunwind_registry_load_jitdump", i, vp, ctypes.c_char_p, i, P(Memory),
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
    _fn(lib, "jitunwind_step_cfi_registers", i, i, vp, P(Memory), P(DwarfRegs), i, P(DwarfRegs))
    _fn(lib, "jitunwind_native_variable", i, i, vp, P(Memory), P(DwarfRegs), i, u64,
        ctypes.c_char_p, P(u64))
    _fn(lib, "jitunwind_classify_trampoline", i, i, ctypes.c_char_p, sz)
    # readers
    _fn(lib, "jitunwind_process_reader_new", i, P(vp), i)
    _fn(lib, "jitunwind_process_reader_free", None, vp)
    _fn(lib, "jitunwind_process_reader_memory", Memory, vp)
    _fn(lib, "jitunwind_core_reader_new", i, P(vp), ctypes.c_char_p)
    _fn(lib, "jitunwind_core_reader_free", None, vp)
    _fn(lib, "jitunwind_core_reader_memory", Memory, vp)
    _fn(lib, "jitunwind_elf_symbol", i, ctypes.c_char_p, ctypes.c_char_p, P(u64), P(u64))
    # separate debug files
    _fn(lib, "jitunwind_set_debug_file_directories", i, ctypes.c_char_p)
    _fn(lib, "jitunwind_debug_file_directories", i, ctypes.c_char_p, sz)
    _fn(lib, "jitunwind_debug_file_find", i, ctypes.c_char_p, ctypes.c_char_p, sz,
        ctypes.c_char_p, sz)
    # python
    _fn(lib, "jitunwind_py_locate_live", i, i, P(PyLocation))
    _fn(lib, "jitunwind_py_locate_core", i, ctypes.c_char_p, P(PyLocation))
    _fn(lib, "jitunwind_py_version_supported", i, u32)
    _fn(lib, "jitunwind_pyreader_dwarf_report", i, vp, P(PyDwarfReport))
    _fn(lib, "jitunwind_pyreader_values_report", i, vp, P(PyDwarfReport), P(i))
    _fn(lib, "jitunwind_pyreader_open", i, P(vp), P(Memory), u64, u32, P(PyReaderOpts))
    _fn(lib, "jitunwind_pyreader_layout_name", ctypes.c_char_p, vp)
    _fn(lib, "jitunwind_dwarf_types_open", i, P(vp), ctypes.c_char_p)
    _fn(lib, "jitunwind_dwarf_types_free", None, vp)
    _fn(lib, "jitunwind_dwarf_types_source", ctypes.c_char_p, vp)
    _fn(lib, "jitunwind_dwarf_member_offset", i, vp, ctypes.c_char_p, ctypes.c_char_p, P(u64))
    _fn(lib, "jitunwind_pyreader_executors", i, vp, P(PyExecutor), sz, P(sz))
    _fn(lib, "jitunwind_pyreader_executor_ranges", i, vp, vp, i, u64, u64, P(sz))
    _fn(lib, "jitunwind_pyreader_executor_ranges_note", ctypes.c_char_p, vp)
    _fn(lib, "jitunwind_pyreader_free", None, vp)
    _fn(lib, "jitunwind_pyreader_last_error", P(Error), vp)
    _fn(lib, "jitunwind_pyreader_threads", i, vp, P(PyThread), sz, P(sz))
    _fn(lib, "jitunwind_pyreader_frames", i, vp, u64, P(PyFrame), sz, P(sz))
    _fn(lib, "jitunwind_pyreader_cache_code", i, vp, sz)
    _fn(lib, "jitunwind_pyreader_cache_next_sample", i, vp)
    _fn(lib, "jitunwind_py_chains_new", i, sz, sz, P(vp))
    _fn(lib, "jitunwind_py_chains_free", None, vp)
    _fn(lib, "jitunwind_pyreader_frames_reusing", i, vp, vp, u64, u64, P(PyFrame), sz, P(sz))
    _fn(lib, "jitunwind_pyreader_trampoline_ranges", i, vp, vp, i, P(sz))
    _fn(lib, "jitunwind_pyreader_eval_ranges", i, vp, P(PyCodeRange), sz, P(sz))
    _fn(lib, "jitunwind_pyreader_in_eval_loop", i, vp, u64)
    # mixed
    _fn(lib, "jitunwind_native_role_from_symbol", i, ctypes.c_char_p)
    _fn(lib, "jitunwind_mix", i, P(u32), sz, P(PyFrame), sz, P(MixedItem), sz, P(sz))
    # architecture facts
    _fn(lib, "jitunwind_lookup_address", u64, i, u64, i)
    # the failure detail of the calling thread's last constructor (status.h)
    _fn(lib, "jitunwind_last_error", P(Error))
    _fn(lib, "jitunwind_registry_drop_over_modules", sz, vp, vp)
    # ELF images for stock debuggers, the GDB JIT interface (image.h)
    _fn(lib, "jitunwind_range_label", i, P(Range), ctypes.c_char_p, sz)
    # target text for a terminal (text.h)
    _fn(lib, "jitunwind_text_escape", sz, ctypes.c_char_p, ctypes.c_char_p, sz)
    _fn(lib, "jitunwind_elf_image_write_registry", i, i, vp, P(Memory), P(vp), P(sz),
        P(ElfImageInfo))
    _fn(lib, "jitunwind_elf_image_write_file", i, i, vp, P(Memory), ctypes.c_char_p,
        P(ElfImageInfo))
    _fn(lib, "jitunwind_elf_image_write_file_at_stop", i, i, vp, vp, P(Memory), P(Regs), sz,
        ctypes.c_char_p, P(ElfImageInfo))
    _fn(lib, "jitunwind_elf_image_free", None, vp)
    _fn(lib, "jitunwind_jit_set_gdb_jit", i, i)
    _fn(lib, "jitunwind_jit_gdb_jit_status", None, P(GdbJitStatus))


# --- values and frame variables (python_values.h) ---

class PyReprOptions(_Sized):
    """struct jitunwind_py_repr_options; `size` is filled in:
    PyReprOptions(max_depth, max_items, max_chars, style)."""
    _fields_ = [("size", ctypes.c_size_t), ("max_depth", ctypes.c_uint32),
                ("max_items", ctypes.c_uint32), ("max_chars", ctypes.c_uint32),
                ("style", ctypes.c_uint32)]


class PyCFunction(ctypes.Structure):
    _fields_ = [("object", ctypes.c_uint64), ("function", ctypes.c_uint64)]


class PyVariable(ctypes.Structure):
    _fields_ = [("value", ctypes.c_uint64), ("flags", ctypes.c_uint32),
                ("reserved", ctypes.c_uint32), ("name", ctypes.c_char * 256)]


def declare_values(lib):
    """Declare the value functions on `lib` (once)."""
    if getattr(lib, "jitunwind_values_declared", False):
        return
    P = ctypes.POINTER
    vp, i, u32, u64, sz = (ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32,
                           ctypes.c_uint64, ctypes.c_size_t)
    _fn(lib, "jitunwind_pyreader_repr", i, vp, u64, P(PyReprOptions), ctypes.c_char_p, sz,
        P(u32))
    _fn(lib, "jitunwind_pyreader_frame_variables", i, vp, P(PyFrame), P(PyVariable), sz, P(sz))
    _fn(lib, "jitunwind_pyreader_frame_lookup", i, vp, P(PyFrame), ctypes.c_char_p, P(u64),
        P(i))
    _fn(lib, "jitunwind_pyreader_hold_reads", i, vp, i)
    _fn(lib, "jitunwind_pyreader_attribute", i, vp, u64, ctypes.c_char_p, P(u64))
    _fn(lib, "jitunwind_pyreader_thread_names", i, vp, P(PyThread), sz, ctypes.c_char_p, sz, P(sz))
    _fn(lib, "jitunwind_pyreader_gc_collecting", i, vp, u64, P(i))
    _fn(lib, "jitunwind_pyreader_frame_cfunctions", i, vp, P(PyFrame), P(PyCFunction), sz, P(sz))
    lib.jitunwind_values_declared = True


# --- JIT developer view (python_jit.h, jit_view.c); declared by jitview.py ---

class PyUop(ctypes.Structure):
    _fields_ = [("index", ctypes.c_uint32), ("opcode", ctypes.c_uint16),
                ("oparg", ctypes.c_uint16), ("format", ctypes.c_uint8),
                ("target_source", ctypes.c_uint8), ("depth", ctypes.c_uint16),
                ("raw_target", ctypes.c_uint32), ("target", ctypes.c_int32),
                ("line", ctypes.c_int32), ("code_offset", ctypes.c_int32),
                ("code_size", ctypes.c_uint32), ("operand0", ctypes.c_uint64),
                ("operand1", ctypes.c_uint64), ("name", ctypes.c_char * 48)]


class PyJitExit(ctypes.Structure):
    _fields_ = [("index", ctypes.c_uint32), ("target", ctypes.c_int32),
                ("line", ctypes.c_int32), ("reserved", ctypes.c_uint32),
                ("executor", ctypes.c_uint64)]


class PyExecutorDetail(ctypes.Structure):
    _fields_ = [("ex", PyExecutor), ("trace", ctypes.c_uint64),
                ("jit_side_entry", ctypes.c_uint64), ("uop_count", ctypes.c_uint32),
                ("exit_count", ctypes.c_uint32), ("shim_size", ctypes.c_uint32),
                ("fatal_offset", ctypes.c_int32), ("fatal_size", ctypes.c_uint32),
                ("enter_index", ctypes.c_int32), ("enter_line", ctypes.c_int32),
                ("valid", ctypes.c_int8), ("linked", ctypes.c_int8), ("warm", ctypes.c_int8),
                ("chain_depth", ctypes.c_int8), ("vm_opcode", ctypes.c_uint8),
                ("vm_oparg", ctypes.c_uint8), ("have_stencils", ctypes.c_uint8),
                ("have_names", ctypes.c_uint8), ("missing", ctypes.c_char * 160)]


class PyJitPc(ctypes.Structure):
    _fields_ = [("pc", ctypes.c_uint64), ("executor", ctypes.c_uint64),
                ("jit_code", ctypes.c_uint64), ("offset", ctypes.c_uint32),
                ("region", ctypes.c_uint32), ("uop_count", ctypes.c_uint32),
                ("reserved", ctypes.c_uint32), ("uop", PyUop), ("ex", PyExecutor),
                ("missing", ctypes.c_char * 160)]


def declare_jitview(lib):
    """Declare the JIT view's functions on `lib` (once)."""
    if getattr(lib, "_jitview_declared", False):
        return
    P, vp, u64, sz, i = ctypes.POINTER, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t, ctypes.c_int
    _fn(lib, "jitunwind_pyreader_executor_detail", i, vp, u64, P(PyExecutorDetail))
    _fn(lib, "jitunwind_pyreader_executor_trace", i, vp, u64, u64, P(PyUop), sz, P(sz),
        P(PyExecutorDetail))
    _fn(lib, "jitunwind_pyreader_executor_exits", i, vp, u64, P(PyJitExit), sz, P(sz))
    _fn(lib, "jitunwind_pyreader_executor_details", i, vp, P(PyExecutorDetail), sz, P(sz))
    _fn(lib, "jitunwind_pyreader_detail_exits", i, vp, P(PyExecutorDetail), P(PyJitExit), sz,
        P(sz))
    _fn(lib, "jitunwind_pyreader_jit_pc", i, vp, u64, u64, P(PyJitPc))
    _fn(lib, "jitunwind_py_jit_pc_label", i, P(PyJitPc), ctypes.c_char_p, sz)
    _fn(lib, "jitunwind_py_jit_frame_name", i, P(PyJitPc), ctypes.c_char_p, sz)
    _fn(lib, "jitunwind_step_range_in", i, i, vp, P(Range), P(Memory), P(Regs), i, P(Regs), P(i))
    lib._jitview_declared = True


def text(raw):
    """A C string or char array as Python text ("" for NULL); bytes that
    are not UTF-8 are replaced."""
    return raw.decode("utf-8", "replace") if raw else ""


# --- The incremental mixer (mixed.h) ---

class MixerOptions(_Sized):
    """struct jitunwind_mixer_options; `size` is filled in:
    MixerOptions(arch, flags, registry, reader)."""
    _fields_ = [("size", ctypes.c_size_t), ("arch", ctypes.c_uint32), ("flags", ctypes.c_uint32),
                ("registry", ctypes.c_void_p), ("reader", ctypes.c_void_p)]


class MixerNative(ctypes.Structure):
    _fields_ = [("pc", ctypes.c_uint64), ("symbol", ctypes.c_char_p),
                ("flags", ctypes.c_uint32), ("role", ctypes.c_uint32),
                ("address", ctypes.c_uint64)]


MIXER_INLINED, MIXER_INTERPRETER, MIXER_ROLE_GIVEN, MIXER_NOT_INNERMOST = 1, 2, 4, 8
MIXER_WANTS_PYTHON = 1


def declare_mixer(lib):
    """Declare the mixer's functions on `lib` (once)."""
    if getattr(lib, "_mixer_declared", False):
        return
    P, vp, sz, i = ctypes.POINTER, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int
    _fn(lib, "jitunwind_mixer_new", i, P(MixerOptions), P(vp))
    _fn(lib, "jitunwind_mixer_free", None, vp)
    _fn(lib, "jitunwind_mixer_python", i, vp, P(PyFrame), sz)
    _fn(lib, "jitunwind_mixer_feed", i, vp, P(MixerNative), sz, P(sz), P(MixedItem), sz, P(sz))
    _fn(lib, "jitunwind_mixer_next_python", sz, vp)
    _fn(lib, "jitunwind_mixer_hidden", i, vp, sz)
    lib._mixer_declared = True
