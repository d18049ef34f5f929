#!/usr/bin/env python3
"""The constants the Python binding spells out (every upper-case number or
string of jitunwind and jitunwind._ffi) against the C headers, as the C
compiler sees them: each is JITUNWIND_<NAME> (or the name OTHER_NAMES
gives); one the headers lack fails to compile, one that differs is listed.
The binding's name tables (KIND_NAMES, RULE_NAMES, ORIGIN_NAMES) against
the library's own jitunwind_range_*_string.

Usage: test_binding_constants.py REPO_DIR C_COMPILER WORK_DIR LIBRARY
Exit 0 when all match, 1 otherwise."""

import ctypes
import os
import re
import sys

import c_probe

OTHER_NAMES = {"NO_ANCHOR": "JITUNWIND_MIXED_NO_ANCHOR",
               "JIT_DESCRIPTOR_SIZE": "sizeof(struct jitunwind_jit_descriptor)",
               "JIT_DESCRIPTOR_SEQ": "offsetof(struct jitunwind_jit_descriptor, seq)"}


def constants(*modules):
    """[(name, value)] of the upper-case ints and strings each module
    defines itself (not those it imports)."""
    out = []
    for module in modules:
        for name, value in sorted(vars(module).items()):
            if re.fullmatch(r"[A-Z][A-Z0-9_]*", name) and isinstance(value, (int, str)) and \
                    not isinstance(value, bool):
                out.append((name, value))
    return out


def c_program(pairs):
    lines = ["#include <stddef.h>", "#include <stdio.h>", "#include <jitunwind/jitunwind.h>",
             "int main(void)", "{"]
    for name, value in pairs:
        c = OTHER_NAMES.get(name, "JITUNWIND_" + name)
        if isinstance(value, str):
            lines.append('    printf("%s %%s\\n", %s);' % (name, c))
        else:
            lines.append('    printf("%s %%lld\\n", (long long)(%s));' % (name, c))
    return "\n".join(lines + ["    return 0;", "}", ""])


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    repo, cc, work, library = sys.argv[1:]
    sys.path.insert(0, os.path.join(repo, "libjitunwind", "bindings", "python"))
    os.environ["JITUNWIND_LIBRARY"] = library
    import jitunwind
    from jitunwind import _ffi
    pairs = constants(jitunwind, _ffi)
    if len(pairs) < 40:
        print("FAIL: only %d constants found in the binding" % len(pairs))
        return 1
    c_side, errors = c_probe.run(repo, cc, work, "binding_constants", c_program(pairs))
    if c_side is None:
        print("FAIL: a binding constant the headers do not have:\n" + errors)
        return 1
    py_side = "".join("%s %s\n" % (name, value) for name, value in pairs)
    failed = False
    for p, c in zip(py_side.splitlines(), c_side):
        if p != c:
            print("FAIL: binding %-40s C %s" % (p, c))
            failed = True
    lib = jitunwind.library()
    for table, function in ((jitunwind.KIND_NAMES, lib.jitunwind_range_kind_string),
                            (jitunwind.RULE_NAMES, lib.jitunwind_range_rule_string),
                            (jitunwind.ORIGIN_NAMES, lib.jitunwind_range_origin_string)):
        function.restype, function.argtypes = ctypes.c_char_p, [ctypes.c_uint32]
        for value, name in sorted(table.items()):
            said = function(value).decode()
            if said != name:
                print("FAIL: the binding names %d %r, the library %r" % (value, name, said))
                failed = True
    if failed:
        return 1
    print("ok: %d constants match the headers; the range name tables match the library's"
          % len(pairs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
