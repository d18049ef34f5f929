"""The one Python binding of libjitunwind, shared by the GDB and LLDB plugins.

All unwinding and decoding logic lives in the C library; the binding only
converts between Python values and the C structs. Failures raise
JitunwindError, which carries the library's status code and message.
"""

from .base import (ARCH_AARCH64, ARCH_X86_64, ENOTFOUND, EREAD, EUNSUPPORTED, JitunwindError,
                   KIND_JIT, KIND_NAMES, KIND_OTHER, KIND_TRAMPOLINE, MIXED_LINE_MAY_LAG,
                   MIXED_NATIVE, MIXED_PYTHON, NO_ANCHOR, ORIGIN_DESCRIPTOR, ORIGIN_GUESS,
                   ORIGIN_INTERPRETER, ORIGIN_NAMES, ORIGIN_PERF_MAP, ORIGIN_USER,
                   PYEXEC_COLD_EXIT, PYEXEC_DELETED, PYEXEC_NO_CODE, PYFRAME_BAD_CODE,
                   PYFRAME_ENTRY, PYFRAME_GENERATOR, PYFRAME_IN_JIT, PYFRAME_LINE_MAY_LAG,
                   PYFRAME_NAME_TRUNCATED, PYFRAME_NO_LINE, PYFRAME_SHIM, PYREADER_ASSUME_LAYOUT,
                   PY_MAX_FRAMES, REG_FP, REG_LR, REG_PC, REG_SP, ROLE_EVAL, ROLE_JIT, ROLE_OTHER,
                   ROLE_TRAMPOLINE, RULE_FP_PRESERVING, RULE_NAMES, RULE_SCAN,
                   RULE_TRAMPOLINE_FRAMED, RULE_TRAMPOLINE_SUB8, frame_source_string, host_arch,
                   library, load_notes, lookup_address, stop_reason_string, text_escape, version)
from .memory import CoreMemory, Memory, ProcessMemory
from .registry import (GDB_JIT_BATCHED, GDB_JIT_DESCRIPTOR_SYMBOL, GDB_JIT_EACH, GDB_JIT_OFF,
                       GDB_JIT_SHARE_FOREIGN, RangeInfo, Registry, StepError, c_range_label,
                       classify_trampoline, gdb_jit_status, set_gdb_jit, step_range)
from .modules import (DEBUG_DIRS_MAX, DEBUG_ROOT_DEFAULT, Modules, NativeFrame,
                      debug_file_directories, debug_file_find, elf_symbol,
                      set_debug_file_directories, unwind)
from .pyreader import (DwarfTypes, PyDwarfReport, PyExecutor, PyFrame, PyLocation, PyReader,
                       PyThread, dwarf_types_for, locate_core, locate_live, version_supported,
                       version_text)
