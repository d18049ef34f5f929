"""The test bed's module (tests/testbed) built for an interpreter other than
the python3.11 CMake builds it for: the extended matrix's 3.12 and 3.13
builds with frame pointers, on which LLDB 19's own unwinder gets through
CPython's C frames (it does not on Debian's python3.11; docs/lldb.md).
The sources, include folders, flags and library come from the recipe CMake
writes beside the module (build/testbed/recipe.json)."""

import json
import os
import shutil
import subprocess


def testbed_for(build, python, work):
    """(folder holding _jitbed for `python` and demo.py, None), or (None, why)."""
    recipe_path = os.path.join(build, "testbed", "recipe.json")
    if not os.path.exists(recipe_path):
        return None, "no %s (the test bed is not built)" % recipe_path
    with open(recipe_path) as f:
        recipe = json.load(f)
    facts = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['include']); "
         "print(sysconfig.get_config_var('EXT_SUFFIX'))"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
    lines = facts.stdout.split()
    if facts.returncode != 0 or len(lines) != 2:
        return None, "%s does not say where its headers are: %s" % (python, facts.stdout[-300:])
    include, suffix = lines
    if not os.path.exists(os.path.join(include, "internal", "pycore_frame.h")):
        return None, "%s has no internal headers (%s/internal/pycore_frame.h)" % (python, include)
    out = os.path.join(work, "testbed-" + os.path.basename(python))
    os.makedirs(out, exist_ok=True)
    module = os.path.join(out, "_jitbed" + suffix)
    library = recipe["library"]
    cmd = ([recipe["cc"], "-std=gnu11", "-O2", "-g", "-fPIC", "-shared", "-I" + include] +
           recipe["c_flags"] + ["-I" + d for d in recipe["includes"]] + recipe["sources"] +
           [library, "-Wl,-rpath," + os.path.dirname(library), "-o", module])
    built = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=300)
    if built.returncode != 0:
        return None, "the test bed does not build for %s:\n%s" % (python, built.stdout[-2000:])
    shutil.copy(recipe["demo"], os.path.join(out, "demo.py"))
    return out, None
