"""A native frame's variable read through the library's own unwinding
(native_variables.h): the debugger gives the innermost frame's registers,
the library carries the registers a call preserves outward by CFI and
evaluates the variable's DWARF location in the frame asked for."""

import ctypes

from . import _ffi
from .base import ARCH_AARCH64, library

REGISTERS_AARCH64 = ["x%d" % n for n in range(29)] + ["fp", "lr", "sp"]
REGISTERS_X86_64 = ["rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp"] + \
    ["r%d" % n for n in range(8, 16)]


def dwarf_register_names(arch):
    """The registers' names by DWARF number (as gdb and LLDB name them)."""
    return REGISTERS_AARCH64 if arch == ARCH_AARCH64 else REGISTERS_X86_64


def _sp_number(arch):
    names = dwarf_register_names(arch)
    return names.index("sp" if arch == ARCH_AARCH64 else "rsp")


def _registers(pc, values):
    regs = _ffi.DwarfRegs()
    regs.pc = pc
    for n, value in values.items():
        if value is not None and 0 <= n < _ffi.DWARF_REGS:
            regs.value[n] = value
            regs.valid |= 1 << n
    return regs


def frame_variable(arch, modules, memory, pc, values, frames, index, name):
    """The value of the pointer-sized variable `name` of frames[index], or
    None. `pc` and `values` ({DWARF number: value}) are the innermost
    frame's registers; `frames` ((pc, sp) of each concrete native frame,
    innermost first, as the walk found them) must be what CFI gives at each
    step (a step another way, through JIT code, loses the registers a call
    preserves)."""
    lib, sp_number = library(), _sp_number(arch)
    regs = _registers(pc, values)
    for j in range(index + 1):
        caller = _ffi.DwarfRegs()
        if lib.jitunwind_step_cfi_registers(arch, modules._handle, memory.ref(),
                                            ctypes.byref(regs), int(j == 0),
                                            ctypes.byref(caller)) < 0:
            return None
        if j == index:
            break
        want_pc, want_sp = frames[j + 1]
        if caller.pc != want_pc or caller.value[sp_number] != want_sp:
            return None
        regs = caller
    value = ctypes.c_uint64()
    rc = lib.jitunwind_native_variable(arch, modules._handle, memory.ref(), ctypes.byref(regs),
                                       int(index == 0), caller.value[sp_number], name.encode(),
                                       ctypes.byref(value))
    return value.value if rc == 0 else None
