#!/usr/bin/env python3
"""Every ctypes structure of the Python binding (jitunwind/_ffi.py) against
the C headers: its size, and each field's offset and width, as the C
compiler sees them. The C side is a program generated from the ctypes
fields (a field the header lacks fails to compile; one the binding lacks
changes the size), built with the project's compiler and run.

Usage: test_binding_layout.py REPO_DIR C_COMPILER WORK_DIR
Exit 0 when every structure matches, 1 otherwise."""

import ctypes
import os
import sys

import c_probe

# ctypes class in _ffi.py -> the struct it mirrors.
C_NAMES = {
    "Memory": "jitunwind_memory", "Error": "jitunwind_error", "Range": "jitunwind_range",
    "Regs": "jitunwind_regs", "Frame": "jitunwind_frame", "JitReadInfo": "jitunwind_jit_read_info",
    "PyLocation": "jitunwind_py_location", "PyThread": "jitunwind_py_thread",
    "PyFrame": "jitunwind_py_frame", "PyDwarfReport": "jitunwind_py_dwarf_report",
    "PyExecutor": "jitunwind_py_executor", "Mapping": "jitunwind_mapping",
    "ModuleInfo": "jitunwind_module_info", "MixedItem": "jitunwind_mixed_item",
    "PyReprOptions": "jitunwind_py_repr_options", "PyVariable": "jitunwind_py_variable",
    "PyCFunction": "jitunwind_py_cfunction",
    "PyCodeRange": "jitunwind_py_code_range", "PyReaderOpts": "jitunwind_pyreader_opts",
}
C_NAMES.update({  # the JIT view (python_jit.h)
    "ElfImageInfo": "jitunwind_elf_image_info", "GdbJitStatus": "jitunwind_gdb_jit_status",
    "PyUop": "jitunwind_py_uop", "PyJitExit": "jitunwind_py_jit_exit",
    "PyExecutorDetail": "jitunwind_py_executor_detail", "PyJitPc": "jitunwind_py_jit_pc",
})
C_NAMES.update({  # the incremental mixer (mixed.h)
    "MixerOptions": "jitunwind_mixer_options", "MixerNative": "jitunwind_mixer_native",
})
C_NAMES.update({  # a native frame's variables (native_variables.h)
    "DwarfRegs": "jitunwind_dwarf_regs",
})


def structures(ffi):
    """The binding's structures with fields (a base without `_fields_`
    mirrors no struct)."""
    return {name: cls for name, cls in vars(ffi).items()
            if isinstance(cls, type) and issubclass(cls, ctypes.Structure)
            and cls.__module__ == ffi.__name__ and "_fields_" in vars(cls)}


def c_program(classes):
    lines = ["#include <stddef.h>", "#include <stdio.h>", "#include <jitunwind/jitunwind.h>",
             "#define MEMBER_SIZE(t, m) sizeof(((t *)0)->m)", "int main(void)", "{"]
    for name, cls in sorted(classes.items()):
        c = "struct %s" % C_NAMES[name]
        lines.append('    printf("%s size %%zu\\n", sizeof(%s));' % (name, c))
        for field in cls._fields_:
            lines.append('    printf("%s %s %%zu %%zu\\n", offsetof(%s, %s), MEMBER_SIZE(%s, %s));'
                         % (name, field[0], c, field[0], c, field[0]))
    return "\n".join(lines + ["    return 0;", "}", ""])


def python_side(classes):
    out = []
    for name, cls in sorted(classes.items()):
        out.append("%s size %d" % (name, ctypes.sizeof(cls)))
        for field in cls._fields_:
            desc = getattr(cls, field[0])
            out.append("%s %s %d %d" % (name, field[0], desc.offset, desc.size))
    return out


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    repo, cc, work = sys.argv[1:]
    sys.path.insert(0, os.path.join(repo, "libjitunwind", "bindings", "python"))
    from jitunwind import _ffi
    classes = structures(_ffi)
    unmapped = sorted(set(classes) - set(C_NAMES))
    if unmapped:
        print("FAIL: ctypes structures with no C struct named in this test: %s" % unmapped)
        return 1
    c_side, errors = c_probe.run(repo, cc, work, "binding_layout", c_program(classes))
    if c_side is None:
        print("FAIL: a ctypes field the headers do not have:\n" + errors)
        return 1
    py_side = python_side(classes)
    bad = [(p, c) for p, c in zip(py_side, c_side) if p != c]
    for p, c in bad:
        print("FAIL: binding %-45s C %s" % (p, c))
    if bad:
        return 1
    print("ok: %d structures, %d fields: sizes, offsets and widths match the headers"
          % (len(classes), len(py_side) - len(classes)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
